"""Reflection (seed 000 §3): full, verification and observation reviews stored with their kind; evidence
filtered to seen URLs; ``draft -> reviewed`` only from draft, and only for a full review."""

from __future__ import annotations

import json

import pytest

from cosci.agents.reflection import ReflectionAgent
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.session.runtime import SessionRuntime

ARTICLE = {"title": "Disulfiram/copper depletes ALDH-high AML stem cells",
           "abstract": "Colony formation of primary blasts fell by 80 % at 0.5 uM disulfiram with copper.",
           "url": "https://pubmed.ncbi.nlm.nih.gov/44444444/"}


def review_row(runtime: SessionRuntime, rid: str) -> dict:
    (row,) = runtime.store.db.query("SELECT * FROM reviews WHERE id=?", (rid,))
    return dict(row)


async def test_full_review_is_stored_and_moves_draft_to_reviewed(planned: SessionRuntime, fake: FakeBackend,
                                                                 run_task, add_player) -> None:
    hid = add_player("Metformin inhibits complex I to deplete leukemic stem cells", state="draft")
    task, result = await run_task("reflection", "ReviewHypothesis", "r0", target_id=hid,
                                  payload={"mode": "full"})
    assert result.kind == "review_completed" and result.hypothesis_ids == [hid]
    assert result.detail["mode"] == "full"
    assert [u.split("/")[2] for u in result.detail["dropped_evidence"]] == ["fabricated.example.org"]
    (review,) = planned.store.hypotheses.reviews(hid)
    assert review.id == result.detail["review_id"]
    assert (review.mode, review.verdict, review.evidence) == ("full", result.detail["verdict"], [])
    assert review.scores["novelty"] is not None
    assert planned.store.hypotheses.get(hid).state == "reviewed"

    calls = fake.calls_for("reflection", "full")
    assert calls[0].tools[-1] == "record_review" and "pubmed_search" in calls[0].tools
    assert f'<hypothesis_text id="{hid}"' in calls[0].prompt  # the hypothesis is quoted data
    again = await planned.execute(task)  # a retry stores the same review id once
    assert again.detail["review_id"] == review.id and len(planned.store.hypotheses.reviews(hid)) == 1


async def test_evidence_from_a_tool_is_kept(planned: SessionRuntime, fake: FakeBackend, add_player,
                                            literature_tool, agent_with_tools) -> None:
    url = "https://pubmed.ncbi.nlm.nih.gov/55555555/"
    tool = literature_tool("pubmed_search", f"Complex I in AML. {url}", (url,))
    agent = agent_with_tools(ReflectionAgent, tool)
    hid = add_player("Metformin inhibits complex I to deplete leukemic stem cells", state="draft")
    tid = planned.store.tasks.enqueue("reflection", "ReviewHypothesis", "r0", target_id=hid)
    result = await agent.execute(planned.store.tasks.get(tid))
    (review,) = planned.store.hypotheses.reviews(hid)
    assert [e["url"] for e in review.evidence] == [url]
    assert len(result.detail["dropped_evidence"]) == 1


async def test_verification_stores_assumptions_weakest_and_kill_experiment(planned: SessionRuntime,
                                                                           fake: FakeBackend, run_task,
                                                                           add_player) -> None:
    hid = add_player("Itraconazole blocks SMO to sensitise relapsed blasts", elo=1290.0, matches=6)
    fake.script(FakeReply.record(
        "record_review", verdict="neutral", mode="verification", evidence=[],
        assumptions=[{"assumption": "The drug reaches its target at approved doses.", "plausibility": "uncertain"},
                     {"assumption": "Relapsed blasts depend on SMO.", "plausibility": "plausible"},
                     {"assumption": "Normal progenitors are spared.", "plausibility": "implausible"}],
        weakest_assumption="Normal progenitors are spared.",
        kill_experiment="Compare IC50 in cord-blood progenitors and blasts; equal IC50 refutes it."),
        agent="reflection", mode="verification")
    _, result = await run_task("reflection", "ReviewHypothesis", "r0", target_id=hid,
                               payload={"mode": "verification"})
    assert result.kind == "review_completed" and result.detail["mode"] == "verification"
    (review,) = planned.store.hypotheses.reviews(hid)
    assert review.mode == "verification"
    assert [a["plausibility"] for a in review.assumptions] == ["uncertain", "plausible", "implausible"]
    assert review.weakest_assumption == "Normal progenitors are spared."
    assert review.kill_experiment and "IC50" in review.kill_experiment
    assert "Weakest assumption: Normal progenitors are spared." in review.brief()
    assert planned.store.hypotheses.get(hid).state == "in_tournament"
    (call, *_) = fake.calls_for("reflection", "verification")
    assert call.model == "cosci-fake/strong" and call.thinking  # seed: 12000 thinking tokens


