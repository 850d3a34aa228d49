"""Generation (seed 000 §2): literature hypotheses with citations filtered to seen URLs, multi-turn debate
hypotheses, and dedup returning the existing id. (System feedback in the prompt: test_metareview_agent.)"""

from __future__ import annotations

import pytest

from cosci.agents.generation import GenerationAgent
from cosci.ids import hypothesis_id
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.session.runtime import SessionRuntime
from tests.contract import CONTRACT

HYP = {"title": "Disulfiram against ALDH1A1 in leukemic stem cells",
       "statement": "Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells in NPM1-mutant AML.",
       "mechanism": "Copper-bound disulfiram blocks ALDH1A1, which protects stem cells from aldehydes.",
       "entities": ["disulfiram", "ALDH1A1"], "anticipated_outcomes": "Fewer colonies of primary blasts.",
       "novelty_argument": "ALDH1A1 has not been targeted in NPM1-mutant AML.", **CONTRACT}


async def test_literature_strips_the_fabricated_citation_offline(planned: SessionRuntime, fake: FakeBackend,
                                                                 run_task) -> None:
    task, result = await run_task("generation", "CreateInitialHypotheses", "g0",
                                  payload={"mode": "literature"})
    assert result.kind == "hypothesis_created"
    (hid,) = result.hypothesis_ids
    (dropped,) = result.detail["dropped_citations"]
    assert dropped.startswith("https://fabricated.example.org/")
    h = planned.store.hypotheses.get(hid)
    assert h is not None
    assert (h.state, h.mode, h.parent_ids, h.citations, h.elo) == ("draft", "literature", [], [], 1200.0)
    assert hid == hypothesis_id(planned.store.namespace, "literature", h.statement)
    assert hid in planned.deps.vectors  # committed to the index after the row
    assert planned.store.hypotheses.embeddings("hash")[0] == [hid]

    calls = fake.calls_for("generation", "literature")
    assert len(calls) == 2  # a search (offline: no URL seen), then the record
    assert "record_hypothesis" in calls[0].tools and "pubmed_search" in calls[0].tools
    assert all(c.task_id == task.id and c.action == "CreateInitialHypotheses" for c in calls)
    assert "unavailable (offline mode)" in calls[1].prompt


async def test_literature_keeps_seen_citations_and_drops_the_rest(planned: SessionRuntime, fake: FakeBackend,
                                                                  run_task, literature_tool,
                                                                  agent_with_tools) -> None:
    seen = "https://pubmed.ncbi.nlm.nih.gov/11111111/"
    tool = literature_tool("pubmed_search", f"Disulfiram targets ALDH-high AML cells. {seen}", (seen,))
    agent = agent_with_tools(GenerationAgent, tool)
    fake.script(FakeReply.record("pubmed_search", query="disulfiram ALDH1A1 AML"), agent="generation")
    fake.script(FakeReply.record("record_hypothesis", **HYP, citations=[
        {"url": seen, "title": "seen, exactly"},
        {"url": "HTTPS://PubMed.ncbi.nlm.nih.gov/11111111", "title": "seen, other case, no slash"},
        {"url": "https://pubmed.ncbi.nlm.nih.gov/22222222/", "title": "never returned by a tool"},
        {"url": "https://fabricated.example.org/paper/1", "title": "fabricated"},
    ]), agent="generation")
    tid = planned.store.tasks.enqueue("generation", "CreateInitialHypotheses", "g0")
    result = await agent.execute(planned.store.tasks.get(tid))

    assert tool.calls == [{"query": "disulfiram ALDH1A1 AML"}]
    assert result.kind == "hypothesis_created"
    assert result.detail["dropped_citations"] == ["https://pubmed.ncbi.nlm.nih.gov/22222222/",
                                                  "https://fabricated.example.org/paper/1"]
    h = planned.store.hypotheses.get(result.hypothesis_ids[0])
    assert [c["title"] for c in h.citations] == ["seen, exactly"]  # the same record, quoted alike: one citation


