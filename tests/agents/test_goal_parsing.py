"""Goal parsing (seed 000 §1, seed 001 Phase 1): one forced ``record_research_plan`` call on the cheap tier;
the plan is stored; a failed or garbage answer stores a fallback plan made from the goal."""

from __future__ import annotations

import pytest

from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.records import RecordResearchPlan
from cosci.session.runtime import SessionRuntime

PLAN = {"objective": "Find approved drugs with an anti-AML mechanism testable in cell lines.",
        "preferences": ["known safety profile"], "constraints": ["approved drugs only"],
        "idea_attributes": ["novel", "testable", "specific"], "domain_hint": "haematology"}


async def test_parse_goal_stores_the_plan(runtime: SessionRuntime, fake: FakeBackend, run_task) -> None:
    fake.script(FakeReply.record("record_research_plan", **PLAN), agent="goal_parsing")
    _, result = await run_task("goal_parsing", "ParseGoal", "goal_parsing::parse_goal")
    assert result.kind == "research_plan_parsed"
    assert result.detail == {"fallback": False, "objective": PLAN["objective"]}
    stored = runtime.store.sessions.get().research_plan
    assert stored is not None
    assert RecordResearchPlan.model_validate(stored).model_dump() == {**PLAN, "notes": None}
    assert runtime.deps.plan.objective == PLAN["objective"]  # the cached plan was refreshed

    (call,) = fake.calls
    assert (call.agent, call.mode, call.action, call.model) == ("goal_parsing", "parse_goal", "ParseGoal",
                                                                "cosci-fake/cheap")
    assert call.tools == ["record_research_plan"]
    assert call.tool_choice == {"type": "function", "function": {"name": "record_research_plan"}}
    goal = runtime.store.sessions.get().research_goal
    assert " ".join(goal.split()) in " ".join(call.prompt.split())
    assert "Prefer drugs with a known safety profile." in call.prompt  # the configured preferences are asked


async def test_empty_preferences_are_filled_from_the_config(runtime: SessionRuntime, fake: FakeBackend,
                                                            run_task) -> None:
    fake.script(FakeReply.record("record_research_plan", **{**PLAN, "preferences": []}), agent="goal_parsing")
    await run_task("goal_parsing", "ParseGoal", "goal_parsing::parse_goal")
    assert runtime.deps.plan.preferences == list(runtime.config.session.preferences)


@pytest.mark.parametrize("reply", [
    FakeReply.malformed("record_research_plan"),                      # truncated arguments
    FakeReply(tool_calls=[("record_research_plan", "objective: AML, please")]),  # not JSON at all
    FakeReply.record("record_research_plan", objective="", preferences=[], idea_attributes=[]),  # invalid
    FakeReply.no_tool_call("Here is your plan: study AML."),
    FakeReply.empty(),
    FakeReply(fault="bad_request"),
    FakeReply(fault="not_found"),
], ids=["truncated", "garbage", "invalid", "text-only", "empty", "bad-request", "model-missing"])
async def test_garbage_or_faults_store_the_fallback_plan(runtime: SessionRuntime, fake: FakeBackend, run_task,
                                                         reply: FakeReply) -> None:
    fake.script(reply, agent="goal_parsing", times=3)  # also answers any degraded retry the same way
    _, result = await run_task("goal_parsing", "ParseGoal", "goal_parsing::parse_goal")
    assert result.kind == "research_plan_parsed" and result.detail["fallback"] is True
    goal = " ".join(runtime.store.sessions.get().research_goal.split())
    plan = RecordResearchPlan.model_validate(runtime.store.sessions.get().research_plan)
    assert plan.objective == goal
    assert plan.preferences == list(runtime.config.session.preferences)
    assert plan.idea_attributes and plan.notes is not None and "fallback" in plan.notes
    assert runtime.deps.plan == plan


async def test_transient_faults_past_the_retries_also_fall_back(runtime: SessionRuntime, fake: FakeBackend,
                                                                run_task) -> None:
    attempts = runtime.config.retry.rate_limit_attempts
    fake.script(FakeReply(fault="rate_limit"), agent="goal_parsing", times=attempts)
    _, result = await run_task("goal_parsing", "ParseGoal", "goal_parsing::parse_goal")
    assert result.detail["fallback"] is True
    assert len(fake.calls) == attempts  # the gateway retried, then the parser fell back
    assert runtime.store.logs.outcomes() == {"retry:rate_limit": attempts - 1, "error:rate_limit": 1}
