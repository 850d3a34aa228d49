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
