"""Drafts for speculative decoding by prompt lookup (design.md#local-drafts).

A generated token costs llama.cpp one decode of a batch of one (~13 ms on the demo's machine), while a batch of a few
tokens costs little more than one: the weights are read once for all of them. The embedded model's answers copy
names and phrases from their prompts (a hypothesis's title in its review, a parent's mechanism in an evolution), so
the tokens that follow the last few generated ones are often the tokens that followed the same ones earlier in the
prompt or the answer. :class:`PromptLookup` proposes those (the draft); the model evaluates the last drawn token and
the draft in one batch with logits at every position, and the sampler draws at each position in turn, keeping a
drafted token only while the drawn one equals it (``PromptStateLlama.eval``, ``generate``). Each token is drawn with
the same sampler, grammar, penalties and seeded generator, from the logits at its position, so the draws follow the
model's distribution. They are not the draws made token by token, though: llama.cpp's logits for a batch of one
differ from a longer batch's (by up to ~1 on the demo's prompts, while batches of 2 to 60 tokens give the same logits
bit for bit), so the answers drift apart after the first draft (bench/README.md, "The fifteenth stop"). A wrong draft
costs the batch's extra rows, each with the output layer (49,152 logits).

Plain numpy; no ``llama_cpp`` import.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

NGRAMS = (3, 2)
"""Lengths of the tail looked up, longest first: the last 3 tokens, else the last 2. One token alone matches almost
anywhere in a JSON answer (a quote, a comma) and its continuation is rarely the one drawn."""


class PromptLookup:
    """llama-cpp-python's draft-model protocol (``__call__(input_ids) -> draft``) answered from the context itself.

    Args:
        max_tokens: tokens proposed at most per draft (``models.local.draft_tokens``), > 0.

    Attributes:
        drafted: the length of the last draft returned (0 when none), for the model's ``eval`` to give that batch
            logits at every position; set back to 0 by the model once used.
    """

    def __init__(self, max_tokens: int) -> None:
        if max_tokens <= 0:
            raise ValueError(f"max_tokens must be > 0, not {max_tokens}")
        self.max_tokens = max_tokens
        self.drafted = 0

    def propose(self, ids: npt.NDArray[np.intc]) -> npt.NDArray[np.intc]:
        """The tokens that followed the latest earlier occurrence of the context's last :data:`NGRAMS` tokens.

        Args:
            ids: ``(n,)`` the context's token ids (prompt, then what was generated), the last one just drawn.

        Returns:
            ``(k,)`` intc, ``0 <= k <= max_tokens``: empty when no tail of :data:`NGRAMS`'s lengths occurred before
            with a token after it.
        """
        n = len(ids)
        for size in NGRAMS:
            if n <= size:
                continue
            tail = ids[n - size:]
            windows = np.lib.stride_tricks.sliding_window_view(ids[: n - 1], size)
            hits = np.flatnonzero((windows == tail).all(axis=1))
            if hits.size:
                start = int(hits[-1]) + size
                return np.asarray(ids[start: start + self.max_tokens], dtype=np.intc)
        return np.empty(0, dtype=np.intc)

    def __call__(self, input_ids: npt.NDArray[np.intc]) -> npt.NDArray[np.intc]:
        draft = self.propose(np.asarray(input_ids))
        self.drafted = len(draft)
        return draft
