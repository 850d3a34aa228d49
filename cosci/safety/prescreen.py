"""The deterministic term pre-screen: per hazard category, an agent named with a harmful step, or an intent phrase.

The term file (``conf/safety_prescreen.yaml``, named by ``safety.prescreen_terms``) lists, per hazard category,
``agents`` (named agents of concern), ``generic`` class words (virus, toxin, explosive) and ``enhancements``
patterns (a hit needs an agent, named or generic, and an enhancement in the same window of three sentences), and
``intent`` patterns (a hit alone), plus ``protective`` patterns (treatment, detection, vaccines, training...) that
are never a hit but that the offline screen weighs against one (:mod:`cosci.safety.screen`).

Texts are matched after :func:`normalise` (NFKD with accents dropped, lower case, one kind of apostrophe and
dash), so patterns are plain ASCII; each is a case-insensitive regular expression wrapped in word boundaries.
A category's ``names`` (plain agent names) are agent patterns that also match a misspelling or a compound they
head (:mod:`cosci.safety.misspelling`, docs/design.md#safety-screen). A hit is a feature of the offline screen,
not a decision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from cosci import parsed
from cosci.errors import CosciError
from cosci.paths import conf_dir
from cosci.safety.care import Care
from cosci.safety.conditional import INTENDED, Conditional
from cosci.safety.gloss import FOREIGN_SCRIPTS
from cosci.safety.made import Made, document_asked, made_patterns, made_steps
from cosci.safety.nominal import nominal_patterns
from cosci.safety.readings import Readings
from cosci.safety.stated import Stated
from cosci.safety.terms import Terms
from cosci.safety.text import WINDOW_SENTENCES, Span, clauses, dash_or_space, normalise, sentences, windows

__all__ = ["WINDOW_SENTENCES", "Prescreen", "PrescreenError", "PrescreenHit", "Span", "Terms", "load_prescreen",
           "normalise", "sentences", "windows"]

AGENT_MASK = " xagentx "
"""What :meth:`Prescreen.mask` puts in place of a named agent."""
_UNGLOSSED = re.compile(f"[{FOREIGN_SCRIPTS}]+")


class PrescreenError(CosciError):
    """The term file is missing or malformed."""

FRONTED = re.compile(r"^\W*(?:for|to|in order to|so as to|as part of|para|pour|per|fur|zur|zum|um|dla|w celu|icin|"
                     r"untuk|de|vi|ke|для|чтобы|ради|برای|لاجل|من اجل|为了|為了)\b"
                     r"|(?:के लिए|के लिये|のために|위해|icin|amacıyla)\W*$")
"""A clause opened (or, verb-final, closed) as a purpose: with a protective word it governs the clauses after it."""
PLAN_CLAUSES = 3
"""Clauses a sentence needs to be read clause by clause: a list or a plan ("aim one ..., aim two ..., aim three ...");
a sentence of two clauses is a condition and its question, or a purpose and its request, read whole."""


@dataclass(frozen=True)
class PrescreenHit:
    """One hit: its category and the matched phrases (an agent and an enhancement, or one intent phrase)."""

    category: str
    phrases: tuple[str, ...]

    def note(self) -> str:
        return f"{self.category}: " + " + ".join(f'"{p}"' for p in self.phrases)


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
class Prescreen(Readings):
    """Compiled term lists. ``rules``: category -> :class:`Rule`; ``intent``: category -> phrases that hit alone
    (category ``any`` is reported as ``intent``); ``protective``: purposes weighed against a hit; ``instruments``:
    treaties and bodies named by the weapons they ban (a weapon class inside one names no agent and is no intent
    phrase); the other lists are read by :class:`~cosci.safety.readings.Readings`."""

    rules: dict[str, Rule]
    intent: dict[str, Terms] = field(default_factory=dict)
    protective: Terms = field(default_factory=lambda: Terms([]))
    not_protective: Terms = field(default_factory=lambda: Terms([]))
    framing: Terms = field(default_factory=lambda: Terms([]))
    operational: Terms = field(default_factory=lambda: Terms([]))
    mechanism: Terms = field(default_factory=lambda: Terms([]))
    explained: Terms = field(default_factory=lambda: Terms([]))
    resistance: Terms = field(default_factory=lambda: Terms([]))
    engineering: Terms = field(default_factory=lambda: Terms([]))
    chemistry: Terms = field(default_factory=lambda: Terms([]))
    harm_objects: Terms = field(default_factory=lambda: Terms([]))
    countermeasures: Terms = field(default_factory=lambda: Terms([]))
    remedy_terms: Terms = field(default_factory=lambda: Terms([]))
    weapon_use: Terms = field(default_factory=lambda: Terms([]))
    instruments: Terms = field(default_factory=lambda: Terms([]))
    therapies: Terms = field(default_factory=lambda: Terms([]))
    trialled: Terms = field(default_factory=lambda: Terms([]))
    asked: re.Pattern[str] | None = None
    asked_inside: re.Pattern[str] | None = None
    studied: re.Pattern[str] | None = None
    asked_last: re.Pattern[str] | None = None
    nominal: tuple[re.Pattern[str], re.Pattern[str]] | None = None
    made: Made | None = None
    severe: re.Pattern[str] | None = None
    excused: re.Pattern[str] | None = None
    methods: re.Pattern[str] | None = None
    raisers: re.Pattern[str] | None = None
    conditions: Conditional | None = None
    """A conditional's condition and main clause (``conditional`` in the term file; :meth:`conditional`)."""
    stated: Stated | None = None
    """An intention stated in the first person (``stated`` in the term file; :meth:`conditional`, :meth:`unstated`)."""
    care: Care | None = None
    """A care question (``care`` in the term file; :meth:`cares`)."""

    def check(self, text: str) -> list[PrescreenHit]:
        """The hits in ``text`` (empty: nothing for the screen or the classifier to look at with extra care)."""
        hits: dict[str, PrescreenHit] = {}
        for window in windows(normalise(text)):
            for category, rule in self.rules.items():
                if category not in hits and (hit := self._pair(category, rule, window)):
                    hits[category] = hit
            for category, terms in self.intent.items():
                name = "intent" if category == "any" else category
                phrase = next(iter(self.outside_instruments(window, terms.spans(window))), None) \
                    if name not in hits else None
                if phrase:
                    hits[name] = PrescreenHit(name, (phrase[0],))
        return list(hits.values())

    def conditional(self, text: str) -> str | None:
        """What a conditional in ``text`` asks in its main clause (:meth:`~cosci.safety.conditional.Conditional.read`:
        a response, a plan, a plan intended) or None."""
        if self.conditions is None:
            return None
        norm = normalise(text)
        if self.stated is not None and self.stated.intends(norm, self.conditions.plans):
            return INTENDED  # "..., which checks would fail? I intend to do it" (cosci/safety/stated.py)
        steps = [(s, e) for rule in self.rules.values() for _, s, e in self.steps(rule, norm)[1]]
        return self.conditions.read(norm, steps, self.weapon_use)

    def clauses(self, text: str) -> list[str]:
        """The clauses of ``text``'s sentences read on their own (:func:`~cosci.safety.text.clauses`): those holding a
        term hit, in a sentence of :data:`PLAN_CLAUSES` clauses or more that holds no condition (a condition's main
        clause is read by :meth:`conditional`: "if chlorine were released in a pool, how should medics treat the
        bathers" is a response) and is not opened by a protective purpose (:data:`FRONTED`: "for vaccine
        development, ..." governs every clause after it; a plan's first item on history governs nothing). A harmful
        step buried in one clause of a long plan ("..., chapter three how to take the cobalt-60 source out and pack it
        with explosives, and chapter four ...") is read with its own purposes, not the plan's
        (docs/design.md#safety-screen, "A clause of a plan")."""
        out = []
        for sentence in sentences(text):
            parts = clauses(sentence)
            if len(parts) >= PLAN_CLAUSES and not (FRONTED.search(normalise(parts[0])) and self.purposes(parts[0])) \
                    and (self.conditions is None or self.conditions.split(normalise(sentence)) is None):
                out += [p for p in parts if self.check(p)]
        return out

    def cares(self, text: str, words: int) -> list[str]:
        """The care phrases of ``text`` (``words`` words) read as a care question
        (:meth:`~cosci.safety.care.Care.reads`) with no weapon use, harm to a person, demand for working detail or
        term hit besides them: its request is then a remedy."""
        norm = normalise(text)
        if self.care is None or self.operational.first(norm):
            return []
        phrases, rest = self.care.reads(norm, words)
        harms = self.stated is not None and bool(self.stated.harms.search(rest))
        # a term hit or an intent phrase anywhere ("resistant to all antibiotics", "escape the vaccine") asks for the
        # harm the care words name as defeated: no care question
        return [] if not phrases or harms or self.weapon_use.first(rest) or self.check(text) else phrases

    def unstated(self, window: str) -> str:
        """``window`` as the intent model scores it: less a sentence stating a protective aim in the first person
        that holds no term hit ("I intend to treat patients"; :meth:`~cosci.safety.stated.Stated.unstated`)."""
        return window if self.stated is None else self.stated.unstated(window, lambda s: not self.check(s))

    def steps(self, rule: Rule, window: str) -> tuple[list[Span], list[Span]]:  # type: ignore[override]
        """The term lists' steps (:meth:`Readings.steps`) and a named agent made, asked outright
        (:mod:`cosci.safety.made`)."""
        named, steps = super().steps(rule, window)
        if named and self.made is not None:
            agents = self.outside_instruments(window, rule.agents.spans(window))
            steps += made_steps(self.made, window, agents)
        return named, steps

    def documents(self, text: str) -> bool:
        """Whether a window of ``text`` asks for a document of a named agent's making (:mod:`cosci.safety.made`)."""
        return any(document_asked(self.made, w, self.outside_instruments(w, rule.agents.spans(w)))
                   for w in windows(normalise(text)) for rule in self.rules.values())

    def _pair(self, category: str, rule: Rule, window: str) -> PrescreenHit | None:
        """An agent with a harmful step (:meth:`~cosci.safety.readings.Readings.steps`)."""
        named, steps = self.steps(rule, window)
        return PrescreenHit(category, (named[0][0], steps[0][0])) if steps else None

    def agents(self, text: str) -> dict[str, str]:
        """Per category, the first named agent of concern in ``text`` (hit or not; class words such as "virus"
        are not one): ``{category: phrase}``."""
        norm = normalise(text)
        found = {cat: self.outside_instruments(norm, rule.agents.spans(norm)) for cat, rule in self.rules.items()}
        return {cat: spans[0][0] for cat, spans in found.items() if spans}

    def classes(self, text: str) -> tuple[str, ...]:
        """The categories whose class words (``generic``: "pathogen", "virus", "toxin", "poison", "radioactive
        material"...) ``text`` uses, in the term file's order: what a text is about when it names no agent, which
        names the category of a hit that has none (an intent phrase; docs/design.md#safety-screen)."""
        norm = normalise(text)
        return tuple(cat for cat, rule in self.rules.items() if rule.generic.first(norm))

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
        patterns = [re.compile(rf"\b(?:{dash_or_space(i)}){end}", re.IGNORECASE) for i in [*items, *words]]
    except re.error as exc:
        raise PrescreenError(f"{where}: bad pattern ({exc})") from None
    by_letter: dict[str, tuple[str, ...]] = {}
    for word in words:
        by_letter[word[0]] = (*by_letter.get(word[0], ()), word)
    return Terms(patterns, by_letter)


