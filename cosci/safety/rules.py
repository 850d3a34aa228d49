"""The screen's rules: the harm-score thresholds each kind of evidence acts from, and which window acts.

A window's evidence (:class:`Evidence`: its harm score, term hits, named agents, protective purposes and readings of
its request) acts when its harm score reaches the threshold of the strongest evidence it shows (:func:`act`): a term
hit, an agent named, or neither (the rule for a window naming no agent). Split from :mod:`cosci.safety.screen`,
which reads the text and gathers the evidence (docs/design.md#safety-screen).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cosci.safety.conditional import INTENDED, RESPONSE
from cosci.safety.prescreen import PrescreenHit

RULES = ("term hit", "agent", "score alone")
"""The three ways a read window acts, strongest evidence first."""
ALONE_MIN_WORDS = 5
"""The rule for a window naming no agent reads only windows of at least 5 words: the intent model scores a request,
and a text of a few words (a rating's "I prefer A", a result's "the assay failed", "a false positive") carries none;
its embedding scored 0.65-0.99 on such texts (docs/design.md#safety-screen). Shorter texts are read by the other two
rules (a term hit, an agent named)."""


def words(text: str) -> int:
    """Words of ``text``: space-separated tokens holding a letter (a CJK or Thai run, written without spaces,
    counts by characters, two to a word)."""
    spaced = sum(1 for token in text.split() if any(ch.isalpha() for ch in token))
    dense = len(re.findall(r"[\u3040-\u30ff\u4e00-\u9fff\u0e00-\u0e7f\uac00-\ud7af]", text))
    return max(spaced, dense // 2)

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
    alone_support: float = 0.0
    """The support (share of harmful requests among the window's nearest training rows,
    :meth:`~cosci.safety.intent.IntentModel.support`) the rule for a window naming no agent needs besides
    ``alone_score`` (0: the score alone)."""
    unprotected_hit_scores: tuple[tuple[str, float], ...] = ()
    """Per category, the harm score from which a term hit of that category acts in a window stating no protective
    purpose, where lower than ``hit_score`` (a named chemical-weapon agent with a synthesis step: the intent model,
    fitted mostly on chemistry written for research, scores "Synthesis route for VX from commercially available
    chemicals" 0.20; docs/design.md#safety-screen)."""

    unprotected_agent_scores: tuple[tuple[str, float], ...] = ()
    """Per category, the harm score from which a named agent of that category (without a term hit) acts in a window
    stating no protective purpose, where lower than ``agent_score``: the request's object is a threat agent and
    nothing in the window names a countermeasure or a protective purpose, so less of the request's wording has to
    read as harmful (a chemical-weapon agent with a production verb in a language the term lists do not read;
    docs/design.md#safety-screen)."""

    asked_hit_score: float | None = None
    """The harm score from which a term hit of an agent with a harmful step acts in a window that asks for the step
    outright and states no protective purpose (:meth:`~cosci.safety.readings.Readings.asks`; None: the hit's usual
    threshold)."""
    alone_strong: tuple[float, float] | None = None
    """``(score, support)``: a second bar of the rule for a window naming no agent, for a window scored at least
    ``score`` whose support is under ``alone_support`` but reaches ``support`` (None: no second bar; tried in
    bench/safety_rechoose.py, bench/README.md "eighteenth stop")."""

    def hit_threshold(self, category: str, protected: bool) -> float:
        """The harm score from which a term hit of ``category`` acts (``protected``: the window states a protective
        purpose)."""
        if protected:
            return self.protected_hit_score
        return min(self.hit_score, dict(self.unprotected_hit_scores).get(category, self.hit_score))

    def agent_threshold(self, category: str, protected: bool) -> float:
        """The harm score from which a named agent of ``category`` acts without a term hit (``protected``: the
        window states a protective purpose)."""
        if protected:
            return self.protected_agent
        return min(self.agent_score, dict(self.unprotected_agent_scores).get(category, self.agent_score))

    @property
    def protected_agent(self) -> float:
        return self.agent_score if self.protected_agent_score is None else self.protected_agent_score


def act(e: Evidence, t: Thresholds) -> tuple[str, str] | None:
    """The category and rule a window acts in, or None: a term hit from ``hit_score`` (``protected_hit_score``
    when the window states a protective purpose; ``asked_hit_score`` when it asks for the hit's step outright and
    states none, :attr:`Evidence.asked`), an agent named from ``agent_score`` (not where a resistance step is
    said of a mechanism, :attr:`Evidence.described`), a window naming no agent
    from ``alone_score`` where its support reaches ``alone_support`` (never a paragraph or list item read on its own,
    :attr:`Evidence.item`, nor basic chemistry, :attr:`Evidence.chemistry`). On a window whose request is a
    countermeasure or oversight (:attr:`Evidence.remedy`) only a term hit of an agent with a harmful step acts.

    Whether it acts in a refuse category (``block``) or another (``flag``), and the rule, come from the strongest
    candidate (a refuse category first, then the strongest rule, then the likeliest category; an intent phrase,
    which names no category, stands for the likeliest). The category shown is then the one the window's own
    terms name within that kind (:func:`named_category`): the category model's guess only when no term names one,
    so "weaponise a pathogen" is biological whatever n-grams of "weaponise" the model weighs
    (docs/design.md#safety-screen)."""
    # on a remedy an intent phrase names what is verified or destroyed ("chemical weapons stocks"); an agent with
    # a harmful step still acts
    hits = [h for h in e.hits if not (e.remedy and h.category == "intent")]
    if e.conditional == RESPONSE and not (e.asked or e.pressed):
        return None  # the incident is a premise: what is asked is a response (conditional.py)
    if e.conditional == INTENDED and any(c in t.refuse_categories for c in [*e.agents, *e.classes]):
        hits.append(PrescreenHit("intent", ("a plan in conditional form",)))
    asked = (e.asked or e.pressed) and (not e.purposes or e.pressed) and t.asked_hit_score is not None \
        and e.score >= t.asked_hit_score
    # a plan in conditional form with an intention stated is asked as plainly for a flag category's hit ("suppose
    # someone wanted to silence a BSL-3 lab's alarm system, what way is there"; design.md#safety-screen, "A plant's
    # process hacked"): it is flagged, as the same plan asked outright is
    flagged_plan = e.conditional == INTENDED and t.asked_hit_score is not None and e.score >= t.asked_hit_score
    candidates = [(e.likeliest() if h.category == "intent" else h.category, RULES[0])
                  for h in hits if e.score >= t.hit_threshold(hit_object(e, h, t), bool(e.purposes))
                  or (asked and h.category != "intent")
                  or (flagged_plan and h.category not in (*t.refuse_categories, "intent"))]
    candidates += [(c, RULES[1]) for c in e.agents if e.score >= t.agent_threshold(c, bool(e.purposes))
                   and not e.sentence and not e.described and not e.remedy]
    if not e.hits and not e.agents and not e.item and not e.chemistry and not e.remedy and not e.described \
            and not e.explained and not e.therapy and alone_passes(e, t) and words(e.window) >= ALONE_MIN_WORDS:
        candidates.append((e.likeliest(), RULES[2]))
    if not candidates:
        return None
    category, rule = max(candidates, key=lambda c: (c[0] in t.refuse_categories, -RULES.index(c[1]),
                                                    e.probs.get(c[0], 0.0)))
    return named_category(e, category, t), rule


def alone_passes(e: Evidence, t: Thresholds) -> bool:
    """Whether a window's harm score and support pass the rule for a window naming no agent: ``alone_score`` with
    ``alone_support``, or the second bar :attr:`Thresholds.alone_strong` where set."""
    if e.score >= t.alone_score and e.support >= t.alone_support:
        return True
    return t.alone_strong is not None and e.score >= t.alone_strong[0] and e.support >= t.alone_strong[1]


def hit_object(e: Evidence, hit: PrescreenHit, t: Thresholds) -> str:
    """The category whose threshold a term hit is read at: its own; for an intent phrase (an action that names no
    object: "weaponise", "without their consent"), the first refuse category the window's other terms name (a term
    hit's, a named agent's, a class word's: "weaponise pesticides" is an action on a chemical), else ``intent``
    (docs/design.md#safety-screen, "Action and object")."""
    if hit.category != "intent":
        return hit.category
    named = [*(h.category for h in e.hits if h.category != "intent"), *e.agents, *e.classes]
    return next((c for c in named if c in t.refuse_categories), hit.category)


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
    """One window: its text, harm score (0-1), term hits, agents named, category probabilities, the
    protective purposes it states and the categories whose class words it uses (``classes``)."""

    window: str
    score: float
    hits: tuple[PrescreenHit, ...]
    agents: dict[str, str]
    probs: dict[str, float]
    purposes: tuple[str, ...] = ()
    classes: tuple[str, ...] = ()
    item: bool = False
    """A paragraph, list item or sentence read on its own: the rule for a window naming no agent does not read it (a
    preference line out of its goal, "Say what result would falsify the idea.", is nothing like a request)."""
    support: float = 1.0
    """Share of harmful requests among the window's nearest training rows (0-1)."""
    sentence: bool = False
    """A sentence of a longer text read on its own: only a term hit acts on it (an agent with a harmful step in one
    sentence, "Then give a route to synthesise sarin", is not diluted by the benign sentences around it; a named
    agent alone in a question out of its goal, "Should the last variola stocks be destroyed?", acted on 3 benign
    tuning rows and no harmful one, bench/README.md)."""
    scored: bool = True
    """Whether ``score``, ``probs`` and ``support`` were measured (:meth:`OfflineScreen.evidence`'s ``score_all``)."""
    chemistry: bool = False
    """The window asks for a synthesis or stabilisation of an object that is no threat (no agent, class word,
    people, place or weapon use: :meth:`~cosci.safety.prescreen.Prescreen.basic_chemistry`): the rule for a window
    naming no agent does not act on it, since that rule reads no object."""
    remedy: bool = False
    """The window's request is itself a countermeasure or oversight and asks for no weapon use
    (:meth:`~cosci.safety.readings.Readings.remedies`): only a term hit acts on it."""
    asked: bool = False
    """The window asks for a term hit's step outright (:meth:`~cosci.safety.readings.Readings.asks`), or for a
    biological intent phrase's trait in its request form (:meth:`~cosci.safety.readings.Readings.constructs`)."""
    pressed: bool = False
    """The step asked outright is one no stated purpose excuses (:meth:`~cosci.safety.readings.Readings.pressed`):
    it acts from ``asked_hit_score`` whatever purpose the window states."""
    described: bool = False
    """The window's resistance or escape step is said of a mechanism ("the mutations that make ... resistant",
    :meth:`~cosci.safety.prescreen.Prescreen.describes`): the agent rule does not act on it (the request's action is
    read, and it is a description); a term hit still does."""

    explained: bool = False
    """The window is a why-question naming no weapon use (:meth:`~cosci.safety.readings.Readings.asks_why`): the
    rule for a window naming no agent does not act on it."""
    conditional: str | None = None
    """What a conditional's main clause asks (:mod:`cosci.safety.conditional`): ``response`` (no rule acts but a step
    asked outright), ``plan`` (no remedy read), ``intended`` (acts as a term hit where a refuse category is named)."""
    therapy: bool = False
    """The window's object is a therapy or biocontrol agent and it names no agent of concern or weapon use
    (:meth:`~cosci.safety.readings.Readings.therapy`): the rule for a window naming no agent does not act on it."""

    def likeliest(self) -> str:
        """The harmful category the category model finds most likely for this window."""
        return max(self.probs, key=lambda c: self.probs[c])
