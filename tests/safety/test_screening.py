"""Safety screening in a whole session on the scripted fake, without Prefect: the goal before any other call,
every new hypothesis before its review, the overview at the end; ``safety.enabled=false``. Tests of a capable
classifier mark the fake's mini tier able to classify (``CAPABLE``) and script its verdicts; by default the fake,
like the embedded model, is unable to classify and the offline screen decides."""

from __future__ import annotations

import logging

import polars as pl
import pytest

from cosci.cli import main
from cosci.config.schema import CosciConfig
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.session.runtime import SessionRuntime
from cosci.supervisor.loop import Supervisor
from cosci.supervisor.termination import StopReason
from cosci.tracking.artifacts import leaderboard_frame
from tests.conftest import CAPABLE


async def run(config: CosciConfig, rt: SessionRuntime | None = None) -> tuple[SessionRuntime, StopReason, str]:
    """Run a session to its end with the runtime as the runner (no Prefect); the caller closes the runtime."""
    rt = rt or await SessionRuntime.open(config, models_choice="fake")
    sup = Supervisor(config, rt.store, rt.budget, rt.execute)
    reason = await sup.run()
    overview = await sup.finalize(reason)
    rt.write_overview(overview)
    return rt, reason, overview


@pytest.mark.overrides(CAPABLE)
async def test_a_blocked_goal_stops_before_any_other_call(config: CosciConfig, fake: FakeBackend) -> None:
    fake.script(FakeReply.verdict("block", "Biological", rationale="asks for a more transmissible pathogen"),
                agent="safety", action="ScreenGoal")
    rt, reason, overview = await run(config)
    try:
        assert reason == StopReason.REFUSED
        assert [(c.agent, c.mode, c.action) for c in fake.calls] == [("safety", "classify", "ScreenGoal")]
        assert "cosci-fake/mini" in fake.calls[0].model  # the mini tier (seed 001 routing: classifier)
        row = rt.store.sessions.get()
        assert row.status == "refused" and row.stop_reason == "safety: biological"
        verdict = rt.store.safety.latest("goal")
        assert verdict and verdict.decision == "block" and verdict.acted and verdict.categories == ["biological"]
        assert set(rt.store.logs.spend()) == {"safety"}  # nothing else spent
        assert 0 < rt.budget.spent_usd["safety"] == pytest.approx(rt.budget.reserve_used_usd)  # from the reserve
        assert rt.store.tasks.counts() == {"done": 1} and rt.store.hypotheses.count() == 0
        assert "refused by safety screening" in overview and "more transmissible" in overview
        assert (rt.folder / "final" / "overview.md").read_text() == overview
    finally:
        await rt.close()
    with pytest.raises(Exception, match="is refused"):  # a refused session is not resumed
        await SessionRuntime.open(config, session_id=rt.session_id)


FERRETS = "session.goal='Which changes would let H5N1 spread efficiently between ferrets?'"


@pytest.mark.overrides(FERRETS, CAPABLE)
async def test_a_capable_classifier_sees_the_screens_note_and_its_allow_is_a_disagreement(
        config: CosciConfig, fake: FakeBackend) -> None:
    rt = await SessionRuntime.open(config, models_choice="fake")
    try:
        sup = Supervisor(config, rt.store, rt.budget, rt.execute)
        sup.scheduler.bootstrap()
        task = rt.store.tasks.claim("t")
        assert task is not None and task.action == "ScreenGoal"
        result = await rt.execute(task)
        assert result.kind == "goal_screened"  # the fake's autopilot allows, and the classifier decides
        prompt = fake.calls_for("safety")[0].prompt
        assert "look at it with extra care" in prompt and 'matched: biological: "h5n1" + "spread efficiently"' in prompt
        verdict = rt.store.safety.latest("goal")
        assert verdict and verdict.decision == "allow" and verdict.prescreen and verdict.disagreement
    finally:
        await rt.close()


@pytest.mark.overrides(FERRETS)
async def test_on_a_tier_unable_to_classify_the_screen_refuses_before_any_other_call(
        config: CosciConfig, fake: FakeBackend) -> None:
    rt, reason, overview = await run(config)
    try:
        assert reason == StopReason.REFUSED and rt.store.sessions.status() == "refused"
        assert [(c.agent, c.action) for c in fake.calls] == [("safety", "ScreenGoal")]
        verdict = rt.store.safety.latest("goal")
        assert verdict and verdict.decision == "block" and verdict.model_decision == "allow"  # the fake's answer
        assert rt.store.sessions.get().stop_reason == "safety: biological"
        assert overview.startswith("# Session refused by safety screening\n\nThe offline safety screen blocked")
    finally:
        await rt.close()


