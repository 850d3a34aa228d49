"""The safety classifier on the mini tier (design.md#safety).

:meth:`Classifier.screen` runs the deterministic pre-screen (:mod:`cosci.safety.prescreen`), then one forced
``record_safety_verdict`` call (``agents.safety.modes.classify``; its cost comes from the budget reserve, see
``cosci.llm.gateway.adapter.RESERVE_MODES``), and records the verdict in ``safety_verdicts``. Whether a decision acts
depends on what was screened: ``safety.block_goal_on`` (goal, researcher feedback), ``safety.quarantine_on``
(hypothesis), ``safety.withhold_overview_on`` (final overview).

If the classifier call fails (provider error, invalid answer, budget), the text is kept with decision ``flag``
and a rationale saying it was not screened by the model: a failure never blocks, but it is never silent.
On the embedded model (a schema-constrained 135M model, whose decisions are close to chance) a ``block``
acts only when the pre-screen also hit; otherwise it is recorded as ``flag``
(``safety.embedded_block_needs_prescreen``), so the default offline demo is not refused at random.
No framework imports: the classifier talks to the LLM port.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from cosci.config.schema import CosciConfig
from cosci.errors import CosciError, GoalRefused
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, LLMPort, TextBlock
from cosci.prompts import render
from cosci.records import RecordSafetyVerdict
from cosci.safety.prescreen import load_prescreen
from cosci.safety.quoting import quote_untrusted
from cosci.store import SafetyVerdict, SessionStore
from cosci.store.safety import Subject, verdict_id

log = logging.getLogger(__name__)
__all__ = ["Classifier", "GoalRefused", "Screening", "acts", "screening_on"]
SUBJECT_LABELS = {"goal": "research goal", "hypothesis": "hypothesis", "overview": "final overview",
                  "feedback": "researcher feedback"}


def screening_on(config: CosciConfig) -> bool:
    """Whether safety screening runs (``safety.enabled`` and a ``safety`` agent; old snapshots have neither)."""
    return config.safety is not None and config.safety.enabled and "safety" in config.agents


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


class Classifier:
    """Screens texts for one session.

    Args:
        llm: the LLM port (the session's gateway, which books the call on the ``safety`` agent).
        router: routes ``safety.classify`` to its tier (mini by default).
    """

    def __init__(self, config: CosciConfig, llm: LLMPort, router: Router, store: SessionStore) -> None:
        if config.safety is None:
            raise CosciError("safety: no safety section in this session's config")
        self.config, self.cfg, self.llm, self.router, self.store = config, config.safety, llm, router, store

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
        notes = [hit.note() for hit in load_prescreen(self.cfg.prescreen_terms).check(text)]
        route = self.router.route("safety", "classify")
        user = render("safety.classify", subject=SUBJECT_LABELS[subject], categories=self.cfg.categories,
                      text=quote_untrusted(text, f"{subject}-{subject_id or 'text'}"), prescreen_notes=notes)
        spec = CallSpec(route=route, action=action, task_id=task_id, messages=[{"role": "user", "content": user}],
                        system=[TextBlock(render("_safety_preamble"), cache=True)])
        try:
            rec, _ = await call_record(self.llm, spec, RecordSafetyVerdict)
            decision, categories, rationale = rec.decision, self.categories(rec.categories), rec.rationale.strip()
            if decision == "block" and route.constrained and not notes and self.cfg.embedded_block_needs_prescreen:
                decision = "flag"
                rationale = f"embedded model's block without a pre-screen hit, kept as a flag: {rationale}"
        except CosciError as exc:
            log.warning("safety classifier failed on the %s (%s); kept and flagged", SUBJECT_LABELS[subject], exc)
            decision, categories = "flag", sorted({n.split(":", 1)[0] for n in notes} & set(self.cfg.categories))
            rationale = f"not screened by the model: the classifier call failed ({type(exc).__name__})"
        acted = acts(self.config, subject, decision)
        self.store.safety.add(vid, subject, subject_id, decision=decision, categories=categories,
                               rationale=rationale, prescreen=notes, acted=acted, model=route.model,
                               task_id=task_id, withheld_text=text if acted and keep_text else None)
        verdict = self.store.safety.get(vid)
        assert verdict is not None
        self.store.logs.event(f"safety_{decision}", {"subject": subject, "subject_id": subject_id,
                                                      "verdict_id": vid, "acted": acted}, agent="safety")
        return Screening(verdict)

    def categories(self, given: list[str]) -> list[str]:
        """The model's categories mapped onto ``safety.categories`` (case, spaces, slashes ignored); the rest
        become ``other``."""
        known = {_key(c): c for c in self.cfg.categories}
        out = [known.get(_key(c), "other") for c in given if c.strip()]
        return list(dict.fromkeys(out))


def _key(name: str) -> str:
    return re.sub(r"[^a-z]+", "_", name.lower()).strip("_")