_PART = re.compile(r"\{([a-z_]+)\}")
"""A named list of ``parts`` inside an intent pattern ("{crop_targets}"): one list of words read by several word
orders (docs/design.md#safety-screen, "Crop and livestock attacks")."""


@cache
def load_prescreen(name: str) -> Prescreen:
    """Load and compile a term file: ``name`` relative to ``conf/`` or an absolute path.

    Raises:
        PrescreenError: the file is missing, is not YAML, or has the wrong shape.
    """
    path = Path(name) if Path(name).is_absolute() else conf_dir() / name
    try:
        data = parsed.load(path)  # parsed once per text (design.md#startup)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise PrescreenError(f"safety.prescreen_terms: cannot read {path} ({type(exc).__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("categories"), dict):
        raise PrescreenError(f"safety.prescreen_terms: {path} needs a `categories` mapping")
    # the readings' sections first: a malformed one is refused before the ~2,000 term patterns are compiled (a
    # second or more of CPU for nothing; docs/development.md, test time, twelfth pass)
    asked = data.get("asked")
    try:
        conditions = Conditional.of(data.get("conditional"))
        stated = Stated.of(data.get("stated"))
        care = Care.of(data.get("care"))
    except ValueError as exc:
        raise PrescreenError(str(exc)) from None
    readings: dict[str, Any] = dict(
        conditions=conditions, stated=stated, care=care, asked=_asked(asked), asked_inside=_asked(asked, inside=True),
        asked_last=_asked_list(asked, "closers"), nominal=nominal_patterns(asked), made=made_patterns(asked),
        **{key: _asked_list(asked, key) for key in ("studied", "severe", "excused", "methods", "raisers")})
    rules = {
        cat: Rule(_compile(body.get("agents"), f"{cat}.agents", body.get("names") or []),
                  _compile(body.get("generic") or [], f"{cat}.generic"),
                  _compile(body.get("enhancements"), f"{cat}.enhancements", body.get("enhancement_names") or []))
        for cat, body in data["categories"].items()
    }
    if not all(isinstance(v, list) and all(isinstance(i, str) for i in v) for v in (data.get("parts") or {}).values()):
        raise PrescreenError("parts: expected lists of patterns")
    parts = {k: "(?:" + "|".join(v) + ")" for k, v in (data.get("parts") or {}).items()}
    intent = {cat: _compile([_PART.sub(lambda m: parts.get(m[1], m[0]), i) if isinstance(i, str) else i
                             for i in items], f"intent.{cat}")
              for cat, items in (data.get("intent") or {}).items()}
    terms = Prescreen(rules, intent, _compile(data.get("protective") or [], "protective"),
                     _compile(data.get("not_protective") or [], "not_protective"),
                     _compile(data.get("framing") or [], "framing", end=""),
                     _compile(data.get("operational") or [], "operational"),
                     # a mechanism subject is read up to the harmful step: it ends where the text before it ends
                     _compile(data.get("mechanism") or [], "mechanism", end=r"\s*$"),
                     _compile(data.get("explained") or [], "explained", end=r"\s*$"),
                     *(_compile(data.get(key) or [], key) for key in ("resistance", "engineering", "chemistry",
                                                                      "harm_objects", "countermeasures", "remedies",
                                                                      "weapon_use", "instruments", "therapies",
                                                                      "trialled")))  # type: ignore[arg-type]  # the generator fills the Terms fields only
    return replace(terms, **readings)


