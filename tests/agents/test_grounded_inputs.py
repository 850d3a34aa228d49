"""Grounding through the agents: citations and evidence checked against tool text (verified, misquoted, unseen;
counted), the seed's five prompt inputs reaching the prompt the fake received, and observation reviews on an
independent article."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from cosci.agents.generation import GenerationAgent
from cosci.agents.reflection import ReflectionAgent
from cosci.errors import CosciError
from cosci.grounding.evidence import session_counts
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.records import RecordReview
from cosci.session.runtime import SessionRuntime
from cosci.tools.base import Source, ToolResult
from tests.agents.conftest import ScriptedTool
from tests.agents.test_generation_agent import HYP

URL = "https://pubmed.ncbi.nlm.nih.gov/11111111/"
ABSTRACT = ("Disulfiram with copper inhibited ALDH1A1 activity and reduced colony formation of primary NPM1-mutant "
            "AML blasts by 70 percent at 0.3 uM, sparing CD34+ cord-blood progenitors.")
TOOL_TEXT = f"PubMed: 1 result.\n\n1. Disulfiram targets ALDH-high AML cells\n   URL: {URL}\n   Abstract: {ABSTRACT}"
COPIED = "reduced colony formation of primary NPM1-mutant AML blasts by 70 percent"


def user_prompt(call) -> str:
    return "\n".join(str(m["content"]) for m in call.messages if m["role"] == "user")


def pubmed_tool() -> ScriptedTool:
    return ScriptedTool("pubmed_search", TOOL_TEXT, (URL,))


async def test_citation_excerpts_are_verified_against_the_tool_text(planned: SessionRuntime, fake: FakeBackend,
                                                                    agent_with_tools) -> None:
    agent = agent_with_tools(GenerationAgent, pubmed_tool())
    fake.script(FakeReply.record("pubmed_search", query="disulfiram AML"), agent="generation")
    fake.script(FakeReply.record("record_hypothesis", **HYP, citations=[
        {"url": URL, "title": "copied", "excerpt": COPIED},
        {"url": URL, "title": "paraphrased", "excerpt": "Colonies of blasts fell sharply with disulfiram."},
        {"url": URL, "title": "contradicting", "excerpt": COPIED.replace("70", "90")},
        {"url": URL, "title": "invented", "excerpt": "Disulfiram doubled survival in a phase 3 AML trial.",
         "status": "verified"},  # what the model claims is overwritten
        {"url": "https://pubmed.ncbi.nlm.nih.gov/22222222/", "title": "never returned", "excerpt": COPIED},
    ]), agent="generation")
    tid = planned.store.tasks.enqueue("generation", "CreateInitialHypotheses", "g0")
    result = await agent.execute(planned.store.tasks.get(tid))

    h = planned.store.hypotheses.get(result.hypothesis_ids[0])
    assert [(c["title"], c["status"], c["source_id"]) for c in h.citations] == [
        ("copied", "verified", URL), ("paraphrased", "misquoted", URL), ("contradicting", "misquoted", URL),
        ("invented", "misquoted", URL)]
    assert h.citations[2]["mismatch"] == "number: the source has '70', the excerpt '90'"
    assert result.detail["evidence"] == {"proposed": 5, "verified": 1, "misquoted": 3, "unseen": 1}
    planned.store.tasks.complete(tid, result)
    assert session_counts(planned.store).to_dict() == result.detail["evidence"]
    calls = fake.calls_for("generation", "literature")
    assert "status" not in json.dumps(calls[0].tools)  # the flag is cosci's, not part of the tool schema


async def test_review_evidence_is_verified_and_counted(planned: SessionRuntime, fake: FakeBackend, add_player,
                                                       agent_with_tools) -> None:
    agent = agent_with_tools(ReflectionAgent, pubmed_tool())
    hid = add_player("Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells", state="draft")
    fake.script(FakeReply.record("pubmed_search", query="disulfiram"), agent="reflection")
    fake.script(FakeReply.record("record_review", verdict="missing_piece", evidence=[
        {"claim": "colonies fall", "url": URL, "excerpt": COPIED},
        {"claim": "made up", "url": URL, "excerpt": "expression was detected in every patient sample"}]),
        agent="reflection")
    tid = planned.store.tasks.enqueue("reflection", "ReviewHypothesis", "r0", target_id=hid)
    result = await agent.execute(planned.store.tasks.get(tid))
    (review,) = planned.store.hypotheses.reviews(hid)
    assert [e["status"] for e in review.evidence] == ["verified", "misquoted"]
    assert result.detail["evidence"] == {"proposed": 2, "verified": 1, "misquoted": 1, "unseen": 0}


@pytest.mark.parametrize(("agent_cls", "agent", "action", "payload", "variable_text"), [
    (GenerationAgent, "generation", "CreateInitialHypotheses", {}, "articles_with_reasoning"),
    (ReflectionAgent, "reflection", "ReviewHypothesis", {"mode": "full"}, "articles_block"),
])
async def test_a_retry_is_given_the_records_already_found(planned: SessionRuntime, fake: FakeBackend, add_player,
                                                          agent_with_tools, agent_cls, agent: str, action: str,
                                                          payload: dict, variable_text: str) -> None:
    tool = pubmed_tool()
    runner = agent_with_tools(agent_cls, tool)
    target = add_player("Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells", state="draft")
    fake.script(FakeReply.record("pubmed_search", query="disulfiram ALDH1A1"), agent=agent)
    fake.script(FakeReply(fault="bad_request"), agent=agent)  # the attempt dies after its search
    tid = planned.store.tasks.enqueue(agent, action, "t0", target_id=target if agent == "reflection" else None,
                                       payload=payload)
    with pytest.raises(CosciError):
        await runner.execute(planned.store.tasks.get(tid))
    first = fake.calls_for(agent)[0]
    assert "copied word for word" in user_prompt(first)  # the loop instruction, first attempt included
    assert "already found" not in user_prompt(first)

    fake.calls.clear()
    await runner.execute(planned.store.tasks.get(tid))  # the retry (or a resumed task)
    retry = user_prompt(fake.calls_for(agent)[0])
    assert "An earlier attempt of this task already found these records" in retry, variable_text
    assert ABSTRACT in retry and '<untrusted_source id="found-' in retry


async def test_source_hypothesis_reaches_evolution_driven_generation(planned: SessionRuntime, fake: FakeBackend,
                                                                     run_task, add_player) -> None:
    parent = add_player("Itraconazole blocks SMO to sensitise relapsed blasts", elo=1300.0, matches=5)
    _, result = await run_task("generation", "GenerateHypothesis", "g-src",
                               payload={"mode": "literature", "source_hypothesis_id": parent})
    prompt = user_prompt(fake.calls_for("generation", "literature")[0])
    start = prompt.index("## Starting point")
    assert f'<hypothesis_text id="{parent}"' in prompt[start:]
    assert planned.store.hypotheses.get(result.hypothesis_ids[0]).parent_ids == [parent]


@pytest.mark.overrides("debate.min_turns=2", "debate.max_turns=3")
async def test_reviews_overview_reaches_debate_generation(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                          add_player) -> None:
    hid = add_player("Metformin inhibits complex I to deplete leukemic stem cells")
    planned.store.hypotheses.add_review(hid, RecordReview(
        verdict="other_more_likely", evidence=[], notes="Marker QX-11: plasma levels never reach complex I."),
        task_id="T-r")
    await run_task("generation", "GenerateHypothesis", "g-debate", payload={"mode": "debate"})
    turns = [c for c in fake.calls_for("generation", "debate") if "/turn" in (c.action or "")]
    assert turns and all("Marker QX-11" in user_prompt(c) for c in turns)
    assert "## What reviewers said about earlier hypotheses" in user_prompt(turns[0])
    assert '<untrusted_source id="review-R-' in user_prompt(turns[0])


@pytest.mark.parametrize("mode", ["literature", "debate"])
async def test_instructions_carry_directives_and_focus_areas(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                             mode: str) -> None:
    logs = planned.store.logs
    logs.add_feedback("human", "directive", "Only consider drugs with CNS penetration (directive D-9).")
    logs.add_feedback("meta_review", "system_feedback", "narrative", key="f1",
                      payload={"suggested_focus_areas": ["Focus area FA-3: pharmacokinetics first."]})
    await run_task("generation", "GenerateHypothesis", f"g-{mode}",
                   payload={"mode": mode, "instructions": "Task instruction TI-1."})
    prompt = user_prompt(fake.calls_for("generation", mode)[0])
    section = prompt[prompt.index("## Additional instructions"):]
    for needle in ("Task instruction TI-1.", "(directive D-9)", "Focus area FA-3", '<untrusted_source id="focus-'):
        assert needle in section, needle


@dataclass
class RecordsTool(ScriptedTool):
    """A search tool that returns ``records`` (as the real tools do)."""

    records: tuple[Source, ...] = ()

    async def __call__(self, arguments: dict) -> ToolResult:
        self.calls.append(arguments)
        return ToolResult(self.text, tuple(r.url for r in self.records), source=self.name, records=self.records)


@dataclass
class FetchingTool(ScriptedTool):
    """A PubMed-like tool that also reads one record by PMID (as :meth:`SearchTool.fetch`)."""

    fetch_kinds: tuple[str, ...] = ("PMID",)
    fetched: list[str] = field(default_factory=list)

    async def fetch(self, key: str) -> Source | None:
        self.fetched.append(key)
        return Source(url=URL, text=ABSTRACT, title="Disulfiram targets ALDH-high AML cells",
                            ids=("PMID:11111111",), tool=self.name) if key == "PMID:11111111" else None


async def test_observation_falls_back_to_the_most_relevant_cited_article(planned: SessionRuntime,
                                                                        fake: FakeBackend, add_player,
                                                                        agent_with_tools) -> None:
    tool = FetchingTool("pubmed_search", "PubMed: no results.")
    agent = agent_with_tools(ReflectionAgent, tool)
    hid = add_player("Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells", citations=[
        {"url": "https://pubmed.ncbi.nlm.nih.gov/33333333/", "title": "Unrelated cardiology",
         "excerpt": "Heart rate fell.", "status": "unverified"},
        {"url": URL, "title": "Disulfiram targets ALDH-high AML cells", "excerpt": COPIED,
         "status": "verified", "source_id": "PMID:11111111"}])
    tid = planned.store.tasks.enqueue("reflection", "ReviewHypothesis", "obs", target_id=hid,
                                       payload={"mode": "observation"})
    result = await agent.execute(planned.store.tasks.get(tid))

    assert result.kind == "review_completed" and tool.fetched[0] == "PMID:11111111"
    assert tool.calls == [{"query": "Reduced colony formation. Disulfiram inhibits", "max_results": 5}]
    assert (result.detail["article_source_id"], result.detail["article_how"]) == ("PMID:11111111",
                                                                                  "cited_fallback")
    (call,) = fake.calls_for("reflection", "observation")
    assert '<untrusted_source id="article-PMID:11111111"' in call.prompt and ABSTRACT in call.prompt
    (row,) = planned.store.db.query("SELECT article FROM reviews WHERE id=?", (result.detail["review_id"],))
    assert json.loads(row["article"]) | {"abstract": ""} == {
        "title": "Disulfiram targets ALDH-high AML cells", "abstract": "", "url": URL, "source_id": "PMID:11111111",
        "how": "cited_fallback"}


async def test_observation_prefers_a_search_result_the_hypothesis_does_not_cite(
        planned: SessionRuntime, fake: FakeBackend, add_player, agent_with_tools) -> None:
    other = "https://pubmed.ncbi.nlm.nih.gov/44444444/"
    records = (Source(url=URL, text=ABSTRACT, title="cited", ids=("PMID:11111111",), tool="pubmed_search"),
               Source(url=other, text="ALDH1A1 knockout had no effect on leukemic stem cells in mice.",
                            title="independent", ids=("PMID:44444444",), tool="pubmed_search"))
    tool = RecordsTool("pubmed_search", "PubMed: 2 results.", records=records)
    agent = agent_with_tools(ReflectionAgent, tool)
    hid = add_player("Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells", citations=[
        {"url": URL, "title": "cited", "excerpt": COPIED, "status": "verified", "source_id": "PMID:11111111"}],
        anticipated_outcomes="Fewer leukemic stem cells after ALDH1A1 loss.")
    tid = planned.store.tasks.enqueue("reflection", "ReviewHypothesis", "obs", target_id=hid,
                                       payload={"mode": "observation"})
    result = await agent.execute(planned.store.tasks.get(tid))
    assert tool.calls[0]["query"].startswith("Fewer leukemic stem cells after ALDH1A1 loss.")
    assert (result.detail["article_source_id"], result.detail["article_how"]) == ("PMID:44444444", "independent")
    (call,) = fake.calls_for("reflection", "observation")
    assert "ALDH1A1 knockout had no effect" in call.prompt and ABSTRACT not in call.prompt


async def test_observation_without_an_article_says_why(planned: SessionRuntime, fake: FakeBackend, add_player,
                                                       agent_with_tools) -> None:
    agent = agent_with_tools(ReflectionAgent, ScriptedTool("pubmed_search", "PubMed: no results."))
    hid = add_player("Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells")
    tid = planned.store.tasks.enqueue("reflection", "ReviewHypothesis", "obs", target_id=hid,
                                       payload={"mode": "observation"})
    result = await agent.execute(planned.store.tasks.get(tid))
    assert result.kind == "nothing_to_do"
    assert result.detail["reason"] == ("no article: no search returned a source the hypothesis does not cite "
                                       "(pubmed_search), and 0 cited source(s) could not be read")
    assert fake.calls_for("reflection") == []
