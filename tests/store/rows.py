"""Rows the record tests write directly: a hypothesis inserted and put in a state, bypassing the state machine; a
session folder holding such rows (:func:`session_with`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from cosci.ids import hypothesis_id
from cosci.records import RecordHypothesis
from cosci.store import SessionStore
from tests.contract import CONTRACT


def insert_hypothesis(store: SessionStore, statement: str, *, state: str = "draft", elo: float = 1200.0,
                      matches: int = 0, entities: tuple[str, ...] = ("metformin",)) -> str:
    """Insert a literature hypothesis of ``statement`` into ``store`` with ``elo`` (points), then write its
    ``state`` and ``matches`` played directly; returns its id."""
    rec = RecordHypothesis(title=statement[:40], statement=statement, mechanism="a mechanism",
                           entities=list(entities), anticipated_outcomes="reduced viability",
                           novelty_argument="not tried in AML", **CONTRACT, citations=[])
    hid = hypothesis_id(store.session_id, "literature", statement)
    assert store.hypotheses.insert(hid, rec, elo=elo, task_id=None)
    with store.db.tx() as c:
        c.execute("UPDATE hypotheses SET state=?, matches_played=? WHERE id=?", (state, matches, hid))
    return hid


def session_with(data: Path, statements: Sequence[str], *overrides: str, sid: str = "s-20261203-120000-abcdef",
                 state: str = "in_tournament") -> tuple[str, list[str]]:
    """A session folder ``sid`` under the data folder ``data``, no task run: its store holds the session row (the
    tests' fake config with ``overrides``, frozen as a session freezes it) and one hypothesis per statement, in
    ``state``. Cheaper than running a session for a command that only reads the ids. Returns (``sid``, the
    hypothesis ids)."""
    from cosci.session.folder import SessionFolder
    from tests.conftest import make_config

    config = make_config(data, *overrides)
    store = SessionFolder(data, sid).open_store()
    try:
        store.sessions.create(goal=config.session.goal or "", config_snapshot=json.loads(config.model_dump_json()),
                              overrides=list(overrides), models_choice="fake", budget_usd=config.run.budget_usd,
                              budget_tokens=None, wall_clock_seconds=config.run.wall_clock_seconds)
        return sid, [insert_hypothesis(store, s, state=state) for s in statements]
    finally:
        store.close()
