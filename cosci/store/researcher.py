"""The researcher's own judgements and the lab's results on a session's hypotheses (migration 0029).

- ``researcher_ratings``: a preference between two hypotheses (``prefer`` a / b / tie) or a 1-5 score of one,
  with the researcher's reason (design.md#researcher-ratings). A preference enters the Bradley–Terry fit as
  ``ranking.researcher_weight`` verdicts (:meth:`Researcher.verdicts`), kept apart from the judge's.
- ``observations``: an experimental result on one hypothesis (outcome supported / refuted / inconclusive,
  named measures, notes, an attached file's path and sha256; design.md#experimental-results).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

from cosci.domain import digest
from cosci.store.db import Database, dumps, row_to

Prefer = Literal["a", "b", "tie"]
Outcome = Literal["supported", "refuted", "inconclusive"]
OUTCOMES: tuple[Outcome, ...] = ("supported", "refuted", "inconclusive")
PREFER_SCORE = {"a": 1.0, "b": 0.0, "tie": 0.5}
"""A preference as the score of ``hyp_a`` in a BT verdict (:data:`cosci.tournament.bt.Verdict`)."""


@dataclass(frozen=True)
class Rating:
    """One researcher rating: ``kind`` preference (``hyp_a`` vs ``hyp_b``, ``prefer``) or score (``hyp_a``,
    ``score`` 1-5); ``created_at`` Unix seconds."""

    id: str
    kind: str
    hyp_a: str
    hyp_b: str | None
    prefer: str | None
    score: int | None
    why: str
    created_at: float


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
    when it parses as one, else the text)."""

    id: str
    hypothesis_id: str
    outcome: str
    measures: dict[str, Any]
    notes: str
    file_path: str | None
    file_sha256: str | None
    created_at: float

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

    def ratings(self, kind: str | None = None) -> list[Rating]:
        """Ratings, oldest first (optionally of one ``kind``)."""
        sql, params = "SELECT * FROM researcher_ratings WHERE session_id=?", [self.session_id]
        if kind:
            sql, params = sql + " AND kind=?", [*params, kind]
        return [row_to(Rating, r) for r in self.db.query(sql + " ORDER BY created_at, id", tuple(params))]

    def verdicts(self, weight: int) -> list[tuple[str, str, float]]:
        """The preferences as BT verdicts ``(a, b, score of a)``, each repeated ``weight`` times: with integer
        weights a repeated verdict is exactly a weighted likelihood term (design.md#researcher-ratings)."""
        out: list[tuple[str, str, float]] = []
        for r in self.ratings("preference"):
            if r.hyp_b is not None and r.prefer in PREFER_SCORE:
                out += [(r.hyp_a, r.hyp_b, PREFER_SCORE[r.prefer])] * weight
        return out

    def add_observation(self, hid: str, outcome: Outcome, measures: dict[str, Any], notes: str = "",
                        file_path: str | None = None, file_sha256: str | None = None) -> str:
        """Store an experimental result on ``hid``; returns its id (``O-``...)."""
        now = time.time()
        oid = "O-" + digest(self.session_id, f"{time.time_ns()}:{hid}:{outcome}:{dumps(measures)}")
        with self.db.tx() as c:
            c.execute("INSERT INTO observations (id, session_id, hypothesis_id, outcome, measures, notes, file_path,"
                      " file_sha256, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                      (oid, self.session_id, hid, outcome, dumps(measures), notes, file_path, file_sha256, now))
        return oid

    def observations(self, hid: str | None = None) -> list[Observation]:
        """Experimental results, oldest first (optionally of one hypothesis)."""
        sql, params = "SELECT * FROM observations WHERE session_id=?", [self.session_id]
        if hid:
            sql, params = sql + " AND hypothesis_id=?", [*params, hid]
        return [row_to(Observation, r, json_columns={"measures": {}})
                for r in self.db.query(sql + " ORDER BY created_at, id", tuple(params))]

    def observation(self, oid: str) -> Observation | None:
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
