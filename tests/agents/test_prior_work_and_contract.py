"""The falsification contract and the nearest prior work (docs/design.md#falsification, docs/design.md#prior-work).

- the contract's concreteness check on results written for the test, concrete and vague;
- a hypothesis whose refuting result is vague gets a lower testability than the same review of a concrete one, and
  the review says why (the review's scores are scripted here, the same for both);
- the fake's own hypotheses carry a concrete contract;
- before a full review the novelty step searches the local corpus, stores the nearest records with a similarity and a
  reason, and gives them to the review as required reading; a hypothesis identical to a corpus record is reviewed
  ``already_explained`` citing it (the fake's autopilot compares the texts it is given);
- offline, the network tools answer ``unavailable`` and the search says so.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest

from cosci.grounding.falsification import check_contract, check_result, load_terms
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.session.runtime import SessionRuntime

CORPUS = Path(__file__).parents[1] / "data" / "prior_work" / "corpus.jsonl"
COPIED = ("Disulfiram with copper inhibits ALDH1A1 and depletes ALDH-high leukemic stem cells, reducing colony "
          "formation of primary AML blasts by 80 percent.")
TERMS = load_terms("falsification_terms.yaml")


@pytest.mark.parametrize("text", [
    "The colony count falls by at least 30 % at 1 uM.",
    "Viability of MOLM-13 cells stays unchanged after knockdown.",
    "IC50 above 10 uM in both lines.",
])
def test_a_measured_result_with_a_direction_is_concrete(text: str) -> None:
    assert check_result(text, TERMS).concrete


@pytest.mark.parametrize(("text", "problem"), [
    ("", "empty"),
    ("   ", "empty"),
    ("Results could change.", "hedged"),
    ("The effect may differ between lines.", "hedged"),
    ("The cells behave differently.", "no measurable quantity"),
    ("Colony formation is measured.", "no direction or threshold"),
])
def test_an_empty_or_vague_result_is_not(text: str, problem: str) -> None:
    check = check_result(text, TERMS)
    assert not check.concrete and problem in check.why


SCRIPTED_REVIEW = {"verdict": "neutral", "mode": "full", "novelty": 0.6, "correctness": 0.6, "testability": 0.8,
                   "feasibility": 0.6, "evidence": [], "notes": "Scripted review."}


async def test_a_vague_refuting_result_is_reviewed_down_for_testability(planned: SessionRuntime, fake: FakeBackend,
                                                                        run_task, add_player) -> None:
    concrete = add_player("Metformin inhibits complex I to deplete leukemic stem cells", state="draft")
    vague = add_player("Disulfiram inhibits ALDH1A1 to deplete leukemic stem cells", state="draft",
                       refuting_result="Results could change.")
    fake.script(FakeReply.record("record_review", **SCRIPTED_REVIEW), agent="reflection", mode="full", times=2)
    _, kept = await run_task("reflection", "ReviewHypothesis", "r-concrete", target_id=concrete,
                             payload={"mode": "full"})
    _, lowered = await run_task("reflection", "ReviewHypothesis", "r-vague", target_id=vague,
                                payload={"mode": "full"})
    (good,) = planned.store.hypotheses.reviews(concrete)
    (bad,) = planned.store.hypotheses.reviews(vague)
    assert good.scores["testability"] == 0.8 and not kept.detail["testability"]["capped"]
    cap = planned.deps.config.reflection.vague_refutation_testability
    assert bad.scores["testability"] == cap < good.scores["testability"]
    assert "the refuting result is not concrete (hedged ('could', 'could change')" in bad.notes
    assert lowered.detail["testability"] == {"contract": lowered.detail["testability"]["contract"], "capped": True,
                                             "before": 0.8, "after": cap}
    prompts = [c.prompt for c in fake.calls_for("reflection", "full")]
    assert "concrete: the experiment is named" in prompts[0]
    assert "not concrete: refuting result: hedged" in prompts[1]


async def test_the_fakes_hypotheses_carry_a_concrete_contract(planned: SessionRuntime, run_task) -> None:
    _, result = await run_task("generation", "GenerateHypothesis", "g0", payload={"mode": "literature"})
    h = planned.store.hypotheses.get(result.hypothesis_ids[0])
    assert h is not None and all(text for _, text in h.contract())
    assert check_contract(h, TERMS).concrete
    assert "Refuted if: " + h.refuting_result in h.brief()  # what tournament and evolution prompts quote


@pytest.mark.overrides(f"session.corpus_path={CORPUS}")
async def test_a_copy_of_a_corpus_record_is_already_explained_citing_it(planned: SessionRuntime, fake: FakeBackend,
                                                                         run_task, add_player) -> None:
    hid = add_player(COPIED, state="draft", title="Disulfiram and copper deplete ALDH-high leukemic stem cells",
                     mechanism=COPIED)
    _, result = await run_task("reflection", "ReviewHypothesis", "r0", target_id=hid, payload={"mode": "full"})
    prior = planned.store.hypotheses.prior_work(hid)
    assert prior and prior[0].source_id == "corpus:p1" and prior[0].tool == "local_corpus_search"
    assert [p.rank for p in prior] == list(range(1, len(prior) + 1))
    assert all(a.similarity >= b.similarity for a, b in pairwise(prior))
    assert prior[0].reason.startswith(f"similarity {prior[0].similarity:.2f} (at or above the near-duplicate")
    assert result.detail["verdict"] == "already_explained"
    assert result.detail["already_published"] == ["corpus:p1"]
    (review,) = planned.store.hypotheses.reviews(hid)
    cited = [e for e in review.evidence if e["url"] == "https://corpus.example.org/p1"]
    assert cited and cited[0]["status"] == "verified"
    assert {"source": "https://corpus.example.org/p1", "differs": False}.items() <= review.prior_work[0].items()
    call = fake.calls_for("reflection", "full")[0]
    assert "## Nearest prior work (required reading)" in call.prompt and 'id="prior-work-1"' in call.prompt
    searched = result.detail["prior_work"]
    assert searched["tools"][0] == "local_corpus_search" and searched["kept"][0] == "corpus:p1"
    assert all("unavailable" in e.lower() or "offline" in e.lower() for e in searched["errors"].values())


@pytest.mark.overrides(f"session.corpus_path={CORPUS}")
async def test_a_new_hypothesis_is_compared_and_differs(planned: SessionRuntime, run_task, add_player) -> None:
    hid = add_player("Metformin inhibits complex I to deplete leukemic stem cells", state="draft")
    _, result = await run_task("reflection", "ReviewHypothesis", "r0", target_id=hid, payload={"mode": "full"})
    prior = planned.store.hypotheses.prior_work(hid)
    (review,) = planned.store.hypotheses.reviews(hid)
    assert [c["source"] for c in review.prior_work] == [p.url for p in prior]
    if review.verdict == "already_explained":  # the fake's verdicts are drawn; a drawn one cites the nearest record
        assert [c["differs"] for c in review.prior_work] == [False] + [True] * (len(prior) - 1)
        assert result.detail["already_published"] == [prior[0].source_id]
    else:
        assert all(c["differs"] for c in review.prior_work) and result.detail["already_published"] == []


async def test_offline_without_a_corpus_nothing_is_kept_and_the_search_says_why(planned: SessionRuntime,
                                                                                 run_task, add_player) -> None:
    hid = add_player("Metformin inhibits complex I to deplete leukemic stem cells", state="draft")
    _, result = await run_task("reflection", "ReviewHypothesis", "r0", target_id=hid, payload={"mode": "full"})
    assert planned.store.hypotheses.prior_work(hid) == []
    searched = result.detail["prior_work"]
    assert searched["found"] == 0 and searched["tools"] and set(searched["errors"]) == set(searched["tools"])
    (event,) = planned.store.logs.events("prior_work_searched")
    assert event["payload"]["hypothesis_id"] == hid and "0 record(s) found by" in event["payload"]["line"]


async def test_a_long_tool_error_is_kept_cut_after_a_whole_word() -> None:
    """The novelty search keeps each tool's error answer to 160 characters, cut after a whole word (the report
    reads it; a word cut mid-way reads as a typo)."""
    from cosci.agents.novelty import PriorWorkFinder
    from cosci.domain import Hypothesis
    from cosci.tools.base import ToolResult

    answer = ("pubmed_search is unavailable: cannot connect (ConnectError: [Errno -2] Name or service not known); "
              "try europe_pmc_search, semantic_scholar_search, arxiv_search or crossref_lookup instead.")

    async def failing(arguments: dict[str, object]) -> ToolResult:
        return ToolResult(text=answer, is_error=True, source="pubmed_search")

    blank = {f: "" for f in Hypothesis.__dataclass_fields__}
    h = Hypothesis(**{**blank, "id": "H-0123456789ab", "title": "Metformin depletes stem cells",
                      "statement": "Metformin depletes stem cells through AMPK", "entities": [], "citations": [],
                      "parent_ids": [], "elo": 1200.0, "matches_played": 0, "wins": 0, "state": "new",
                      "dedup_cluster": None, "created_at": 0.0})
    finder = PriorWorkFinder({"pubmed_search": failing}, None, queries=1, results=3, kept=3,  # type: ignore[arg-type]
                             threshold=0.9)
    nearest, _, search = await finder.find(h, None)
    error = search.errors["pubmed_search"]
    assert nearest == [] and len(error) <= 160 and error.endswith("…"), error
    assert answer.startswith(error.removesuffix("…")) and answer[len(error) - 1] in " ,;", error
