"""The ``safety_verdicts`` rows: what the safety classifier decided about a goal, hypothesis, overview or
feedback text, whether the decision acted, and a withheld overview's text (design.md#safety)."""

from __future__ import annotations

import hashlib
import sqlite3
import time
from dataclasses import dataclass
from typing import Literal

from cosci.store.db import Database, dumps, row_to

Subject = Literal["goal", "hypothesis", "overview", "feedback"]


@dataclass(frozen=True)
class SafetyVerdict:
    """One screening. ``decision``: allow / flag / block; ``acted``: it refused, quarantined or withheld."""

    id: str
    subject: str
    subject_id: str | None
    decision: str
    categories: list[str]
    rationale: str
    prescreen: list[str]
    acted: bool
    model: str | None
    task_id: str | None
    created_at: float

    def line(self) -> str:
        """One line for a terminal: decision, categories and rationale."""
        cats = ", ".join(self.categories) or "no category"
        return f"{self.decision} ({cats}): {' '.join(self.rationale.split()) or 'no rationale given'}"


def verdict_id(session_id: str, subject: str, subject_id: str | None, text: str) -> str:
    """``V-`` + sha256(session ‖ subject ‖ subject id ‖ text)[:12]: one verdict per screened text."""
    body = "\x1f".join((session_id, subject, subject_id or "", text))
    return "V-" + hashlib.sha256(body.encode()).hexdigest()[:12]


class SafetyVerdicts:
    def __init__(self, db: Database, session_id: str) -> None:
        self.db, self.session_id = db, session_id

    def add(self, vid: str, subject: Subject, subject_id: str | None, *, decision: str, categories: list[str],
            rationale: str, prescreen: list[str], acted: bool, model: str | None, task_id: str | None,
            withheld_text: str | None = None) -> bool:
        """Insert a verdict (idempotent on ``vid``: a replayed screening adds nothing). True if inserted."""
        with self.db.tx() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO safety_verdicts (id, session_id, subject, subject_id, decision, categories,"
                " rationale, prescreen, acted, model, task_id, withheld_text, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (vid, self.session_id, subject, subject_id, decision, dumps(categories), rationale,
                 dumps(prescreen), int(acted), model, task_id, withheld_text, time.time()))
            return cur.rowcount > 0

    def get(self, vid: str) -> SafetyVerdict | None:
        rows = self.db.query("SELECT * FROM safety_verdicts WHERE id=?", (vid,))
        return _verdict(rows[0]) if rows else None

    def all(self, subject: str | None = None, subject_id: str | None = None) -> list[SafetyVerdict]:
        """Verdicts of the session, oldest first, optionally for one subject (and subject id)."""
        sql, params = "SELECT * FROM safety_verdicts WHERE session_id=?", [self.session_id]
        if subject:
            sql, params = sql + " AND subject=?", [*params, subject]
        if subject_id:
            sql, params = sql + " AND subject_id=?", [*params, subject_id]
        return [_verdict(r) for r in self.db.query(sql + " ORDER BY created_at, id", tuple(params))]

    def latest(self, subject: str, subject_id: str | None = None) -> SafetyVerdict | None:
        found = self.all(subject, subject_id)
        return found[-1] if found else None

    def withheld_overview(self) -> str | None:
        """The text of a withheld final overview, if the classifier withheld one."""
        return self.db.scalar(
            "SELECT withheld_text FROM safety_verdicts WHERE session_id=? AND subject='overview' AND acted=1"
            " AND withheld_text IS NOT NULL ORDER BY created_at DESC LIMIT 1", (self.session_id,))

    def counts(self) -> dict[str, int]:
        """``{"flag": n, "block": m, ...}`` over every screening of the session."""
        rows = self.db.query("SELECT decision, COUNT(*) FROM safety_verdicts WHERE session_id=? GROUP BY decision",
                             (self.session_id,))
        return {r[0]: r[1] for r in rows}


def _verdict(row: sqlite3.Row) -> SafetyVerdict:
    return row_to(SafetyVerdict, row, json_columns={"categories": [], "prescreen": []}, bool_columns=("acted",))
