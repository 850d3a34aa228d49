"""Realistic call sizes for budget admission: how long an agent mode's answers really are (design.md#budget).

Admission used to hold every call at its upper bound (the full ``max_output_tokens``, thinking included), about
20x what a call really costs, so the second concurrent call of an agent found its share "used" by a reservation.
The gateway now reserves an *expected* output length per ``agent.mode``:

- before any answer of that mode was seen, a documented prior: ``PRIOR_OUTPUT_SHARE`` of ``max_output_tokens``
  (the same figure the pre-flight estimate, :mod:`cosci.llm.gateway.estimate`, uses);
- afterwards, the longest of the last ``WINDOW`` answers of that mode in this session times ``HEADROOM``,
  never above ``max_output_tokens``.

Input tokens are expected at ``EXPECTED_CHARS_PER_TOKEN`` characters per token (English prose runs at about
four characters per token with current tokenizers — OpenAI's and Anthropic's published rule of thumb); the
upper bound the session cap uses stays at three (:data:`CHARS_PER_TOKEN_BOUND`).
"""

from __future__ import annotations

import math
import threading
from collections import deque
from collections.abc import Iterable

PRIOR_OUTPUT_SHARE = 0.35
"""Share of ``max_output_tokens`` expected before a mode's first answer (cosci's planning figure)."""
HEADROOM = 1.25
"""Expected output = longest recent answer x this factor (a longer answer is settled at its actual cost)."""
WINDOW = 50
"""Recent answers per mode the expectation is taken over."""
CHARS_PER_TOKEN_BOUND = 3
"""Admission estimates assume at least 3 characters per input token, an upper bound for English prose
(design.md#budget)."""
EXPECTED_CHARS_PER_TOKEN = 4


class OutputSizer:
    """Expected output tokens per ``agent.mode``, learned from the session's own answers (thread-safe)."""

    def __init__(self) -> None:
        self._seen: dict[str, deque[int]] = {}
        self._lock = threading.Lock()

    def expected(self, key: str, max_output_tokens: int, typical: int | None = None) -> int:
        """Expected output tokens of the next call of ``key`` (``agent.mode``), at most ``max_output_tokens``.

        Args:
            typical: the tier's ``typical_output_tokens``, the prior before an answer of ``key`` was seen.
        """
        with self._lock:
            seen = self._seen.get(key)
            if not seen:
                return min(max_output_tokens, prior_output_tokens(max_output_tokens, typical))
            return max(1, min(max_output_tokens, math.ceil(max(seen) * HEADROOM)))

    def observe(self, key: str, output_tokens: int) -> None:
        """Record the output tokens (thinking included) of one answered call."""
        with self._lock:
            self._seen.setdefault(key, deque(maxlen=WINDOW)).append(max(int(output_tokens), 0))

    def restore(self, answers: Iterable[tuple[str, int]]) -> None:
        """Learn from a resumed session's transcripts: ``(agent.mode, output_tokens)`` in call order."""
        for key, tokens in answers:
            self.observe(key, tokens)


def prior_output_tokens(max_output_tokens: int, typical: int | None = None) -> int:
    """Answer length expected before any was seen: the tier's ``typical_output_tokens`` if set, else
    ``PRIOR_OUTPUT_SHARE`` of ``max_output_tokens``."""
    return typical if typical is not None else max(1, math.ceil(max_output_tokens * PRIOR_OUTPUT_SHARE))


def expected_input_tokens(input_chars: int) -> int:
    """Expected prompt tokens for ``input_chars`` characters of prompt."""
    return input_chars // EXPECTED_CHARS_PER_TOKEN + 1
