"""Rows the record tests write directly: a hypothesis inserted and put in a state, bypassing the state machine."""

from __future__ import annotations

from cosci.domain import hypothesis_id
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
