"""Batched tournament matches (design.md#batches): queued matches, the MatchBatch task that took them, the batch id.

Statuses: ``queued`` (waiting for a batch), ``submitted`` (in a provider batch), ``applied`` (its verdict applied
from the batch), ``direct`` (the batch failed or expired; played by a direct call instead), ``refused`` (the
budget refused it; not played), ``dropped`` (it failed or expired in a batch collected after the session stopped;
not played), ``unsent`` (still queued when the session stopped without a last batch: never sent, never paid).

A batch whose matches are still ``submitted`` is outstanding: the provider holds (and will bill) them while the
session's spend does not show them yet; :meth:`BatchedMatches.outstanding` gives each with the USD held for it
at submission (docs/design.md#batch-settlement).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from cosci.store.db import Database, dumps, loads, row_to


@dataclass(frozen=True)
class OutstandingBatch:
    """A submitted batch not yet settled: its id, the MatchBatch task that holds it, its matches, and the USD held
    for them at submission (their upper bound at the batch price; 0.0 when the record has no figure)."""

    batch_id: str
    batch_task_id: str
    matches: int
    reserved_usd: float


@dataclass(frozen=True)
class BatchedMatch:
    match_id: str
    task_id: str
    hyp_a: str
    hyp_b: str
    request: dict[str, Any]
    batch_task_id: str | None
    batch_id: str | None
    status: str
    created_at: float


class BatchedMatches:
    def __init__(self, db: Database, session_id: str) -> None:
        self.db, self.session_id = db, session_id

    def queue(self, mid: str, task_id: str, index: int, a: str, b: str, request: dict[str, Any]) -> bool:
        """Queue a match (idempotent on its id); returns whether it is new."""
        now = time.time()
        with self.db.tx() as c:
            return c.execute(
                "INSERT OR IGNORE INTO batched_matches (match_id, session_id, task_id, match_index, hyp_a, hyp_b,"
                " request, status, created_at, updated_at) VALUES (?,?,?,?,?,?,?,'queued',?,?)",
                (mid, self.session_id, task_id, index, a, b, dumps(request), now, now)).rowcount == 1

    def queued_by(self, task_id: str, index: int) -> BatchedMatch | None:
        """The match a RunTournamentRound task queued at ``index`` (a retried task does not queue another)."""
        rows = self._select("task_id=? AND match_index=?", (task_id, index))
        return rows[0] if rows else None

    def waiting(self) -> tuple[int, str | None]:
        """``(queued matches no MatchBatch task has taken, the oldest one's match id or None)`` (one light query)."""
        rows = self.db.query("SELECT match_id FROM batched_matches WHERE session_id=? AND status='queued'"
                             " AND batch_task_id IS NULL ORDER BY created_at, match_id", (self.session_id,))
        return len(rows), (rows[0]["match_id"] if rows else None)

    def gatherer_open(self, other_than: str | None = None) -> bool:
        """Whether an open MatchBatch task (other than task ``other_than``) will gather queued matches: one with no
        ``batch_task`` of its own."""
        return bool(self.db.scalar(
            "SELECT COUNT(*) FROM tasks WHERE session_id=? AND action='MatchBatch' AND id IS NOT ?"
            " AND status IN ('pending','leased','in_progress') AND json_extract(payload, '$.batch_task') IS NULL",
            (self.session_id, other_than)))

    def unsent(self) -> int:
        """Mark every queued match no MatchBatch task has taken ``unsent`` (the session stopped before a batch took
        it); returns how many."""
        with self.db.tx() as c:
            return c.execute("UPDATE batched_matches SET status='unsent', updated_at=? WHERE session_id=?"
                             " AND status='queued' AND batch_task_id IS NULL", (time.time(), self.session_id)).rowcount

    def assign(self, batch_task_id: str, limit: int) -> list[BatchedMatch]:
        """Give up to ``limit`` unassigned matches to a MatchBatch task; returns everything it holds."""
        with self.db.tx() as c:
            c.execute(
                "UPDATE batched_matches SET batch_task_id=?, updated_at=? WHERE match_id IN (SELECT match_id FROM"
                " batched_matches WHERE session_id=? AND status='queued' AND batch_task_id IS NULL"
                " ORDER BY created_at, match_id LIMIT ?)", (batch_task_id, time.time(), self.session_id, limit))
        return self.held_by(batch_task_id)

    def held_by(self, batch_task_id: str) -> list[BatchedMatch]:
        return self._select("batch_task_id=?", (batch_task_id,))

    def submitted(self, batch_task_id: str, batch_id: str) -> None:
        """Keep the provider's batch id on the MatchBatch task row and on its matches (one transaction)."""
        now = time.time()
        with self.db.tx() as c:
            c.execute("UPDATE tasks SET batch_id=?, updated_at=? WHERE id=?", (batch_id, now, batch_task_id))
            c.execute("UPDATE batched_matches SET batch_id=?, status='submitted', updated_at=? WHERE batch_task_id=?"
                      " AND status='queued'", (batch_id, now, batch_task_id))

    def batch_id_of(self, batch_task_id: str) -> str | None:
        rows = self.db.query("SELECT batch_id FROM tasks WHERE id=?", (batch_task_id,))
        return rows[0]["batch_id"] if rows else None

    def mark(self, mid: str, status: str) -> None:
        with self.db.tx() as c:
            c.execute("UPDATE batched_matches SET status=?, updated_at=? WHERE match_id=?", (status, time.time(), mid))

    def pending_pairs(self) -> list[tuple[str, str]]:
        """Pairs of matches queued or submitted but not yet applied (they count towards the rematch cap)."""
        rows = self.db.query("SELECT hyp_a, hyp_b FROM batched_matches WHERE session_id=?"
                             " AND status IN ('queued','submitted')", (self.session_id,))
        return [(r["hyp_a"], r["hyp_b"]) for r in rows]

    def stranded(self) -> tuple[list[tuple[str, int, bool]], str | None]:
        """Batched matches that no open ``MatchBatch`` task will carry on (a process died between two rounds).

        Returns:
            ``([(batch_task_id, tasks_so_far, submitted), ...], oldest_unassigned)``: each MatchBatch task whose
            matches are still queued (not yet submitted) or submitted (the provider holds them, paid for: they
            must be polled until the batch ends) while no open MatchBatch task refers to it, with the number of
            MatchBatch tasks it has had so far (a new task's key is then new); and the oldest queued match no
            task holds, when no open MatchBatch task would gather it (else None).
        """
        refers = ("t.session_id=bm.session_id AND t.action='MatchBatch' AND (t.id=bm.batch_task_id"
                  " OR json_extract(t.payload, '$.batch_task')=bm.batch_task_id)")
        rows = self.db.query(
            "SELECT bm.batch_task_id b, MAX(bm.status='submitted') sub,"
            f" (SELECT COUNT(*) FROM tasks t WHERE {refers}) n"
            " FROM batched_matches bm WHERE bm.session_id=? AND bm.batch_task_id IS NOT NULL"
            f" AND bm.status IN ('queued','submitted') AND NOT EXISTS (SELECT 1 FROM tasks t WHERE {refers}"
            " AND t.status IN ('pending','leased','in_progress'))"
            " GROUP BY bm.batch_task_id ORDER BY bm.batch_task_id", (self.session_id,))
        held = [(r["b"], int(r["n"]), bool(r["sub"])) for r in rows]
        _, oldest = self.waiting()
        return held, (oldest if not self.gatherer_open() else None)

    def outstanding(self) -> list[OutstandingBatch]:
        """Every submitted batch whose matches are not settled, oldest first."""
        rows = self.db.query(
            "SELECT batch_id, batch_task_id, GROUP_CONCAT(match_id) ids, MIN(created_at) t FROM batched_matches"
            " WHERE session_id=? AND status='submitted' AND batch_id IS NOT NULL GROUP BY batch_id, batch_task_id"
            " ORDER BY t", (self.session_id,))
        held: dict[str, float] = {}
        for e in self.db.query("SELECT payload FROM events WHERE session_id=? AND event='match_batch_submitted'",
                               (self.session_id,)):
            held.update({k: float(v) for k, v in (loads(e["payload"], {}).get("reserved_usd") or {}).items()})
        return [OutstandingBatch(r["batch_id"], r["batch_task_id"], len(ids), sum(held.get(i, 0.0) for i in ids))
                for r in rows for ids in [str(r["ids"]).split(",")]]

    def counts(self) -> dict[str, int]:
        rows = self.db.query("SELECT status, COUNT(*) n FROM batched_matches WHERE session_id=? GROUP BY status",
                             (self.session_id,))
        return {r["status"]: r["n"] for r in rows}

    def _select(self, where: str, params: tuple[Any, ...]) -> list[BatchedMatch]:
        rows = self.db.query(f"SELECT * FROM batched_matches WHERE session_id=? AND {where}"
                             " ORDER BY created_at, match_id", (self.session_id, *params))
        return [row_to(BatchedMatch, r, json_columns={"request": {}}) for r in rows]
