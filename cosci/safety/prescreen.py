"""The deterministic term pre-screen: per hazard category, an agent named with a harmful step, or an intent phrase.

The term file (``conf/safety_prescreen.yaml``, named by ``safety.prescreen_terms``) lists, per hazard category,
``agents`` (named agents of concern), ``generic`` class words (virus, toxin, explosive) and ``enhancements``
patterns (a hit needs an agent, named or generic, and an enhancement in the same window of three sentences), and
``intent`` patterns (a hit alone), plus ``protective`` patterns (treatment, detection, vaccines, training...) that
are never a hit but that the offline screen weighs against one (:mod:`cosci.safety.screen`).

Texts are matched after :func:`normalise` (NFKD with accents dropped, lower case, one kind of apostrophe and
dash), so patterns are plain ASCII; each is a case-insensitive regular expression wrapped in word boundaries.
A category's ``names`` (plain agent names) are agent patterns that also match a misspelling or a compound they
head (:func:`_misspelling`, docs/design.md#safety-screen). A hit is never a decision on its own: it is a
feature of the offline screen and a note for a capable classifier.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import yaml
from rapidfuzz.distance import OSA

from cosci.errors import CosciError
from cosci.paths import conf_dir
from cosci.safety.gloss import FOREIGN_SCRIPTS, load_gloss

WINDOW_SENTENCES = 3
"""Sentences an agent and its harmful step may be apart (a goal split over two sentences is one window)."""
FUZZY_MIN_CHARS = 6
"""Shortest name read misspelled by any one edit or as the head of a compound; a five-letter name (sarin, ricin)
has too many real neighbours (satin, rican) and is read misspelled only with one letter added ("sarrin")."""
NOT_MISSPELLINGS = frozenset({"plaque", "plaques", "radius", "stores", "bonnet", "toxic", "toxics", "satin",
                              "saris", "sabin", "rican", "lasso", "scores", "spares", "shores", "mustang",
                              "chloride", "chlorides", "chlorite", "chlorate", "spreadsheet", "spreadsheets"})
"""Real words one edit away from a name (amyloid plaque, radium, sodium chloride): never read as its misspelling.
Edits are optimal string alignment: a swap of two neighbouring letters ("uranuim") is one edit."""
AGENT_MASK = " xagentx "
"""What :meth:`Prescreen.mask` puts in place of a named agent."""
_TRANSLATE = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2010": "-", "\u2011": "-",
                            "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u00df": "ss", "\u00e6": "ae",
                            "\u0153": "oe", "\u00f8": "o", "\u0142": "l"})
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\n+")
_FULL_STOP = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*|\n+")
_WORD = re.compile(r"[a-z][a-z0-9'-]*")
_UNGLOSSED = re.compile(f"[{FOREIGN_SCRIPTS}]+")
_DENSE = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_DENSE_EDGE = re.compile(f"(?<=[a-z0-9])(?=[{_DENSE}])|(?<=[{_DENSE}])(?=[a-z0-9])")
"""Where a Latin-script word or a code (TATP, H5N1) meets Thai, kana, CJK or Hangul, written without a space: a space
goes there, or the word boundary the patterns need is missing ("制作tatp用于袭击" names no agent without it)."""
Span = tuple[str, int, int]
"""A matched phrase and its start and end offsets in the normalised text."""


class PrescreenError(CosciError):
    """The term file is missing or malformed."""


@lru_cache(maxsize=4096)
def normalise(text: str) -> str:
    """``text`` as the patterns see it: NFKD, accents dropped, lower case, one apostrophe and dash, single spaces;
    words of the gloss (Cyrillic, Chinese, Japanese, Arabic, Persian, Hindi, Bengali, Thai, Korean) in English, a
    Latin-script word inside text written without spaces set apart (:data:`_DENSE_EDGE`), and a request's action in
    the Latin-script languages in English (:meth:`~cosci.safety.gloss.Gloss.apply_latin`; :mod:`cosci.safety.gloss`).
    Kept for the last 4,096 texts: one screen normalises each window four times or more (hits, agents, class words,
    purposes)."""
    decomposed = unicodedata.normalize("NFKD", load_gloss().apply(text).translate(_TRANSLATE))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    plain = load_gloss().apply_latin(_DENSE_EDGE.sub(" ", plain))
    return re.sub(r"[ \t\r\f\v]+", " ", plain).strip()


def sentences(text: str) -> list[str]:
    """The sentences of a text (split after ``.!?`` and at line breaks, not at ``;:`` as :func:`windows` does: a
    goal's "Nipah: which antivirals?" is one sentence), stripped, empty ones left out."""
    return [s.strip() for s in _FULL_STOP.split(text) if s.strip()]


def windows(text: str) -> list[str]:
    """Overlapping windows of :data:`WINDOW_SENTENCES` sentences of a normalised text (one for a short text)."""
    parts = [s for s in _SENTENCE.split(text) if s.strip()]
    if len(parts) <= WINDOW_SENTENCES:
        return [" ".join(parts)]
    return [" ".join(parts[i:i + WINDOW_SENTENCES]) for i in range(len(parts) - WINDOW_SENTENCES + 1)]


def _misspelling(name: str, token: str) -> bool:
    """Whether ``token`` reads as ``name`` misspelled or as a compound it heads (see :data:`FUZZY_MIN_CHARS`)."""
    if token == name or token[0] != name[0] or token in NOT_MISSPELLINGS:
        return False
    if len(name) < FUZZY_MIN_CHARS:
        return len(token) == len(name) + 1 and OSA.distance(name, token, score_cutoff=1) <= 1
    if token.startswith(name):
        return True
    # two edits for a long name, or for a name of nine letters or more read with its ending intact ("botchulinum")
    edits = 2 if len(name) >= 11 or (len(name) >= 9 and token[-3:] == name[-3:]) else 1
    return abs(len(name) - len(token)) <= edits and OSA.distance(name, token, score_cutoff=edits) <= edits


@lru_cache(maxsize=1 << 16)
def _reads_as_one_of(names: tuple[str, ...], token: str) -> bool:
    """Whether ``token`` is a misspelling or compound of one of ``names`` (cached: words repeat across texts)."""
    return any(_misspelling(name, token) for name in names)


@dataclass(frozen=True)
class PrescreenHit:
    """One hit: its category and the matched phrases (an agent and an enhancement, or one intent phrase)."""

    category: str
    phrases: tuple[str, ...]

    def note(self) -> str:
        return f"{self.category}: " + " + ".join(f'"{p}"' for p in self.phrases)


RECENT_TEXTS = 256
"""Texts whose spans each term list keeps (:attr:`Terms._recent`; a hypothesis's screen scans about 25 distinct
windows per list; the texts of one screen are what repeat)."""
_REFERENCES = re.compile(r"\\[1-9]|\(\?P[<=]|\(\?[aiLmsux-]*\)")
"""What keeps a pattern out of one alternation with the others: a group reference, a named group (their numbers
and names would clash) or a global inline flag (allowed only at the start of a whole pattern)."""


def _alternation(patterns: list[re.Pattern[str]]) -> re.Pattern[str] | None:
    """One pattern matching wherever any of ``patterns`` does (all compiled with the same flags), or None when
    they cannot be joined (:data:`_REFERENCES`, mixed flags, none at all).

    A guard, not a replacement: a text it finds nothing in has no match of any pattern (an alternation matches at a
    position if one of its branches does), so :meth:`Terms.spans` skips the patterns one by one, which cost the
    offline screen of a hypothesis ~0.1 s of CPU (about 28,000 scans of 18 patterns each: docs/design.md#supervisor,
    "The screen's term lists"); a text it finds something in is scanned pattern by pattern as before, so the spans,
    overlapping ones included, are unchanged."""
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
    """:func:`_alternation` of ``patterns``: skips the scans pattern by pattern when none matches."""
    _recent: dict[str, tuple[Span, ...]] = field(default_factory=dict, init=False, compare=False, repr=False)
    """The spans of the last texts scanned (at most :data:`RECENT_TEXTS`): one screen asks about the same window
    two to four times (an agent rule's pair, the named agents, the class words, the purposes)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "any_of", _alternation(self.patterns))

    def spans(self, text: str) -> list[Span]:
        """Every match in ``text`` (normalised): pattern matches, then misspelled names, in text order."""
        if (known := self._recent.get(text)) is None:
            if len(self._recent) >= RECENT_TEXTS:  # the oldest goes: a screen under way keeps its windows
                with contextlib.suppress(RuntimeError, KeyError, StopIteration):  # another thread changed it
                    del self._recent[next(iter(self._recent))]
            known = self._recent[text] = tuple(self._scan(text))
        return list(known)

    def _scan(self, text: str) -> list[Span]:
        found: list[Span] = [] if self.any_of is not None and self.any_of.search(text) is None else [
            (" ".join(m.group(0).split()), m.start(), m.end()) for p in self.patterns for m in p.finditer(text)]
        for m in _WORD.finditer(text) if self.names else ():
            token = m.group(0)
            if _reads_as_one_of(self.names.get(token[0], ()), token):
                found.append((token, m.start(), m.end()))
        return sorted(found, key=lambda f: (f[1], -f[2]))

    def first(self, text: str) -> Span | None:
        """The first match in ``text`` (normalised), if any."""
        spans = self.spans(text)
        return spans[0] if spans else None


@dataclass(frozen=True)
class Rule:
    """A category's lists: named agents, generic class words (virus, toxin, explosive) and enhancements."""

    agents: Terms
    generic: Terms
    enhancements: Terms

    def named(self, text: str) -> list[Span]:
        """Every agent (named or generic) in ``text`` (normalised), in text order."""
        return sorted([*self.agents.spans(text), *self.generic.spans(text)], key=lambda f: (f[1], -f[2]))


@dataclass(frozen=True)
class Prescreen:
    """Compiled term lists. ``rules``: category -> :class:`Rule`; ``intent``: category -> phrases that hit alone
    (category ``any`` is reported as ``intent``); ``protective``: purposes weighed against a hit."""

    rules: dict[str, Rule]
    intent: dict[str, Terms] = field(default_factory=dict)
    protective: Terms = field(default_factory=lambda: Terms([]))
    not_protective: Terms = field(default_factory=lambda: Terms([]))
    framing: Terms = field(default_factory=lambda: Terms([]))
    operational: Terms = field(default_factory=lambda: Terms([]))
    mechanism: Terms = field(default_factory=lambda: Terms([]))
    resistance: Terms = field(default_factory=lambda: Terms([]))
    engineering: Terms = field(default_factory=lambda: Terms([]))
    chemistry: Terms = field(default_factory=lambda: Terms([]))
    harm_objects: Terms = field(default_factory=lambda: Terms([]))

    def check(self, text: str) -> list[PrescreenHit]:
        """The hits in ``text`` (empty: nothing for the screen or the classifier to look at with extra care)."""
        hits: dict[str, PrescreenHit] = {}
        for window in windows(normalise(text)):
            for category, rule in self.rules.items():
                if category not in hits and (hit := self._pair(category, rule, window)):
                    hits[category] = hit
            for category, terms in self.intent.items():
                name = "intent" if category == "any" else category
                phrase = terms.first(window) if name not in hits else None
                if phrase:
                    hits[name] = PrescreenHit(name, (phrase[0],))
        return list(hits.values())

    def _pair(self, category: str, rule: Rule, window: str) -> PrescreenHit | None:
        """An agent with an enhancement that is not part of an agent's own phrase ("low-enriched uranium") and is
        not said of a mechanism (:meth:`describes`)."""
        named = rule.named(window)
        for enhancement, start, end in rule.enhancements.spans(window):
            if named and not any(a[1] <= start and end <= a[2] for a in named) and not self.describes(
                    window, enhancement, start):
                return PrescreenHit(category, (named[0][0], enhancement))
        return None

    def describes(self, window: str, step: str, start: int) -> bool:
        """Whether the harmful step ``step`` at ``start`` of a normalised window is resistance or escape
        (``resistance``) said of a mechanism, not asked for: its subject is a relative clause on mutations, genes,
        variants or mechanisms in the indicative ("the mutations that make M. tuberculosis resistant to
        bedaquiline", ``mechanism``, matched up to the step), and nothing in the window puts such changes into an
        agent or asks which would work (``engineering``: "introduce the mutations that ...", "would"). Resistance
        research is written this way; a request to make an agent resistant has the agent, or the changes to make, as
        its object. Transmissibility, host range and virulence are never read so: which changes make an agent
        airborne is the enhancement itself (docs/design.md#safety-screen, "Mechanism and object")."""
        return bool(self.resistance.first(step)) and bool(self.mechanism.first(window[:start])) and \
            not self.engineering.first(window)

    def described(self, text: str) -> bool:
        """Whether a window of ``text`` has a resistance step said of a mechanism (:meth:`describes`)."""
        return any(self.describes(w, step, start) for w in windows(normalise(text)) for rule in self.rules.values()
                   for step, start, _ in rule.enhancements.spans(w))

    def basic_chemistry(self, text: str) -> bool:
        """Whether ``text`` asks for a synthesis or stabilisation (``chemistry``) of an object that is no threat: no
        agent or class word of any category is named, and no people, place or weapon use (``harm_objects``). The
        rule for a window naming no agent does not act on it (docs/design.md#safety-screen, "Mechanism and
        object")."""
        norm = normalise(text)
        return bool(self.chemistry.first(norm)) and not self.harm_objects.first(norm) and not any(
            rule.named(norm) for rule in self.rules.values())

    def agents(self, text: str) -> dict[str, str]:
        """Per category, the first named agent of concern in ``text`` (hit or not; class words such as "virus"
        are not one): ``{category: phrase}``."""
        norm = normalise(text)
        found = {cat: rule.agents.first(norm) for cat, rule in self.rules.items()}
        return {cat: span[0] for cat, span in found.items() if span}

    def classes(self, text: str) -> tuple[str, ...]:
        """The categories whose class words (``generic``: "pathogen", "virus", "toxin", "poison", "radioactive
        material"...) ``text`` uses, in the term file's order: what a text is about when it names no agent, which
        names the category of a hit that has none (an intent phrase; docs/design.md#safety-screen)."""
        norm = normalise(text)
        return tuple(cat for cat, rule in self.rules.items() if rule.generic.first(norm))

    def purposes(self, text: str) -> list[str]:
        """The protective phrases ``text`` states as the request's purpose (treatment, detection, vaccine,
        training...). Not read as a purpose: a phrase inside an opening cover story ("for a review on threat
        attribution, ..."), inside a harmful step ("escape vaccine-induced immunity") or in a compound that names a
        thing rather than a purpose ("water treatment plant", "teaching lab"; ``not_protective``), because there
        the word says nothing about what the answer would be used for. None at all when the text demands working
        detail (``operational``: "fully operational", "a design that would actually work"): a purpose stated next
        to that demand does not lower what the answer could do (docs/design.md#safety-screen)."""
        norm = normalise(text)
        if self.operational.first(norm):
            return []
        cover = self.cover(norm)
        skip = [(0, cover[2])] if cover else []
        skip += [(s, e) for _, s, e in self.not_protective.spans(norm)]
        skip += [(s, e) for rule in self.rules.values() for _, s, e in rule.enhancements.spans(norm)]
        return list(dict.fromkeys(span[0] for span in self.protective.spans(norm)
                                  if not any(a <= span[1] and span[2] <= b for a, b in skip)))

    def cover(self, norm: str) -> Span | None:
        """The opening cover story of a normalised text ("for my thesis, ...", "i'm drafting a paper on x and want
        ..."), if it opens with one (``framing`` patterns)."""
        span = self.framing.first(norm)
        return span if span and span[1] == 0 else None


    def mask(self, text: str) -> str:
        """``text`` normalised, each named agent replaced by :data:`AGENT_MASK` and the words in a glossed script
        the gloss does not list dropped: what the learned screen reads, so that it weighs what is asked about an
        agent rather than which agent, or which script (docs/design.md#safety-screen)."""
        norm = normalise(text)
        spans = sorted((s for rule in self.rules.values() for s in rule.named(norm)), key=lambda s: s[1])
        out, at = [], 0
        for _, start, end in spans:
            if start >= at:
                out.append(norm[at:start] + AGENT_MASK)
                at = end
        # words the gloss left in a glossed script are dropped: unlisted, they weigh nothing either way
        return re.sub(r" +", " ", _UNGLOSSED.sub(" ", "".join(out) + norm[at:])).strip()


def _dash_or_space(pattern: str) -> str:
    """``pattern`` with each space outside a character class also matching a dash."""
    out, depth = [], 0
    for i, c in enumerate(pattern):
        escaped = i > 0 and pattern[i - 1] == "\\"
        if c == "[" and not escaped:
            depth += 1
        elif c == "]" and not escaped and depth:
            depth -= 1
        out.append("[ -]" if c == " " and not depth else c)
    return "".join(out)


def _compile(items: Any, where: str, names: Any = None, end: str = r"\b") -> Terms:
    """Compile ``items`` (and the plain ``names``) wrapped in word boundaries (``end``: the closing one; a cover
    story ends on punctuation, so its patterns close with none)."""
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise PrescreenError(f"{where}: expected a list of patterns")
    if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) and n.isalpha()
                                                                     for n in names)):
        raise PrescreenError(f"{where}: `names` must be a list of plain words")
    words = [n.lower() for n in names or []]
    try:  # a space in a pattern also matches a dash ("nerve-agent", "mass-produce")
        patterns = [re.compile(rf"\b(?:{_dash_or_space(i)}){end}", re.IGNORECASE) for i in [*items, *words]]
    except re.error as exc:
        raise PrescreenError(f"{where}: bad pattern ({exc})") from None
    by_letter: dict[str, tuple[str, ...]] = {}
    for word in words:
        by_letter[word[0]] = (*by_letter.get(word[0], ()), word)
    return Terms(patterns, by_letter)


