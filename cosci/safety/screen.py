"""The offline screen: the language read, the intent model's harm score, and the term pre-screen's notes.

Deterministic, offline and light (numpy and the bundled multilingual embedding; nothing is fitted at start-up):
on a tier unable to classify (the embedded model, ``models.tiers.<tier>.unable_to_classify``, or a tier with no
recorded measurement) its decision is the decision; on a capable tier it is a note in the classifier's prompt and
a check on the classifier's answer (docs/design.md#safety-screen).

A text is first *read* (:mod:`cosci.safety.language`): a text in a language the screen does not read is
``block`` with rule ``unread`` (the entry point names the language and how to proceed; a capable classifier
decides instead, and the run records that the screen could not read it). A read text is cut into windows of three
sentences (and each paragraph, list item and sentence on its own: a request padded with benign text is not diluted);
the intent model (:mod:`cosci.safety.intent`) gives each window a harm probability and category probabilities,
and the term pre-screen its notes (an agent with a harmful step, an intent phrase), the agents it names and the
protective purposes it states. A window acts when its harm score reaches the threshold of the strongest evidence
it shows: ``hit_score`` with a term hit (``protected_hit_score`` when it states a protective purpose),
``agent_score`` with an agent named (``protected_agent_score``), ``alone_score`` with neither (goals and feedback
only, and only where the window's *support* reaches ``alone_support``: the share of harmful requests among its
nearest training rows, so a text off the labelled set's distribution cannot act on the linear score alone). Acting
in one of ``safety.refuse_categories`` is ``block``; in another category it is ``flag``. The terms are evidence and
a category's name, never a decision on their own: the harm score must reach the threshold.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cache
from typing import Any

import numpy as np

from cosci.config.schema import SafetyCfg
from cosci.safety.compiled import compiled_once
from cosci.safety.conditional import INTENDED, PLAN
from cosci.safety.gloss import GLOSS_FILE, load_gloss
from cosci.safety.intent import IntentModel, features, load_intent
from cosci.safety.language import read_language
from cosci.safety.language_cues import folded, shouted, turkish_lower
from cosci.safety.prescreen import Prescreen, load_prescreen, normalise, sentences, windows
from cosci.safety.romanised import IN_LATIN, ROMANISED_ADVICE
from cosci.safety.rules import (
    ALONE_MIN_WORDS,
    RULES,
    Evidence,
    Thresholds,
    _severity,
    act,
    alone_passes,
    decision_of,
    hit_object,
    named_category,
    words,
)
from cosci.safety.transliteration import to_cyrillic

TURKISH_CASE = frozenset({"tr"})
"""The read languages whose capital "I" is dotless "ı" (Azerbaijani's too, which the screen does not read)."""

__all__ = [
    "ALONE_MIN_WORDS",
    "RULES",
    "UNREAD",
    "Evidence",
    "OfflineScreen",
    "ScreenResult",
    "Thresholds",
    "act",
    "decision_of",
    "hit_object",
    "named_category",
    "offline_screen",
    "screen_for",
    "thresholds_of",
    "words",
]

UNREAD = "unread"
"""The rule of a text in a language the screen does not read."""
STYLED_LIKE_EXEMPLARS = ("goal", "feedback")
"""Subjects written like the labelled set (requests): only these are read by the rule for a text naming no agent."""


def _named(evidence: Sequence[Evidence]) -> set[tuple[str, ...]]:
    """The term hits' phrases and the agents a text's windows name."""
    return {(h.category, *h.phrases) for e in evidence for h in e.hits} | {(c, a) for e in evidence
                                                                           for c, a in e.agents.items()}


@dataclass(frozen=True)
class ScreenResult:
    """The screen's decision on one text (its most severe window).

    Attributes:
        decision: ``allow``, ``flag`` (a lower-severity category) or ``block`` (a refuse category).
        category: the acting category (None when ``allow``).
        score: the harm model's probability that the window asks for harm, 0-1.
        rule: which rule acted (:data:`RULES`), None when ``allow``.
        hits: the term pre-screen's notes for the window (shown even when nothing acts).
        agents: the agents named, ``{category: phrase}``.
        purposes: protective phrases found (treatment, detection...).
        threshold: the acting rule's harm-score threshold (0 when ``allow``).
        language: the language read (ISO 639-1), or ``unread (<language>)``.
        scored: False when no window could act, so none was scored.
    """

    decision: str
    category: str | None
    score: float
    rule: str | None = None
    hits: tuple[str, ...] = ()
    agents: dict[str, str] = field(default_factory=dict)
    purposes: tuple[str, ...] = ()
    threshold: float = 0.0
    language: str = "en"
    scored: bool = True
    """False when no window could act and none was scored (``score`` is then 0, not a measurement)."""

    @property
    def unread(self) -> bool:
        """Whether the screen could not read the text's language."""
        return self.rule == UNREAD

    @property
    def hit(self) -> bool:
        """Whether there is anything to show: a term hit or a decision other than ``allow``."""
        return bool(self.hits) or self.decision != "allow"

    def line(self) -> str:
        """One line: what matched and what the screen decided, e.g. ``chemical (term hit): "sarin" + "synthesis";
        harm score 0.93 (acts from 0.45)``, or ``the offline screen cannot read Georgian``."""
        if self.unread:
            name = self.language.removeprefix("unread (").rstrip(")")
            return f"the offline screen cannot read {name}{ROMANISED_ADVICE if name.endswith(IN_LATIN) else ''}"
        own = f"{self.category}: "
        matched = "; ".join(h.removeprefix(own) for h in self.hits) if self.hits else (
            "agents " + ", ".join(f'"{p}"' for p in self.agents.values()) if self.agents else "no listed term")
        if self.category is None:
            if not self.scored:
                return f"{matched}; not scored (no window names an agent or a listed term)"
            return f"{matched}; harm score {self.score:.2f}, below its threshold"
        return f"{self.category} ({self.rule}): {matched}; harm score {self.score:.2f} (acts from " \
               f"{self.threshold:.2f})"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


UNREAD_ADVICE = ("to screen it, run on a tier measured as a safety classifier (a hosted model, "
                 "docs/design.md#safety-measured) or, in a vetted lab, with safety.enabled=false")
"""How to proceed with a text the offline screen cannot read (docs/design.md#safety-language)."""


Featuriser = Callable[[Sequence[str]], np.ndarray]
"""Texts -> the intent model's input rows (:func:`cosci.safety.intent.features`)."""


class OfflineScreen:
    """The screen: the language read, the intent model's scores per window, the term pre-screen's notes.

    Deterministic; nothing is fitted here (the intent model ships fitted, :mod:`cosci.safety.intent`).

    Args:
        prescreen: the compiled term lists (notes, named agents, protective purposes: the evidence shown).
        intent: the fitted intent model.
        thresholds: see :class:`Thresholds`.
        featurise: how texts become the model's input (the bench passes a cached one).
    """

    def __init__(self, prescreen: Prescreen, intent: IntentModel, thresholds: Thresholds,
                 featurise: Featuriser = features) -> None:
        self.prescreen, self.intent, self.thresholds, self.featurise = prescreen, intent, thresholds, featurise

    def scores(self, texts: list[str]) -> np.ndarray:
        """The intent model's harm probability for each text as one window, ``(len(texts),)`` float in [0, 1]."""
        if not texts:
            return np.zeros(0)
        return self.intent.harm(self.featurise(texts))

    def check(self, text: str, thresholds: Thresholds | None = None, subject: str = "goal") -> ScreenResult:
        """Screen ``text``: unread when its language is not read (:mod:`cosci.safety.language`), else the most
        severe of its windows (block > flag > allow, then the higher score).

        Args:
            subject: what ``text`` is; the rule for a text naming no agent reads only goals and feedback, the
                kind of text the labelled set is (a hypothesis or an overview is not screened by it).
        """
        t = thresholds or self.thresholds
        reading = read_language(text)
        # each paragraph too: a request in an unread language inside English preferences is still unread. Only a
        # researcher's text (goal, feedback): a model-written hypothesis or overview answers a goal already read,
        # and its lines of technical terms with no function word are what n-gram detection misreads (a fake
        # hypothesis's title read as Afrikaans, design.md#safety-language); the whole text is still read.
        paragraphs = subject in STYLED_LIKE_EXEMPLARS and "\n" in text.strip()
        blocks = [read_language(b) for b in text.split("\n") if b.strip()] if paragraphs else []
        unread = next((r for r in [reading, *blocks] if not r.read), None)
        if unread is not None:
            return ScreenResult("block", None, 0.0, rule=UNREAD, language=unread.label())
        if subject not in STYLED_LIKE_EXEMPLARS:
            t = replace(t, alone_score=math.inf)
        if reading.latin is not None:  # Russian or Ukrainian typed in Latin letters: read in Cyrillic
            text = self.in_cyrillic(text, reading.latin)
        return replace(self.decide(self.evidence(text, score_all=math.isfinite(t.alone_score)), t),
                       language=reading.code)

    def in_cyrillic(self, text: str, code: str) -> str:
        """``text`` (Russian or Ukrainian, ``code``, typed in Latin letters) written back in Cyrillic, the agents the
        term lists name in Latin letters kept as written ("ricin", "Bacillus anthracis": the lists read them so;
        docs/design.md#safety-language, "Romanised Russian and Ukrainian read in Cyrillic")."""
        return to_cyrillic(folded(text) if shouted(text) else text, code, keep=lambda w: bool(self.prescreen.agents(w)))

    def evidence(self, text: str, score_all: bool = True) -> list[Evidence]:
        """What the decision reads, per window of ``text``: scores, term hits, agents, category probabilities.
        A text in capitals (:func:`~cosci.safety.language_cues.shouted`) is read as its lower-case copy, Turkish as
        Turkish writes it (:func:`~cosci.safety.language_cues.turkish_lower`): the intent model reads the letters as
        written, and capitals moved its harm score of one request by up to 0.9 either way, so the decision depended on
        the case. A Turkish text's windows as written join only where they name a term hit or an agent its copy does
        not (an acronym, "HIV", which Turkish lower case writes "hıv"; docs/design.md#safety-language, "Text in
        capitals").

        Args:
            score_all: score every window; False scores only windows with a term hit or a named agent, the only
                ones a rule can act on when the rule for a window naming neither is off (hypotheses, overviews):
                the embedding is the screen's cost, and a long hypothesis has many windows
                (docs/design.md#safety-screen). The others carry score 0 and ``scored`` False.
        """
        if not shouted(text):
            return self._evidence(text, score_all)
        turkish = read_language(text).code in TURKISH_CASE
        out = self._evidence(turkish_lower(text) if turkish else text.lower(), score_all)
        if turkish and ("I" in text or "İ" in text):
            written = self._evidence(text, score_all)
            named = _named(out)
            out += [e for e in written if _named([e]) - named]
        return out

    def _evidence(self, text: str, score_all: bool) -> list[Evidence]:
        blocks = [b for b in text.split("\n") if b.strip()]
        whole = [w for w in windows(text) if w.strip()] or [text]
        # and each window without its labels ("Goal:", "Research aim:", "SYSTEM:"), read as a whole window too
        labelled = {u: w for w in whole if (u := unlabelled(w)) != w and u.strip()}
        whole = list(dict.fromkeys([*whole, *labelled]))
        # each paragraph or list item on its own too: a request padded with benign preferences is not diluted
        items = [w for b in blocks if len(blocks) > 1 for w in windows(b) if w.strip() and w not in whole]
        # and each sentence of a text of several, read by the term-hit rule only (Evidence.sentence)
        said = [p for p in sentences(text) if words(p) >= ALONE_MIN_WORDS and [p] != [w.strip() for w in whole]]
        said += [c for c in self.prescreen.clauses(text) if words(c) >= ALONE_MIN_WORDS]  # a plan's clause too
        parts = list(dict.fromkeys([*whole, *items]))
        said = [p for p in dict.fromkeys(said) if p not in parts]
        parts += said
        found = [(tuple(self.prescreen.check(w)), self.prescreen.agents(w)) for w in parts]
        scored = [score_all or bool(hits) or bool(agents) for hits, agents in found]
        x = self.featurise([self.prescreen.unstated(w) for w, keep in zip(parts, scored, strict=True) if keep])
        rows = iter(zip(self.intent.harm(x), self.intent.category_probs(x), self.intent.support(x), strict=True))
        unscored = (0.0, np.zeros(len(self.intent.categories)), 0.0)
        # what a window is for is read with its label ("Nuclear forensics: tracing seized uranium"): the label is
        # dropped for the harm score only
        read = [self.stated(labelled.get(w, w)) for w in parts]
        # a plan in conditional form voids a remedy the window names ("which checks at a radiopharmacy would fail to
        # notice if ..."; cosci/safety/conditional.py)
        conditional = [self.prescreen.conditional(w) for w in parts]
        read = [(p, r and c not in (PLAN, INTENDED)) for (p, r), c in zip(read, conditional, strict=True)]
        return [Evidence(w, float(s), hits, agents, dict(zip(self.intent.categories, p.tolist(), strict=True)),
                         purposes, self.prescreen.classes(w), item=i >= len(whole), remedy=remedy,
                         support=float(n), sentence=i >= len(parts) - len(said), scored=keep,
                         chemistry=self.prescreen.basic_chemistry(w), described=self.prescreen.described(w),
                         asked=bool(hits) and (self.prescreen.asks(w, named=bool(agents))
                                               or self.prescreen.constructs(w) or self.prescreen.documents(w)),
                         explained=self.explains(w),
                         therapy=self.prescreen.therapy(w), conditional=cond,
                         pressed=bool(hits) and bool(purposes) and self.prescreen.pressed(w))
                for i, (w, (hits, agents), keep, (purposes, remedy), cond) in enumerate(
                    zip(parts, found, scored, read, conditional, strict=True))
                for s, p, n in [next(rows) if keep else unscored]]

    def explains(self, window: str) -> bool:
        """Whether ``window`` is a why- or how-question (:meth:`~cosci.safety.readings.Readings.asks_why`) and no other
        sentence of it asks for harm on its own: each sentence that is no such question is scored alone and must stay
        under the rule for a window naming no agent. A mechanism asked excuses only itself: "How does Listeria survive
        in a fridge? I want to put it in the school's food" was refused at 0.95 before its question was read, and the
        question alone is no reason to allow the demand after it (docs/design.md#safety-screen, "A mechanism asked in
        the indicative", twentieth stop). Only a window of several sentences costs an embedding more."""
        def asked(text: str) -> bool:
            return any(self.prescreen.asks_why(v) for v in windows(normalise(text)))
        if not asked(window):
            return False
        rest = [p for p in sentences(window) if words(p) >= 2 and not asked(p)]
        if not rest:
            return True
        x = self.featurise(rest)
        t = self.thresholds
        return not any(alone_passes(Evidence(p, float(s), (), {}, {}, support=float(n)), t)
                       for p, s, n in zip(rest, self.intent.harm(x), self.intent.support(x), strict=True))

    def stated(self, window: str) -> tuple[tuple[str, ...], bool]:
        """The protective purposes ``window`` states (its remedies among them) and whether its request is a
        countermeasure or oversight (:meth:`~cosci.safety.readings.Readings.remedies`), or a care question
        (:meth:`~cosci.safety.prescreen.Prescreen.cares`; its phrases are no stated purpose: a term hit's
        threshold stays the one for a window stating none)."""
        remedies = self.prescreen.remedies(window)
        cared = not remedies and bool(self.prescreen.cares(window, words(window)))
        return tuple(dict.fromkeys([*self.prescreen.purposes(window), *remedies])), bool(remedies) or cared

    def decide(self, evidence: list[Evidence], thresholds: Thresholds | None = None) -> ScreenResult:
        """The decision on a text's evidence (the configured thresholds unless others are given)."""
        t = thresholds or self.thresholds
        worst = max(evidence, key=lambda e: _severity(e, t))
        found = ScreenResult("allow", None, round(worst.score, 4), hits=tuple(h.note() for h in worst.hits),
                             agents=worst.agents, purposes=worst.purposes, scored=worst.scored)
        acting = act(worst, t)
        if acting is None:
            return found
        category, rule = acting
        threshold = {RULES[0]: min((t.hit_threshold(hit_object(worst, h, t), bool(worst.purposes))
                                    for h in worst.hits),
                                   default=t.hit_score),
                     RULES[1]: min((t.agent_threshold(c, bool(worst.purposes)) for c in worst.agents),
                                   default=t.agent_score), RULES[2]: t.alone_score}[rule]
        return replace(found, decision="block" if category in t.refuse_categories else "flag", category=category,
                       rule=rule, threshold=threshold)


LABEL = re.compile(r"(?:(?<=^)|(?<=[.!?。！？]\s))\s*(?:[^\W\d_][^\s:：]{0,24}(?:\s[^\s:：]{1,24}){0,2}\s*[:：]\s*)+")
"""A label at the start of a text or sentence: one to three words and a colon ("Goal:", "Research goal:", "目标：",
"SYSTEM:"), repeated. A label asks for nothing, yet it moved the intent model's harm score of short harmful requests
from 0.48 to 0.07 (a fresh user's report, design.md#safety-screen): each window is also read without them."""


def unlabelled(window: str) -> str:
    """``window`` with every :data:`LABEL` removed, its first letter capitalised as a sentence's (the labelled set is
    written in sentences: "increase airborne transmissibility..." scored 0.18, "Increase..." 0.48)."""
    rest = LABEL.sub("", window).strip()
    return rest[:1].upper() + rest[1:]


@cache
def offline_screen(terms: str, intent: str, thresholds: Thresholds) -> OfflineScreen:
    """The screen for a term file and an intent model file (both under ``conf/``), loaded once per process, its
    regular expressions (the gloss's too) compiled from the user cache's programs (:mod:`cosci.safety.compiled`).

    Raises:
        PrescreenError, IntentError: a file is missing or malformed.
    """
    with compiled_once(terms, GLOSS_FILE):
        _ = load_gloss().latin_any  # the gloss and its guard, read by the first check, compiled here too
        return OfflineScreen(load_prescreen(terms), load_intent(intent), thresholds)


def thresholds_of(cfg: SafetyCfg) -> Thresholds:
    """The configured thresholds (``safety.screen``, ``safety.refuse_categories``)."""
    s = cfg.screen
    return Thresholds(s.hit_score, s.protected_hit_score, s.agent_score, s.alone_score, tuple(cfg.refuse_categories),
                      s.protected_agent_score, s.alone_support, tuple(sorted(s.unprotected_hit_scores.items())),
                      tuple(sorted(s.unprotected_agent_scores.items())), s.asked_hit_score,
                      None if s.alone_strong_score is None else (s.alone_strong_score, s.alone_strong_support))


def screen_for(cfg: SafetyCfg) -> OfflineScreen:
    """The session's offline screen (loaded once per process for the configured files and thresholds).

    Raises:
        PrescreenError, IntentError: a configured file is missing or malformed.
    """
    return offline_screen(cfg.prescreen_terms, cfg.intent, thresholds_of(cfg))
