"""The researcher's own judgements and the lab's results on a session's hypotheses (migration 0029).

- ``researcher_ratings``: a preference between two hypotheses (``prefer`` a / b / tie) or a 1-5 score of one,
  with the researcher's reason (design.md#researcher-ratings). A preference enters the Bradley–Terry fit as
  ``ranking.researcher_weight`` verdicts (:meth:`Researcher.verdicts`), kept apart from the judge's.
- ``observations``: an experimental result on one hypothesis (outcome supported / refuted / inconclusive,
  named measures, notes, an attached file's path and sha256; design.md#experimental-results).

A later preference of the same pair replaces the earlier one in the fit (:meth:`Researcher.current_preferences`);
both rows stay. A withdrawn rating or result (migration 0033: ``withdrawn_at``) stays in the record too, and every
reader but the record itself (``withdrawn=True``) leaves it out; a result keeps ``moved_from``, the state it moved
its hypothesis from, so that its withdrawal restores it (:mod:`cosci.session.withdrawal`).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from cosci.ids import digest
from cosci.store.db import Database, dumps, row_to

Prefer = Literal["a", "b", "tie"]
Outcome = Literal["supported", "refuted", "inconclusive"]
OUTCOMES: tuple[Outcome, ...] = ("supported", "refuted", "inconclusive")
PREFER_SCORE = {"a": 1.0, "b": 0.0, "tie": 0.5}
"""A preference as the score of ``hyp_a`` in a BT verdict (:data:`cosci.tournament.bt.Verdict`)."""
TABLES = {"rating": "researcher_ratings", "result": "observations"}
"""The table of each kind of researcher input, by the id kind its ids have (:data:`cosci.ids.ID_KINDS`)."""


def recorded_in(path: Path, kind: str, rid: str) -> bool:
    """Whether the session store file at ``path`` holds the rating or result (``kind``, :data:`TABLES`) ``rid``,
    read through a read-only connection (nothing migrated or created; an unreadable file is False), as
    :func:`cosci.store.hypotheses.held_in` reads a hypothesis id."""
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1.0)
    except (sqlite3.Error, ValueError):
        return False
    try:
        return con.execute(f"SELECT 1 FROM {TABLES[kind]} WHERE id=?", (rid,)).fetchone() is not None
    except sqlite3.Error:
        return False
    finally:
        con.close()


@dataclass(frozen=True)
class Rating:
    """One researcher rating: ``kind`` preference (``hyp_a`` vs ``hyp_b``, ``prefer``) or score (``hyp_a``,
    ``score`` 1-5); ``created_at`` and ``withdrawn_at`` (None: standing) Unix seconds."""

    id: str
    kind: str
    hyp_a: str
    hyp_b: str | None
    prefer: str | None
    score: int | None
    why: str
    created_at: float
    withdrawn_at: float | None = None


def measure_text(value: Any) -> str:
    """One measure's value as every reader shows it: a number as typed, without a float's ``.0`` (``3``, ``12.5``,
    ``1e-07``: the shortest text that reads back as the same number), a text value quoted and marked ``(text)`` so
    that a mistyped number (``x=3,2``) shows (design.md#experimental-results)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        shown = repr(float(value))
        return shown.removesuffix(".0")
    return f"{value!r} (text)"


def measures_line(values: dict[str, Any]) -> str:
    """The measures as stored, ``name = value`` each (:func:`measure_text`), comma-separated: ``cosci result``'s
    line, ``cosci project show``, the report (text and page), the overview and the prompts all say them so."""
    return ", ".join(f"{k} = {measure_text(v)}" for k, v in values.items())


@dataclass(frozen=True)
class Observation:
    """One experimental result on ``hypothesis_id``; ``measures`` maps a name to its value as given (a number
    when it parses as one, else the text); ``moved_from``: the state the result moved the hypothesis from (None:
    it moved none); ``withdrawn_at`` Unix seconds (None: standing)."""

    id: str
    hypothesis_id: str
    outcome: str
    measures: dict[str, Any]
    notes: str
    file_path: str | None
    file_sha256: str | None
    created_at: float
    moved_from: str | None = None
    withdrawn_at: float | None = None

    def text(self) -> str:
        """The result in plain text (quoted by the caller before it reaches a prompt)."""
        parts = [f"Outcome: {self.outcome}"]
        if self.measures:
            parts.append("Measures: " + measures_line(self.measures))
        if self.notes:
            parts.append(f"Notes: {self.notes}")
        if self.file_path:
            parts.append(f"Data file: {self.file_path} (sha256 {self.file_sha256})")
        return "\n".join(parts)


class Researcher:
    """The ``researcher_ratings`` and ``observations`` rows of one session."""

    def __init__(self, db: Database, session_id: str) -> None:
        self.db = db
        self.session_id = session_id

    def rate_pair(self, a: str, b: str, prefer: Prefer, why: str = "") -> str:
        """Store a preference between ``a`` and ``b``; returns its id (``RR-``...)."""
        return self._rating("preference", a, b, prefer, None, why)

    def rate_one(self, hid: str, score: int, why: str = "") -> str:
        """Store a 1-5 score of ``hid``; returns its id."""
        return self._rating("score", hid, None, None, score, why)

    def _rating(self, kind: str, a: str, b: str | None, prefer: str | None, score: int | None, why: str) -> str:
        now = time.time()
        rid = "RR-" + digest(self.session_id, f"{time.time_ns()}:{kind}:{a}:{b}:{prefer}:{score}")
        with self.db.tx() as c:
            c.execute("INSERT INTO researcher_ratings (id, session_id, kind, hyp_a, hyp_b, prefer, score, why,"
                      " created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                      (rid, self.session_id, kind, a, b, prefer, score, why, now))
        return rid

    def ratings(self, kind: str | None = None, *, withdrawn: bool = False) -> list[Rating]:
        """Ratings, oldest first (optionally of one ``kind``); withdrawn ones only with ``withdrawn`` (the
        record)."""
        sql, params = "SELECT * FROM researcher_ratings WHERE session_id=?", [self.session_id]
        if kind:
            sql, params = sql + " AND kind=?", [*params, kind]
        if not withdrawn:
            sql += " AND withdrawn_at IS NULL"
        return [row_to(Rating, r) for r in self.db.query(sql + " ORDER BY created_at, rowid", tuple(params))]

    def rating(self, rid: str) -> Rating | None:
        """One rating, withdrawn or not (None: no such id in this session)."""
        rows = self.db.query("SELECT * FROM researcher_ratings WHERE id=? AND session_id=?", (rid, self.session_id))
        return row_to(Rating, rows[0]) if rows else None

    def current_preferences(self) -> list[Rating]:
        """The preferences that count: of each pair (in either order) the latest one not withdrawn, in the order
        they were rated. A later preference of a pair replaces the earlier in the fit, so five agreeing ratings
        weigh as one and a changed mind is the new verdict, not a cancellation (design.md#researcher-ratings)."""
        latest: dict[frozenset[str], Rating] = {}
        for r in self.ratings("preference"):
            if r.hyp_b is not None and r.prefer in PREFER_SCORE:
                latest.pop(key := frozenset((r.hyp_a, r.hyp_b)), None)
                latest[key] = r  # re-inserted: the dict keeps the order of each pair's latest rating
        return list(latest.values())

    def preference_changes(self) -> float | None:
        """When the preferences last changed (a preference rated or withdrawn; Unix seconds, None: never): the
        refit cadence's test of whether the fit's researcher input moved (:mod:`cosci.agents.ranking`)."""
        row = self.db.query("SELECT max(max(created_at), coalesce(max(withdrawn_at), 0)) FROM researcher_ratings "
                            "WHERE session_id=? AND kind='preference'", (self.session_id,))[0]
        return None if row[0] is None else float(row[0])

    def verdicts(self, weight: int) -> list[tuple[str, str, float]]:
        """The current preferences (:meth:`current_preferences`) as BT verdicts ``(a, b, score of a)``, each
        repeated ``weight`` times: with integer weights a repeated verdict is exactly a weighted likelihood term
        (design.md#researcher-ratings)."""
        out: list[tuple[str, str, float]] = []
        for r in self.current_preferences():
            out += [(r.hyp_a, str(r.hyp_b), PREFER_SCORE[str(r.prefer)])] * weight
        return out

    def withdraw(self, kind: str, rid: str) -> bool:
        """Mark rating or result (``kind``, :data:`TABLES`) ``rid`` withdrawn now; False when it is not in this
        session or was withdrawn already (nothing changed)."""
        with self.db.tx() as c:
            done = c.execute(f"UPDATE {TABLES[kind]} SET withdrawn_at=? WHERE id=? AND session_id=? "
                             "AND withdrawn_at IS NULL", (time.time(), rid, self.session_id))
            return done.rowcount == 1

    def set_moved_from(self, oid: str, state: str | None) -> None:
        """Hand the state a withdrawn result had moved its hypothesis from to result ``oid``, which now holds the
        hypothesis in its state (:mod:`cosci.session.withdrawal`)."""
        with self.db.tx() as c:
            c.execute("UPDATE observations SET moved_from=? WHERE id=? AND session_id=?", (state, oid, self.session_id))

    def add_observation(self, hid: str, outcome: Outcome, measures: dict[str, Any], notes: str = "",
                        file_path: str | None = None, file_sha256: str | None = None,
                        moved_from: str | None = None) -> str:
        """Store an experimental result on ``hid`` (``moved_from``: the state it moved the hypothesis from, None
        when it moved none); returns its id (``O-``...)."""
        now = time.time()
        oid = "O-" + digest(self.session_id, f"{time.time_ns()}:{hid}:{outcome}:{dumps(measures)}")
        with self.db.tx() as c:
            c.execute("INSERT INTO observations (id, session_id, hypothesis_id, outcome, measures, notes, file_path,"
                      " file_sha256, created_at, moved_from) VALUES (?,?,?,?,?,?,?,?,?,?)",
                      (oid, self.session_id, hid, outcome, dumps(measures), notes, file_path, file_sha256, now,
                       moved_from))
        return oid

    def observations(self, hid: str | None = None, *, withdrawn: bool = False) -> list[Observation]:
        """Experimental results, oldest first (optionally of one hypothesis); withdrawn ones only with
        ``withdrawn`` (the record)."""
        sql, params = "SELECT * FROM observations WHERE session_id=?", [self.session_id]
        if hid:
            sql, params = sql + " AND hypothesis_id=?", [*params, hid]
        if not withdrawn:
            sql += " AND withdrawn_at IS NULL"
        return [row_to(Observation, r, json_columns={"measures": {}})
                for r in self.db.query(sql + " ORDER BY created_at, rowid", tuple(params))]

    def observation(self, oid: str) -> Observation | None:
        """One result, withdrawn or not (None: no such id in this session)."""
        rows = self.db.query("SELECT * FROM observations WHERE id=? AND session_id=?", (oid, self.session_id))
        return row_to(Observation, rows[0], json_columns={"measures": {}}) if rows else None

    # --- project entrants (migration 0030) ----------------------------------------------------------------
    def add_entrant(self, hid: str, project: str, origin_session: str, origin_hypothesis: str, origin_elo: float,
                    origin_rank: int) -> None:
        """Mark ``hid`` as carried over from ``origin_session`` of ``project`` (design.md#projects)."""
        with self.db.tx() as c:
            c.execute("INSERT OR IGNORE INTO project_entrants VALUES (?,?,?,?,?,?,?)",
                      (hid, self.session_id, project, origin_session, origin_hypothesis, origin_elo, origin_rank))

    def entrants(self) -> dict[str, dict[str, Any]]:
        """Carried-over hypotheses: id -> ``origin_session``, ``origin_hypothesis``, ``origin_elo``,
        ``origin_rank``, ``project``."""
        rows = self.db.query("SELECT * FROM project_entrants WHERE session_id=?", (self.session_id,))
        return {r["hypothesis_id"]: {k: r[k] for k in ("project", "origin_session", "origin_hypothesis",
                                                       "origin_elo", "origin_rank")} for r in rows}
