"""Hypotheses, reviews and embeddings rows of the store."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from cosci.domain import Hypothesis, HypothesisState, PriorWork, Review
from cosci.ids import digest
from cosci.records import RecordHypothesis, RecordReview
from cosci.store.db import Database, dumps, row_to
from cosci.store.states import check_transition


def _hypothesis(row: sqlite3.Row) -> Hypothesis:
    return row_to(Hypothesis, row, json_columns={"entities": [], "citations": [], "parent_ids": []})


def _review(row: sqlite3.Row) -> Review:
    return row_to(Review, row, json_columns={"evidence": [], "assumptions": [], "prior_work": []},
                  scores={k: row[k] for k in ("novelty", "correctness", "testability", "feasibility")})


def held_in(path: Path, hid: str) -> bool:
    """Whether the session store file at ``path`` holds hypothesis ``hid``, read through a read-only connection
    (nothing migrated or created: the hint of another session's id reads stores it must not write; an unreadable
    file is False)."""
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1.0)
    except (sqlite3.Error, ValueError):
        return False
    try:
        return con.execute("SELECT 1 FROM hypotheses WHERE id=?", (hid,)).fetchone() is not None
    except sqlite3.Error:
        return False
    finally:
        con.close()


class Hypotheses:
    """Hypothesis rows: insert (idempotent on the deterministic id), read, state machine, clusters."""

    def __init__(self, db: Database, session_id: str) -> None:
        self.db, self.session_id = db, session_id
        self.namespace = session_id  # set by SessionStore.namespace
        self._kept: dict[str, Hypothesis] = {}  # ranked()'s decoded rows (its docstring)
        self._kept_version: Any = None

    def insert(self, hid: str, rec: RecordHypothesis, *, elo: float, task_id: str | None) -> bool:
        """Insert a draft hypothesis; returns False if the id already exists (a retried action)."""
        with self.db.tx() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO hypotheses (id, session_id, title, statement, mechanism, entities,"
                " anticipated_outcomes, novelty_argument, decisive_experiment, predicted_result, refuting_result,"
                " citations, mode, parent_ids, elo, state, created_by_task, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'draft',?,?)",
                (
                    hid,
                    self.session_id,
                    rec.title,
                    rec.statement,
                    rec.mechanism,
                    dumps(rec.entities),
                    rec.anticipated_outcomes,
                    rec.novelty_argument,
                    rec.decisive_experiment,
                    rec.predicted_result,
                    rec.refuting_result,
                    dumps([c.model_dump() for c in rec.citations]),
                    rec.mode,
                    dumps(rec.parent_ids),
                    elo,
                    task_id,
                    time.time(),
                ),
            )
            return cur.rowcount == 1

    def created_by(self, hid: str) -> str | None:
        """The id of the task that inserted the hypothesis (None if unknown or inserted outside a task)."""
        return self.db.scalar("SELECT created_by_task FROM hypotheses WHERE id=?", (hid,))

    def get(self, hid: str) -> Hypothesis | None:
        rows = self.db.query("SELECT * FROM hypotheses WHERE id=?", (hid,))
        return _hypothesis(rows[0]) if rows else None

    def all(self, states: tuple[str, ...] | None = None) -> list[Hypothesis]:
        """Hypotheses of the session, oldest first, optionally filtered by state."""
        sql, params = "SELECT * FROM hypotheses WHERE session_id=?", [self.session_id]
        if states:
            sql += f" AND state IN ({','.join('?' * len(states))})"
            params += list(states)
        return [_hypothesis(r) for r in self.db.query(sql + " ORDER BY created_at, id", tuple(params))]

    def ranked(self) -> list[Hypothesis]:
        """Tournament players (in_tournament or pinned) by Elo, best first; ties by id.

        Read light (design.md#scale): the columns a match or a state change writes (Elo, matches, wins, state,
        cluster) are read every call; the rest of a row is decoded once and kept, until this store replaces its
        citations (:meth:`set_citations`) or another connection commits to the file (``PRAGMA data_version``), when
        every kept row is decoded again. The returned objects may be shared between calls: do not mutate them."""
        version = self.db.scalar("PRAGMA data_version")
        if version != self._kept_version:
            self._kept.clear()
            self._kept_version = version
        rows = self.db.query(
            "SELECT id, elo, matches_played, wins, state, dedup_cluster FROM hypotheses WHERE session_id=? AND state"
            " IN ('in_tournament','pinned') ORDER BY elo DESC, id", (self.session_id,))
        missing = [r[0] for r in rows if r[0] not in self._kept]
        for i in range(0, len(missing), 500):  # SQLite's bound-parameter limit
            chunk = missing[i:i + 500]
            for full in self.db.query(f"SELECT * FROM hypotheses WHERE id IN ({','.join('?' * len(chunk))})",
                                      tuple(chunk)):
                self._kept[full["id"]] = _hypothesis(full)
        out = []
        for r in rows:
            h = self._kept[r[0]]
            light = (float(r[1]), int(r[2]), int(r[3]), r[4], r[5])
            if (h.elo, h.matches_played, h.wins, h.state, h.dedup_cluster) != light:
                h = self._kept[r[0]] = replace(h, elo=light[0], matches_played=light[1], wins=light[2],
                                               state=light[3], dedup_cluster=light[4])
            out.append(h)
        return out

    def player_ids(self) -> list[str]:
        """The ids of :meth:`ranked`'s tournament players, unordered: nothing decoded (the refit needs only these)."""
        return [r[0] for r in self.db.query("SELECT id FROM hypotheses WHERE session_id=? AND state IN"
                                            " ('in_tournament','pinned')", (self.session_id,))]

    def standings(self, ids: list[str] | None = None) -> list[tuple[str, float, int, str, int | None]]:
        """Light rows ``(id, elo, matches_played, state, dedup_cluster)`` of every hypothesis (or of ``ids``),
        oldest first — nothing decoded, for the Supervisor's in-memory leaderboard."""
        sql, params = "SELECT id, elo, matches_played, state, dedup_cluster FROM hypotheses WHERE session_id=?", [
            self.session_id]
        if ids is not None:
            if not ids:
                return []
            sql += f" AND id IN ({','.join('?' * len(ids))})"
            params += ids
        rows = self.db.query(sql + " ORDER BY created_at, id", tuple(params))
        return [(r[0], float(r[1]), int(r[2]), str(r[3]), r[4]) for r in rows]

    def count_reviews(self) -> int:
        """Reviews of the session (any mode)."""
        return int(self.db.scalar("SELECT COUNT(*) FROM reviews WHERE session_id=?", (self.session_id,)))

    def state_counts(self) -> dict[str, int]:
        """How many hypotheses of the session are in each state (states with none are absent)."""
        rows = self.db.query("SELECT state, COUNT(*) FROM hypotheses WHERE session_id=? GROUP BY state",
                             (self.session_id,))
        return {str(r[0]): int(r[1]) for r in rows}

    def count(self, exclude: tuple[str, ...] = ("rejected", "retired", "quarantined")) -> int:
        """Hypotheses in the pool (rejected, retired and quarantined excluded)."""
        return int(
            self.db.scalar(
                f"SELECT COUNT(*) FROM hypotheses WHERE session_id=? AND state NOT IN ({','.join('?' * len(exclude))})",
                (self.session_id, *exclude),
            )
        )

    def set_state(self, hid: str, new: HypothesisState, *, only_from: str | None = None,
                  withdrawal: bool = False) -> bool:
        """Move a hypothesis through the state machine.

        Args:
            only_from: change only if the current state is this one (seed: draft -> reviewed only from draft).
            withdrawal: the move undoes a withdrawn result (:data:`cosci.store.states.WITHDRAWAL`).

        Returns:
            True if the state changed.

        Raises:
            IllegalTransition: the state machine forbids the change.
            KeyError: no such hypothesis.
        """
        with self.db.tx() as c:
            row = c.execute("SELECT state FROM hypotheses WHERE id=?", (hid,)).fetchone()
            if row is None:
                raise KeyError(hid)
            if only_from is not None and row["state"] != only_from:
                return False
            if not check_transition(hid, row["state"], new, withdrawal=withdrawal):
                return False
            c.execute("UPDATE hypotheses SET state=? WHERE id=?", (new, hid))
            return True

    def set_citations(self, hid: str, citations: list[dict[str, Any]]) -> None:
        """Replace a hypothesis's citations (a debate hypothesis's, once its grounding search has checked them)."""
        with self.db.tx() as c:
            c.execute("UPDATE hypotheses SET citations=? WHERE id=? AND session_id=?",
                      (dumps(citations), hid, self.session_id))
        self._kept.pop(hid, None)

    def set_clusters(self, clusters: dict[str, int]) -> None:
        with self.db.tx() as c:
            c.executemany("UPDATE hypotheses SET dedup_cluster=? WHERE id=?", [(v, k) for k, v in clusters.items()])

    # --- reviews ---------------------------------------------------------------------------------------
    def add_review(self, hid: str, rec: RecordReview, *, task_id: str, article: dict[str, Any] | None = None) -> str:
        """Store a review; its id is derived from (task, hypothesis, mode), so a retry stores it once."""
        rid = "R-" + digest(self.namespace, task_id, hid, rec.mode)
        notes = rec.notes
        if rec.observations:
            notes += "\n" + "\n".join(
                f"- {o.observation} (explained: {o.explained}) {o.reasoning}".rstrip() for o in rec.observations
            )
        with self.db.tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO reviews (id, session_id, hypothesis_id, task_id, mode, verdict, novelty,"
                " correctness, testability, feasibility, assumptions, evidence, notes, weakest_assumption,"
                " kill_experiment, article, prior_work, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    rid,
                    self.session_id,
                    hid,
                    task_id,
                    rec.mode,
                    rec.verdict,
                    rec.novelty,
                    rec.correctness,
                    rec.testability,
                    rec.feasibility,
                    dumps([a.model_dump() for a in rec.assumptions]),
                    dumps([e.model_dump() for e in rec.evidence]),
                    notes.strip(),
                    rec.weakest_assumption,
                    rec.kill_experiment,
                    dumps(article) if article else None,
                    dumps([p.model_dump() for p in rec.prior_work]),
                    time.time(),
                ),
            )
        return rid

    def reviews(self, hid: str | None = None, limit: int | None = None) -> list[Review]:
        """Reviews of one hypothesis (or of the session), newest first."""
        sql, params = "SELECT * FROM reviews WHERE session_id=?", [self.session_id]
        if hid:
            sql += " AND hypothesis_id=?"
            params.append(hid)
        sql += " ORDER BY created_at DESC, id" + (f" LIMIT {int(limit)}" if limit else "")
        return [_review(r) for r in self.db.query(sql, tuple(params))]

    # --- nearest prior work (docs/design.md#prior-work) ----------------------------------------------------
    def set_prior_work(self, hid: str, records: list[PriorWork], *, task_id: str | None) -> None:
        """Replace the hypothesis's nearest prior work with ``records`` (a retried review stores them once)."""
        with self.db.tx() as c:
            c.execute("DELETE FROM prior_work WHERE hypothesis_id=? AND session_id=?", (hid, self.session_id))
            c.executemany(
                "INSERT INTO prior_work (session_id, hypothesis_id, rank, source_id, url, title, text, tool, ids,"
                " similarity, measure, reason, task_id, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                [(self.session_id, hid, p.rank, p.source_id, p.url, p.title, p.text, p.tool, dumps(p.ids),
                  p.similarity, p.measure, p.reason, task_id, time.time()) for p in records])

    def prior_work(self, hid: str | None = None) -> list[PriorWork]:
        """The nearest prior work of one hypothesis (or of every hypothesis), nearest first."""
        sql, params = "SELECT * FROM prior_work WHERE session_id=?", [self.session_id]
        if hid:
            sql += " AND hypothesis_id=?"
            params.append(hid)
        rows = self.db.query(sql + " ORDER BY hypothesis_id, rank", tuple(params))
        return [row_to(PriorWork, r, json_columns={"ids": []}) for r in rows]

    # --- embeddings ------------------------------------------------------------------------------------
    def add_embedding(self, hid: str, model: str, vector: np.ndarray, text_hash: str, offset: int) -> None:
        with self.db.tx() as c:
            c.execute(
                "INSERT OR REPLACE INTO embeddings_meta (hypothesis_id, session_id, model, dim, faiss_offset,"
                " text_hash, vector, created_at) VALUES (?,?,?,?,?,?,?,?)",
                (
                    hid,
                    self.session_id,
                    model,
                    int(vector.shape[0]),
                    offset,
                    text_hash,
                    np.asarray(vector, dtype="<f4").tobytes(),
                    time.time(),
                ),
            )

    def embeddings(self, model: str) -> tuple[list[str], np.ndarray]:
        """All stored vectors of ``model``: ids and an ``(n, dim)`` float32 array, in FAISS offset order."""
        rows = self.db.query(
            "SELECT hypothesis_id, dim, vector FROM embeddings_meta WHERE session_id=? AND model=?"
            " ORDER BY faiss_offset",
            (self.session_id, model),
        )
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        vecs = np.stack([np.frombuffer(r["vector"], dtype="<f4") for r in rows]).astype(np.float32)
        return [r["hypothesis_id"] for r in rows], vecs
