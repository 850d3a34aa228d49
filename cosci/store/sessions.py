"""The ``sessions`` row: goal, frozen config snapshot, research plan, status, stop reason, overview."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from cosci.config.renames import carry_over
from cosci.store.db import Database, dumps, loads

STATUSES = ("running", "paused", "aborting", "done", "failed", "refused")  # refused: safety (design.md#safety)


@dataclass(frozen=True)
class SessionRow:
    id: str
    status: str
    research_goal: str
    research_plan: dict[str, Any] | None
    config_snapshot: dict[str, Any]
    overrides: list[str]
    models_choice: str
    budget_usd: float
    wall_clock_seconds: float
    elapsed_seconds: float
    stop_reason: str | None
    final_overview: str | None
    mlflow_run_id: str | None
    created_at: float


class Sessions:
    def __init__(self, db: Database, session_id: str) -> None:
        self.db, self.session_id = db, session_id

    def create(
        self,
        *,
        goal: str,
        config_snapshot: dict[str, Any],
        overrides: list[str],
        models_choice: str,
        budget_usd: float,
        budget_tokens: int | None,
        wall_clock_seconds: float,
    ) -> None:
        now = time.time()
        with self.db.tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO sessions (id, status, research_goal, config_snapshot, overrides, models_choice,"
                " budget_usd, budget_tokens, wall_clock_seconds, created_at, updated_at)"
                " VALUES (?,'running',?,?,?,?,?,?,?,?,?)",
                (
                    self.session_id,
                    goal,
                    dumps(config_snapshot),
                    dumps(overrides),
                    models_choice,
                    budget_usd,
                    budget_tokens,
                    wall_clock_seconds,
                    now,
                    now,
                ),
            )

    def get(self) -> SessionRow:
        r = self.db.query("SELECT * FROM sessions WHERE id=?", (self.session_id,))[0]
        return SessionRow(
            r["id"],
            r["status"],
            r["research_goal"],
            loads(r["research_plan"]),
            carry_over(loads(r["config_snapshot"], {})),  # in today's key names (design.md#vocabulary)
            loads(r["overrides"], []),
            r["models_choice"],
            r["budget_usd"],
            r["wall_clock_seconds"],
            r["elapsed_seconds"],
            r["stop_reason"],
            r["final_overview"],
            r["mlflow_run_id"],
            r["created_at"],
        )

    def update(self, **fields: Any) -> None:
        """Set columns of the session row (JSON-encodes dicts and lists)."""
        if "status" in fields and fields["status"] not in STATUSES:
            raise ValueError(f"unknown session status {fields['status']!r}")
        cols = {k: dumps(v) if isinstance(v, dict | list) else v for k, v in fields.items()}
        cols["updated_at"] = time.time()
        with self.db.tx() as c:
            c.execute(
                f"UPDATE sessions SET {', '.join(f'{k}=?' for k in cols)} WHERE id=?", (*cols.values(), self.session_id)
            )

    def status(self) -> str:
        return str(self.db.scalar("SELECT status FROM sessions WHERE id=?", (self.session_id,)))

    def research_goal(self) -> str:
        """The session's goal text (:meth:`get`'s ``research_goal``, read alone: every prompt reads it, and
        :meth:`get` decodes the config snapshot and carries its keys over; design.md#scale)."""
        return str(self.db.scalar("SELECT research_goal FROM sessions WHERE id=?", (self.session_id,)))

    def has_research_plan(self) -> bool:
        """Whether the goal was parsed into a research plan (:meth:`get`'s ``research_plan`` is not None; read
        alone, as :meth:`research_goal`)."""
        value = self.db.scalar("SELECT research_plan FROM sessions WHERE id=?", (self.session_id,))
        return loads(value) is not None
