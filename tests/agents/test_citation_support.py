"""``grounded`` means a verified quote the support check found to support the hypothesis, not a verified quote alone
(docs/design.md#grounded-debate-hypotheses). Every judge answer is scripted here, right and wrong; where no tier can
judge (a schema-constrained embedded model) no call is made and the label is ``quoted (relevance unchecked)``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from cosci.agents.generation import GenerationAgent
from cosci.domain import GROUNDED, QUOTED, UNGROUNDED, Hypothesis
from cosci.grounding.support import can_judge
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.llm.gateway.routing import Router
from cosci.session.runtime import SessionRuntime
from tests.agents.test_debate_grounding import RECORDS, URL, debate, script_debate
from tests.agents.test_generation_agent import HYP
from tests.agents.test_grounded_inputs import RecordsTool
from tests.conftest import make_config

QUOTE = "reduced colony formation of primary AML blasts by 70 percent"
SUPPORT = "GenerateHypothesis/support"
pytestmark = pytest.mark.overrides("debate.min_turns=1", "debate.max_turns=1")


def script_quote(fake: FakeBackend, verdict: dict[str, Any] | None) -> None:
    """The debate, one verbatim quote of the first record, and the support check's scripted answer."""
    script_debate(fake)
    fake.script(FakeReply.record("record_citations", citations=[{"url": URL, "title": "verbatim", "excerpt": QUOTE}]),
                agent="generation", action="GenerateHypothesis/grounding")
    if verdict is not None:
        fake.script(FakeReply.record("record_claim_checks", c1=verdict), agent="generation", action=SUPPORT)


async def grounded_debate(planned: SessionRuntime, agent_with_tools) -> tuple[Any, Hypothesis]:
    return await debate(planned, agent_with_tools, RecordsTool("pubmed_search", "2 results.", records=RECORDS))


@pytest.mark.parametrize(("verdict", "label"), [
    ({"verdict": "supported", "excerpt": "Disulfiram with copper inhibited ALDH1A1 activity", "why": "States it."},
     GROUNDED),
    ({"verdict": "partially_supported", "excerpt": QUOTE, "why": "Blasts, not stem cells."}, GROUNDED),
    ({"verdict": "not_supported", "excerpt": "", "why": "About colony formation, not ALDH1A1 in stem cells."},
     UNGROUNDED),
    ({"verdict": "contradicted", "excerpt": QUOTE, "why": "Opposite."}, UNGROUNDED),
    # a wrong answer: "supported" resting on words the source does not hold is no judgment
    ({"verdict": "supported", "excerpt": "Disulfiram eradicated leukemic stem cells in every patient", "why": "."},
     QUOTED),
])
async def test_the_label_follows_the_support_check_of_the_verified_quote(planned: SessionRuntime, fake: FakeBackend,
                                                                         agent_with_tools, verdict: dict[str, Any],
                                                                         label: str) -> None:
    script_quote(fake, verdict)
    result, h = await grounded_debate(planned, agent_with_tools)
    (call,) = [c for c in fake.calls_for("generation", "grounding") if c.action == SUPPORT]
    assert call.tool_choice == {"type": "function", "function": {"name": "record_claim_checks"}}
    assert QUOTE in call.prompt and HYP["statement"] in call.prompt and "### Claim C1" in call.prompt
    assert h.citations[0]["status"] == "verified" and h.grounding == label, h.citations
    assert result.detail["support"]["judged"] is True and h.grounded == (label == GROUNDED)


async def test_a_failed_support_call_leaves_the_quote_unchecked(planned: SessionRuntime, fake: FakeBackend,
                                                                agent_with_tools) -> None:
    script_quote(fake, None)
    fake.script(FakeReply.malformed("record_claim_checks"), agent="generation", action=SUPPORT, times=3)
    result, h = await grounded_debate(planned, agent_with_tools)
    assert result.kind == "hypothesis_created" and h.grounding == QUOTED
    assert result.detail["support"]["judged"] is False and result.detail["support"]["error"]


