"""Who judges a match and how often both orders are judged, in a session (design.md#position-bias,
design.md#judges): a judge that always picks the first-shown hypothesis is found significant and close pairs are
then judged in both orders more often; ``ranking.judges`` splits the matches between tiers and each match row
records its judge."""

from __future__ import annotations

import pytest

from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.session.runtime import SessionRuntime
from cosci.tournament.judge_stats import session_judge_stats
from cosci.tournament.judging import unit_hash
from tests.agents.test_ranking_agent import STATEMENTS

FIRST = FakeReply(text="The first one is clearer.\nbetter idea: 1")


async def test_a_first_position_judge_raises_the_dual_order_share_of_close_pairs(
        planned: SessionRuntime, fake: FakeBackend, run_task, add_player, caplog: pytest.LogCaptureFixture) -> None:
    for s in STATEMENTS:
        add_player(s, matches=6)
    fake.script(FIRST, agent="ranking", times=500)
    for k in range(16):
        await run_task("ranking", "RunTournamentRound", f"b{k}")
    (event,) = planned.store.logs.events("position_bias_detected")
    assert event["payload"]["first_shown_wins"] == event["payload"]["valid_calls"] == 4  # 4 of 4: CI 51-100 %
    assert ("won 4 of 4 judging calls (100 %, 51.0-100.0 % 95 % Wilson CI, nominal for independent calls; it excludes "
            "50 %)" in caplog.text)  # the warning gives its interval's bounds (fresh-user trial: it named the interval)
    matches = planned.store.matches.all()
    agent = planned.agents["ranking"]
    sample = planned.config.ranking.dual_order_sample
    tasks = [planned.store.tasks.by_key(f"b{k}") for k in range(16)]
    keys = {t.id: agent.match_key(t, 0) for t in tasks if t is not None}  # type: ignore[attr-defined]
    later = [m for m in matches[4:] if abs(m.elo_a_before - m.elo_b_before) < planned.config.ranking.dual_order_elo_gap]
    assert len(later) >= 8
    raised = [m for m in later if m.dual_order and unit_hash(keys[_task_of(planned, m.id)]) >= sample]
    assert len(raised) >= 3, "close pairs judged both ways beyond the plain sample"
    stats = session_judge_stats(planned.store)
    assert stats.position_bias and stats.flip_rate == 1.0  # every dual-order match flipped
    assert any(line.startswith("WARNING: position bias") for line in stats.lines(0.15, 0.5))


def _task_of(rt: SessionRuntime, mid: str) -> str:
    return str(rt.store.db.scalar("SELECT task_id FROM tournament_matches WHERE id=?", (mid,)))


async def test_one_judge_by_default_the_routed_tier(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                    add_player) -> None:
    for s in STATEMENTS[:2]:
        add_player(s, matches=6)
    await run_task("ranking", "RunTournamentRound", "b0")
    (match,) = planned.store.matches.all()
    assert planned.config.ranking.judges == [] and match.judge == "cheap"
    assert {c.model for c in fake.calls_for("ranking")} == {"cosci-fake/cheap"}


@pytest.mark.overrides("ranking.judges=[cheap,mini]")
async def test_two_judges_split_the_matches_and_each_row_names_its_judge(
        planned: SessionRuntime, fake: FakeBackend, run_task, add_player) -> None:
    for s in STATEMENTS:
        add_player(s, matches=6)
    for k in range(12):
        await run_task("ranking", "RunTournamentRound", f"b{k}")
    matches = planned.store.matches.all()
    assert {m.judge for m in matches} == {"cheap", "mini"}
    for m in matches:
        models = {c.model for c in fake.calls_for("ranking") if c.task_id == _task_of(planned, m.id)}
        assert models == {f"cosci-fake/{m.judge}"}, "every call of a match (both orders, every turn) on its judge"
    stats = session_judge_stats(planned.store)
    assert set(stats.judges) == {"cheap", "mini"}
    assert sum(j.matches for j in stats.judges.values()) == len(matches)
    assert sum(line.startswith("judge cheap:") or line.startswith("judge mini:") for line in stats.lines(0.15)) == 2
