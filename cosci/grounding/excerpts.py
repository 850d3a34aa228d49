"""Is an excerpt really in the text its source returned? A quote is *verified* only when it says what the
source says, word for word, up to presentation (``docs/design.md#excerpt-verification``).

Rules, in order:

1. Both texts become tokens (:mod:`cosci.grounding.tokens`): Unicode forms, case, quotes, whitespace,
   hyphenation, ligatures, British/American spelling, numeric citation brackets and superscript citation
   markers stop mattering there. A trailing citation marker of the excerpt (``[12]``, ``(3)``,
   ``(Smith et al., 2020)``) is removed.
2. An excerpt of fewer than :data:`MIN_WORDS` words is never verified: a short "quote" proves nothing.
3. The excerpt is split at each ellipsis (``...``, ``…``, ``[...]``); the parts are located in order, the first
   (of at least :data:`MIN_PART_WORDS` words) anywhere in the source, each next one within :data:`MAX_SKIP`
   tokens of the one before: rapidfuzz's ``partial_ratio_alignment`` over token strings (one character per
   distinct token) finds the best window, the nearby window with the fewest token edits is kept, and
   rapidfuzz's Levenshtein opcodes align the part's tokens with it. Compounds are first split or joined as
   the source writes them (``nearestneighbour`` / ``nearest-neighbour``).
4. Every difference between a part and its window must be harmless: an article added or left out (``the``,
   ``an``, a lower-case ``a``), a superscript marker the excerpt leaves out, or tokens that are equal once
   joined (``anti tumour`` / ``antitumour``; digits join only as thousands, ``10 000`` = ``10000``). Any other
   difference — a number, unit, sign, negation, direction word, hedge, named entity or any other word changed,
   added or dropped — means *not verified*, whatever the character score; the difference is named by the
   class of the tokens involved (:func:`~cosci.grounding.tokens.token_class`).
5. The text an ellipsis skips lies between consecutive parts, at most :data:`MAX_SKIP` tokens, and is checked
   like the excerpt itself (:mod:`cosci.grounding.gaps`): a gap of any length holding a negation, or a hedge,
   a qualifying number or a contrast marker the kept words do not hold, is a changed claim (``did not ...
   reduce``); so is a gap joining two sentences' halves, and a quote that starts just after a negation or a
   hedge governing its first words. An ellipsis mark opening (closing) the excerpt skips the words from
   its sentence's start to the first part (from the last part to the sentence's end): that gap is checked the
   same way. The verdict names the class left out (``skipped``).

There is no edit-distance tolerance for words: a one-letter difference is often a different entity
(``nitrite``/``nitrate``, ``ethanol``/``methanol``, ``alkane``/``alkene``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from cosci.grounding.gaps import Layout, governed_start, layout, sentence_span, skipped_meaning, splices
from cosci.grounding.tokens import Token, ignorable, negating, normalise, spelling, token_class, tokenize, words

MIN_WORDS = 4
"""Fewer words than this never verify."""
MIN_PART_WORDS = 2
"""Words the part before the first ellipsis needs (a lone word could be anywhere in the source)."""
MAX_SKIP = 60
"""Tokens an ellipsis may skip between two parts."""
OTHER_OCCURRENCES = 3
"""Later occurrences of an ellipsis excerpt's first part tried when the rest does not follow the first one."""
ABSENT_SCORE = 60.0
"""Token-alignment score (0-100) under which a part is reported as not in the source at all."""
PRIORITY = ("number", "sign", "unit", "negation", "direction", "hedge", "contrast", "entity", "wording")

_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\.\s*){3}\]|\[\s*…\s*\]|\(\s*(?:\.\s*){3}\)|\(\s*…\s*\)|(?:\.\s*){3}|…)\s*")
_AUTHOR = r"[A-Z][\w'’-]+(?:\s[A-Z][\w'’-]+)?(?:\set\sal\.?|\s(?:and|&)\s[A-Z][\w'’-]+)?,?\s\d{4}[a-z]?"
_TRAILING_CITE = re.compile(rf"\s*(?:\[[\d\s,;\u2013-]+\]|\([\d\s,;\u2013-]+\)|\({_AUTHOR}(?:;\s*{_AUTHOR})*\)|"
                            r"[\u00b9\u00b2\u00b3\u2070-\u2079]+)\s*[.;,]?\s*$")


@dataclass(frozen=True)
class ExcerptMatch:
    """The verdict on one excerpt: ``verified``, a 0-100 alignment ``score``, and for a failure its ``kind``
    (``short``, ``absent``, ``skip`` or a token class: ``number``, ``negation``...) and a one-line ``reason``; for
    ``skip``, ``skipped`` names what was left out (``negation``, ``hedge``, ``number``, ``contrast``, ``splice``,
    ``length``)."""

    verified: bool
    score: float
    kind: str = ""
    reason: str = ""
    skipped: str = ""


