"""The durable task queue (design.md#store).

Statuses ``pending -> in_progress -> done | failed | dead | cancelled``; an idempotency key (UNIQUE) makes
enqueueing a follow-up twice a no-op; lower priority numbers run first (100 default, 80 ranking, 120
tournament round). A claim takes a lease; on resume, tasks whose worker died are put back to pending.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from cosci.domain import Task, TaskResult
from cosci.ids import task_id
from cosci.store.db import Database, dumps, loads

PRIORITY = {"default": 100, "ranking": 80, "tournament_round": 120, "final": 10}
"""Lower = higher priority (design.md#store)."""


def _task(row: sqlite3.Row) -> Task:
    return Task(
        id=row["id"],
        session_id=row["session_id"],
        agent=row["agent"],
        action=row["action"],
        target_id=row["target_id"],
        payload=loads(row["payload"], {}),
        priority=row["priority"],
        status=row["status"],
        attempts=row["attempts"],
        max_attempts=row["max_attempts"],
        idempotency_key=row["idempotency_key"],
        cache_spec=loads(row["cache_spec"]),
    )


class Tasks:
    def __init__(self, db: Database, session_id: str) -> None:
        self.db, self.session_id = db, session_id
        self.namespace = session_id  # set by SessionStore.namespace

    def enqueue(
        self,
        agent: str,
        action: str,
        key: str,
        *,
        target_id: str | None = None,
        payload: dict[str, Any] | None = None,
        priority: int = PRIORITY["default"],
        max_attempts: int = 3,
    ) -> str | None:
        """Enqueue a task under idempotency key ``<session>::<key>``.

        Returns:
            The new task id, or None if a task with this key already exists.
        """
        ikey = f"{self.namespace}::{key}"
        tid, now = task_id(ikey), time.time()
        with self.db.tx() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO tasks (id, session_id, agent, action, target_id, payload, priority, status,"
                " idempotency_key, max_attempts, created_at, updated_at) VALUES (?,?,?,?,?,?,?,'pending',?,?,?,?)",
                (
                    tid,
                    self.session_id,
                    agent,
                    action,
                    target_id,
                    dumps(payload or {}),
                    priority,
                    ikey,
                    max_attempts,
                    now,
                    now,
                ),
            )
        return tid if cur.rowcount == 1 else None

    def claim(self, owner: str, actions: tuple[str, ...] | None = None) -> Task | None:
        """Lease the best pending task (lowest priority number, oldest first) to ``owner``, or None; with
        ``actions``, the best pending task of one of those actions.

        A lease has no time limit (``lease_expires_at`` stays NULL): one process runs a session, so nobody else
        could take an expired task over; a resume voids every lease (:meth:`reclaim`). docs/ARCHITECTURE.md,
        "Leases"."""
        now = time.time()
        only = f" AND action IN ({','.join('?' * len(actions))})" if actions is not None else ""
        with self.db.tx() as c:
            row = c.execute(
                f"SELECT id FROM tasks WHERE session_id=? AND status='pending'{only}"
                " ORDER BY priority, created_at, id LIMIT 1",
                (self.session_id, *(actions or ())),
            ).fetchone()
            if row is None:
                return None
            c.execute(
                "UPDATE tasks SET status='in_progress', lease_owner=?, lease_expires_at=NULL, updated_at=? WHERE id=?",
                (owner, now, row["id"]),
            )
            return _task(c.execute("SELECT * FROM tasks WHERE id=?", (row["id"],)).fetchone())

    def start_attempt(self, tid: str) -> int:
        """Count one more attempt of a task; returns the attempt number (1-based)."""
        with self.db.tx() as c:
            c.execute("UPDATE tasks SET attempts=attempts+1, updated_at=? WHERE id=?", (time.time(), tid))
            return int(c.execute("SELECT attempts FROM tasks WHERE id=?", (tid,)).fetchone()[0])

    def complete(self, tid: str, result: TaskResult) -> None:
        self._finish(tid, "done", result=result.to_json())

    def fail(self, tid: str, error: str, *, dead: bool) -> None:
        """Record a failure: ``dead`` after the last attempt of a retryable error, ``failed`` for a permanent one."""
        self._finish(tid, "dead" if dead else "failed", error=error[:2000])

    def release(self, tid: str, note: str) -> None:
        """Give an interrupted task back to the queue (pending, lease cleared); finalisation cancels it."""
        self._finish(tid, "pending", error=note)

    def defer(self, tid: str, note: str) -> None:
        """Give a task back to the queue without counting its attempt (it waited for budget, design.md#budget)."""
        with self.db.tx() as c:
            c.execute(
                "UPDATE tasks SET status='pending', attempts=MAX(attempts-1, 0), last_error=?, lease_owner=NULL,"
                " lease_expires_at=NULL, updated_at=? WHERE id=?",
                (note[:2000], time.time(), tid),
            )

    def _finish(self, tid: str, status: str, *, result: str | None = None, error: str | None = None) -> None:
        with self.db.tx() as c:
            c.execute(
                "UPDATE tasks SET status=?, result=COALESCE(?, result), last_error=COALESCE(?, last_error),"
                " lease_owner=NULL, lease_expires_at=NULL, updated_at=? WHERE id=?",
                (status, result, error, time.time(), tid),
            )

    def note_error(self, tid: str, error: str) -> None:
        """Keep the latest error of an attempt that will be retried."""
        with self.db.tx() as c:
            c.execute("UPDATE tasks SET last_error=?, updated_at=? WHERE id=?", (error[:2000], time.time(), tid))

    def reclaim(self) -> int:
        """Void every lease of a session being resumed: its tasks go back to pending, or become dead when out of
        attempts (an attempt is counted when it starts, so a task in flight when its process died has spent one).
        The resuming process holds the session's lock, so the leases it voids belonged to a dead process.
        Returns the number of tasks put back to pending."""
        with self.db.tx() as c:
            c.execute(
                "UPDATE tasks SET status='dead', last_error=COALESCE(last_error,'out of attempts')"
                " WHERE session_id=? AND status IN ('in_progress','leased') AND attempts>=max_attempts",
                (self.session_id,),
            )
            cur = c.execute(
                "UPDATE tasks SET status='pending', lease_owner=NULL, lease_expires_at=NULL"
                " WHERE session_id=? AND status IN ('in_progress','leased')",
                (self.session_id,),
            )
            return cur.rowcount

    def release_owned(self, owner: str, note: str) -> int:
        """Give every task leased by ``owner`` back to the queue (an interrupted process: some of its claimed
        tasks may have been cancelled before they started, so no handler of theirs ran). Returns the count."""
        with self.db.tx() as c:
            return c.execute(
                "UPDATE tasks SET status='pending', lease_owner=NULL, lease_expires_at=NULL,"
                " last_error=COALESCE(last_error, ?), updated_at=?"
                " WHERE session_id=? AND lease_owner=? AND status IN ('in_progress','leased')",
                (note, time.time(), self.session_id, owner),
            ).rowcount

    def cancel_pending(self) -> int:
        with self.db.tx() as c:
            return c.execute(
                "UPDATE tasks SET status='cancelled', updated_at=? WHERE session_id=? AND status='pending'",
                (time.time(), self.session_id),
            ).rowcount

    def get(self, tid: str) -> Task | None:
        rows = self.db.query("SELECT * FROM tasks WHERE id=?", (tid,))
        return _task(rows[0]) if rows else None

    def by_key(self, key: str) -> Task | None:
        """The task enqueued under the (session-relative) idempotency key ``key``, or None.

        Looked up by key, not by :func:`cosci.ids.task_id` of it: a task enqueued before the vocabulary
        renames keeps the id derived from its old key while its key was rewritten (design.md#vocabulary)."""
        rows = self.db.query("SELECT * FROM tasks WHERE idempotency_key=?", (f"{self.namespace}::{key}",))
        return _task(rows[0]) if rows else None

    def result(self, tid: str) -> TaskResult | None:
        text = self.db.scalar("SELECT result FROM tasks WHERE id=?", (tid,))
        return TaskResult.from_dict(loads(text)) if text else None

    def counts(self) -> dict[str, int]:
        """Tasks per status."""
        rows = self.db.query(
            "SELECT status, COUNT(*) n FROM tasks WHERE session_id=? GROUP BY status", (self.session_id,)
        )
        return {r["status"]: r["n"] for r in rows}

    def open_count(self, agent: str | None = None, action: str | None = None) -> int:
        """Pending or in-progress tasks, optionally of one agent/action."""
        sql = "SELECT COUNT(*) FROM tasks WHERE session_id=? AND status IN ('pending','leased','in_progress')"
        params: list[Any] = [self.session_id]
        if agent:
            sql, params = sql + " AND agent=?", [*params, agent]
        if action:
            sql, params = sql + " AND action=?", [*params, action]
        return int(self.db.scalar(sql, tuple(params)))

    def tally(self) -> list[tuple[str, str, str, str, int]]:
        """``(agent, action, mode, status, n)``: tasks grouped by agent, action, payload ``mode`` and status."""
        rows = self.db.query(
            "SELECT agent, action, COALESCE(json_extract(payload, '$.mode'), '') mode, status, COUNT(*) n FROM tasks"
            " WHERE session_id=? GROUP BY agent, action, mode, status",
            (self.session_id,),
        )
        return [(r[0], r[1], str(r[2]), r[3], int(r[4])) for r in rows]

    def count(self, agent: str, action: str, key_suffix: str = "") -> int:
        """All tasks ever enqueued for an agent/action (any status), optionally whose key ends with a suffix."""
        return int(
            self.db.scalar(
                "SELECT COUNT(*) FROM tasks WHERE session_id=? AND agent=? AND action=? AND idempotency_key LIKE ?",
                (self.session_id, agent, action, f"%{key_suffix}"),
            )
        )
