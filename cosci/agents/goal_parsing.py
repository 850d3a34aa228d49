"""Goal parsing, the Supervisor's one LLM call (design.md#supervisor).

One forced ``record_research_plan`` call on the cheap tier; the plan is stored on the session row and feeds
every later prompt. If the call fails (provider error, invalid answer, budget), a fallback plan made from the
goal text is stored instead, so the session continues; except when the provider's host cannot be reached at all
(:class:`~cosci.llm.errors.HostUnreachable`): then the session ends ``failed`` here.
"""

from __future__ import annotations

import logging

from cosci.agents.base import BaseAgent, fallback_plan
from cosci.domain import Task, TaskResult
from cosci.llm.errors import CALL_FAILED, HostUnreachable
from cosci.llm.port.structured import call_record
from cosci.prompts import render
from cosci.records import RecordResearchPlan

log = logging.getLogger(__name__)


class GoalParsingAgent(BaseAgent):
    name = "goal_parsing"

    async def execute(self, task: Task) -> TaskResult:
        """``ParseGoal``: store the research plan; ``research_plan_parsed`` (detail ``fallback`` if it failed)."""
        session = self.store.sessions.get()
        prefs = list(self.config.session.preferences)
        user = render("parse_goal", goal=session.research_goal, preferences_text="\n".join(f"- {p}" for p in prefs))
        spec = self.spec("parse_goal", task, user, feedback=False)
        spec.system = spec.system[:1]  # only the safety preamble: there is no plan yet
        fallback = False
        try:
            plan, _ = await call_record(self.deps.llm, spec, RecordResearchPlan)
            if not plan.preferences and prefs:
                plan = plan.model_copy(update={"preferences": prefs})
        except HostUnreachable:  # no later call can reach it: the session ends here (design.md#unreachable-hosts)
            raise
        except CALL_FAILED as exc:  # BudgetBusy is not one: the task runner waits (design.md#budget)
            log.warning("goal parsing failed (%s); using the goal as the plan", exc)
            plan, fallback = fallback_plan(session.research_goal, prefs), True
        self.store.sessions.update(research_plan=plan.model_dump())
        self.deps.forget_plan()
        return TaskResult("research_plan_parsed", detail={"fallback": fallback, "objective": plan.objective[:200]})
