"""What the tournament's judge sees and how its verdicts count (issue 13): no Elo or match count in any ranking
prompt, the presentation order drawn from the task RNG and replayed on retry, dual-order disagreement recorded
as a draw (Elo score 0.5), the judge statistics of a first-position judge, disjoint concurrent batches, and
the stored BT fit reproduced by a refit from the record."""

from __future__ import annotations

import asyncio
import re

import pytest

from cosci.config.schema import FakeModelCfg
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.session.runtime import SessionRuntime
from cosci.tournament.elo import expected_score
from cosci.tournament.judge_stats import session_judge_stats
from tests.agents.test_ranking_agent import STATEMENTS, quoted_ids

FIRST = FakeReply(text="The first one is clearer.\nbetter idea: 1")


@pytest.mark.overrides("ranking.dual_order=all")
async def test_no_ranking_prompt_shows_elo_or_match_counts(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                           add_player) -> None:
    add_player(STATEMENTS[0], elo=1337.0, matches=7)
    add_player(STATEMENTS[1], elo=1288.0, matches=9)
    add_player(STATEMENTS[2], elo=1111.0, matches=0)  # new: debates too
    for k in range(6):
        await run_task("ranking", "RunTournamentRound", f"b{k}")
    calls = fake.calls_for("ranking")
    assert {c.mode for c in calls} == {"pairwise", "debate"}
    assert any("/swap" in (c.action or "") for c in calls)
    for call in calls:
        assert "Elo" not in call.prompt and "elo" not in call.prompt.lower().split()
        for value in ("1337", "1288", "1111"):
            assert value not in call.prompt
        assert not re.search(r"\b\d+ matches\b", call.prompt)


@pytest.mark.overrides("ranking.dual_order_sample=0")
async def test_order_comes_from_the_task_rng_and_a_retry_replays_it(planned: SessionRuntime, fake: FakeBackend,
                                                                    add_player) -> None:
    ids = [add_player(s, matches=6, elo=1200.0 + 100 * n) for n, s in enumerate(STATEMENTS)]
    firsts = set()
    for k in range(8):
        tid = planned.store.tasks.enqueue("ranking", "RunTournamentRound", f"b{k}")
        task = planned.store.tasks.get(tid)
        fake.script(FakeReply(fault="bad_request"), agent="ranking")  # the first attempt dies at the judge
        with pytest.raises(Exception):  # noqa: B017 - whichever permanent error the gateway raises
            await planned.execute(task)
        failed = fake.calls[-1]
        assert planned.store.matches.all(task_id=tid) == []
        await planned.execute(task)  # the retry
        (match,) = planned.store.matches.all(task_id=tid)
        retried = [c for c in fake.calls_for("ranking") if c.task_id == tid][-1]
        assert quoted_ids(failed.prompt)[:2] == quoted_ids(retried.prompt)[:2]
        assert quoted_ids(retried.prompt)[0] == match.first_shown
        firsts.add(match.first_shown == min(match.hyp_a, match.hyp_b))
    assert firsts == {True, False}  # neither id order is fixed
    assert len(ids) == 4


@pytest.mark.overrides("ranking.dual_order=all")
async def test_disagreeing_orders_are_a_draw_with_elo_score_one_half(planned: SessionRuntime, fake: FakeBackend,
                                                                     run_task, add_player) -> None:
    strong = add_player(STATEMENTS[0], elo=1300.0, matches=6)
    weak = add_player(STATEMENTS[1], elo=1200.0, matches=6)
    fake.script(FIRST, agent="ranking", times=2)  # the first-shown wins in both orders: they disagree
    _, result = await run_task("ranking", "RunTournamentRound", "b0")

    (played,) = result.detail["matches"]
    assert played["draw"] is True and played["winner"] is None and played["valid"] is True
    assert [c.action for c in fake.calls_for("ranking", "pairwise")] == ["RunTournamentRound/match0",
                                                                         "RunTournamentRound/match0/swap"]
    (match,) = planned.store.matches.all()
    assert match.draw and match.dual_order and match.verdict_valid and match.score_a() == 0.5
    assert [v["first"] for v in match.verdicts] == [match.first_shown, weak if match.first_shown == strong else strong]
    a_is_strong = match.hyp_a == strong
    delta = 16 * (0.5 - expected_score(1300.0 if a_is_strong else 1200.0, 1200.0 if a_is_strong else 1300.0))
    assert match.elo_a_after == pytest.approx(match.elo_a_before + delta)
    assert planned.store.hypotheses.get(strong).elo == pytest.approx(1300.0 + (delta if a_is_strong else -delta))
    assert planned.store.hypotheses.get(strong).elo < 1300.0  # a draw with the weaker costs the stronger
    assert planned.store.matches.verdicts() == [(match.hyp_a, match.hyp_b, 0.5)]
    assert planned.store.matches.first_shown() == [None]  # both orders judged: no position term for this verdict