async def test_autopilot_cites_the_url_a_tool_returned(planned: SessionRuntime, run_task, literature_tool,
                                                       agent_with_tools) -> None:
    url = "https://europepmc.org/article/MED/33333333"
    tool = literature_tool("europe_pmc_search", f"An abstract. {url}", (url,))
    agent = agent_with_tools(GenerationAgent, tool)
    tid = planned.store.tasks.enqueue("generation", "CreateInitialHypotheses", "g0")
    result = await agent.execute(planned.store.tasks.get(tid))
    h = planned.store.hypotheses.get(result.hypothesis_ids[0])
    assert [c["url"] for c in h.citations] == [url]
    assert len(result.detail["dropped_citations"]) == 1


@pytest.mark.overrides("debate.min_turns=2", "debate.max_turns=5")
async def test_debate_is_multi_turn_and_ends_on_hypothesis(planned: SessionRuntime, fake: FakeBackend,
                                                           run_task) -> None:
    turns = ["Expert 1: ALPHA - disulfiram, metformin, itraconazole. HYPOTHESIS: disulfiram (too early).",
             "Expert 2: BETA - the disulfiram hypothesis needs copper; is ALDH1A1 essential?",
             "Expert 3: GAMMA - agreed.\nHYPOTHESIS: Disulfiram inhibits ALDH1A1 in leukemic stem cells."]
    for n, text in enumerate(turns, 1):
        fake.script(FakeReply(text=text), agent="generation", action=f"CreateInitialHypotheses/turn{n}")
    fake.script(FakeReply.no_tool_call("Let me think about which idea to record."),  # asked, not forced ...
                agent="generation", action="CreateInitialHypotheses/record")
    fake.script(FakeReply.record("record_hypothesis", **HYP, citations=[{"url": "https://x.example.org/"}]),
                agent="generation", action="CreateInitialHypotheses/record")  # ... then forced
    _, result = await run_task("generation", "CreateInitialHypotheses", "g0", payload={"mode": "debate"})

    calls = fake.calls_for("generation", "debate")
    assert [c.action for c in calls] == ["CreateInitialHypotheses/turn1", "CreateInitialHypotheses/turn2",
                                         "CreateInitialHypotheses/turn3", "CreateInitialHypotheses/record",
                                         "CreateInitialHypotheses/record"]
    # the transcript grows: each turn sees every earlier contribution, quoted
    assert "ALPHA" not in calls[0].prompt
    assert "ALPHA" in calls[1].prompt and "BETA" not in calls[1].prompt
    assert "ALPHA" in calls[2].prompt and "BETA" in calls[2].prompt and "GAMMA" not in calls[2].prompt
    assert '<untrusted_source id="debate-turn-1"' in calls[1].prompt
    assert all(not c.tools for c in calls[:3])  # no tools mid-debate
    # turn 1 wrote HYPOTHESIS before min_turns and turn 2 only "hypothesis": the debate ended at turn 3 of 5
    record_asked, record_forced = calls[3], calls[4]
    assert record_asked.tools == ["record_hypothesis"] and record_asked.tool_choice == "auto"
    assert record_forced.tool_choice == {"type": "function", "function": {"name": "record_hypothesis"}}
    assert all(marker in record_forced.prompt for marker in ("ALPHA", "BETA", "GAMMA"))

    assert result.kind == "hypothesis_created"
    h = planned.store.hypotheses.get(result.hypothesis_ids[0])
    assert h is not None and (h.mode, h.citations, h.statement) == ("debate", [], HYP["statement"])


@pytest.mark.overrides("debate.min_turns=2", "debate.max_turns=3")
async def test_debate_stops_at_max_turns_and_still_records(planned: SessionRuntime, fake: FakeBackend,
                                                           run_task) -> None:
    fake.script(FakeReply(text="We keep disagreeing about the target."), agent="generation", mode="debate",
                times=3)
    _, result = await run_task("generation", "GenerateHypothesis", "g0", payload={"mode": "debate"})
    actions = [c.action for c in fake.calls_for("generation", "debate")]
    assert actions == ["GenerateHypothesis/turn1", "GenerateHypothesis/turn2", "GenerateHypothesis/turn3",
                       "GenerateHypothesis/record"]
    assert "the last turn. You MUST conclude now" in fake.calls_for("generation", "debate")[2].prompt
    assert result.kind == "hypothesis_created"


