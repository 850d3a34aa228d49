"""The record's SQLite file: WAL and foreign keys on, an idempotent migration runner (seed 004 "SQLite
Schema")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cosci.store import SessionStore
from cosci.store.db import Database, migrations


def test_wal_and_foreign_keys_are_on(store: SessionStore) -> None:
    assert store.db.scalar("PRAGMA journal_mode") == "wal"
    assert store.db.scalar("PRAGMA foreign_keys") == 1
    assert store.db.scalar("PRAGMA busy_timeout") == 5000


def test_foreign_keys_are_enforced(store: SessionStore) -> None:
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"), store.db.tx() as c:
        c.execute("INSERT INTO tasks (id, session_id, agent, action, status, idempotency_key, created_at,"
                  " updated_at) VALUES ('T-x', 'no-such-session', 'generation', 'A', 'pending', 'k', 0, 0)")
    assert store.db.scalar("SELECT COUNT(*) FROM tasks") == 0  # the failed transaction was rolled back


def test_migrations_apply_once_and_reopening_applies_nothing(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    versions = [v for v, _ in migrations()]
    assert versions == sorted(set(versions)) and versions[0] == 1

    first = Database(path)
    assert [r[0] for r in first.query("SELECT version FROM schema_migrations ORDER BY version")] == versions
    assert first.migrate() == []  # running the runner again on an open record: nothing to do
    first.conn.execute("INSERT INTO sessions (id, status, research_goal, config_snapshot, models_choice,"
                       " budget_usd, wall_clock_seconds, created_at, updated_at)"
                       " VALUES ('s', 'running', 'g', '{}', 'fake', 1, 60, 0, 0)")
    first.close()

    again = Database(path)  # the constructor runs the migration runner
    assert again.migrate() == []
    assert again.scalar("SELECT COUNT(*) FROM schema_migrations") == len(versions)
    assert again.scalar("SELECT research_goal FROM sessions WHERE id='s'") == "g"  # kept, nothing re-created
    again.close()


def test_a_failed_transaction_rolls_back(store: SessionStore) -> None:
    with pytest.raises(RuntimeError), store.db.tx() as c:
        c.execute("UPDATE sessions SET research_goal='changed'")
        raise RuntimeError("boom")
    assert store.sessions.get().research_goal == "Find repurposable drugs for AML."


def test_a_calls_first_token_latency_and_speed_are_kept_and_summarised(store: SessionStore) -> None:
    """Each answered call keeps its first-token latency (streamed calls) and output speed; ``call_speeds`` gives
    the medians per model, what ``cosci status`` prints beside the configured speeds."""
    from cosci.domain import Call

    def call(model: str, speed: float | None, first: float | None, outcome: str = "ok") -> Call:
        return Call(agent="metareview", action="Final", mode="final", model=model, task_id=None, attempt=1,
                          outcome=outcome, output_tokens=100, first_token_seconds=first,
                          output_tokens_per_second=speed)

    for rec in (call("anthropic/claude-opus-4-7", 30.0, 4.0), call("anthropic/claude-opus-4-7", 40.0, 6.0),
                call("anthropic/claude-opus-4-7", 50.0, None), call("anthropic/claude-haiku-4-5", 90.0, None),
                call("anthropic/claude-haiku-4-5", None, None, "error:timeout")):
        store.logs.add_call(rec)
    [row] = store.db.query("SELECT first_token_seconds f, output_tokens_per_second v FROM transcripts LIMIT 1")
    assert (row["f"], row["v"]) == (4.0, 30.0)
    assert store.logs.call_speeds() == {"anthropic/claude-haiku-4-5": (1, 90.0, None),
                                         "anthropic/claude-opus-4-7": (3, 40.0, 5.0)}
