"""The Supervisor's in-memory view (issue 11): updated from task results it equals a fresh load from the record;
an action that waited for budget goes back to the queue with its attempt refunded."""

from __future__ import annotations

import asyncio

import pytest

from cosci.domain import Task, TaskResult
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.errors import BudgetBusy, BudgetExceeded
from cosci.session.runtime import SessionRuntime
from cosci.supervisor.loop import Supervisor
from cosci.supervisor.state import PoolState, TaskTally
from cosci.supervisor.termination import StopReason


def task(agent: str, action: str) -> Task:
    return Task(id="T-x", session_id="s", agent=agent, action=action, target_id=None, payload={}, priority=100,
                status="in_progress", attempts=1, max_attempts=3, idempotency_key="k")


def snapshot(pool: PoolState) -> tuple[object, ...]:
    return (pool.standings, dict(pool.pair_counts), pool.reviews, pool.matches, pool.valid_matches, pool.feedback)


def test_updates_from_results_equal_a_fresh_load(runtime: SessionRuntime, scheduler, add_player, play) -> None:
    live = PoolState(runtime.store)
    live.load()
    a, b = add_player(state="draft"), add_player(state="draft")
    live.apply(task("generation", "GenerateHypothesis"), TaskResult("hypothesis_created", [a, b]))
    runtime.store.hypotheses.set_state(a, "reviewed")
    live.apply(task("reflection", "ReviewHypothesis"), TaskResult("review_completed", [a]))  # no review row: count
    runtime.store.hypotheses.set_state(a, "in_tournament")
    runtime.store.hypotheses.set_state(b, "reviewed")
    runtime.store.hypotheses.set_state(b, "in_tournament")
    live.apply(task("ranking", "AddToTournament"), TaskResult("added_to_tournament", [a, b]))
    play(a, b, 2)
    mids = runtime.store.matches.ids()
    live.apply(task("ranking", "RunTournamentRound"), TaskResult("tournament_match_complete", match_ids=mids))
    live.apply(task("ranking", "RunTournamentRound"), TaskResult("tournament_match_complete", match_ids=mids))
    fresh = PoolState(runtime.store)
    fresh.load()
    live.reviews = fresh.reviews  # the review above was a result without a row
    assert snapshot(live) == snapshot(fresh)  # a replayed result is not counted twice
    assert live.players()[0].matches_played == 2 and live.pair_counts[(min(a, b), max(a, b))] == 2


def test_the_task_tally_follows_enqueue_and_end(runtime: SessionRuntime, scheduler) -> None:
    tally = scheduler.tally
    scheduler.decide_next_steps()  # an empty pool: generation grows it
    opened = tally.count("generation", open_only=True)
    assert opened > 0
    claimed = runtime.store.tasks.claim("test")
    tally.ended(claimed, "done")
    assert tally.count("generation", open_only=True) == opened - 1
    fresh = TaskTally(runtime.store)
    fresh.load()
    assert fresh.count("generation") == tally.count("generation")


def test_an_action_waiting_for_budget_goes_back_to_the_queue(runtime: SessionRuntime, scheduler) -> None:
    calls: list[str] = []

    async def runner(t: Task) -> TaskResult:
        calls.append(t.id)
        if len(calls) == 1:
            runtime.store.tasks.start_attempt(t.id)
            raise BudgetBusy("generation share: in flight", scope="agent", agent="generation")
        return TaskResult("nothing_to_do")

    sup = Supervisor(runtime.config, runtime.store, runtime.budget, runner)
    runtime.store.tasks.enqueue("generation", "GenerateHypothesis", "g::busy", payload={"mode": "literature"})
    first = runtime.store.tasks.claim("test")
    asyncio.run(sup._run_one(first))
    again = runtime.store.tasks.get(first.id)
    assert again.status == "pending" and again.attempts == 0
    note = runtime.store.db.scalar("SELECT last_error FROM tasks WHERE id=?", (first.id,))
    assert "waiting for budget" in note
    assert not sup.scheduler.exhausted  # busy is not exhausted: the agent keeps getting work


