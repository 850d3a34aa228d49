"""The safety agent: safety screening of the goal, each new hypothesis and the overview (docs/design.md#safety-screen).

Actions (each the offline screen and one classifier call, :class:`~cosci.safety.classifier.Classifier`):

- ``ScreenGoal`` — before goal parsing and before any other model call. A decision in ``safety.block_goal_on``
  marks the session ``refused`` (stop reason ``safety: <categories>``) and nothing else runs; ``flag`` continues
  with a warning on the terminal (and a tag on the MLflow run at the end).
- ``ScreenHypothesis`` — right after a hypothesis is recorded (generated or evolved), before its review. A
  decision in ``safety.quarantine_on`` moves it to ``quarantined`` (design.md#states): it is never
  reviewed, ranked, evolved or put in the overview unless a researcher releases it (``cosci release``).
- ``ScreenOverview`` — after the final overview is written. A decision in ``safety.withhold_overview_on``
  replaces the overview on the session row with a notice; the text is kept with the verdict only (written to
  ``final/overview.withheld.md``, never logged to MLflow).
"""

from __future__ import annotations

import re

from cosci.agents.base import BaseAgent
from cosci.domain import Task, TaskResult
from cosci.grounding.claims import STATUSES
from cosci.safety.classifier import Classifier, Screening

CLAIM_TAG = re.compile(r"\[(?:" + "|".join(STATUSES) + r")\]")
"""cosci's own claim-status tags in an overview (``[untraceable]``, ``[hypothesis_only]``, ...): removed before the
overview is screened, since they are cosci's words, not the model's ("untraceable" is also a harmful-intent term of
the screen; design.md#safety-screen)."""


def goal_text(goal: str, preferences: list[str]) -> str:
    """What goal screening reads: the goal and the preferences that go to goal parsing with it."""
    return goal.strip() + "".join(f"\n- {p}" for p in preferences)


def _by(s: Screening) -> str:
    return "The offline safety screen" if s.verdict.screen.get("decided_by") == "screen" else "The safety classifier"


def withheld_notice(s: Screening) -> str:
    """The overview text shown (and logged) in place of a withheld one."""
    v = s.verdict
    return ("# Overview withheld by safety screening\n\n"
            f"{_by(s)} blocked the final overview ({', '.join(v.categories) or 'no category'}): "
            f"{' '.join(v.rationale.split()) or 'no rationale given'}\n\n"
            "Its text is kept in `final/overview.withheld.md` in the session folder and was not logged to MLflow."
            " Have a person review it before it is shared. `cosci status` lists the verdicts.\n")


def refusal_notice(s: Screening) -> str:
    """The session's overview when its goal was refused: the verdict only."""
    v = s.verdict
    return ("# Session refused by safety screening\n\n"
            f"{_by(s)} blocked the research goal ({', '.join(v.categories) or 'no category'}): "
            f"{' '.join(v.rationale.split()) or 'no rationale given'}\n\n"
            "Nothing else ran and nothing else was spent.\n")


class SafetyAgent(BaseAgent):
    name = "safety"

    @property
    def classifier(self) -> Classifier:
        return Classifier(self.config, self.deps.llm, self.deps.router, self.store)

    async def execute(self, task: Task) -> TaskResult:
        if task.action == "ScreenGoal":
            return await self._goal(task)
        if task.action == "ScreenHypothesis":
            return await self._hypothesis(task)
        if task.action == "ScreenOverview":
            return await self._overview(task)
        raise ValueError(f"safety: unknown action {task.action!r}")

    async def _goal(self, task: Task) -> TaskResult:
        row = self.store.sessions.get()
        s = await self.classifier.screen("goal", goal_text(row.research_goal, list(self.config.session.preferences)),
                                         task_id=task.id, action=task.action)
        detail = {"decision": s.decision, "categories": s.verdict.categories, "verdict_id": s.verdict.id}
        if s.acted:
            self.store.sessions.update(status="refused", final_overview=refusal_notice(s),
                                        stop_reason=f"safety: {', '.join(s.verdict.categories) or 'unspecified'}")
            self.store.logs.event("goal_refused", detail, agent=self.name)
            return TaskResult("goal_refused", detail=detail)
        return TaskResult("goal_screened", detail=detail)

    async def _hypothesis(self, task: Task) -> TaskResult:
        h = self.store.hypotheses.get(task.target_id or "")
        if h is None:
            raise ValueError(f"safety: no hypothesis {task.target_id!r}")
        classifier = Classifier(self.config, self.deps.llm, self.deps.router, self.store, self.deps.screen)
        s = await classifier.screen("hypothesis", h.brief(), subject_id=h.id, task_id=task.id, action=task.action)
        detail = {"decision": s.decision, "categories": s.verdict.categories, "verdict_id": s.verdict.id}
        if s.acted:
            self.store.hypotheses.set_state(h.id, "quarantined")
            self.store.logs.event("hypothesis_quarantined", {"id": h.id, **detail}, agent=self.name)
            return TaskResult("hypothesis_quarantined", [h.id], detail=detail)
        return TaskResult("hypothesis_screened", [h.id], detail=detail)

    async def _overview(self, task: Task) -> TaskResult:
        text = self.store.sessions.get().final_overview or ""
        if not text.strip():
            return TaskResult("overview_screened", detail={"decision": "none", "reason": "no overview"})
        s = await self.classifier.screen("overview", CLAIM_TAG.sub("", text), task_id=task.id, action=task.action,
                                         keep_text=True)
        detail = {"decision": s.decision, "categories": s.verdict.categories, "verdict_id": s.verdict.id}
        if s.acted:
            self.store.sessions.update(final_overview=withheld_notice(s))
            self.store.logs.event("overview_withheld", detail, agent=self.name)
            return TaskResult("overview_withheld", detail=detail)
        return TaskResult("overview_screened", detail=detail)