@cache
def load_prescreen(name: str) -> Prescreen:
    """Load and compile a term file: ``name`` relative to ``conf/`` or an absolute path.

    Raises:
        PrescreenError: the file is missing, is not YAML, or has the wrong shape.
    """
    path = Path(name) if Path(name).is_absolute() else conf_dir() / name
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PrescreenError(f"safety.prescreen_terms: cannot read {path} ({type(exc).__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("categories"), dict):
        raise PrescreenError(f"safety.prescreen_terms: {path} needs a `categories` mapping")
    rules = {
        cat: Rule(_compile(body.get("agents"), f"{cat}.agents", body.get("names") or []),
                  _compile(body.get("generic") or [], f"{cat}.generic"),
                  _compile(body.get("enhancements"), f"{cat}.enhancements", body.get("enhancement_names") or []))
        for cat, body in data["categories"].items()
    }
    intent = {cat: _compile(items, f"intent.{cat}") for cat, items in (data.get("intent") or {}).items()}
    return Prescreen(rules, intent, _compile(data.get("protective") or [], "protective"),
                     _compile(data.get("not_protective") or [], "not_protective"),
                     _compile(data.get("framing") or [], "framing", end=""),
                     _compile(data.get("operational") or [], "operational"),
                     # a mechanism subject is read up to the harmful step: it ends where the text before it ends
                     _compile(data.get("mechanism") or [], "mechanism", end=r"\s*$"),
                     *(_compile(data.get(key) or [], key) for key in ("resistance", "engineering", "chemistry",
                                                                      "harm_objects")))
