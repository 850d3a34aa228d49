"""A small fake session on disk: a record with ranked hypotheses (written through the store, no model)."""

from __future__ import annotations

from pathlib import Path

from cosci.ids import hypothesis_id
from cosci.records import RecordHypothesis
from cosci.session.folder import SessionFolder
from tests.contract import CONTRACT


def make_session(data_dir: Path, n: int, session_id: str = "S-investigate-test") -> tuple[str, list[str]]:
    """A session with ``n`` hypotheses in the tournament, best first by Elo; returns ``(session id, their ids)``."""
    folder = SessionFolder(data_dir, session_id)
    store = folder.open_store()
    try:
        store.sessions.create(goal="Pack circles better", config_snapshot={}, overrides=[], models_choice="fake",
                            budget_usd=1.0, budget_tokens=None, wall_clock_seconds=60.0)
        ids = []
        for i in range(n):
            h = RecordHypothesis(title=f"Idea {i}", statement=f"More hill-climbing iterations raise the sum of radii "
                                 f"({i}).", mechanism="A longer search finds better local optima.", entities=[],
                                 anticipated_outcomes="A higher sum of radii.", novelty_argument="none",
                                 **CONTRACT, citations=[])
            hid = hypothesis_id(store.namespace, "literature", h.statement)
            store.hypotheses.insert(hid, h, elo=1300.0 - 10 * i, task_id=None)
            for state in ("reviewed", "in_tournament"):
                store.hypotheses.set_state(hid, state)  # type: ignore[arg-type]
            ids.append(hid)
    finally:
        store.close()
    return session_id, ids