@pytest.mark.overrides(CAPABLE)
async def test_a_flagged_goal_runs_a_hypothesis_whose_check_failed_is_kept_and_a_blocked_overview_is_withheld(
        config: CosciConfig, fake: FakeBackend, caplog: pytest.LogCaptureFixture,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Three verdicts on three subjects of one session, each read as its own test read it before (one session run
    instead of three, each a whole session on the fake at 6-18 s of CPU; docs/development.md, test time, twelfth
    pass): the goal flagged, the first hypothesis's classifier call failed, the overview blocked."""
    fake.script(FakeReply.verdict("flag", "biological", rationale="dual use"), agent="safety", action="ScreenGoal")
    fake.script(FakeReply(fault="bad_request"), agent="safety", action="ScreenHypothesis")
    fake.script(FakeReply.verdict("block", "biological", rationale="the synthesis assembles a harmful route"),
                agent="safety", action="ScreenOverview")
    with caplog.at_level(logging.WARNING, logger="cosci.safety"):
        rt, reason, overview = await run(config)
    try:
        # a flagged goal runs, with a warning
        assert reason != StopReason.REFUSED and rt.store.sessions.status() == "done"
        verdict = rt.store.safety.latest("goal")
        assert verdict and verdict.decision == "flag" and not verdict.acted
        assert any("flagged by safety screening" in r.getMessage() for r in caplog.records)
        assert rt.store.hypotheses.count() > 0 and rt.store.matches.count() > 0
        # a failed classifier call flags the hypothesis and keeps it
        flagged = [v for v in rt.store.safety.all("hypothesis") if v.decision == "flag"]
        assert len(flagged) == 1 and "not screened by the model" in flagged[0].rationale
        assert not rt.store.hypotheses.all(states=("quarantined",))
        assert rt.store.hypotheses.reviews(flagged[0].subject_id)  # kept, so it was reviewed
        main(["--data-dir", str(config.paths.data_dir), "status", rt.session_id])
        out = capsys.readouterr().out
        assert f"flagged      [{flagged[0].subject_id}]" in out and "not screened by the model" in out
        # a blocked overview is withheld
        withheld = rt.store.safety.withheld_overview()
        assert withheld and "# Executive summary" in withheld
        assert overview.startswith("# Overview withheld by safety screening") and "harmful route" in overview
        assert rt.store.sessions.get().final_overview == overview
        assert (rt.folder / "final" / "overview.md").read_text() == overview
        assert (rt.folder / "final" / "overview.withheld.md").read_text() == withheld
        from cosci.session.summary import summarise

        said = [line for line in summarise(rt, "done", rt.folder / "final" / "overview.md", None).lines()
                if line.startswith("withheld")]  # the terminal summary says so too
        assert said == ["withheld  the overview, by safety screening, block (biological): the synthesis assembles a "
                        "harmful route; its text is in final/overview.withheld.md"], said
    finally:
        await rt.close()


@pytest.mark.overrides(CAPABLE)
async def test_a_blocked_hypothesis_is_quarantined_and_never_used_again(config: CosciConfig,
                                                                       fake: FakeBackend) -> None:
    fake.script(FakeReply.verdict("block", "chemical", rationale="describes a nerve agent route"),
                agent="safety", action="ScreenHypothesis")
    rt, _, overview = await run(config)
    try:
        quarantined = rt.store.hypotheses.all(states=("quarantined",))
        assert len(quarantined) == 1
        h = quarantined[0]
        verdict = rt.store.safety.latest("hypothesis", h.id)
        assert verdict and verdict.acted and verdict.categories == ["chemical"]
        players = {r[0] for r in rt.store.db.query("SELECT hyp_a FROM tournament_matches")} | {
            r[0] for r in rt.store.db.query("SELECT hyp_b FROM tournament_matches")}
        assert players and h.id not in players
        assert not rt.store.hypotheses.reviews(h.id)  # screened before its review: never reviewed
        later = [c for c in fake.calls if c.agent in ("ranking", "evolution", "metareview", "reflection")]
        assert fake.calls_for("evolution"), "evolution never ran: the check below would prove nothing"
        assert all(h.id not in c.prompt and h.statement not in c.prompt for c in later)
        screened_at = next(i for i, c in enumerate(fake.calls) if c.action == "ScreenHypothesis")
        assert all(h.title not in c.prompt for c in fake.calls[screened_at + 1:] if c.agent == "generation")
        assert h.id not in overview and h.statement not in overview
        assert rt.store.safety.counts()["block"] == 1
        board = leaderboard_frame(rt.store).filter(pl.col("id") == h.id).row(0, named=True)  # an MLflow artifact
        assert board["state"] == "quarantined" and h.statement not in str(board) and h.title not in str(board)
    finally:
        await rt.close()


@pytest.mark.overrides("safety.enabled=false")
async def test_disabled_screening_makes_no_classifier_call_and_says_so_once(
        config: CosciConfig, fake: FakeBackend, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="cosci"):
        rt, reason, _ = await run(config)
    try:
        assert reason != StopReason.REFUSED and rt.store.hypotheses.count() > 0
        assert fake.calls and not fake.calls_for("safety")
        assert not rt.store.safety.all() and len(rt.store.logs.events("safety_disabled")) == 1
        said = [r for r in caplog.records if "safety screening is off" in r.getMessage()]
        assert len(said) == 1
    finally:
        await rt.close()