async def test_the_same_statement_twice_returns_the_existing_id(planned: SessionRuntime, fake: FakeBackend,
                                                                run_task) -> None:
    fake.script(FakeReply.record("record_hypothesis", **HYP, citations=[]), agent="generation", times=2)
    _, first = await run_task("generation", "CreateInitialHypotheses", "g0")
    _, second = await run_task("generation", "CreateInitialHypotheses", "g1")
    assert first.kind == "hypothesis_created"
    assert second.kind == "hypothesis_duplicate"
    assert second.hypothesis_ids == first.hypothesis_ids
    assert second.detail["duplicate_of"] == first.hypothesis_ids[0]
    assert len(planned.store.hypotheses.all()) == 1 and len(planned.deps.vectors) == 1
    assert len(planned.store.logs.events("hypothesis_created")) == 1


async def test_a_near_duplicate_by_another_route_returns_the_existing_id(planned: SessionRuntime,
                                                                         fake: FakeBackend, run_task) -> None:
    fake.script(FakeReply.record("record_hypothesis", **HYP, citations=[]), agent="generation",
                mode="literature")
    fake.script(FakeReply.record("record_hypothesis", **HYP, citations=[]), agent="generation",
                action="GenerateHypothesis/record")
    _, first = await run_task("generation", "CreateInitialHypotheses", "g0")
    _, second = await run_task("generation", "GenerateHypothesis", "g1", payload={"mode": "debate"})
    # a debate origin gives another id, but the embedding is the same: cosine 1 >= 0.92
    assert second.kind == "hypothesis_duplicate" and second.hypothesis_ids == first.hypothesis_ids
    assert second.detail["similarity"] >= planned.config.vectors.dedup_cosine_threshold
    assert [h.id for h in planned.store.hypotheses.all()] == first.hypothesis_ids


async def test_a_retried_task_recreates_nothing(planned: SessionRuntime, fake: FakeBackend, run_task) -> None:
    fake.script(FakeReply.record("record_hypothesis", **HYP, citations=[]), agent="generation", times=2)
    task, first = await run_task("generation", "CreateInitialHypotheses", "g0")
    again = await planned.execute(task)  # the same task, attempted again (e.g. after a crash)
    assert first.kind == again.kind == "hypothesis_created"
    assert again.hypothesis_ids == first.hypothesis_ids
    assert len(planned.store.hypotheses.all()) == 1 and len(planned.deps.vectors) == 1
    assert planned.store.tasks.get(task.id).attempts == 2


async def test_different_hypotheses_are_both_kept(planned: SessionRuntime, run_task) -> None:
    ids = set()
    for i in range(3):
        _, result = await run_task("generation", "CreateInitialHypotheses", f"g{i}")
        assert result.kind == "hypothesis_created"
        ids.update(result.hypothesis_ids)
    assert len(ids) == 3 == len(planned.store.hypotheses.all()) == len(planned.deps.vectors)


@pytest.mark.parametrize("max_turns", [pytest.param(n, marks=pytest.mark.overrides("debate.min_turns=2",
                                                                                      f"debate.max_turns={n}"))
                                       for n in (4, 10)])
async def test_debate_max_turns_alone_bounds_the_turns(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                       max_turns: int) -> None:
    """Raising ``debate.max_turns`` raises the turns a debate is given; no mode key caps it below."""
    assert planned.config.agents["generation"].modes["debate"].max_iterations is None
    fake.script(FakeReply(text="We keep disagreeing about the target."), agent="generation", mode="debate",
                times=max_turns)
    await run_task("generation", "GenerateHypothesis", "g0", payload={"mode": "debate"})
    actions = [c.action for c in fake.calls_for("generation", "debate")]
    assert actions == [f"GenerateHypothesis/turn{t}" for t in range(1, max_turns + 1)] + ["GenerateHypothesis/record"]