def _encode(tokens: list[Token], codes: dict[str, str]) -> str:
    out = []
    for t in tokens:
        if t.key not in codes:
            n = len(codes)
            codes[t.key] = chr(0xE000 + n) if n < 6400 else chr(0xF0000 + n - 6400)
        out.append(codes[t.key])
    return "".join(out)


def _joined_equal(a: list[Token], b: list[Token]) -> bool:
    """Tokens equal once joined, without letting two numbers merge (except as thousands: ``10 000``)."""
    if "".join(t.key.lstrip("^") for t in a) != "".join(t.key.lstrip("^") for t in b):
        return False
    for side in (a, b):
        for x, y in itertools.pairwise(side):
            if x.key[-1:].isdigit() and y.key.lstrip("^")[:1].isdigit() and not re.fullmatch(r"\d{3}", y.key):
                return False
    return True


def _harmless(part: list[Token], window: list[Token], before: Token | None) -> bool:
    a = [t for t in part if not ignorable(t)]
    b = [t for i, t in enumerate(window) if not ignorable(t) and not (
        t.superscript and ((window[i - 1] if i else before) is not None))]
    return [t.key for t in a] == [t.key for t in b] or _joined_equal(a, b)


def _differs(part: list[Token], window: list[Token], vocabulary: frozenset[str]) -> tuple[str, str]:
    """``(kind, reason)`` for a harmful difference between the tokens of a part and of its window."""
    ours, theirs = [t.key for t in part], [t.key for t in window]
    extra = [t for t in part if t.key not in theirs and not ignorable(t)]
    missing = [t for t in window if t.key not in ours and not ignorable(t)]
    classes = {token_class(t, vocabulary) for t in extra + missing} or {"wording"}
    kind = next(k for k in PRIORITY if k in classes)
    src = " ".join(t.raw for t in window) or "nothing"
    exc = " ".join(t.raw for t in part) or "nothing"
    return kind, f"{kind}: the source has '{src}', the excerpt '{exc}'"


def _locate(part: list[Token], text: list[Token], start: int, stop: int) -> tuple[int, int, float]:
    """``(first, end, score)``: the window of ``text[start:stop]`` best aligned with ``part``, token indices."""
    codes: dict[str, str] = {}
    p, t = _encode(part, codes), _encode(text[start:stop], codes)
    if not t:
        return start, start, 0.0
    if len(p) >= len(t):
        return start, stop, float(fuzz.ratio(p, t))
    al = fuzz.partial_ratio_alignment(p, t)
    if al is None:  # only with a score cutoff, which is not given
        return start, start, 0.0
    return start + al.dest_start, start + al.dest_end, float(al.score)


def _best_window(p: str, t: str, first: int, end: int, margin: int) -> tuple[int, int]:
    """The window near ``t[first:end]`` with the fewest token edits to ``p`` (ties: the length nearest ``p``'s)."""
    best = (Levenshtein.distance(p, t[first:end]), abs(end - first - len(p)), first, end)
    for a in range(max(0, first - margin), min(len(t), first + margin) + 1):
        for b in range(max(a + 1, end - margin), min(len(t), end + margin) + 1):
            cand = (Levenshtein.distance(p, t[a:b], score_cutoff=best[0]), abs(b - a - len(p)), a, b)
            best = min(best, cand)
    return best[2], best[3]


def _blocks(p: str, w: str) -> list[tuple[int, int, int, int]]:
    """Runs of consecutive edits between ``p`` and ``w`` as ``(p_start, p_end, w_start, w_end)``."""
    out: list[tuple[int, int, int, int]] = []
    for op in Levenshtein.opcodes(p, w):
        if op.tag == "equal":
            continue
        if out and out[-1][1] == op.src_start and out[-1][3] == op.dest_start:
            out[-1] = (out[-1][0], op.src_end, out[-1][2], op.dest_end)
        else:
            out.append((op.src_start, op.src_end, op.dest_start, op.dest_end))
    return out


