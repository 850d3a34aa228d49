"""What an ellipsis leaves out of a quote, checked like the quote itself (``docs/design.md#excerpt-verification``).

:mod:`cosci.grounding.excerpts` locates an excerpt's parts in the source; the source tokens between two parts are
the *gap*. A gap of any length makes the excerpt ``misquoted`` when it holds:

- a **negation** (:func:`~cosci.grounding.tokens.negating`: ``not``, ``no``, ``never``, ``without``, ``failed``,
  ``lack``, ``absence``, ``neither``/``nor``, ``unable``, ``n't`` forms, ``nonsignificant``, ``unchanged``...),
  wherever it is and whatever the kept words hold: a ``not`` kept elsewhere does not restore the one left out
  (``not only`` included: a negation is never excused);
- a **hedge** (:data:`~cosci.grounding.tokens.HEDGE`: ``may``, ``might``, ``could``, ``suggest``, ``possibly``,
  ``preliminary``...) or a **contrast** marker (:data:`~cosci.grounding.tokens.CONTRAST`: ``but``, ``although``,
  ``whereas``...; ``but also`` is none) that the kept words do not hold;
- a **number** that qualifies the claim (a dose, a share, a size, a duration, a threshold: ``by 40 %``,
  ``at 0.5 uM``, ``in 12 of 40 patients``) that the kept words do not hold. Not a number of that kind: one inside
  brackets or parentheses (statistics, sample sizes, citations: ``(P < 0.001)``, ``(n = 45)``, ``(Smith, 2019)``),
  a superscript citation marker, or part of a name (``CD34``, ``IL-6``, ``COVID-19``, ``5-fluorouracil``).

An ellipsis mark that opens or closes the quote skips the rest of its sentence: the words from the sentence's
start to the first part (``... in overall survival was found`` where the source has ``No significant difference
in overall survival was found``), or from the last part to the sentence's end, are a gap like any other
(:func:`sentence_span`).

Two more ways to drop meaning with a cut are refused here: a gap that joins the start of one sentence to the end
of another (a *splice*; whole sentences may be left out), and a quote whose first words follow, in the same
sentence, a negation or a hedge that governs them (``did not`` | ``increase survival``, ``potentially`` |
``incomplete reporting``).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from cosci.grounding.tokens import CONTRAST, HEDGE, UNITS, Token, negating, prepare

INNER_MARK = "\ue001"
"""Stands for a hyphen inside a word in :attr:`Layout.marked` (same offsets as the tokens')."""
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREVIATION = re.compile(r"(?:\bet al|\be\.g|\bi\.e|\bFigs?|\bvs|\bNo|\bapprox|\bca|\bcf|\bDr|\bRef|\bEq|\bspp?|"
                           r"\bSt|\bMr|\bMrs|\bProf|\bresp|\b[Rr]efs?|\bvol|\bpp?|\bInc|\bLtd|\bCo|\b[A-Z])\.$")
_GOVERNING_HEDGES = frozenset({"may", "might", "could", "potentially", "possibly", "probably", "likely", "perhaps",
                               "presumably", "putative", "putatively", "apparently", "tentatively", "conceivably",
                               "plausibly", "partially", "partly", "marginally"})
"""Hedges that govern the word right after them: modals and hedging adverbs (``potentially | incomplete``)."""
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_DATE_WORDS = frozenset({"in", "since", "until", "from", "during", "before", "after", "between", "and", "of", "to",
                         "by"})
_PREFIXES = frozenset({"non", "un", "in", "im", "ir"})
PRIORITY = ("negation", "hedge", "number", "contrast")


@dataclass(frozen=True)
class Layout:
    """The source's punctuation the tokens lose: bracketed spans and sentence ends, as offsets of the prepared
    text (:func:`~cosci.grounding.tokens.prepare`), and the text with inner hyphens marked."""

    marked: str
    brackets: tuple[tuple[int, int], ...]
    sentence_ends: tuple[int, ...]

    def bracketed(self, t: Token) -> bool:
        return any(a < t.start < b for a, b in self.brackets)

    def ends_between(self, start: int, end: int) -> list[int]:
        """Sentence ends at offsets in ``[start, end)``."""
        lo, hi = bisect.bisect_left(self.sentence_ends, start), bisect.bisect_left(self.sentence_ends, end)
        return list(self.sentence_ends[lo:hi])


def layout(text: str) -> Layout:
    """The :class:`Layout` of a source text."""
    marked = prepare(text, INNER_MARK)
    spans, stack = [], []
    for i, ch in enumerate(marked):
        if ch in "([":
            stack.append(i)
        elif ch in ")]" and stack:
            spans.append((stack.pop(), i))
    ends = tuple(m.start() for m in _SENTENCE_END.finditer(marked)
                 if not _ABBREVIATION.search(marked[max(0, m.start() - 12):m.start()]))
    return Layout(marked, tuple(spans), ends)


def _quantity(i: int, gap: list[Token], source: list[Token], at: int, lay: Layout) -> bool:
    """Whether ``gap[i]`` is a number that qualifies a claim (see module docstring); ``at``: its index in source."""
    t = gap[i]
    glue = lay.marked[max(0, t.start - 2):t.start]
    if (t.superscript or not t.key[:1].isdigit() or lay.bracketed(t) or glue[-1:] in (")", "]")
            or (glue[-1:] == "." and glue[:1].isalnum()) or (glue[-1:] == "," and glue[:1].isdigit())):
        return False  # statistics, citations (strengthening4,5), part of a formula: Ti(OiPr)4, Nd0.8Sr0.2NiO2
    if _YEAR.match(t.key) and at > 0 and source[at - 1].key in _DATE_WORDS:
        return False  # in 1986
    joined_before = t.start > 0 and lay.marked[t.start - 1] == INNER_MARK
    nxt = source[at + 1] if at + 1 < len(source) else None
    joined_after = nxt is not None and lay.marked[t.end:nxt.start] == INNER_MARK
    if joined_before and not lay.marked[t.start - 2:t.start - 1].isdigit():
        return False  # IL-6, COVID-19
    return not (joined_after and nxt is not None and nxt.key[:1].isalpha() and nxt.key not in UNITS)  # 5-fluoro


def _idiom(i: int, gap: list[Token], source: list[Token], at: int) -> bool:
    """``but also`` (after ``not only``): no contrast. The ``not`` of ``not only`` still counts as a negation:
    a negation is never excused."""
    k = gap[i].key
    after = source[at + 1].key if at + 1 < len(source) else ""
    before = source[at - 1].key if at > 0 else ""
    return (k == "but" and after == "also") or (k == "only" and before == "not")


def _negation(at: int, end: int, source: list[Token], lay: Layout) -> bool:
    """Whether ``source[at]`` negates: a negating word, or a prefix written apart (``non-significant``) that
    negates its word, or that the gap ending at ``end`` cuts from a kept word (``non-`` | ``responders``)."""
    t = source[at]
    nxt = source[at + 1] if at + 1 < len(source) else None
    if t.key in _PREFIXES and nxt is not None and lay.marked[t.end:nxt.start] == INNER_MARK:
        return at + 1 >= end or negating(t.key + nxt.key)
    return negating(t.key)


def _month(at: int, source: list[Token], lay: Layout) -> bool:
    """``May`` written with a capital inside a sentence: the month, not the hedge."""
    return (source[at].raw == "May" and at > 0
            and not lay.ends_between(source[at - 1].end, source[at].start))


def skipped_meaning(source: list[Token], first: int, end: int, kept: set[str],
                    lay: Layout) -> tuple[str, list[Token]] | None:
    """``(class, tokens)`` of the most meaning-bearing class the gap ``source[first:end]`` holds (module
    docstring), or None when leaving it out changes no claim. ``kept``: the token keys of the excerpt."""
    gap = source[first:end]
    found: dict[str, list[Token]] = {c: [] for c in PRIORITY}
    for i, t in enumerate(gap):
        at = first + i
        if _idiom(i, gap, source, at):
            continue
        if _negation(at, end, source, lay):
            found["negation"].append(t)
        elif t.key in HEDGE and t.key not in kept and not _month(at, source, lay):
            found["hedge"].append(t)
        elif t.key in CONTRAST and t.key not in kept:
            found["contrast"].append(t)
        elif t.key not in kept and _quantity(i, gap, source, at, lay):
            found["number"].append(t)
    return next(((c, found[c]) for c in PRIORITY if found[c]), None)


def sentence_span(source: list[Token], at: int, lay: Layout) -> tuple[int, int]:
    """``(start, stop)``: the token indices of the sentence holding ``source[at]`` (``stop`` exclusive)."""
    starts = [t.start for t in source]
    before = lay.ends_between(0, source[at].start + 1)
    after = lay.ends_between(source[at].end, len(lay.marked) + 1)
    start = bisect.bisect_left(starts, before[-1]) if before else 0
    stop = bisect.bisect_left(starts, after[0]) if after else len(source)
    return start, stop


def splices(source: list[Token], prev_end: int, first: int, lay: Layout) -> bool:
    """Whether the gap between the part ending at token ``prev_end`` and the part starting at token ``first``
    crosses a sentence end without leaving out whole sentences."""
    if prev_end <= 0 or first >= len(source):
        return False
    a, b = source[prev_end - 1].end, source[first].start
    ends = lay.ends_between(a, b)
    if not ends:
        return False
    before_whole = not lay.marked[a:ends[0]].strip(" .!?\"')]")
    after_whole = first == 0 or bool(lay.ends_between(source[first - 1].end, b))
    return not (before_whole and after_whole)


def governed_start(source: list[Token], first: int, lay: Layout) -> Token | None:
    """The negation (within two words) or hedge (the word before, :data:`_GOVERNING_HEDGES`) of the same sentence
    that the quote starting at token ``first`` cuts off (``did not`` before ``increase survival``), else None."""
    for back in (1, 2):
        at = first - back
        if at < 0 or lay.ends_between(source[at].end, source[first].start):
            return None
        t = source[at]
        not_only = t.key == "not" and source[at + 1].key == "only"
        if (negating(t.key) and not not_only) or (back == 1 and t.key in _GOVERNING_HEDGES):
            return t
    return None
