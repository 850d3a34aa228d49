"""Tournament matches and the append-only Elo journal.

Applying a match is one transaction: the match row, the journal row (UNIQUE on ``match_id``) and both Elo
ratings change together, computed from the ratings read inside that transaction. Re-applying the same match
id is a no-op, so a retried or resumed tournament task never moves Elo twice (design.md#tournament). When an
evolved hypothesis beats one of its own parents, the parent is retired from the tournament in that same
transaction (design.md#retired).

A match row also stores who was shown first, whether both orders were judged, the per-order verdicts, the judge
tier that judged it (design.md#judges; NULL on rows recorded before it was kept), and whether it was a draw
(winner ``"draw"`` on input; stored as ``winner`` NULL, ``draw`` 1, valid, Elo score 0.5). The latest
Bradley–Terry fit lives in ``bt_ratings`` (replaced at every refit).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from cosci.store.db import Database, dumps, loads, row_to

EloRule = Callable[[float, int, float, int, float], tuple[float, float]]
"""``(elo_a, matches_a, elo_b, matches_b, a_score) -> (delta_a, k_factor)``; ``a_score`` 1 win, 0.5 draw, 0 loss;
zero-sum, so delta_b = -delta_a."""


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
    first_shown: str | None = None
    dual_order: bool = False
    draw: bool = False
    verdicts: tuple[dict[str, Any], ...] = ()
    judge: str | None = None
    """The judge tier (``models.tiers``) that judged the match; None on rows recorded before it was kept."""
    retired: str | None = None
    """The parent this match retired (the winner evolved from the loser), else None; not stored on the row."""

    def score_a(self) -> float | None:
        """Score of ``hyp_a``: 1 won, 0.5 draw, 0 lost, None for an invalid verdict."""
        if not self.verdict_valid:
            return None
        return 0.5 if self.draw else float(self.winner == self.hyp_a)


class Matches:
    def __init__(self, db: Database, session_id: str) -> None:
        self.db, self.session_id = db, session_id
        # match rows are never updated or deleted: the per-match reads below fold in only the rows added since
        # the last read (by rowid), not all of them again (design.md#scale)
        self._pairs: tuple[int, dict[tuple[str, str], int]] = (0, {})
        self._order: tuple[int, tuple[int, int, int, int]] = (0, (0, 0, 0, 0))
        # the valid verdicts in (created_at, id) order, kept and topped up by rowid (BT's input; design.md#scale)
        self._valid: tuple[int, list[tuple[float, str, tuple[str, str, float], str | None]]] = (0, [])

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
        first_shown: str | None = None,
        verdicts: list[dict[str, Any]] | None = None,
        judge: str | None = None,
    ) -> MatchRow | None:
        """Record a match and apply its Elo change atomically.

        Args:
            winner: ``hyp_a``, ``hyp_b``, ``"draw"`` (Elo score 0.5 each), or None for an invalid verdict
                (recorded, Elo unchanged).
            first_shown: the id shown as hypothesis 1 in the (first) judging call.
            verdicts: per judged order ``{"first": id, "winner": id or None}``; two entries = dual order.
            judge: the judge tier that judged the match (design.md#judges).
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
            draw = winner == "draw"
            valid = draw or winner in (hyp_a, hyp_b)
            delta, k = (
                rule(ra["elo"], ra["matches_played"], rb["elo"], rb["matches_played"],
                     0.5 if draw else float(winner == hyp_a))
                if valid
                else (0.0, None)
            )
            verdicts = verdicts or []
            now = time.time()
            row = MatchRow(
                mid,
                hyp_a,
                hyp_b,
                mode,
                winner if valid and not draw else None,
                valid,
                ra["elo"],
                rb["elo"],
                ra["elo"] + delta,
                rb["elo"] - delta,
                rationale,
                now,
                first_shown,
                len(verdicts) > 1,
                draw,
                tuple(verdicts),
                judge,
            )
            c.execute(
                "INSERT INTO tournament_matches (id, session_id, task_id, hyp_a, hyp_b, mode, winner,"
                " verdict_valid, k_factor, elo_a_before, elo_b_before, elo_a_after, elo_b_after, rationale,"
                " transcript, created_at, first_shown, dual_order, draw, verdicts, judge)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
                    first_shown,
                    int(row.dual_order),
                    int(draw),
                    dumps(verdicts),
                    judge,
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
            if valid and not draw and winner is not None:
                loser = hyp_b if winner == hyp_a else hyp_a
                if self._retire_parent(c, winner, loser, mid, now):
                    row = replace(row, retired=loser)
            return row

    def _retire_parent(self, c: sqlite3.Connection, winner: str, loser: str, mid: str, now: float) -> bool:
        """Retire ``loser`` if ``winner`` evolved from it and it is still in the tournament (not pinned, not
        already out): the child superseded it (design.md#retired). Logs ``hypothesis_retired``."""
        parents = loads(c.execute("SELECT parent_ids FROM hypotheses WHERE id=?", (winner,)).fetchone()[0], [])
        if loser not in parents:
            return False
        if not c.execute("UPDATE hypotheses SET state='retired' WHERE id=? AND state='in_tournament'",
                         (loser,)).rowcount:
            return False
        c.execute("INSERT INTO events (session_id, agent, event, payload, created_at) VALUES (?,?,?,?,?)",
                  (self.session_id, "ranking", "hypothesis_retired",
                   dumps({"id": loser, "by": winner, "match_id": mid}), now))
        return True

    def exists(self, mid: str) -> bool:
        return bool(self.db.query("SELECT 1 FROM tournament_matches WHERE id=?", (mid,)))

    def count(self, valid_only: bool = False) -> int:
        sql = "SELECT COUNT(*) FROM tournament_matches WHERE session_id=?" + (
            " AND verdict_valid=1" if valid_only else ""
        )
        return int(self.db.scalar(sql, (self.session_id,)))

    def pair_counts(self) -> dict[tuple[str, str], int]:
        """Matches played per pair (valid or not), keyed by the pair's ids in sorted order."""
        last, counts = self._pairs
        rows = self.db.query("SELECT rowid, hyp_a, hyp_b FROM tournament_matches WHERE session_id=? AND rowid>?",
                             (self.session_id, last))
        for r in rows:
            key = (min(r["hyp_a"], r["hyp_b"]), max(r["hyp_a"], r["hyp_b"]))
            counts[key] = counts.get(key, 0) + 1
            last = max(last, int(r["rowid"]))
        self._pairs = (last, counts)
        return dict(counts)

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

    def existing(self, match_ids: list[str]) -> list[str]:
        """The ids among ``match_ids`` that have a match row (a batched match has none until applied)."""
        if not match_ids:
            return []
        marks = ",".join("?" * len(match_ids))
        return [r[0] for r in self.db.query(f"SELECT id FROM tournament_matches WHERE id IN ({marks})",
                                            tuple(match_ids))]

    def all(self, task_id: str | None = None) -> list[MatchRow]:
        """Matches of the session (or only those played by ``task_id``), oldest first."""
        sql, params = "SELECT * FROM tournament_matches WHERE session_id=?", [self.session_id]
        if task_id is not None:
            sql, params = sql + " AND task_id=?", [*params, task_id]
        rows = self.db.query(sql + " ORDER BY created_at, id", tuple(params))
        return [row_to(MatchRow, r, bool_columns=("verdict_valid", "dual_order", "draw"),
                       verdicts=tuple(loads(r["verdicts"], []))) for r in rows]

    def order_record(self) -> tuple[int, int, int, int]:
        """``(matches, dual-order matches, first-shown wins, valid judging calls)`` of the session: what the
        dual-order rule reads before each match (design.md#position-bias); reads no transcript."""
        last, (matches, dual, wins, calls) = self._order
        rows = self.db.query("SELECT rowid, dual_order, verdicts FROM tournament_matches WHERE session_id=?"
                             " AND rowid>?", (self.session_id, last))
        for r in rows:
            for v in loads(r["verdicts"], []):
                if v.get("winner") is not None:
                    calls += 1
                    wins += v["winner"] == v.get("first")
            matches, dual, last = matches + 1, dual + int(r["dual_order"]), max(last, int(r["rowid"]))
        self._order = (last, (matches, dual, wins, calls))
        return matches, dual, wins, calls

    def _valid_rows(self) -> list[tuple[float, str, tuple[str, str, float], str | None]]:
        """The valid verdicts as ``(created_at, id, verdict, first shown)``, oldest first (``ORDER BY created_at,
        id``): kept between calls and topped up with the rows added since (by rowid; match rows are never updated
        or deleted), so a refit reads the new verdicts only, not 10,000 again (design.md#scale). A new store (a
        resumed session, another process) reads them all on its first call."""
        last, kept = self._valid
        rows = self.db.query(
            "SELECT rowid, created_at, id, hyp_a, hyp_b, winner, draw, first_shown, dual_order FROM tournament_matches"
            " WHERE session_id=? AND verdict_valid=1 AND rowid>? ORDER BY created_at, id", (self.session_id, last))
        if rows:
            new = [(float(r["created_at"]), r["id"],
                    (r["hyp_a"], r["hyp_b"], 0.5 if r["draw"] else float(r["winner"] == r["hyp_a"])),
                    None if r["dual_order"] else r["first_shown"]) for r in rows]
            in_order = not kept or new[0][:2] >= kept[-1][:2]
            kept = [*kept, *new] if in_order else sorted([*kept, *new], key=lambda v: v[:2])
            self._valid = (max(last, max(int(r["rowid"]) for r in rows)), kept)
        return kept

    def verdicts(self) -> list[tuple[str, str, float]]:
        """Every valid verdict, oldest first, as ``(hyp_a, hyp_b, score of hyp_a)`` (1, 0.5 or 0): BT's input."""
        return [v for _, _, v, _ in self._valid_rows()]

    def first_shown(self) -> list[str | None]:
        """Parallel to :meth:`verdicts`: the id shown first in each verdict's judging call, None for a dual-order
        match (both orders judged) or a row recorded without it; BT's ``first=`` (its position-bias term)."""
        return [f for _, _, _, f in self._valid_rows()]

    def shown_counts(self) -> dict[tuple[str, str], int]:
        """Valid single-order verdicts per ``(shown first, shown second)``, from the kept verdicts: what the pairing
        reads to show a rematch in the order judged fewer times (design.md#judge-memory). A dual-order match judged
        both orders once each, so it leaves the difference between the two orders as it was and is not counted."""
        counts: dict[tuple[str, str], int] = {}
        for _, _, (a, b, _), first in self._valid_rows():
            if first in (a, b):
                key = (first, b if first == a else a)
                counts[key] = counts.get(key, 0) + 1
        return counts

    def valid_count(self) -> int:
        """How many valid verdicts the session has (:meth:`count` with ``valid_only``, from the kept verdicts)."""
        return len(self._valid_rows())

    def save_bt(self, table: dict[str, tuple[float, float, float]], verdicts: int, inputs_at: float) -> None:
        """Replace the stored Bradley–Terry fit: ``table`` maps id -> (bt_score, ci_low, ci_high), logits;
        ``inputs_at`` (Unix seconds) is when the fit's verdicts were read, kept as ``fitted_at``: a fit made off the
        event loop lands after verdicts recorded since its snapshot, and stamped with its landing time it read as
        current to :meth:`bt_fitted_at`'s staleness test, so finalisation skipped the refit (design.md#supervisor)."""
        with self.db.tx() as c:
            c.execute("DELETE FROM bt_ratings WHERE session_id=?", (self.session_id,))
            c.executemany(
                "INSERT INTO bt_ratings (session_id, hypothesis_id, bt_score, bt_ci_low, bt_ci_high, verdicts,"
                " fitted_at) VALUES (?,?,?,?,?,?,?)",
                [(self.session_id, h, s, lo, hi, verdicts, inputs_at) for h, (s, lo, hi) in table.items()])

    def last_judged_at(self) -> float | None:
        """When the newest match was recorded (Unix seconds; None before the first)."""
        value = self.db.scalar("SELECT MAX(created_at) FROM tournament_matches WHERE session_id=?",
                               (self.session_id,))
        return None if value is None else float(value)

    def bt_fitted_at(self) -> float | None:
        """When the stored fit's verdicts were read (Unix seconds; None before the first refit): a verdict or
        preference recorded at or after it is not in the fit."""
        value = self.db.scalar("SELECT MAX(fitted_at) FROM bt_ratings WHERE session_id=?", (self.session_id,))
        return None if value is None else float(value)

    def bt(self) -> dict[str, tuple[float, float, float]]:
        """The stored fit: id -> (bt_score, ci_low, ci_high), logits, 95 % CI; empty before the first refit."""
        rows = self.db.query("SELECT hypothesis_id, bt_score, bt_ci_low, bt_ci_high FROM bt_ratings"
                             " WHERE session_id=?", (self.session_id,))
        return {r["hypothesis_id"]: (r["bt_score"], r["bt_ci_low"], r["bt_ci_high"]) for r in rows}

    def rationales(self, limit: int, chars: int) -> list[str]:
        """Newest debate/pairwise rationales, truncated to ``chars`` characters (design.md#metareview)."""
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