async def test_an_unreachable_host_at_the_support_call_ends_the_task_not_the_label(planned: SessionRuntime,
                                                                                   fake: FakeBackend,
                                                                                   agent_with_tools) -> None:
    """Fresh-user trial: the fallbacks around a failed call swallowed ``HostUnreachable`` too, so a session whose
    host went away went on making unchecked, ungrounded hypotheses. It is let through: the session ends on its line."""
    from cosci.llm.errors import HostUnreachable

    script_quote(fake, None)
    fake.script(FakeReply(fault="unreachable"), agent="generation", action=SUPPORT, times=3)
    with pytest.raises(HostUnreachable, match="its name does not resolve"):
        await grounded_debate(planned, agent_with_tools)


async def test_where_no_tier_can_judge_there_is_no_call_and_the_label_says_so(planned: SessionRuntime,
                                                                               fake: FakeBackend,
                                                                               agent_with_tools) -> None:
    script_quote(fake, {"verdict": "supported", "excerpt": QUOTE, "why": "never asked"})
    agent = agent_with_tools(GenerationAgent, RecordsTool("pubmed_search", "2 results.", records=RECORDS))
    route = agent.deps.router.route

    def constrained(name: str, mode: str, tier: str | None = None):  # the embedded model's routes
        return replace(route(name, mode, tier), constrained=True)

    agent.deps.router.route = constrained  # type: ignore[method-assign]
    tid = planned.store.tasks.enqueue("generation", "GenerateHypothesis", "g-local", payload={"mode": "debate"})
    result = await agent.execute(planned.store.tasks.get(tid))
    h = planned.store.hypotheses.get(result.hypothesis_ids[0])
    assert [c.action for c in fake.calls_for("generation", "grounding")] == ["GenerateHypothesis/grounding"]
    assert h.grounding == QUOTED and h.citations[0]["status"] == "verified" and h.citations[0].get("support") is None
    assert "cannot judge" in result.detail["support"]["why"]
    assert "relevance unchecked" in h.grounding_note


async def test_a_literature_hypothesis_is_judged_the_same_way(planned: SessionRuntime, fake: FakeBackend,
                                                              agent_with_tools) -> None:
    tool = RecordsTool("pubmed_search", "2 results.", records=RECORDS)
    agent = agent_with_tools(GenerationAgent, tool)
    fake.script(FakeReply.record("pubmed_search", query="disulfiram ALDH1A1 AML"), agent="generation")
    fake.script(FakeReply.record("record_hypothesis", **{**HYP, "citations": [
        {"url": URL, "title": "verbatim", "excerpt": QUOTE}]}), agent="generation", mode="literature")
    fake.script(FakeReply.record("record_claim_checks", c1={"verdict": "not_supported", "excerpt": "",
                                                            "why": "Shares words only."}),
                agent="generation", action="CreateInitialHypotheses/support")
    tid = planned.store.tasks.enqueue("generation", "CreateInitialHypotheses", "g0")
    result = await agent.execute(planned.store.tasks.get(tid))
    h = planned.store.hypotheses.get(result.hypothesis_ids[0])
    assert h.citations[0]["status"] == "verified" and h.citations[0]["support"] == "not_supported"
    assert h.grounding == UNGROUNDED


def test_a_retracted_supporting_quote_grounds_nothing() -> None:
    cite = {"status": "verified", "support": "supported", "retraction": "retracted"}
    h = Hypothesis(**{**_blank(), "citations": [cite]})
    assert h.grounding == UNGROUNDED and not h.grounded


def _blank() -> dict[str, Any]:
    fields = {f: "" for f in Hypothesis.__dataclass_fields__}
    return {**fields, "entities": [], "citations": [], "parent_ids": [], "elo": 1200.0, "matches_played": 0, "wins": 0,
            "state": "new", "dedup_cluster": None, "created_at": 0.0}


@pytest.mark.parametrize("agent", ["generation", "evolution"])
def test_on_the_default_embedded_model_no_tier_can_judge_and_a_hosted_one_can(tmp_path, agent: str) -> None:
    for models, judges in (("models=local", False), ("models=sonnet", True)):
        cfg = make_config(tmp_path / models.split("=")[1], models)
        route = Router(cfg).route(agent, "grounding")
        assert can_judge(route.constrained, cfg.metareview.claim_check_constrained_verdicts) is judges, models
