"""Meta-review (seed 000 §7): system feedback stored and injected into the next Generation prompt; the final
overview cites only existing hypothesis ids, with a fallback overview written from the record when the call
fails."""

from __future__ import annotations

import re

import pytest

from cosci import domain
from cosci.domain import BT_INTERVAL_LABEL, OverviewHeadings
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.records import RecordReview
from cosci.session.runtime import SessionRuntime
from tests.tournament.shipped import ELO

NARRATIVE = ("The strongest hypotheses name a leukemic-stem-cell dependency and a plasma concentration "
             "reachable in patients; weak ones ignore toxicity to normal progenitors (marker ZETA-7).")
FEEDBACK = {"common_weaknesses": ["Concentrations are not argued."],
            "common_strengths": ["Specific targets."],
            "suggested_focus_areas": ["Pharmacokinetics first."], "narrative": NARRATIVE}
STATEMENTS = ["Metformin inhibits complex I to deplete leukemic stem cells",
              "Itraconazole blocks SMO to sensitise relapsed blasts to cytarabine",
              "Disulfiram inhibits ALDH1A1 in NPM1-mutant AML stem cells"]


def system_blocks(call) -> list[dict]:
    (system,) = [m for m in call.messages if m["role"] == "system"]
    return system["content"]


@pytest.fixture
def ranked(planned: SessionRuntime, add_player) -> list[str]:
    """Three players with a review each and one match between the first two."""
    ids = [add_player(s, elo=1250.0 - 25 * i, matches=3) for i, s in enumerate(STATEMENTS)]
    for i, hid in enumerate(ids):
        review = RecordReview(verdict="missing_piece", evidence=[], novelty=0.8,
                              notes=f"Review note {i}: needs PK data.")
        planned.store.hypotheses.add_review(hid, review, task_id=f"T-review-{i}")
    planned.store.matches.apply("M-1", ids[0], ids[1], mode="debate", winner=ids[0], rule=ELO,
                                 rationale="Hypothesis 1 has a sharper kill experiment.\nbetter idea: 1",
                                 transcript=[], task_id=None)
    return ids


async def test_system_feedback_is_stored(planned: SessionRuntime, fake: FakeBackend, run_task,
                                         ranked: list[str]) -> None:
    fake.script(FakeReply.record("record_system_feedback", **FEEDBACK), agent="metareview")
    task, result = await run_task("metareview", "GenerateSystemFeedback", "m0")
    assert result.kind == "system_feedback_generated"
    assert (result.detail["reviews"], result.detail["rationales"]) == (3, 1)
    (row,) = planned.store.logs.feedback(source="meta_review")
    assert row.id == result.detail["feedback_id"] and row.kind == "system_feedback"
    assert row.text.startswith(NARRATIVE)
    assert "Common weaknesses:\n- Concentrations are not argued." in row.text
    assert row.payload == FEEDBACK
    assert planned.store.logs.latest_system_feedback() == row

    (call,) = fake.calls_for("metareview", "system")
    assert call.tool_choice == {"type": "function", "function": {"name": "record_system_feedback"}}
    assert "Review note 2: needs PK data." in call.prompt and "sharper kill experiment" in call.prompt
    assert len(re.findall(r'<untrusted_source id="review-', call.prompt)) == 3
    await planned.execute(task)  # a retried task stores its feedback once
    assert len(planned.store.logs.feedback(source="meta_review")) == 1