def _check_part(part: list[Token], text: list[Token], start: int, stop: int,
                vocabulary: frozenset[str]) -> tuple[ExcerptMatch, int, int]:
    """The verdict on one part located in ``text[start:stop]``, and its window ``(first, end)`` in ``text``."""
    first, end, score = _locate(part, text, start, stop)
    if score < ABSENT_SCORE:
        return ExcerptMatch(False, score, "absent", "absent: no passage of the source reads like it"), first, end
    codes: dict[str, str] = {}
    p, t = _encode(part, codes), _encode(text[start:stop], codes)
    a, b = _best_window(p, t, first - start, end - start, max(3, len(part) // 4))
    first, end = start + a, start + b
    harmful = [_differs(part[s0:s1], text[first + d0:first + d1], vocabulary)
               for s0, s1, d0, d1 in _blocks(p, t[a:b])
               if not _harmless(part[s0:s1], text[first + d0:first + d1], text[first + d0 - 1] if first + d0 else None)]
    if harmful:  # the most meaning-bearing difference names the failure
        kind, reason = min(harmful, key=lambda kr: PRIORITY.index(kr[0]))
        return ExcerptMatch(False, score, kind, reason), first, end
    return ExcerptMatch(True, score), first, end


def _resegment(part: list[Token], keys: set[str], bigrams: set[tuple[str, str]]) -> list[Token]:
    """The part with compounds split or joined as the source writes them (``nearestneighbour`` when the
    source has ``nearest neighbour``, ``anti tumour`` when it has ``antitumour``); numbers never merge."""
    out: list[Token] = []
    for t in part:
        k = t.key
        cut = next((i for i in range(2, len(k) - 1) if (spelling(k[:i]), spelling(k[i:])) in bigrams
                    and not (k[i - 1].isdigit() and k[i].isdigit())), 0) if k not in keys else 0
        if cut:
            out += [Token(spelling(k[:cut]), t.raw[:cut], t.start, t.start + cut),
                    Token(spelling(k[cut:]), t.raw[cut:], t.start + cut, t.end)]
        elif (out and out[-1].key + k in keys and (out[-1].key, k) not in bigrams
              and not (out[-1].key[-1:].isdigit() and k[:1].isdigit())):
            prev = out.pop()
            out.append(Token(prev.key + k, prev.raw + t.raw, prev.start, t.end))
        else:
            out.append(t)
    return out


def _parts(excerpt: str) -> tuple[list[list[Token]], bool, bool]:
    """The excerpt's parts between ellipsis marks, and whether a mark opens / closes it (an edge gap)."""
    text = _TRAILING_CITE.sub("", excerpt.strip())
    pieces = _ELLIPSIS.split(text)
    parts = [toks for piece in pieces if (toks := tokenize(piece))]
    return parts, len(pieces) > 1 and not tokenize(pieces[0]), len(pieces) > 1 and not tokenize(pieces[-1])


def check_excerpt(excerpt: str, text: str, vocabulary: frozenset[str] = frozenset()) -> ExcerptMatch:
    """The verdict on ``excerpt`` as a quote of ``text`` (see module docstring).

    Args:
        excerpt: the quote a model gave.
        text: what the source's tool returned (title and abstract, or full text).
        vocabulary: lower-cased entity names (the session's hypothesis entities), only for naming a difference.
    """
    parts, lead, trail = _parts(excerpt)
    if sum(words(p) for p in parts) < MIN_WORDS or not text.strip():
        return ExcerptMatch(False, 0.0, "short", f"short: fewer than {MIN_WORDS} words")
    if words(parts[0]) < MIN_PART_WORDS:
        return ExcerptMatch(False, 0.0, "skip", "skip: the part before the first ellipsis is too short to locate")
    source = tokenize(text)
    keys = {t.key for t in source}
    bigrams = {(a.key, b.key) for a, b in itertools.pairwise(source)}
    parts = [_resegment(p, keys, bigrams) for p in parts]
    chain = _Chain(parts, source, layout(text), vocabulary, (lead, trail))
    verdict, start = chain.run(0)
    for _ in range(OTHER_OCCURRENCES):  # the first part may occur again, with the rest after that occurrence
        if verdict.verified or len(parts) == 1 or start >= len(source):
            break
        again, start = chain.run(start)
        verdict = again if again.verified else verdict
    return verdict


def _earliest(part: list[Token], source: list[Token], start: int, stop: int) -> tuple[int, int] | None:
    """The first window of ``source[start:stop]`` whose tokens are the part's, articles aside: an ellipsis skips
    the least text that makes the quote true (a later copy of the part would skip more), and a short first part
    is tried at each of its copies in turn."""
    keys = [t.key for t in part if not ignorable(t)]
    if not keys:
        return None
    for i in range(start, stop):
        j, k = i, 0
        while j < stop and k < len(keys):
            if ignorable(source[j]) and source[j].key != keys[k]:
                j += 1
                continue
            if source[j].key != keys[k]:
                break
            j, k = j + 1, k + 1
        if k == len(keys) and not ignorable(source[i]):
            n = len(part)
            while n and ignorable(part[n - 1]):
                n -= 1
            for t in part[n:]:  # the part's trailing articles ("... The ..."), where the source has them
                if j >= stop or source[j].key != t.key:
                    break
                j += 1
            return i, j
    return None


def _skip(score: float, skipped: str, what: str, tokens: list[Token]) -> ExcerptMatch:
    shown = " ".join(t.raw for t in tokens)[:120]
    return ExcerptMatch(False, score, "skip", f"skip: {what} '{shown}'", skipped)


@dataclass(frozen=True)
class _Chain:
    """An excerpt's parts to locate in order in a source (tokens and :class:`~cosci.grounding.gaps.Layout`)."""

    parts: list[list[Token]]
    source: list[Token]
    lay: Layout
    vocabulary: frozenset[str]
    edges: tuple[bool, bool] = (False, False)
    """Whether an ellipsis mark opens / closes the excerpt (module docstring, rule 5)."""

    def run(self, begin: int) -> tuple[ExcerptMatch, int]:
        """The verdict on the parts located in order from ``begin``, and where the first part's window ends."""
        source, kept = self.source, {t.key for p in self.parts for t in p}
        start, prev_end, scores, first_end = begin, -1, [], len(source)
        for part in self.parts:
            stop = len(source) if prev_end < 0 else min(len(source), start + MAX_SKIP + len(part) + 3)
            exact = _earliest(part, source, start, stop)
            verdict, first, end = ((ExcerptMatch(True, 100.0), *exact) if exact else
                                   _check_part(part, source, start, stop, self.vocabulary))
            first_end = end if prev_end < 0 else first_end
            if not verdict.verified:
                return verdict, first_end
            refused = self._cut(first, prev_end, kept, verdict.score) or self._other_reading(part, prev_end, first,
                                                                                             stop, verdict.score)
            if refused is not None:
                return refused, first_end
            scores.append(verdict.score)
            start = prev_end = end
        closing = self._edge(prev_end, sentence_span(source, prev_end - 1, self.lay)[1], kept, min(scores),
                             opening=False)
        return closing or ExcerptMatch(True, min(scores)), first_end

    def _edge(self, first: int, end: int, kept: set[str], score: float, *, opening: bool) -> ExcerptMatch | None:
        """The refusal an edge gap ``source[first:end]`` earns (the words of its sentence an ``opening`` or closing
        ellipsis mark skips), or None when the excerpt has no such mark or the gap hides nothing."""
        if not (self.edges[0] if opening else self.edges[1]) or first >= end:
            return None
        meaning = skipped_meaning(self.source, first, end, kept, self.lay)
        if meaning is None:
            return None
        cls, tokens = meaning
        where = "before" if opening else "after"
        return _skip(score, cls, f"the ellipsis {where} the quote leaves out a {cls} "
                     f"({' '.join(t.raw for t in tokens)}):", self.source[first:end])

    def _other_reading(self, part: list[Token], prev_end: int, first: int, stop: int,
                       score: float) -> ExcerptMatch | None:
        """A later copy of the part in the same sentence whose gap would hold a negation: the excerpt reads both
        ways, and a reader may take the one that drops the ``not`` (``stages of sleep nor ... sleep``)."""
        if prev_end < 0:
            return None
        at = first + 1
        while (later := _earliest(part, self.source, at, stop)) is not None:
            if splices(self.source, prev_end, later[0], self.lay):
                return None
            meaning = skipped_meaning(self.source, prev_end, later[0], set(), self.lay)
            if meaning is not None and meaning[0] == "negation":
                return _skip(score, "negation", "the ellipsis also reads as leaving out a negation "
                             f"({' '.join(t.raw for t in meaning[1])}):", self.source[prev_end:later[0]])
            at = later[0] + 1
        return None

    def _cut(self, first: int, prev_end: int, kept: set[str], score: float) -> ExcerptMatch | None:
        """The refusal a cut before the window starting at ``first`` earns (module docstring, rule 5), or None."""
        source = self.source
        if prev_end < 0:
            opening = self._edge(sentence_span(source, first, self.lay)[0], first, kept, score, opening=True)
            if opening is not None:
                return opening
            governing = governed_start(source, first, self.lay)
            return None if governing is None else _skip(
                score, "negation" if negating(governing.key) else "hedge",
                "the quote starts just after words that govern it:", [governing])
        skipped = source[prev_end:first]
        if len(skipped) > MAX_SKIP:
            return _skip(score, "length", f"the ellipsis leaves out more than {MAX_SKIP} tokens:", skipped)
        if splices(source, prev_end, first, self.lay):
            return _skip(score, "splice", "the ellipsis joins parts of two sentences, leaving out", skipped)
        meaning = skipped_meaning(source, prev_end, first, kept, self.lay)
        if meaning is not None:
            cls, tokens = meaning
            return _skip(score, cls, f"the ellipsis leaves out a {cls} ({' '.join(t.raw for t in tokens)}):",
                         skipped)
        return None


def excerpt_found(excerpt: str, text: str) -> bool:
    """Whether ``excerpt`` is a faithful quote of ``text`` (see module docstring)."""
    return check_excerpt(excerpt, text).verified


__all__ = ["MIN_WORDS", "ExcerptMatch", "check_excerpt", "excerpt_found", "normalise"]