@pytest.mark.overrides("ranking.dual_order=all")
async def test_a_first_position_judge_shows_in_the_session_stats(planned: SessionRuntime, fake: FakeBackend,
                                                                 run_task, add_player) -> None:
    for s in STATEMENTS:
        add_player(s)
    fake.script(FIRST, agent="ranking", times=500)
    for k in range(5):
        await run_task("ranking", "RunTournamentRound", f"b{k}")
    stats = session_judge_stats(planned.store)
    assert stats.first_position_win_rate == 1.0 and stats.flip_rate == 1.0
    assert stats.draw_rate == 1.0 and stats.invalid_rate == 0.0 and stats.dual_order_matches == 5
    assert stats.flagged(planned.config.ranking.first_position_flag)


@pytest.mark.overrides("ranking.dual_order_sample=0")
async def test_concurrent_batches_never_share_a_hypothesis(planned: SessionRuntime, fake: FakeBackend,
                                                           add_player) -> None:
    for s in STATEMENTS:
        add_player(s, matches=6)
    fake.configure(FakeModelCfg(seed=0, fault_rate=0.0, latency_seconds=0.01, call_log=None))
    agent = planned.agents["ranking"]
    seen: list[int] = []
    for rnd in range(4):
        tasks = []
        for k in range(2):
            tid = planned.store.tasks.enqueue("ranking", "RunTournamentRound", f"r{rnd}b{k}")
            tasks.append(planned.store.tasks.get(tid))

        async def watch() -> None:
            for _ in range(50):
                seen.append(len(agent.in_play))  # type: ignore[attr-defined]
                await asyncio.sleep(0.002)

        results = await asyncio.gather(*(planned.execute(t) for t in tasks), watch())
        (m1,), (m2,) = (planned.store.matches.all(task_id=t.id) for t in tasks)
        assert not {m1.hyp_a, m1.hyp_b} & {m2.hyp_a, m2.hyp_b}
        assert all(r.kind == "tournament_match_complete" for r in results[:2])
    assert max(seen) == 4  # both matches were in play at the same time
    assert agent.in_play == set()  # type: ignore[attr-defined]


async def test_the_stored_bt_fit_is_a_refit_of_the_record(planned: SessionRuntime, run_task, add_player) -> None:
    """A round stores no leaderboard fit (design.md#supervisor); the one the Supervisor's snapshot stores is the
    agent's fit of the record, on every valid verdict."""
    from cosci.supervisor.leaderboard import LeaderboardFits

    for s in STATEMENTS:
        add_player(s)
    for k in range(10):
        await run_task("ranking", "RunTournamentRound", f"b{k}")
    assert planned.store.matches.bt() == {} and not planned.store.logs.events("bt_refit")
    LeaderboardFits(planned.config, planned.store).snapshot(len(STATEMENTS), planned.store.matches.valid_count())
    stored = planned.store.matches.bt()
    agent = planned.agents["ranking"]
    again = agent.fit(planned.store.hypotheses.ranked()).table()  # type: ignore[attr-defined]
    assert set(stored) == set(again)
    for hid, (score, low, high) in stored.items():
        assert (score, low, high) == pytest.approx(again[hid], abs=1e-6)
        assert low < score < high
    assert planned.store.logs.events("bt_refit")[-1]["payload"]["verdicts"] == planned.store.matches.count(
        valid_only=True)
    # the fit is told who was shown first in every single-order match (its position-bias term)
    rows = [m for m in planned.store.matches.all() if m.verdict_valid]
    assert planned.store.matches.first_shown() == [None if m.dual_order else m.first_shown for m in rows]
    assert any(f is not None for f in planned.store.matches.first_shown())
