"""Tournament matches and the append-only Elo journal.

Applying a match is one transaction: the match row, the journal row (UNIQUE on ``match_id``) and both Elo
ratings change together, computed from the ratings read inside that transaction. Re-applying the same match
id is a no-op, so a retried or resumed tournament task never moves Elo twice (seed 000 "Elo Update").
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cosci.store.db import Database, dumps, loads

EloRule = Callable[[float, int, float, int, bool], tuple[float, float]]
"""``(elo_a, matches_a, elo_b, matches_b, a_won) -> (delta_a, k_factor)``; zero-sum, so delta_b = -delta_a."""


@dataclass(frozen=True)
class MatchRow:
    id: str
    hyp_a: str
    hyp_b: str
    mode: str
    winner: str | None
    verdict_valid: bool
    elo_a_before: float
    elo_b_before: float
    elo_a_after: float
    elo_b_after: float
    rationale: str
    created_at: float


class Matches:
    def __init__(self, db: Database, session_id: str) -> None:
        self.db, self.session_id = db, session_id

    def apply(
        self,
        mid: str,
        hyp_a: str,
        hyp_b: str,
        *,
        mode: str,
        winner: str | None,
        rule: EloRule,
        rationale: str,
        transcript: list[dict[str, Any]],
        task_id: str | None,
    ) -> MatchRow | None:
        """Record a match and apply its Elo change atomically.

        Args:
            winner: ``hyp_a``, ``hyp_b``, or None for an invalid verdict (recorded, Elo unchanged).
            rule: the Elo rule (see :data:`EloRule`), evaluated on the ratings inside the transaction.

        Returns:
            The stored match, or None if ``mid`` was already applied.
        """
        with self.db.tx() as c:
            if c.execute("SELECT 1 FROM tournament_matches WHERE id=?", (mid,)).fetchone():
                return None
            ra = c.execute("SELECT elo, matches_played FROM hypotheses WHERE id=?", (hyp_a,)).fetchone()
            rb = c.execute("SELECT elo, matches_played FROM hypotheses WHERE id=?", (hyp_b,)).fetchone()
            if ra is None or rb is None:
                raise KeyError(f"match {mid}: unknown hypothesis {hyp_a if ra is None else hyp_b}")
            valid = winner in (hyp_a, hyp_b)
            delta, k = (
                rule(ra["elo"], ra["matches_played"], rb["elo"], rb["matches_played"], winner == hyp_a)
                if valid
                else (0.0, None)
            )
            now = time.time()
            row = MatchRow(
                mid,
                hyp_a,
                hyp_b,
                mode,
                winner if valid else None,
                valid,
                ra["elo"],
                rb["elo"],
                ra["elo"] + delta,
                rb["elo"] - delta,
                rationale,
                now,
            )
            c.execute(
                "INSERT INTO tournament_matches (id, session_id, task_id, hyp_a, hyp_b, mode, winner,"
                " verdict_valid, k_factor, elo_a_before, elo_b_before, elo_a_after, elo_b_after, rationale,"
                " transcript, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    mid,
                    self.session_id,
                    task_id,
                    hyp_a,
                    hyp_b,
                    mode,
                    row.winner,
                    int(valid),
                    k,
                    row.elo_a_before,
                    row.elo_b_before,
                    row.elo_a_after,
                    row.elo_b_after,
                    rationale,
                    dumps(transcript),
                    now,
                ),
            )
            if valid:
                c.execute(
                    "INSERT INTO elo_journal (session_id, match_id, hyp_a, hyp_b, delta_a, delta_b, created_at)"
                    " VALUES (?,?,?,?,?,?,?)",
                    (self.session_id, mid, hyp_a, hyp_b, delta, -delta, now),
                )
                for hid, d in ((hyp_a, delta), (hyp_b, -delta)):
                    c.execute(
                        "UPDATE hypotheses SET elo=elo+?, matches_played=matches_played+1, wins=wins+? WHERE id=?",
                        (d, int(winner == hid), hid),
                    )
            return row

    def exists(self, mid: str) -> bool:
        return bool(self.db.query("SELECT 1 FROM tournament_matches WHERE id=?", (mid,)))

    def count(self, valid_only: bool = False) -> int:
        sql = "SELECT COUNT(*) FROM tournament_matches WHERE session_id=?" + (
            " AND verdict_valid=1" if valid_only else ""
        )
        return int(self.db.scalar(sql, (self.session_id,)))

    def pair_counts(self) -> dict[tuple[str, str], int]:
        """Matches played per pair (valid or not), keyed by the pair's ids in sorted order."""
        rows = self.db.query(
            "SELECT hyp_a, hyp_b, COUNT(*) n FROM tournament_matches WHERE session_id=? GROUP BY hyp_a, hyp_b",
            (self.session_id,),
        )
        counts: dict[tuple[str, str], int] = {}
        for r in rows:
            key = (min(r["hyp_a"], r["hyp_b"]), max(r["hyp_a"], r["hyp_b"]))
            counts[key] = counts.get(key, 0) + int(r["n"])
        return counts

    def ids(self) -> list[str]:
        """Ids of every match of the session."""
        return [r[0] for r in self.db.query("SELECT id FROM tournament_matches WHERE session_id=?", (self.session_id,))]

    def pairs_of(self, match_ids: list[str]) -> list[tuple[str, str, bool]]:
        """``(hyp_a, hyp_b, verdict_valid)`` of the given matches (those that exist)."""
        if not match_ids:
            return []
        marks = ",".join("?" * len(match_ids))
        rows = self.db.query(
            f"SELECT hyp_a, hyp_b, verdict_valid FROM tournament_matches WHERE id IN ({marks})", tuple(match_ids)
        )
        return [(r[0], r[1], bool(r[2])) for r in rows]

    def all(self, task_id: str | None = None) -> list[MatchRow]:
        """Matches of the session (or only those played by ``task_id``), oldest first."""
        sql, params = "SELECT * FROM tournament_matches WHERE session_id=?", [self.session_id]
        if task_id is not None:
            sql, params = sql + " AND task_id=?", [*params, task_id]
        rows = self.db.query(sql + " ORDER BY created_at, id", tuple(params))
        return [
            MatchRow(
                r["id"],
                r["hyp_a"],
                r["hyp_b"],
                r["mode"],
                r["winner"],
                bool(r["verdict_valid"]),
                r["elo_a_before"],
                r["elo_b_before"],
                r["elo_a_after"],
                r["elo_b_after"],
                r["rationale"],
                r["created_at"],
            )
            for r in rows
        ]

    def rationales(self, limit: int, chars: int) -> list[str]:
        """Newest debate/pairwise rationales, truncated to ``chars`` characters (seed 001 Phase 6)."""
        rows = self.db.query(
            "SELECT rationale FROM tournament_matches WHERE session_id=? AND rationale != ''"
            " ORDER BY created_at DESC LIMIT ?",
            (self.session_id, limit),
        )
        return [r["rationale"][:chars] for r in rows]

    def rationales_for(self, hid: str, limit: int = 3, chars: int = 1500) -> list[str]:
        rows = self.db.query(
            "SELECT rationale FROM tournament_matches WHERE (hyp_a=? OR hyp_b=?) AND rationale != ''"
            " ORDER BY created_at DESC LIMIT ?",
            (hid, hid, limit),
        )
        return [r["rationale"][:chars] for r in rows]

    def journal_sums(self) -> dict[str, float]:
        """Sum of journal deltas per hypothesis (Elo points): Elo = initial + this, an invariant."""
        sums: dict[str, float] = {}
        for r in self.db.query(
            "SELECT hyp_a, hyp_b, delta_a, delta_b FROM elo_journal WHERE session_id=?", (self.session_id,)
        ):
            sums[r["hyp_a"]] = sums.get(r["hyp_a"], 0.0) + r["delta_a"]
            sums[r["hyp_b"]] = sums.get(r["hyp_b"], 0.0) + r["delta_b"]
        return sums

    def transcript(self, mid: str) -> list[dict[str, Any]]:
        return loads(self.db.scalar("SELECT transcript FROM tournament_matches WHERE id=?", (mid,)), [])
