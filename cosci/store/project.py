"""A project's store: the memory its sessions share, ``<data_dir>/projects/<name>/project.sqlite`` (design.md#projects).

Same conventions as a session store (:class:`cosci.store.db.Database`: WAL, ``BEGIN IMMEDIATE`` transactions,
a migration runner over ``project_migrations/``). Several sessions may write at once, each from its own
connection: SQLite's write lock is taken per transaction (one :meth:`ProjectStore.sync` is one transaction), so
two sessions of one project run concurrently and a write waits up to ``project.lock_timeout_seconds`` for the
other's; a crash mid-write rolls the transaction back.

What it holds: every hypothesis of its sessions (final Elo, rank, BT score, latest review verdict, citations,
lineage, where it came from), the researcher's ratings, the experimental results, the *rejected directions*
(hypotheses in the ``rejected`` state: a result ``refuted`` them or the researcher rejected them) and the *demoted
directions* (a latest review ``disproved`` / ``already_explained``: still in their tournament), each with why. One
word, one meaning: "rejected" is the state, as ``cosci status`` counts it (design.md#projects). A quarantined
hypothesis is copied without its text (design.md#safety: it stays in the session folder) and is never a direction.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosci.store import SessionStore
from cosci.store.db import Database, dumps, loads
from cosci.store.standing import QUARANTINED, standing

PROJECT_FILE = "project.sqlite"
REJECTING_VERDICTS = ("disproved", "already_explained")
UNJUDGED = frozenset({"draft", "reviewed"})
"""States of a copy that carries no verdict on its idea yet (:meth:`ProjectStore.best`)."""


def project_path(data_dir: Path, name: str) -> Path:
    """``<data_dir>/projects/<name>/project.sqlite``."""
    return data_dir / "projects" / name / PROJECT_FILE


@dataclass(frozen=True)
class PriorHypothesis:
    """A hypothesis of an earlier session: its id there, the session, final Elo and rank (its place in the
    session's standing, :mod:`cosci.store.standing`; None out of the ranking), its record and its BT score
    (logits, None outside the session's fit)."""

    session_id: str
    hypothesis_id: str
    title: str
    elo: float
    rank: int | None
    state: str
    record: dict[str, Any]
    bt_score: float | None = None


@dataclass(frozen=True)
class Direction:
    """A rejected direction (``reason`` refuted or rejected: the hypothesis is in the rejected state) or a demoted
    one (``reason`` disproved or already_explained: its latest review's verdict): the hypothesis, the session, the
    reason and why."""

    session_id: str
    hypothesis_id: str
    title: str
    statement: str
    reason: str
    why: str


class ProjectStore:
    """One project's SQLite store.

    Args:
        path: the project file (:func:`project_path`); created with its folder if missing.
        lock_timeout_seconds: how long a write waits for another session's write.
    """

    def __init__(self, path: Path, lock_timeout_seconds: float = 30.0) -> None:
        self.path = path
        self.name = path.parent.name
        self.db = Database(path, "project_migrations", busy_timeout_ms=int(lock_timeout_seconds * 1000))

    @classmethod
    def open(cls, data_dir: Path, name: str, lock_timeout_seconds: float = 30.0) -> ProjectStore:
        return cls(project_path(data_dir, name), lock_timeout_seconds)

    @staticmethod
    def exists(data_dir: Path, name: str) -> bool:
        return project_path(data_dir, name).is_file()

    @staticmethod
    def names(data_dir: Path) -> list[str]:
        """Projects under ``data_dir`` (folders holding a project store), sorted."""
        root = data_dir / "projects"
        return sorted(p.parent.name for p in root.glob(f"*/{PROJECT_FILE}")) if root.is_dir() else []

    def close(self) -> None:
        self.db.close()

    # --- writing ---------------------------------------------------------------------------------------
    def sync(self, store: SessionStore) -> None:
        """Copy one session's hypotheses, ratings, results and rejected and demoted directions into the project,
        replacing what an earlier sync of that session wrote (one transaction). Withdrawn ratings and results are
        left out (they are in the session's record)."""
        row = store.sessions.get()
        sid = store.session_id
        hyps = store.hypotheses.all()
        bt = store.matches.bt()
        entrants = store.researcher.entrants()
        ranked = {e.id: i for i, e in enumerate(standing(store).ranked, 1)}  # the ranks its leaderboard shows
        latest = {h.id: next(iter(store.hypotheses.reviews(h.id, limit=1)), None) for h in hyps}
        refuted = {o.hypothesis_id: o for o in store.researcher.observations() if o.outcome == "refuted"}
        supported = {o.hypothesis_id for o in store.researcher.observations() if o.outcome == "supported"}
        rejections = {f.target_id: f.text for f in store.logs.feedback(source="human", kind="rejection")}
        now = time.time()
        with self.db.tx() as c:
            c.execute("INSERT INTO project_sessions VALUES (?,?,?,?,?,?) ON CONFLICT(session_id) DO UPDATE SET "
                      "status=excluded.status, stop_reason=excluded.stop_reason, synced_at=excluded.synced_at",
                      (sid, row.research_goal, row.status, row.stop_reason, row.created_at, now))
            for table in ("project_hypotheses", "project_ratings", "project_observations", "rejected_directions",
                          "demoted_directions"):
                c.execute(f"DELETE FROM {table} WHERE session_id=?", (sid,))
            for h in hyps:
                review = latest[h.id]
                origin = entrants.get(h.id, {})
                shown = _copy(h)
                c.execute("INSERT INTO project_hypotheses VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                          (sid, h.id, shown["title"], shown["statement"], shown["mechanism"], h.mode, h.state, h.elo,
                           ranked.get(h.id), h.matches_played, bt[h.id][0] if h.id in bt else None,
                           review.verdict if review else None, dumps(shown["citations"]), dumps(h.parent_ids),
                           h.dedup_cluster, origin.get("origin_session"), origin.get("origin_hypothesis"),
                           dumps(shown)))
                into, why, reason = "", "", ""
                if h.state == "rejected":  # the one meaning of "rejected": the state (design.md#projects)
                    into = "rejected_directions"
                    reason, why = ("refuted", "refuted by experiment: " + " ".join(refuted[h.id].text().split())) \
                        if h.id in refuted else ("rejected", "rejected by the researcher" + (
                            f": {rejections[h.id]}" if rejections.get(h.id) else ""))
                elif h.state != "quarantined" and review is not None and review.verdict in REJECTING_VERDICTS \
                        and h.id not in supported:  # a lab's supported result outranks a review's verdict
                    into, reason = "demoted_directions", review.verdict
                    why = f"latest review {review.verdict}" + (f": {review.notes[:300]}" if review.notes else "")
                if into:
                    c.execute(f"INSERT INTO {into} VALUES (?,?,?,?,?,?)",
                              (sid, h.id, h.title, h.statement, reason, why))
            for r in store.researcher.ratings():
                c.execute("INSERT INTO project_ratings VALUES (?,?,?,?,?,?,?,?,?)",
                          (sid, r.id, r.kind, r.hyp_a, r.hyp_b, r.prefer, r.score, r.why, r.created_at))
            for o in store.researcher.observations():
                c.execute("INSERT INTO project_observations VALUES (?,?,?,?,?,?,?,?,?)",
                          (sid, o.id, o.hypothesis_id, o.outcome, dumps(o.measures), o.notes, o.file_path,
                           o.file_sha256, o.created_at))

    # --- reading ---------------------------------------------------------------------------------------
    def sessions(self) -> list[dict[str, Any]]:
        """The project's sessions, oldest first: id, goal, status, stop reason, created and synced times."""
        return [dict(r) for r in self.db.query("SELECT * FROM project_sessions ORDER BY created_at, session_id")]

    def hypotheses(self, session_id: str | None = None) -> list[PriorHypothesis]:
        """Hypotheses (of one session, or all), in the project's standing (:meth:`best`'s order: BT score, then
        final Elo)."""
        sql, params = "SELECT * FROM project_hypotheses", ()  # type: tuple[str, tuple[str, ...]]
        if session_id:
            sql, params = sql + " WHERE session_id=?", (session_id,)
        return [PriorHypothesis(r["session_id"], r["hypothesis_id"], r["title"], float(r["elo"]), r["rank"],
                                r["state"], loads(r["record"], {}), r["bt_score"])
                for r in self.db.query(sql + " ORDER BY bt_score IS NULL, bt_score DESC, elo DESC, session_id, "
                                       "hypothesis_id", params)]

    def best(self, k: int, exclude_session: str | None = None) -> list[PriorHypothesis]:
        """The ``k`` best tournament hypotheses of the other sessions, in the project's standing: the rule of a
        session's (:mod:`cosci.store.standing`) over every session's rows, those in their session's BT fit first
        by BT score (which holds the researcher's preferences), then the others, each by final Elo
        (design.md#projects). Left out: every copy of one a lab result refuted or the researcher rejected in any
        session (a carried-over hypothesis has a copy per session), and an idea whose newest judged copy is out
        of the tournament (retired, quarantined, rejected, or a demoted direction: a rejecting review): a later
        session's verdict on an idea replaces an earlier one's, so an idea a later session found already explained
        is not "best" on its earlier copy. A copy not yet judged (draft, or reviewed without a rejecting verdict: its
        session still running) does not speak; a hypothesis carried over from an earlier session counts once (its
        newest judged copy)."""
        directions = {(d.session_id, d.hypothesis_id): d.reason for d in [*self.rejected(), *self.demoted()]}
        created = {s["session_id"]: float(s["created_at"]) for s in self.sessions()}
        copies: dict[str, list[PriorHypothesis]] = {}
        for h in self.hypotheses():
            copies.setdefault(idea_key(h.record), []).append(h)
        out: list[PriorHypothesis] = []
        for same in copies.values():
            if any(directions.get((h.session_id, h.hypothesis_id)) in ("refuted", "rejected") for h in same):
                continue  # the lab's result and the researcher's rejection hold for the idea, not one copy
            judged = [h for h in same if h.session_id != exclude_session
                      and (h.state not in UNJUDGED or (h.session_id, h.hypothesis_id) in directions)]
            if not judged:
                continue
            newest = max(judged, key=lambda h: (created.get(h.session_id, 0.0), h.session_id))
            if newest.state in ("in_tournament", "pinned") and (newest.session_id, newest.hypothesis_id) \
                    not in directions:
                out.append(newest)
        out.sort(key=lambda h: (h.bt_score is None, -(h.bt_score or 0.0), -h.elo, h.session_id, h.hypothesis_id))
        return out[:k]

    def rejected(self, exclude_session: str | None = None) -> list[Direction]:
        """Rejected directions (hypotheses in the rejected state), newest session first."""
        return self._directions("rejected_directions", exclude_session)

    def demoted(self, exclude_session: str | None = None) -> list[Direction]:
        """Demoted directions (a latest review ``disproved`` / ``already_explained``; not rejected), newest session
        first."""
        return self._directions("demoted_directions", exclude_session)

    def _directions(self, table: str, exclude_session: str | None) -> list[Direction]:
        rows = self.db.query(
            f"SELECT d.* FROM {table} d JOIN project_sessions s USING (session_id) "
            "ORDER BY s.created_at DESC, d.hypothesis_id")
        return [Direction(r["session_id"], r["hypothesis_id"], r["title"], r["statement"], r["reason"], r["why"])
                for r in rows if r["session_id"] != exclude_session]

    def observations(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.query("SELECT * FROM project_observations ORDER BY created_at")]

    def ratings(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.query("SELECT * FROM project_ratings ORDER BY created_at")]


def idea_key(record: dict[str, Any]) -> str:
    """What makes two copies of a hypothesis one idea (:meth:`ProjectStore.best`): the sha256 of its statement,
    whitespace normalised (a quarantined copy keeps only this, ``statement_sha256``)."""
    if "statement_sha256" in record:
        return str(record["statement_sha256"])
    return hashlib.sha256(" ".join(str(record.get("statement", "")).split()).encode()).hexdigest()


def _copy(h: Any) -> dict[str, Any]:
    """The record a project keeps of hypothesis ``h`` (also its title, statement, mechanism and citations columns):
    the whole record, or for a quarantined one no text at all, only the placeholder title and the statement's
    sha256, so that a later copy of the same idea is still known as one (design.md#safety)."""
    if h.state == "quarantined":
        return {"title": QUARANTINED, "statement": "", "mechanism": "", "citations": [], "mode": h.mode,
                "parent_ids": [], "statement_sha256": idea_key({"statement": h.statement})}
    return {"title": h.title, "statement": h.statement, "mechanism": h.mechanism, "entities": h.entities,
            "anticipated_outcomes": h.anticipated_outcomes, "novelty_argument": h.novelty_argument,
            "citations": h.citations, "mode": h.mode, "decisive_experiment": h.decisive_experiment,
            "predicted_result": h.predicted_result, "refuting_result": h.refuting_result, "parent_ids": []}