def test_a_call_that_does_not_fit_stops_the_session_saying_so_not_that_the_budget_is_spent(
        runtime: SessionRuntime) -> None:
    """Second fresh-user trial: a session stopped with 10 % of its cap unspent read "the session's budget is spent".
    The admission refused the next call (its upper bound did not fit in what was left); the stop says that."""
    budget = TokenBudget(cap_usd=1.0, shares={"generation": 1.0}, reserve_share=0.08)
    budget.settle(budget.admit("generation", 0.8, 100), 0.8, 100)
    with pytest.raises(BudgetExceeded) as refused:
        budget.admit("generation", 0.05, 100, bound_usd=0.3)
    assert not budget.working_budget_spent()  # 0.8 of 0.92 spent

    async def runner(t: Task) -> TaskResult:
        runtime.store.tasks.start_attempt(t.id)
        raise refused.value

    sup = Supervisor(runtime.config, runtime.store, budget, runner)
    runtime.store.tasks.enqueue("generation", "GenerateHypothesis", "g::too-big", payload={"mode": "literature"})
    asyncio.run(sup._run_one(runtime.store.tasks.claim("test")))
    assert sup.should_stop() == StopReason.BUDGET
    assert sup.stop_detail == "the next generation call would not fit in the $0.20 left; its upper bound was $0.30"
    budget.settle(budget.admit("generation", 0.12, 100), 0.12, 100)  # now the working money is spent
    assert sup.should_stop() == StopReason.BUDGET and sup.stop_detail == "the session's budget is spent"


def test_a_task_in_flight_when_its_process_died_runs_again_on_resume(runtime: SessionRuntime) -> None:
    """Leases have no time limit (docs/ARCHITECTURE.md, "Leases"): ``Supervisor.run`` voids the dead process's
    leases first, so the task it held runs again, its started attempt still counted."""
    store = runtime.store
    tid = store.tasks.enqueue("generation", "GenerateHypothesis", "g::in-flight", payload={"mode": "literature"})
    assert store.tasks.claim("dead-process").id == tid
    store.tasks.start_attempt(tid)  # the dead process had started it
    ran: list[str] = []

    async def runner(t: Task) -> TaskResult:
        ran.append(t.id)
        sup.interrupt()  # one task is enough
        return TaskResult("nothing_to_do")

    sup = Supervisor(runtime.config, store, runtime.budget, runner)
    asyncio.run(sup.run())
    assert ran == [tid]
    task = store.tasks.get(tid)
    assert task is not None and task.status == "done" and task.attempts == 1
    assert store.db.scalar("SELECT lease_owner FROM tasks WHERE id=?", (tid,)) is None


def test_a_full_pool_waits_for_a_submitted_provider_batch(runtime: SessionRuntime, scheduler, add_player) -> None:
    """The CI run: a session resumed after a kill stopped at once on `max_hypotheses` and cancelled the poll of the
    provider batch it had submitted, so its paid-for matches were never applied. Stability and a full pool wait
    for an open MatchBatch; budget and wall clock do not. The poll is enqueued by the Scheduler (the only place
    that enqueues), so the in-memory tally sees it: no read of the record is needed (design.md#batches)."""
    for _ in range(runtime.config.run.max_hypotheses):
        add_player(matches=runtime.config.evolution.mature_matches)
    sup = Supervisor(runtime.config, runtime.store, runtime.budget, lambda t: None)  # type: ignore[arg-type, return-value]
    assert sup.should_stop() == StopReason.MAX_HYPOTHESES
    running = Task(id="T-batch", session_id="s", agent="ranking", action="MatchBatch", target_id=None,
                   payload={"poll": 0}, priority=80, status="in_progress", attempts=1, max_attempts=3,
                   idempotency_key="ranking::match_batch::M-x")
    pending = TaskResult("match_batch_pending", detail={"batch_id": "b-1", "batch_task": "T-batch", "poll": 0})
    assert sup.scheduler.follow_ups(running, pending) == 1  # its next poll
    assert runtime.store.tasks.open_count("ranking", "MatchBatch") == 1
    assert sup.should_stop() is None
    sup._budget_hit = "the next generation call would not fit"
    assert sup.should_stop() == StopReason.BUDGET


