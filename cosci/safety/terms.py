"""A compiled term list: one list of patterns from the term file, scanned with a guard (RE2, then one alternation)
so a text none of them matches is not scanned pattern by pattern, and the names whose misspellings also match. Split
from :mod:`cosci.safety.prescreen`, which loads the lists (docs/design.md#supervisor, "The screen's term lists").
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from typing import Any

from cosci.safety.guard import fast_guard, finds_nothing
from cosci.safety.misspelling import reads_as_one_of
from cosci.safety.text import Span

_WORD = re.compile(r"[a-z][a-z0-9'-]*")
RECENT_TEXTS = 256
"""Texts whose spans each term list keeps (:attr:`Terms._recent`; a hypothesis's screen scans about 25 distinct
windows per list; the texts of one screen are what repeat)."""
_REFERENCES = re.compile(r"\\[1-9]|\(\?P[<=]|\(\?[aiLmsux-]*\)")
"""What keeps a pattern out of one alternation with the others: a group reference, a named group (their numbers
and names would clash) or a global inline flag (allowed only at the start of a whole pattern)."""


def _alternation(patterns: list[re.Pattern[str]]) -> re.Pattern[str] | None:
    """One pattern matching wherever any of ``patterns`` does (all compiled with the same flags), or None when
    they cannot be joined (:data:`_REFERENCES`, mixed flags, none at all).

    A guard, not a replacement: a text it finds nothing in has no match of any pattern (docs/design.md#supervisor,
    "The screen's term lists"); a text it finds something in is scanned pattern by pattern, overlaps kept."""
    if not patterns or len({p.flags for p in patterns}) > 1 or any(_REFERENCES.search(p.pattern) for p in patterns):
        return None
    try:
        return re.compile("|".join(f"(?:{p.pattern})" for p in patterns), patterns[0].flags)
    except re.error:
        return None


@dataclass(frozen=True)
class Terms:
    """One list of patterns, with the plain names (by first letter) whose misspellings also match."""

    patterns: list[re.Pattern[str]]
    names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    any_of: re.Pattern[str] | None = field(default=None, init=False, compare=False, repr=False)
    fast: Any = field(default=None, init=False, compare=False, repr=False)
    """:func:`~cosci.safety.guard.fast_guard` (RE2), then :attr:`any_of` (:func:`_alternation`): a text either finds
    nothing in is not scanned pattern by pattern."""
    _recent: dict[str, tuple[Span, ...]] = field(default_factory=dict, init=False, compare=False, repr=False)
    """The spans of the last texts scanned (at most :data:`RECENT_TEXTS`): one screen asks about a window 2-4 times."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "any_of", _alternation(self.patterns))
        object.__setattr__(self, "fast", fast_guard(self.patterns))

    def spans(self, text: str) -> list[Span]:
        """Every match in ``text`` (normalised): pattern matches, then misspelled names, in text order."""
        if (known := self._recent.get(text)) is None:
            if len(self._recent) >= RECENT_TEXTS:  # the oldest goes: a screen under way keeps its windows
                with contextlib.suppress(RuntimeError, KeyError, StopIteration):  # another thread changed it
                    del self._recent[next(iter(self._recent))]
            known = self._recent[text] = tuple(self._scan(text))
        return list(known)

    def _scan(self, text: str) -> list[Span]:
        nothing = self.fast is not None and finds_nothing(self.fast, text)
        found: list[Span] = [] if nothing or (self.any_of is not None and not self.any_of.search(text)) else [
            (" ".join(m.group(0).split()), m.start(), m.end()) for p in self.patterns for m in p.finditer(text)]
        for m in _WORD.finditer(text) if self.names else ():
            token = m.group(0)
            if reads_as_one_of(self.names.get(token[0], ()), token):
                found.append((token, m.start(), m.end()))
        return sorted(found, key=lambda f: (f[1], -f[2]))

    def first(self, text: str) -> Span | None:
        """The first match in ``text`` (normalised), if any."""
        spans = self.spans(text)
        return spans[0] if spans else None


