"""The offline safety screen: the term pre-screen combined with a model learned from the shipped exemplars.

Deterministic, offline and light (scikit-learn, no network, no GPU): on a tier unable to classify (the embedded
model, ``models.tiers.<tier>.unable_to_classify``) its decision is the decision; on a capable tier it is a
note in the classifier's prompt and a check on the classifier's answer (docs/design.md#safety-screen).

Two models are fitted once per process on the exemplars (``safety.exemplars``, a JSON Lines file under
``conf/``: the tuning part of the labelled goal set, ``tests/data/safety/``):

- the *harm* model, a logistic regression on character (2-5) and word (1-2) n-grams of the text with every named
  agent masked (:meth:`~cosci.safety.prescreen.Prescreen.mask`): it scores what is asked (make, spread, evade,
  treat, detect...) whatever the agent, so a vaccine goal and an enhancement goal about one virus differ;
- the *category* model, a logistic regression on the unmasked n-grams of the harmful exemplars, which names the
  category when the terms name none (an intent phrase alone) and picks between categories they name at one level
  (:func:`named_category`).

The decision (:meth:`OfflineScreen.check`), per window of three sentences, of the whole text and of each paragraph
or list item (a request padded with benign preferences is also read on its own): a term hit in a category acts when
the harm score is at least ``safety.screen.hit_score``, or ``protected_hit_score`` when the window states a
protective purpose (treatment, detection, vaccine, training: the close-to-the-line goals); an agent of a category
named without a hit, when it is at least ``agent_score`` (``protected_agent_score`` when the window states a
protective purpose); no agent at all (goals and feedback only), when it is at
least ``alone_score``. Acting in one of ``safety.refuse_categories`` (biological, chemical, radiological/nuclear)
is ``block``; in another category it is ``flag``. A term hit acts from a lower score than the other rules (chosen
by ``python -m bench.safety --split tune``; docs/design.md#safety-screen says why).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from functools import cache
from typing import Any

import numpy as np
from scipy.sparse import spmatrix
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import FeatureUnion
from threadpoolctl import threadpool_limits

from cosci.config.schema import SafetyCfg
from cosci.imports import scikit_learn_ready
from cosci.safety.exemplars import Exemplar, load_exemplars
from cosci.safety.prescreen import Prescreen, PrescreenHit, load_prescreen, normalise, windows

RULES = ("term hit", "agent", "score alone")
STYLED_LIKE_EXEMPLARS = ("goal", "feedback")
"""Subjects written like the exemplars (requests): only these are read by the rule for a text naming no agent."""
"""The three ways a window acts, strongest first."""
MODEL_C = 10.0
"""Inverse regularisation of both logistic regressions (chosen by cross-validation on the tuning part)."""


@dataclass(frozen=True)
class Thresholds:
    """Harm scores (probability, 0-1) at which each rule acts, and the categories a hit refuses in:
    ``hit_score`` a term hit, ``protected_hit_score`` a term hit in a window that states a protective purpose
    (treatment, detection, vaccine, training...), ``agent_score`` a named agent without a hit, ``alone_score`` a
    window naming no agent, ``protected_agent_score`` a named agent without a hit in a window stating a protective
    purpose (docs/design.md#safety-screen)."""

    hit_score: float
    protected_hit_score: float
    agent_score: float
    alone_score: float
    refuse_categories: tuple[str, ...]
    protected_agent_score: float | None = None
    """A named agent without a hit in a window that states a protective purpose (None: ``agent_score``)."""

    @property
    def protected_agent(self) -> float:
        return self.agent_score if self.protected_agent_score is None else self.protected_agent_score


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
        nearest: the most similar harmful exemplar in the acting category: its opening words and cosine.
    """

    decision: str
    category: str | None
    score: float
    rule: str | None = None
    hits: tuple[str, ...] = ()
    agents: dict[str, str] = field(default_factory=dict)
    purposes: tuple[str, ...] = ()
    threshold: float = 0.0
    nearest: tuple[str, float] | None = None

    @property
    def hit(self) -> bool:
        """Whether there is anything to show: a term hit or a decision other than ``allow``."""
        return bool(self.hits) or self.decision != "allow"

    def line(self) -> str:
        """One line: what matched and what the screen decided, e.g. ``chemical (term hit): "sarin" + "synthesis";
        harm score 0.93 (acts from 0.45); nearest harmful exemplar "Describe how to synthesize..." (0.41)``."""
        own = f"{self.category}: "
        matched = "; ".join(h.removeprefix(own) for h in self.hits) if self.hits else (
            "agents " + ", ".join(f'"{p}"' for p in self.agents.values()) if self.agents else "no listed term")
        if self.category is None:
            return f"{matched}; harm score {self.score:.2f}, below its threshold"
        near = f'; nearest harmful exemplar "{self.nearest[0]}" ({self.nearest[1]:.2f})' if self.nearest else ""
        return f"{self.category} ({self.rule}): {matched}; harm score {self.score:.2f} (acts from " \
               f"{self.threshold:.2f}){near}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _vectoriser() -> FeatureUnion:
    return FeatureUnion([("chars", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True)),
                         ("words", TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True))])


class OfflineScreen:
    """The fitted screen. Fitting takes well under a second for a few hundred exemplars; deterministic.

    Args:
        prescreen: the compiled term lists.
        exemplars: labelled goals (both labels, at least two harmful categories).
        thresholds: see :class:`Thresholds`.
    """

    def __init__(self, prescreen: Prescreen, exemplars: tuple[Exemplar, ...], thresholds: Thresholds) -> None:
        scikit_learn_ready()
        self.prescreen, self.thresholds = prescreen, thresholds
        self.harm_vec, self.cat_vec = _vectoriser(), _vectoriser()
        self.harmful = [e for e in exemplars if e.label == "harmful"]
        x = self.harm_vec.fit_transform([prescreen.mask(e.text) for e in exemplars])
        y = np.array([e.label == "harmful" for e in exemplars])
        self.cat_x = self.cat_vec.fit_transform([normalise(e.text) for e in self.harmful])
        with threadpool_limits(limits=1):  # BLAS threads only contend here: 0.2 s on one thread, 4-9 s on two busy
            self.harm = LogisticRegression(C=MODEL_C, max_iter=5000, class_weight="balanced").fit(x, y)
            self.category = LogisticRegression(C=MODEL_C, max_iter=5000).fit(self.cat_x, [e.category for e in
                                                                                          self.harmful])

    def scores(self, texts: list[str]) -> np.ndarray:
        """The harm model's probability for each text as one window, ``(len(texts),)`` float in [0, 1]."""
        if not texts:
            return np.zeros(0)
        x = self.harm_vec.transform([self.prescreen.mask(t) for t in texts])
        return np.asarray(self.harm.predict_proba(x)[:, list(self.harm.classes_).index(True)])

    def check(self, text: str, thresholds: Thresholds | None = None, subject: str = "goal") -> ScreenResult:
        """Screen ``text``: the most severe of its windows (block > flag > allow, then the higher score).

        Args:
            subject: what ``text`` is; the rule for a text naming no agent reads only goals and feedback, the
                kind of text the exemplars are (a hypothesis or an overview is not screened by it).
        """
        t = thresholds or self.thresholds
        if subject not in STYLED_LIKE_EXEMPLARS:
            t = replace(t, alone_score=math.inf)
        return self.decide(self.evidence(text), t)

    def evidence(self, text: str) -> list[Evidence]:
        """What the decision reads, per window of ``text``: scores, term hits, agents, category probabilities."""
        norm = normalise(text)
        blocks = [b for b in norm.split("\n") if b.strip()]
        # each paragraph or list item on its own too: a request padded with benign preferences is not diluted
        parts = list(dict.fromkeys([*windows(norm), *(w for b in blocks if len(blocks) > 1 for w in windows(b))]))
        # and without an opening cover story ("for a review on ..., describe ..."): the request read alone
        parts = list(dict.fromkeys([*parts, *(u for w in parts if (u := self.prescreen.uncovered(w)))]))
        probs = self.category.predict_proba(self.cat_vec.transform(parts))
        parts = parts or [""]
        return [Evidence(w, float(s), tuple(self.prescreen.check(w)), self.prescreen.agents(w),
                         dict(zip(self.category.classes_, p.tolist(), strict=True)),
                         tuple(self.prescreen.purposes(w)), self.prescreen.classes(w))
                for w, s, p in zip(parts, self.scores(parts), probs, strict=True)]

    def decide(self, evidence: list[Evidence], thresholds: Thresholds | None = None) -> ScreenResult:
        """The decision on a text's evidence (the configured thresholds unless others are given)."""
        t = thresholds or self.thresholds
        worst = max(evidence, key=lambda e: _severity(e, t))
        found = ScreenResult("allow", None, round(worst.score, 4), hits=tuple(h.note() for h in worst.hits),
                             agents=worst.agents, purposes=worst.purposes)
        acting = act(worst, t)
        if acting is None:
            return found
        category, rule = acting
        threshold = {RULES[0]: t.protected_hit_score if worst.purposes else t.hit_score,
                     RULES[1]: t.protected_agent if worst.purposes else t.agent_score, RULES[2]: t.alone_score}[rule]
        return replace(found, decision="block" if category in t.refuse_categories else "flag", category=category,
                       rule=rule, threshold=threshold, nearest=self._nearest(worst.window, category))

    def _nearest(self, window: str, category: str) -> tuple[str, float] | None:
        rows = [i for i, e in enumerate(self.harmful) if e.category == category] or list(range(len(self.harmful)))
        sims = _cosines(self.cat_vec.transform([window]), self.cat_x[rows])
        best = int(np.argmax(sims))
        words = self.harmful[rows[best]].text.split()
        return " ".join(words[:8]) + ("..." if len(words) > 8 else ""), round(float(sims[best]), 3)


def act(e: Evidence, t: Thresholds) -> tuple[str, str] | None:
    """The category and rule a window acts in, or None: a term hit from ``hit_score`` (``protected_hit_score``
    when the window states a protective purpose), an agent named from ``agent_score``, a window naming no agent
    from ``alone_score``.

    Whether it acts in a refuse category (``block``) or another (``flag``), and the rule, come from the strongest
    candidate (a refuse category first, then the strongest rule, then the likeliest category; an intent phrase,
    which names no category, stands for the likeliest). The category shown is then the one the window's own
    terms name within that kind (:func:`named_category`): the category model's guess only when no term names one,
    so "weaponise a pathogen" is biological whatever n-grams of "weaponise" the model weighs
    (docs/design.md#safety-screen)."""
    hit_score = t.protected_hit_score if e.purposes else t.hit_score
    candidates = [(e.likeliest() if h.category == "intent" else h.category, RULES[0])
                  for h in e.hits if e.score >= hit_score]
    agent_score = t.protected_agent if e.purposes else t.agent_score
    candidates += [(c, RULES[1]) for c in e.agents if e.score >= agent_score]
    if not e.hits and not e.agents and e.score >= t.alone_score:
        candidates.append((e.likeliest(), RULES[2]))
    if not candidates:
        return None
    category, rule = max(candidates, key=lambda c: (c[0] in t.refuse_categories, -RULES.index(c[1]),
                                                    e.probs.get(c[0], 0.0)))
    return named_category(e, category, t), rule


def named_category(e: Evidence, guess: str, t: Thresholds) -> str:
    """The category a window's terms name, of the same kind as ``guess`` (both refuse categories or neither, so
    the decision is the one ``guess`` gives): a term hit's own category, else a named agent's, else a class
    word's ("pathogen", "toxin", "radioactive material"), the category model's likelier among several at one
    level; ``guess`` when no term names a category of that kind."""
    refuse = guess in t.refuse_categories
    for named in ([h.category for h in e.hits if h.category != "intent"], list(e.agents), list(e.classes)):
        same_kind = [c for c in named if (c in t.refuse_categories) == refuse]
        if same_kind:
            return max(same_kind, key=lambda c: e.probs.get(c, 0.0))
    return guess


def decision_of(evidence: list[Evidence], t: Thresholds) -> str:
    """``allow``, ``flag`` or ``block`` for a text's evidence (what :meth:`OfflineScreen.decide` decides)."""
    return max((_decision(e, t) for e in evidence), key=("allow", "flag", "block").index)


def _decision(e: Evidence, t: Thresholds) -> str:
    acting = act(e, t)
    return "allow" if acting is None else "block" if acting[0] in t.refuse_categories else "flag"


def _severity(e: Evidence, t: Thresholds) -> tuple[int, bool, float]:
    return ("allow", "flag", "block").index(_decision(e, t)), bool(e.hits), e.score


@dataclass(frozen=True)
class Evidence:
    """One window: its normalised text, harm score (0-1), term hits, agents named, category probabilities, the
    protective purposes it states and the categories whose class words it uses (``classes``)."""

    window: str
    score: float
    hits: tuple[PrescreenHit, ...]
    agents: dict[str, str]
    probs: dict[str, float]
    purposes: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()

    def likeliest(self) -> str:
        """The harmful category the category model finds most likely for this window."""
        return max(self.probs, key=lambda c: self.probs[c])


def _cosines(row: spmatrix, rows: spmatrix) -> np.ndarray:
    """Cosine of one sparse row against many: ``(n,)`` float (TF-IDF blocks are L2-normalised separately)."""
    dots = np.asarray((rows @ row.T).todense()).ravel()
    norms = np.sqrt(np.asarray(rows.multiply(rows).sum(axis=1)).ravel()) * np.sqrt(row.multiply(row).sum())
    return dots / np.where(norms == 0, 1.0, norms)


@cache
def offline_screen(terms: str, exemplars: str, thresholds: Thresholds) -> OfflineScreen:
    """The fitted screen for a term file and an exemplar file (both under ``conf/``), once per process.

    Raises:
        PrescreenError, ExemplarError: a file is missing or malformed.
    """
    return OfflineScreen(load_prescreen(terms), load_exemplars(exemplars), thresholds)


def thresholds_of(cfg: SafetyCfg) -> Thresholds:
    """The configured thresholds (``safety.screen``, ``safety.refuse_categories``)."""
    s = cfg.screen
    return Thresholds(s.hit_score, s.protected_hit_score, s.agent_score, s.alone_score, tuple(cfg.refuse_categories),
                      s.protected_agent_score)


def screen_for(cfg: SafetyCfg) -> OfflineScreen:
    """The session's offline screen (fitted once per process for the configured files and thresholds).

    Raises:
        PrescreenError, ExemplarError: a configured file is missing or malformed.
    """
    return offline_screen(cfg.prescreen_terms, cfg.exemplars, thresholds_of(cfg))