async def test_system_feedback_reaches_the_next_generation_and_evolution_prompts(planned: SessionRuntime,
                                                                                 fake: FakeBackend, run_task,
                                                                                 ranked: list[str]) -> None:
    await run_task("generation", "GenerateHypothesis", "g-before")
    assert all(NARRATIVE not in b["text"] for c in fake.calls_for("generation") for b in system_blocks(c))
    fake.script(FakeReply.record("record_system_feedback", **FEEDBACK), agent="metareview")
    await run_task("metareview", "GenerateSystemFeedback", "m0")
    fake.calls.clear()

    await run_task("generation", "GenerateHypothesis", "g-after")
    await run_task("evolution", "EvolveHypotheses", "e0", payload={"mode": "simplify"})
    for agent in ("generation", "evolution"):
        call = fake.calls_for(agent)[0]
        blocks = system_blocks(call)
        (feedback,) = [b for b in blocks if NARRATIVE in b["text"]]
        assert "cache_control" not in feedback  # per-session, changing content: never cached
        # the safety preamble is cached with the session context: the prefix up to the one mark on the last
        assert "cache_control" not in blocks[0] and "cache_control" in blocks[1]  # cached block (design.md#caching)
        assert "## Latest system feedback" in feedback["text"]
        assert '<untrusted_source id="system-feedback-' in feedback["text"]
        assert NARRATIVE not in "\n".join(m["content"] for m in call.messages if m["role"] == "user")
    assert all(NARRATIVE not in b["text"] for c in fake.calls_for("ranking") for b in system_blocks(c))


async def test_final_overview_removes_citations_of_unknown_ids(planned: SessionRuntime, fake: FakeBackend,
                                                               run_task, ranked: list[str]) -> None:
    real, other = ranked[0], ranked[1]
    text = (f"# Executive summary\nThe leader is [{real}], ahead of [H-0123456789ab].\n\n"
            f"# Main research directions\n## Stem cells\nSupported by [{real}, H-fedcba987654] and [{other}; "
            f"{real}], not by [H-bogus].\n")
    fake.script(FakeReply(text=text), agent="metareview", mode="final", times=2)  # the repair changes nothing
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")

    assert result.kind == "final_overview_generated" and result.detail["fallback"] is False
    assert result.detail["repaired"] is True and result.detail["claims_untraceable"] == 2
    assert sorted(result.detail["removed_citations"]) == ["H-0123456789ab", "H-bogus", "H-fedcba987654"]
    assert result.hypothesis_ids == ranked
    overview = planned.store.sessions.get().final_overview
    assert overview is not None
    synthesis, appendix = overview.split("# Appendix: leaderboard")
    appendix, audit = appendix.split("# Audit")
    assert set(re.findall(r"H-[0-9A-Za-z]+", synthesis + audit)) <= {real, other}
    assert set(re.findall(r"H-[0-9a-f]{12}", appendix)) == set(ranked)  # the leaderboard, from the record
    assert f"The leader is [{real}], ahead of ." in overview
    assert f"The leader is [{real}], ahead of . [untraceable]" in overview  # the summary is checked too
    assert f"Supported by [{real}] and [{other}; {real}], not by . [untraceable]" in overview

    call, repair = fake.calls_for("metareview", "final")
    assert repair.action == "GenerateFinalResearchOverview/repair" and "unknown hypothesis id H-bogus" in repair.prompt
    assert call.tools == [] and call.model == "cosci-fake/strong"
    assert all(f'<hypothesis_text id="{hid}"' in call.prompt for hid in ranked)


async def test_autopilot_overview_cites_only_known_ids(planned: SessionRuntime, run_task, ranked: list[str],
                                                       fake_cites_an_unknown_id: str) -> None:
    """The fake's overview plus a summary sentence citing an id that exists nowhere: whether the repair round
    drops it or the citation is removed afterwards, no unknown id reaches the overview."""
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert result.detail["fallback"] is False
    overview = planned.store.sessions.get().final_overview or ""
    cited = set(re.findall(r"\[(H-[^\]]+)\]", overview))
    assert fake_cites_an_unknown_id not in overview and cited and cited <= set(ranked)


async def test_an_unreachable_host_is_no_fallback_overview(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                           ranked: list[str]) -> None:
    """An overview written from the store because the host cannot be reached would read as the session's end; the
    session ends ``failed`` on the host's line instead, and a resume writes the overview once it answers."""
    from cosci.llm.errors import HostUnreachable

    fake.script(FakeReply(fault="unreachable"), agent="metareview", mode="final", times=3)
    with pytest.raises(HostUnreachable):
        await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert not planned.store.sessions.get().final_overview


@pytest.mark.parametrize("reply", [FakeReply(fault="bad_request"), FakeReply(fault="not_found"),
                                   FakeReply.empty()],
                         ids=["bad-request", "model-missing-never-degrades", "empty"])
