"""A debate hypothesis is grounded after its debate: a short search built from it, citations chosen from what the
search returned and checked like literature mode's; with no verified source it is ``ungrounded``. Every answer
the checks judge is scripted here, right and wrong."""

from __future__ import annotations

import pytest

from cosci.agents.generation import GenerationAgent
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.session.runtime import SessionRuntime
from cosci.tools.base import Source
from tests.agents.test_generation_agent import HYP
from tests.agents.test_grounded_inputs import RecordsTool

URL, OTHER = "https://pubmed.ncbi.nlm.nih.gov/11111111/", "https://pubmed.ncbi.nlm.nih.gov/22222222/"
TEXT = ("Disulfiram with copper inhibited ALDH1A1 activity and reduced colony formation of primary AML blasts by 70 "
        "percent at 0.3 uM.")
RECORDS = (Source(url=URL, text=TEXT, title="Disulfiram in AML", ids=("PMID:11111111",), tool="pubmed_search"),
           Source(url=OTHER, text="ALDH1A1 marks leukemic stem cells in NPM1-mutant AML.",
                        title="ALDH1A1 in AML", ids=("PMID:22222222",), tool="pubmed_search"))
pytestmark = pytest.mark.overrides("debate.min_turns=1", "debate.max_turns=1")


def script_debate(fake: FakeBackend) -> None:
    fake.script(FakeReply(text="HYPOTHESIS: Disulfiram inhibits ALDH1A1 in leukemic stem cells."), agent="generation",
                action="GenerateHypothesis/turn1")
    fake.script(FakeReply.record("record_hypothesis", **HYP, citations=[]), agent="generation",
                action="GenerateHypothesis/record")


async def debate(planned: SessionRuntime, agent_with_tools, tool: RecordsTool | None):
    agent = agent_with_tools(GenerationAgent, *([tool] if tool else []))
    tid = planned.store.tasks.enqueue("generation", "GenerateHypothesis", "g-debate", payload={"mode": "debate"})
    result = await agent.execute(planned.store.tasks.get(tid))
    return result, planned.store.hypotheses.get(result.hypothesis_ids[0])


async def test_a_debate_hypothesis_gets_checked_citations_from_its_own_search(planned: SessionRuntime,
                                                                              fake: FakeBackend,
                                                                              agent_with_tools) -> None:
    script_debate(fake)
    fake.script(FakeReply.record("record_citations", citations=[
        {"url": URL, "title": "verbatim", "excerpt": "reduced colony formation of primary AML blasts by 70 percent"},
        {"url": OTHER, "title": "contradicting", "excerpt": "ALDH1A1 marks leukemic stem cells in FLT3-mutant AML"},
        {"url": "https://pubmed.ncbi.nlm.nih.gov/99999999/", "title": "unseen", "excerpt": TEXT}]),
        agent="generation", action="GenerateHypothesis/grounding")
    fake.script(FakeReply.record("record_claim_checks", c1={
        "verdict": "supported", "excerpt": "Disulfiram with copper inhibited ALDH1A1 activity", "why": "It says so."}),
        agent="generation", action="GenerateHypothesis/support")
    tool = RecordsTool("pubmed_search", "PubMed: 2 results.", records=RECORDS)
    result, h = await debate(planned, agent_with_tools, tool)

    assert [c["query"] for c in tool.calls] == [" ".join([*HYP["entities"][:3], HYP["title"]]), HYP["statement"]]
    assert all(c["max_results"] == 3 for c in tool.calls) and len(tool.calls) == 2
    call, judge = fake.calls_for("generation", "grounding")
    assert judge.action == "GenerateHypothesis/support" and h.citations[0]["support"] == "supported"
    assert call.tool_choice == {"type": "function", "function": {"name": "record_citations"}}
    assert TEXT in call.prompt and '<untrusted_source id="debate-hypothesis"' in call.prompt
    assert [(c["title"], c["status"]) for c in h.citations] == [("verbatim", "verified"),
                                                                ("contradicting", "misquoted")]
    assert "FLT3" in h.citations[1]["mismatch"] and "NPM1" in h.citations[1]["mismatch"]
    assert h.grounding == "grounded" and result.detail["evidence"] == {"proposed": 3, "verified": 1,
                                                                      "misquoted": 1, "unseen": 1}
    assert result.detail["grounding"]["records"] == 2 and result.detail["dropped_citations"] == [
        "https://pubmed.ncbi.nlm.nih.gov/99999999/"]


async def test_only_misquoted_or_no_citations_leave_it_ungrounded(planned: SessionRuntime, fake: FakeBackend,
                                                                  agent_with_tools) -> None:
    script_debate(fake)
    fake.script(FakeReply.record("record_citations", citations=[
        {"url": URL, "title": "number changed", "excerpt": "reduced colony formation of primary AML blasts by 90 "
                                                            "percent"}]), agent="generation", mode="grounding")
    _, h = await debate(planned, agent_with_tools, RecordsTool("pubmed_search", "2 results.", records=RECORDS))
    assert [c["status"] for c in h.citations] == ["misquoted"] and h.grounding == "ungrounded"


async def test_with_no_search_tool_there_is_no_grounding_call_and_it_is_ungrounded(planned: SessionRuntime,
                                                                                  fake: FakeBackend,
                                                                                  agent_with_tools) -> None:
    script_debate(fake)
    result, h = await debate(planned, agent_with_tools, None)
    assert fake.calls_for("generation", "grounding") == []
    assert h.citations == [] and h.grounding == "ungrounded" and result.detail["grounding"]["queries"] == []


async def test_a_failed_grounding_call_keeps_the_hypothesis_ungrounded(planned: SessionRuntime, fake: FakeBackend,
                                                                       agent_with_tools) -> None:
    script_debate(fake)
    fake.script(FakeReply.malformed("record_citations"), agent="generation", mode="grounding", times=3)
    result, h = await debate(planned, agent_with_tools, RecordsTool("pubmed_search", "2 results.", records=RECORDS))
    assert result.kind == "hypothesis_created" and h.grounding == "ungrounded"
    assert result.detail["grounding"]["error"].startswith("TruncatedArguments")


async def test_an_unreachable_host_at_the_grounding_call_is_not_a_hypothesis_without_citations(
        planned: SessionRuntime, fake: FakeBackend, agent_with_tools) -> None:
    """The fallback keeps an ungrounded hypothesis for a failed call, not for a host no later call reaches either
    (fresh-user trial): ``HostUnreachable`` goes through, and the session ends on its line."""
    from cosci.llm.errors import HostUnreachable

    script_debate(fake)
    fake.script(FakeReply(fault="unreachable"), agent="generation", mode="grounding", times=3)
    with pytest.raises(HostUnreachable):
        await debate(planned, agent_with_tools, RecordsTool("pubmed_search", "2 results.", records=RECORDS))


async def test_a_duplicate_debate_hypothesis_is_not_searched_for(planned: SessionRuntime, fake: FakeBackend,
                                                                 agent_with_tools, add_player) -> None:
    add_player(HYP["statement"], title=HYP["title"], mechanism=HYP["mechanism"])
    script_debate(fake)
    tool = RecordsTool("pubmed_search", "2 results.", records=RECORDS)
    result, _ = await debate(planned, agent_with_tools, tool)
    assert result.kind == "hypothesis_duplicate" and result.detail["grounding"]["skipped"] == "duplicate"
    assert tool.calls == [] and fake.calls_for("generation", "grounding") == []
