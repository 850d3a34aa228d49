"""A model of Anthropic's prompt cache, for pricing recorded requests (``python -m bench.cost``).

What is modelled, from the provider's documentation (prompt caching:
https://platform.claude.com/docs/en/build-with-claude/prompt-caching, "How prompt caching works", "Cache
limitations", "Pricing"; prices: https://platform.claude.com/docs/en/about-claude/pricing, "Model pricing"):

- A request is a sequence of blocks in the order tools → system → messages. A block marked ``cache_control`` is a
  *breakpoint*: the prefix up to and including it is written to the cache (if no entry holds it yet) and can be
  read by a later request whose prefix is byte-identical up to that point. At most 4 breakpoints per request (a
  fifth is refused: :class:`TooManyBreakpoints`).
- At each breakpoint the provider looks for an entry at that block boundary and, failing that, at the earlier
  boundaries up to 20 blocks back; the longest prefix found is read.
- A prefix shorter than the model's minimum cacheable length (tokens) is not cached, silently.
- An entry lives 5 minutes from its last use; a read refreshes it.
- Changing ``tool_choice`` or the thinking setting invalidates the cached message blocks (tools and system stay):
  message blocks are keyed with both.
- Prices: a 5-minute write costs 1.25× the model's input price, a read 0.1×, the rest 1×.

Not modelled: the 1-hour lifetime, images, concurrent requests racing to write one entry (an entry is readable from
``visible_at``, which the caller sets to the writer's start plus its time to first token).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

TTL_SECONDS = 300.0
LOOKBACK_BLOCKS = 20
MAX_BREAKPOINTS = 4
WRITE_PRICE = 1.25
READ_PRICE = 0.1


class TooManyBreakpoints(ValueError):
    """A request with more than :data:`MAX_BREAKPOINTS` breakpoints (the provider refuses it with HTTP 400)."""


@dataclass(frozen=True)
class Block:
    """One block of a request: ``key`` identifies its content (and, for message blocks, the tool choice and thinking
    setting), ``tokens`` its length, ``breakpoint`` whether it carries ``cache_control``."""

    key: str
    tokens: int
    breakpoint: bool = False


@dataclass(frozen=True)
class Usage:
    """Input tokens of one request by price: ``read`` from cache, ``written`` to it, ``uncached`` the rest."""

    read: int
    written: int
    uncached: int

    @property
    def total(self) -> int:
        return self.read + self.written + self.uncached

    def input_units(self) -> float:
        """Input cost in units of the input price per token: uncached + 1.25 written + 0.1 read."""
        return self.uncached + WRITE_PRICE * self.written + READ_PRICE * self.read


@dataclass
class _Entry:
    visible_at: float
    last_used: float


class PromptCache:
    """The provider's cache for one organisation: entries keyed by (model, prefix)."""

    def __init__(self, ttl: float = TTL_SECONDS, lookback: int = LOOKBACK_BLOCKS) -> None:
        self.ttl, self.lookback = ttl, lookback
        self._entries: dict[str, _Entry] = {}

    def send(self, model: str, blocks: Sequence[Block], *, at: float, min_tokens: int, trailing: int = 0,
             visible_at: float | None = None) -> Usage:
        """Price one request sent at ``at`` seconds; its new entries are readable from ``visible_at`` (default
        ``at``). ``trailing`` tokens follow the last block and are never cached (the provider's turn framing).

        Raises:
            TooManyBreakpoints: more than 4 breakpoints.
        """
        marks = [i for i, b in enumerate(blocks) if b.breakpoint]
        if len(marks) > MAX_BREAKPOINTS:
            raise TooManyBreakpoints(f"{len(marks)} cache breakpoints (at most {MAX_BREAKPOINTS})")
        prefixes, cum, h, n = [], [], hashlib.sha256(model.encode()), 0
        for b in blocks:
            h.update(b.key.encode())
            prefixes.append(h.copy().hexdigest())
            n += b.tokens
            cum.append(n)
        total = n + trailing
        read_at = -1
        for m in marks:
            for j in range(m, max(-1, m - self.lookback), -1):
                if j > read_at and self._live(prefixes[j], at):
                    read_at = j
                    break
        if read_at >= 0:
            self._entries[prefixes[read_at]].last_used = at
        read = cum[read_at] if read_at >= 0 else 0
        written_to = read
        for m in marks:
            if m > read_at and cum[m] >= min_tokens:
                entry = self._entries.get(prefixes[m])
                if entry is None or not self._live(prefixes[m], at, visible=False):
                    self._entries[prefixes[m]] = _Entry(visible_at if visible_at is not None else at, at)
                else:
                    entry.last_used = at
                written_to = max(written_to, cum[m])
        written = written_to - read
        return Usage(read=read, written=written, uncached=total - read - written)

    def _live(self, key: str, at: float, *, visible: bool = True) -> bool:
        entry = self._entries.get(key)
        if entry is None or at - entry.last_used > self.ttl:
            return False
        return not visible or entry.visible_at <= at
