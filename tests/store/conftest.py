"""Fixtures of the record tests: a fresh session record (one SQLite file) with its session row."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cosci.domain import hypothesis_id
from cosci.records import RecordHypothesis
from cosci.store import SessionRecord

SESSION = "s-test"
AddHypothesis = Callable[..., str]


@pytest.fixture
def record(tmp_path: Path) -> Iterator[SessionRecord]:
    """A migrated record at ``tmp_path/record.sqlite`` holding the session row of :data:`SESSION`."""
    rec = SessionRecord.open(tmp_path / "record.sqlite", SESSION)
    rec.sessions.create(goal="Find repurposable drugs for AML.", config_snapshot={}, overrides=[],
                        models_choice="fake", budget_usd=1.0, budget_tokens=None, wall_clock_seconds=60.0)
    yield rec
    rec.close()


@pytest.fixture
def add_hypothesis(record: SessionRecord) -> AddHypothesis:
    """Insert a hypothesis and put it in ``state`` (written directly, bypassing the state machine)."""

    def add(statement: str, *, state: str = "draft", elo: float = 1200.0, matches: int = 0) -> str:
        rec = RecordHypothesis(title=statement[:40], statement=statement, mechanism="a mechanism",
                               entities=["metformin"], anticipated_outcomes="reduced viability",
                               novelty_argument="not tried in AML", citations=[])
        hid = hypothesis_id(record.session_id, "literature", statement)
        assert record.hypotheses.insert(hid, rec, elo=elo, task_id=None)
        with record.db.tx() as c:
            c.execute("UPDATE hypotheses SET state=?, matches_played=? WHERE id=?", (state, matches, hid))
        return hid

    return add