def _asked(body: Any, inside: bool = False) -> re.Pattern[str] | None:
    """The ``asked`` lists (``openers``, ``verbs``) as one pattern read at a window's start (None: no lists);
    ``inside``: an opener and its verb read anywhere (a request after a cover story, :meth:`Readings.asks`).

    Raises:
        PrescreenError: the lists have the wrong shape or a bad pattern.
    """
    if body is None:
        return None
    if not isinstance(body, dict) or not all(isinstance(body.get(k), list) and body[k] for k in ("openers", "verbs")):
        raise PrescreenError("asked: expected lists `openers` and `verbs`")
    openers, verbs = ("|".join(dash_or_space(p) for p in body[k]) for k in ("openers", "verbs"))
    try:
        return re.compile(rf"\b(?:{openers}) (?:{verbs})\b" if inside else rf"(?:(?:{openers}) )?(?:{verbs})\b",
                          re.IGNORECASE)
    except re.error as exc:
        raise PrescreenError(f"asked: bad pattern ({exc})") from None


def _asked_list(body: Any, key: str) -> re.Pattern[str] | None:
    """An optional ``asked`` list as one pattern (None: no list): ``studied`` read right after a step, ``closers``
    what may follow a harmful verb that ends a window ("increase 는 method", a verb-final request; then punctuation).

    Raises:
        PrescreenError: the list has the wrong shape or a bad pattern.
    """
    items = body.get(key) if isinstance(body, dict) else None
    if not items:
        return None
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise PrescreenError(f"asked.{key}: expected a list of patterns")
    verbs = "|".join(dash_or_space(p) for p in body["verbs"])
    shape = rf"\s*(?:{'|'.join(items)})\b" if key == "studied" else rf"\b(?:{'|'.join(items)})\b" \
        if key in ("severe", "excused", "methods", "raisers") else rf"\b(?:{verbs})\b(?: (?:{'|'.join(items)}))*[\W_]*$"
    try:
        return re.compile(shape, re.IGNORECASE)
    except re.error as exc:
        raise PrescreenError(f"asked.{key}: bad pattern ({exc})") from None
