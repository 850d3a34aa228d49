"""The ``max_hypotheses`` stop counts the pool once no match in flight can change it (design.md#supervisor, "The cap
holds"): a round still out when the pool first reads complete may retire a parent its evolved child beats
(design.md#retired), which frees a slot of ``run.max_hypotheses``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from cosci.domain import Task, TaskResult
from cosci.session.runtime import SessionRuntime
from cosci.supervisor.loop import Supervisor
from cosci.supervisor.rules import Scheduler
from cosci.supervisor.termination import StopReason
from tests.tournament.shipped import ELO


@pytest.mark.usefixtures("scheduler")  # a research plan stored
@pytest.mark.overrides("run.max_hypotheses=3", "evolution.mature_matches=1", "run.concurrency=2")
async def test_a_round_out_at_the_full_pool_that_retires_a_parent_does_not_end_it_short(
        runtime: SessionRuntime, add_player: Callable[..., str]) -> None:
    """A full pool of three (a parent, its evolved child, a newcomer yet to play) and two rounds in flight: the first
    lands with the newcomer's first match (the pool is then complete: every player has played), the second, slowed,
    lands after the loop read it complete, with the child beating its parent. Before, the session stopped
    ``max_hypotheses`` at that read and the second round retired the parent during the drain: a pool of two. Now
    the stop waits for the round; the pool has room again, so the session goes on (a generation task starts)."""
    store = runtime.store
    parent, child = add_player(matches=2), add_player(matches=2)
    newcomer = add_player(matches=0)
    with store.db.tx() as c:
        c.execute("UPDATE hypotheses SET parent_ids=? WHERE id=?", (f'["{parent}"]', child))
    for key in ("first", "late"):
        store.tasks.enqueue("ranking", "RunTournamentRound", f"ranking::round::{key}")
    started: list[str] = []
    reads: list[bool] = []
    pool_complete = Scheduler.pool_complete

    def counted(self: Scheduler) -> bool:
        reads.append(pool_complete(self))
        return reads[-1]

    async def runner(task: Task) -> TaskResult:
        started.append(task.action)
        if task.action == "GenerateHypothesis":  # the pool grows again: enough for this test
            store.sessions.update(status="aborting")
        if not task.idempotency_key.endswith(("::first", "::late")):
            return TaskResult("nothing_to_do")
        if task.idempotency_key.endswith("first"):
            store.matches.apply("M-first", newcomer, parent, mode="pairwise", winner=newcomer, rule=ELO,
                                rationale="", transcript=[], task_id=task.id)
            return TaskResult("tournament_match_complete", hypothesis_ids=[newcomer, parent], match_ids=["M-first"])
        while not any(reads):  # out until the loop has read the pool complete
            await asyncio.sleep(0.01)
        row = store.matches.apply("M-late", child, parent, mode="pairwise", winner=child, rule=ELO, rationale="",
                                  transcript=[], task_id=task.id)
        assert row is not None and row.retired == parent
        return TaskResult("tournament_match_complete", hypothesis_ids=[child, parent], match_ids=["M-late"])

    supervisor = Supervisor(runtime.config, store, runtime.budget, runner)
    supervisor.scheduler.pool_complete = counted.__get__(supervisor.scheduler)  # type: ignore[method-assign]
    reason = await asyncio.wait_for(supervisor.run(), 30)
    retired = store.hypotheses.get(parent)
    assert retired is not None and retired.state == "retired"
    assert reason == StopReason.EXTERNAL  # stopped by the test once generation started: the pool had room again
    assert started[:2] == ["RunTournamentRound"] * 2 and "GenerateHypothesis" in started