async def test_fallback_overview_when_the_call_fails(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                     ranked: list[str], reply: FakeReply,
                                                     request: pytest.FixtureRequest) -> None:
    fake.script(reply, agent="metareview", mode="final", times=3)
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert result.kind == "final_overview_generated" and result.detail["fallback"] is True
    overview = planned.store.sessions.get().final_overview or ""
    first, _, rest = overview.partition("\n\n")
    assert first.startswith("> **Fallback overview**: written from the session store") and "because " in first
    because = {"bad-request": "the model call failed (cosci-fake/strong: fake: invalid request)",
               "model-missing-never-degrades": "the model call failed (",
               "empty": "the model returned no text"}[request.node.callspec.id]
    assert because in first
    assert rest.startswith("# Executive summary") and "# Caveats and limitations" in overview
    for hid in ranked:
        h = planned.store.hypotheses.get(hid)
        assert f"{h.title} [{hid}]" in overview and f"Claim: {h.statement}" in overview
    assert "Latest review verdict: missing_piece (novelty 0.80)." in overview
    assert {c.model for c in fake.calls_for("metareview", "final")} == {"cosci-fake/strong"}


async def test_a_budget_that_does_not_cover_the_writer_is_said(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                                 ranked: list[str]) -> None:
    """Fresh-user trial: at a small budget the final overview's call was refused by the budget and the session ended
    with the fallback overview, its first line saying only "the model call failed (...)" and the run's summary
    nothing: the overview's first line, the overview_checked event and the summary's ``fallback`` line say that the
    budget did not cover the final writer, with the amounts (the budget's own stop line)."""
    from cosci.session.summary import summarise

    budget = planned.budget
    budget.spent_usd["generation"] = budget.cap_usd - 1e-6  # the money ran out before the overview: nothing left
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert result.detail["fallback"] is True and not fake.calls_for("metareview", "final")  # nothing was sent
    first = (planned.store.sessions.get().final_overview or "").partition("\n\n")[0]
    assert first.startswith("> **Fallback overview**: written from the session store"), first
    assert "because the budget did not cover the final writer (the next metareview call would not fit in the $" in first
    assert "left; its " in first and "model call failed" not in first
    summary = summarise(planned, "budget", planned.home.path / "final" / "overview.md", None)
    (line,) = [x for x in summary.lines() if x.startswith("fallback  ")]
    assert line.startswith("fallback  the overview was written from the store, not by the writer: the budget did "
                           "not cover the final writer (the next metareview call would not fit in the $"), line


async def test_fallback_overview_without_hypotheses_makes_no_call(planned: SessionRuntime, fake: FakeBackend,
                                                                  run_task) -> None:
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert result.detail["fallback"] is True and result.hypothesis_ids == []
    assert fake.calls_for("metareview") == []
    overview = planned.store.sessions.get().final_overview or ""
    assert "0 tournament matches" in overview
    assert overview.startswith("> **Fallback overview**") and "because the session has no hypotheses" in overview


async def test_an_unstructured_overview_falls_back_to_the_record(planned: SessionRuntime, fake: FakeBackend,
                                                                 run_task, ranked: list[str]) -> None:
    """A weak model's answer without the required sections is kept as a quoted appendix to the record's overview."""
    fake.script(FakeReply(text="The scientific community is now ready to accept science."), agent="metareview",
                mode="final")
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final-weak")
    overview = planned.store.sessions.get().final_overview or ""
    assert result.detail["fallback"] is True
    assert overview.startswith("> **Fallback overview**") and "lacked the required sections" in overview
    assert "\n\n# Executive summary" in overview and f"[{ranked[0]}]" in overview
    assert "> The scientific community is now ready to accept science." in overview