async def test_observation_with_a_payload_article(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                  add_player) -> None:
    hid = add_player("Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells", state="draft")
    fake.script(FakeReply.record("record_review", verdict="missing_piece", kind="full", evidence=[
        {"claim": "colonies fall", "url": ARTICLE["url"], "excerpt": "fell by 80 %"},
        {"claim": "made up", "url": "https://fabricated.example.org/obs"}],
        observations=[{"observation": "Colony formation fell by 80 %.", "explained": "yes",
                       "reasoning": "ALDH1A1 inhibition kills stem cells."}]),
        agent="reflection", mode="observation")
    _, result = await run_task("reflection", "ReviewHypothesis", "r0", target_id=hid,
                               payload={"mode": "observation", "article": ARTICLE})
    assert result.kind == "review_completed" and result.detail["mode"] == "observation"
    assert result.detail["dropped_evidence"] == ["https://fabricated.example.org/obs"]
    (review,) = planned.store.hypotheses.reviews(hid)
    assert review.mode == "observation"  # whatever the model wrote in `kind`
    assert [e["url"] for e in review.evidence] == [ARTICLE["url"]]  # the article's own URL counts as seen
    assert "Colony formation fell by 80 %. (explained: yes)" in review.notes
    stored = json.loads(review_row(planned, review.id)["article"])
    assert stored == {**ARTICLE, "source_id": "PMID:44444444", "how": "given"}  # its source id is kept
    assert result.detail["article_source_id"] == "PMID:44444444"
    assert planned.store.hypotheses.get(hid).state == "draft"  # only a full review moves the state

    (call,) = fake.calls_for("reflection", "observation")
    assert call.tools == ["record_review"]  # the article is given: no search tools
    assert ARTICLE["abstract"] in call.prompt and '<untrusted_source id="article-' in call.prompt


async def test_observation_without_an_article_offline_is_nothing_to_do(planned: SessionRuntime,
                                                                       fake: FakeBackend, run_task,
                                                                       add_player) -> None:
    hid = add_player("Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells")
    _, result = await run_task("reflection", "ReviewHypothesis", "r0", target_id=hid,
                               payload={"mode": "observation"})
    assert result.kind == "nothing_to_do" and result.hypothesis_ids == [hid]
    assert planned.store.hypotheses.reviews(hid) == [] and fake.calls_for("reflection") == []


async def test_observation_finds_its_article_with_a_search_tool(planned: SessionRuntime, fake: FakeBackend,
                                                                add_player, literature_tool,
                                                                agent_with_tools) -> None:
    url = "https://europepmc.org/article/MED/66666666"
    tool = literature_tool("europe_pmc_search", f"ALDH1A1 in AML stem cells. {url}", (url,))
    agent = agent_with_tools(ReflectionAgent, tool)
    hid = add_player("Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells")
    tid = planned.store.tasks.enqueue("reflection", "ReviewHypothesis", "r0", target_id=hid,
                                       payload={"mode": "observation"})
    result = await agent.execute(planned.store.tasks.get(tid))
    assert result.kind == "review_completed"
    assert json.loads(review_row(planned, result.detail["review_id"])["article"])["url"] == url
    assert len(tool.calls) == 1 and tool.calls[0]["max_results"] == 5  # reflection.observation_search_results
    assert result.detail["article_how"] == "independent"


@pytest.mark.parametrize("state", ["reviewed", "in_tournament", "pinned"])
async def test_a_full_review_never_regresses_a_later_state(planned: SessionRuntime, run_task, add_player,
                                                           state: str) -> None:
    hid = add_player("Valproate restores differentiation of NPM1-mutant blasts", state=state, elo=1310.0,
                     matches=7)
    _, result = await run_task("reflection", "ReviewHypothesis", "r0", target_id=hid)
    assert result.kind == "review_completed"
    h = planned.store.hypotheses.get(hid)
    assert h is not None and (h.state, h.elo, h.matches_played) == (state, 1310.0, 7)


async def test_unknown_kind_or_hypothesis_is_refused(planned: SessionRuntime, run_task, add_player) -> None:
    hid = add_player("Valproate restores differentiation of NPM1-mutant blasts", state="draft")
    with pytest.raises(ValueError, match="unknown review mode"):
        await run_task("reflection", "ReviewHypothesis", "r0", target_id=hid, payload={"mode": "simulation"})
    with pytest.raises(KeyError, match="no hypothesis"):
        await run_task("reflection", "ReviewHypothesis", "r1", target_id="H-000000000000")


async def test_an_observation_review_of_a_withdrawn_result_is_nothing_to_do(planned: SessionRuntime,
                                                                          fake: FakeBackend, run_task,
                                                                          add_player) -> None:
    """A relative's review queued by `cosci result` and still pending when the researcher withdrew the result reads
    no withdrawn result into a prompt (design.md#experimental-results)."""
    tested = add_player("Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells")
    relative = add_player("Disulfiram with copper depletes ALDH-high leukemic stem cells")
    oid = planned.store.researcher.add_observation(tested, "refuted", {"IC50_uM": 40.0}, "no effect at 10 uM")
    assert planned.store.researcher.withdraw("result", oid)
    _, result = await run_task("reflection", "ReviewHypothesis", f"reflection::{relative}::result::{oid}",
                               target_id=relative, payload={"mode": "observation", "observation_id": oid})
    assert result.kind == "nothing_to_do" and result.detail["reason"] == f"result {oid} withdrawn"
    assert planned.store.hypotheses.reviews(relative) == [] and fake.calls_for("reflection") == []
