"""The durable task queue: idempotency keys, claim order, every lease voided on resume, dead after max attempts
(seed 001 "Task Queue Schema", "Lease Management")."""

from __future__ import annotations

from cosci.domain import TaskResult
from cosci.ids import task_id
from cosci.store import PRIORITY, SessionStore


def test_idempotency_key_makes_a_second_enqueue_a_no_op(store: SessionStore) -> None:
    tid = store.tasks.enqueue("reflection", "ReviewHypothesis", "reflection::H-1::full", target_id="H-1")
    assert tid == task_id(f"{store.session_id}::reflection::H-1::full")
    assert store.tasks.enqueue("reflection", "ReviewHypothesis", "reflection::H-1::full") is None
    assert store.tasks.count("reflection", "ReviewHypothesis") == 1
    task = store.tasks.get(tid)
    assert task is not None and (task.status, task.attempts, task.target_id) == ("pending", 0, "H-1")
    # the key stays taken once the task is done: replaying a follow-up never re-runs it
    claimed = store.tasks.claim("w")
    assert claimed is not None
    store.tasks.complete(claimed.id, TaskResult("review_completed", ["H-1"]))
    assert store.tasks.enqueue("reflection", "ReviewHypothesis", "reflection::H-1::full") is None
    assert store.tasks.result(claimed.id).kind == "review_completed"


def test_claim_order_is_priority_then_age(store: SessionStore) -> None:
    batch = store.tasks.enqueue("ranking", "RunTournamentRound", "batch",
                                 priority=PRIORITY["tournament_round"])
    gen = store.tasks.enqueue("generation", "GenerateHypothesis", "gen", priority=PRIORITY["default"])
    add1 = store.tasks.enqueue("ranking", "AddToTournament", "add1", priority=PRIORITY["ranking"])
    add2 = store.tasks.enqueue("ranking", "AddToTournament", "add2", priority=PRIORITY["ranking"])
    final = store.tasks.enqueue("metareview", "GenerateFinalResearchOverview", "final",
                                 priority=PRIORITY["final"])
    order = []
    while (task := store.tasks.claim("worker-1")) is not None:
        assert task.status == "in_progress"
        order.append(task.id)
    assert order == [final, add1, add2, gen, batch]
    assert store.tasks.counts() == {"in_progress": 5}
    assert store.tasks.claim("worker-1") is None


def test_reclaim_on_resume_voids_every_lease(store: SessionStore) -> None:
    """What ``Supervisor.run`` does first on a resume: the dead process's leases go, its tasks run again."""
    ids = [store.tasks.enqueue("generation", "GenerateHypothesis", f"g{i}") for i in range(3)]
    for _ in ids:
        store.tasks.claim("crashed-process")
    store.tasks.start_attempt(ids[0])  # in flight when the process died: it has spent an attempt
    assert store.tasks.reclaim() == 3
    assert store.tasks.counts() == {"pending": 3}
    rows = store.db.query("SELECT lease_owner, lease_expires_at, attempts FROM tasks ORDER BY id")
    assert {(r[0], r[1]) for r in rows} == {(None, None)}
    assert store.tasks.get(ids[0]).attempts == 1  # the attempt stays spent
    assert store.tasks.claim("resumed").id == ids[0]


def test_a_lease_has_no_time_limit(store: SessionStore) -> None:
    tid = store.tasks.enqueue("generation", "GenerateHypothesis", "g")
    assert store.tasks.claim("w").id == tid
    row = store.db.query("SELECT lease_owner, lease_expires_at FROM tasks WHERE id=?", (tid,))[0]
    assert (row[0], row[1]) == ("w", None)


def test_dead_after_max_attempts(store: SessionStore) -> None:
    tid = store.tasks.enqueue("generation", "GenerateHypothesis", "flaky", max_attempts=2)
    assert tid is not None
    for attempt in (1, 2):
        assert store.tasks.claim("w").id == tid
        assert store.tasks.start_attempt(tid) == attempt
        store.tasks.note_error(tid, f"crash {attempt}")
        assert store.tasks.reclaim() == (1 if attempt < 2 else 0)
    task = store.tasks.get(tid)
    assert task is not None and (task.status, task.attempts) == ("dead", 2)
    assert store.tasks.claim("w") is None  # a dead task is never claimed again
    assert store.db.scalar("SELECT last_error FROM tasks WHERE id=?", (tid,)) == "crash 2"


def test_fail_marks_dead_or_failed_and_cancel_pending(store: SessionStore) -> None:
    a = store.tasks.enqueue("generation", "GenerateHypothesis", "a")
    b = store.tasks.enqueue("generation", "GenerateHypothesis", "b")
    store.tasks.enqueue("generation", "GenerateHypothesis", "c")
    store.tasks.fail(a, "transient, out of attempts", dead=True)
    store.tasks.fail(b, "permanent", dead=False)
    assert store.tasks.cancel_pending() == 1
    assert store.tasks.counts() == {"dead": 1, "failed": 1, "cancelled": 1}
    assert store.tasks.open_count() == 0
