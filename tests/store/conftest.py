"""Fixtures of the record tests: a fresh session store (one SQLite file) with its session row."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cosci.store import SessionStore
from tests.store.rows import insert_hypothesis

SESSION = "s-test"
AddHypothesis = Callable[..., str]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    """A migrated record at ``tmp_path/store.sqlite`` holding the session row of :data:`SESSION`."""
    store = SessionStore.open(tmp_path / "store.sqlite", SESSION)
    store.sessions.create(goal="Find repurposable drugs for AML.", config_snapshot={}, overrides=[],
                        models_choice="fake", budget_usd=1.0, budget_tokens=None, wall_clock_seconds=60.0)
    yield store
    store.close()


@pytest.fixture
def add_hypothesis(store: SessionStore) -> AddHypothesis:
    """Insert a hypothesis and put it in ``state`` (written directly, bypassing the state machine)."""

    def add(statement: str, *, state: str = "draft", elo: float = 1200.0, matches: int = 0) -> str:
        return insert_hypothesis(store, statement, state=state, elo=elo, matches=matches)

    return add