def test_a_stop_sends_the_queued_matches_as_the_last_batch_and_waits(runtime: SessionRuntime, scheduler,
                                                                     add_player) -> None:
    """Fewer than ``ranking.batch_size`` matches queued when the pool is full: they go out as the session's last
    batch, and the stop waits for it; matches still queued at a budget stop are never sent (``unsent``)."""
    players = [add_player(matches=runtime.config.evolution.mature_matches)
               for _ in range(runtime.config.run.max_hypotheses)]
    a, b = sorted(players[:2])
    runtime.store.batches.queue("M-q1", "T-round", 0, a, b, {})
    sup = Supervisor(runtime.config, runtime.store, runtime.budget, lambda t: None)  # type: ignore[arg-type, return-value]
    assert sup.should_stop() is None
    [row] = runtime.store.db.query("SELECT idempotency_key k, payload FROM tasks WHERE action='MatchBatch'")
    assert row["k"].endswith("ranking::match_batch::M-q1::last")
    assert sup.should_stop() is None  # the same task: enqueued once
    assert runtime.store.tasks.open_count("ranking", "MatchBatch") == 1
    runtime.store.batches.queue("M-q2", "T-round", 1, a, b, {})
    with runtime.store.db.tx() as c:
        c.execute("DELETE FROM batched_matches WHERE match_id='M-q1'")
    assert runtime.store.batches.unsent() == 1
    assert runtime.store.batches.counts() == {"unsent": 1}


def test_progress_steps_keep_counting_after_a_resume(runtime: SessionRuntime) -> None:
    """A resumed session's progress steps continue from the tasks already done: MLflow shows the value at the
    highest step, so steps that restarted at 0 left the run's headline metrics at their pre-kill values."""
    store = runtime.store
    for i in range(7):
        tid = store.tasks.enqueue("generation", "GenerateHypothesis", f"g::{i}")
        assert tid is not None
        store.tasks.complete(tid, TaskResult("nothing_to_do"))
    steps: list[int] = []

    class Seen:
        def on_progress(self, stats: object, step: int) -> None:
            steps.append(step)

    sup = Supervisor(runtime.config, store, runtime.budget, lambda t: None, [Seen()])  # type: ignore[arg-type, return-value, list-item]
    sup.notify()
    assert steps == [7]


@pytest.mark.parametrize("fitted", [
    pytest.param(False, marks=pytest.mark.overrides("termination.stability_rule=either")),
    pytest.param(False, marks=pytest.mark.overrides("termination.stability_rule=elo")),
    pytest.param(True, marks=pytest.mark.overrides("termination.stability_rule=bt"))])
def test_no_bt_fit_starts_once_the_elo_rule_stops_the_session(runtime: SessionRuntime, fitted: bool,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """An Elo snapshot that makes the Elo rule stop the session (``termination.stability_rule`` elo or either) starts
    no leaderboard fit: the stop comes at the next check, and finalisation refits on every verdict. Under the bt rule
    the fit is what decides."""
    sup = Supervisor(runtime.config, runtime.store, runtime.budget, lambda t: None)  # type: ignore[arg-type, return-value]
    started: list[tuple[int, int]] = []
    monkeypatch.setattr(sup.fits, "snapshot", lambda pool, matches: started.append((pool, matches)))
    monkeypatch.setattr(sup.tracker, "is_stable", lambda: True)
    monkeypatch.setattr(sup.pool, "valid_matches", runtime.config.termination.snapshot_every_matches)
    sup._snapshot()
    assert bool(started) is fitted
    assert sup.should_stop() == (None if fitted else StopReason.ELO_STABLE)