@pytest.mark.parametrize("written_by", ["model", "fallback"])
async def test_reworded_headings_reach_the_prompt_the_overview_and_the_claim_check(
        planned: SessionRuntime, fake: FakeBackend, run_task, ranked: list[str], written_by: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every consumer reads ``domain.OVERVIEW``: rewording it changes the prompt, the overview (the fake's and the
    fallback's) and what the claim check reads, which still finds claims."""
    reworded = OverviewHeadings(summary="Summary of findings", directions="Research directions",
                                convergence="Agreement and conflict", caveats="Limits")
    monkeypatch.setattr(domain, "OVERVIEW", reworded)
    if written_by == "fallback":
        fake.script(FakeReply.empty(), agent="metareview", mode="final", times=3)
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert result.detail["fallback"] is (written_by == "fallback")
    prompt = fake.calls_for("metareview", "final")[0].prompt
    assert all(f"# {h}" in prompt for h in reworded.all) and "Main research directions" not in prompt
    overview = planned.store.sessions.get().final_overview or ""
    assert all(f"# {h}" in overview for h in reworded.all) and "Executive summary" not in overview
    assert result.detail["claims_total"] > 0 and result.detail["claims_untraceable"] < result.detail["claims_total"]
    (event,) = planned.store.logs.events("overview_checked")
    # the fallback's summary is a line from the session store, not a claim (design.md#claim-statuses)
    expected = {"research directions"} if written_by == "fallback" else {"summary of findings", "research directions"}
    assert {c["section"] for c in event["payload"]["claims"]} == expected


@pytest.mark.overrides("metareview.overview_top_n=2")
async def test_the_overview_chooses_and_lists_hypotheses_by_the_current_standing(
        planned: SessionRuntime, fake: FakeBackend, run_task, ranked: list[str]) -> None:
    """A researcher preferred the lowest-Elo hypothesis over the Elo leader: the BT fit (which holds preferences)
    puts it first, so the overview is written from, and its leaderboard lists, the standing ``cosci status`` shows
    (BT, then Elo), not the judge's Elo order; the overview's top 2 leaves out the Elo runner-up (design.md#report)."""
    from cosci.agents.session_fit import refit_bt
    from cosci.report.standing import standing

    leader, runner_up, preferred = ranked  # Elo 1250, 1225, 1200; the leader beat the runner-up
    planned.store.researcher.rate_pair(preferred, leader, "a", "the assay is already running")
    refit_bt(planned.store, planned.config.ranking.researcher_weight, planned.config.ranking.bt_prior_sd)
    assert [e.id for e in standing(planned.store).ranked[:2]] == [preferred, leader]  # what cosci status shows
    text = (f"# Executive summary\nTwo directions stand out [{preferred}] [{leader}].\n\n"
            f"# Main research directions\n## Itraconazole\nSMO blockade [{preferred}].\n## Metformin\n"
            f"Complex I [{leader}].\n")
    fake.script(FakeReply(text=text), agent="metareview", mode="final", times=2)  # a repair changes nothing
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")

    assert result.hypothesis_ids == [preferred, leader]
    prompt = fake.calls_for("metareview", "final")[0].prompt
    assert f'<hypothesis_text id="{preferred}"' in prompt and f'<hypothesis_text id="{runner_up}"' not in prompt
    overview = planned.store.sessions.get().final_overview or ""
    board = overview.split("# Appendix: leaderboard")[1].split("# Appendix: tournament statistics")[0]
    assert "| rank | hypothesis | BT score [95 % empirical-Bayes interval] | Elo |" in board
    assert BT_INTERVAL_LABEL in board
    rows = [line for line in board.splitlines() if line.startswith("| 1 ") or line.startswith("| 2 ")]
    assert [re.findall(r"H-[0-9a-f]{12}", r)[0] for r in rows] == [preferred, leader]
    assert re.match(rf"\| 1 \| \[{preferred}\] \| \+\d\.\d\d \[[-+]\d\.\d\d, [-+]\d\.\d\d\] \| 1200 \|", rows[0])
    stats = overview.split("# Appendix: tournament statistics")[1]
    assert f"logits; {BT_INTERVAL_LABEL};" in stats and "Fisher" not in stats  # named by its method, not Laplace's
    assert stats.index(f"[{preferred}]") < stats.index(f"[{leader}]") < stats.index(f"[{runner_up}]")


def test_the_mlflow_leaderboard_is_in_the_standing_s_order(planned: SessionRuntime, ranked: list[str]) -> None:
    """The leaderboard artifact a researcher opens in MLflow lists the standing (BT, which holds a researcher's
    preference), not the judge's Elo order (design.md#report)."""
    from cosci.agents.session_fit import refit_bt
    from cosci.tracking.artifacts import leaderboard_frame

    leader, _, preferred = ranked
    planned.store.researcher.rate_pair(preferred, leader, "a", "the assay is already running")
    refit_bt(planned.store, planned.config.ranking.researcher_weight, planned.config.ranking.bt_prior_sd)
    assert leaderboard_frame(planned.store)["id"].to_list()[:2] == [preferred, leader]


def test_finalisation_refits_a_fit_older_than_the_newest_verdict_and_leaves_a_fresh_one(
        planned: SessionRuntime, ranked: list[str]) -> None:
    """Above the refit stride the stored fit can be verdicts behind; the overview reads it, so finalisation refits
    once a match was judged after it, and not when it is fresh (design.md#scale)."""
    from cosci.agents.session_fit import refit_bt, refit_if_stale

    cfg = planned.config.ranking
    leader, _, third = ranked
    refit_bt(planned.store, cfg.researcher_weight, cfg.bt_prior_sd)
    assert not refit_if_stale(planned.store, cfg.researcher_weight, cfg.bt_prior_sd)
    before = planned.store.matches.bt()
    for i in range(3):  # the third player wins three matches the stored fit has not seen
        planned.store.matches.apply(f"M-late-{i}", third, leader, mode="pairwise", winner=third, rule=ELO,
                                     rationale="sharper", transcript=[], task_id=None)
    assert planned.store.matches.bt() == before
    assert refit_if_stale(planned.store, cfg.researcher_weight, cfg.bt_prior_sd)
    after = planned.store.matches.bt()
    assert after[third][0] > before[third][0] and after[third][0] > after[leader][0]
    assert not refit_if_stale(planned.store, cfg.researcher_weight, cfg.bt_prior_sd)


def test_finalisation_refits_after_a_preference_was_withdrawn(planned: SessionRuntime, ranked: list[str]) -> None:
    """A preference withdrawn after the stored fit (a `cosci rate --withdraw` while the session runs) makes the fit
    stale as a new one does: finalisation refits without it (design.md#researcher-ratings)."""
    from cosci.agents.session_fit import refit_bt, refit_if_stale

    cfg = planned.config.ranking
    leader, _, third = ranked
    judged = refit_bt(planned.store, cfg.researcher_weight, cfg.bt_prior_sd).table()
    rid = planned.store.researcher.rate_pair(third, leader, "a", "the assay is already running")
    assert refit_if_stale(planned.store, cfg.researcher_weight, cfg.bt_prior_sd)
    assert planned.store.matches.bt()[third][0] > judged[third][0]
    assert planned.store.researcher.withdraw("rating", rid)
    assert refit_if_stale(planned.store, cfg.researcher_weight, cfg.bt_prior_sd)
    assert planned.store.matches.bt() == judged  # as before the preference
    assert not refit_if_stale(planned.store, cfg.researcher_weight, cfg.bt_prior_sd)


async def test_an_overview_without_claims_is_not_audited(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                          ranked: list[str]) -> None:
    """Fresh-user trial: an overview with 0 claims got an audit score. No audit call is made; its section says there
    is nothing to audit."""
    text = ("# Executive summary\n\n# Main research directions\n\n# Convergence and divergence\n\n"
            "# Caveats and limitations\n")
    fake.script(FakeReply(text=text), agent="metareview", mode="final", times=2)
    _, result = await run_task("metareview", "GenerateFinalResearchOverview", "final")
    assert result.detail["claims_total"] == 0 and result.detail["audit_score"] is None, result.detail
    assert fake.calls_for("metareview", "audit") == []
    overview = planned.store.sessions.get().final_overview or ""
    assert overview.rstrip().endswith("# Audit\n\nNo audit: the overview has no claims to audit.")
