"""Hypothesis rows: deterministic ids, idempotent inserts, and the state machine (seed 001 Phase 2,
seed 004)."""

from __future__ import annotations

import hashlib
import itertools

import pytest

from cosci.errors import CosciError, IllegalTransition
from cosci.ids import hypothesis_id
from cosci.records import RecordHypothesis
from cosci.store import SessionStore
from cosci.store.states import ALLOWED
from tests.contract import CONTRACT

STATES = ("draft", "reviewed", "in_tournament", "pinned", "quarantined", "rejected", "retired")


def test_hypothesis_id_is_sha256_of_session_origin_statement() -> None:
    expected = "H-" + hashlib.sha256(b"s-1||literature||Metformin inhibits complex I.").hexdigest()[:12]
    assert hypothesis_id("s-1", "literature", "Metformin inhibits complex I.") == expected
    # whitespace is normalised, so a re-flowed statement is the same hypothesis
    assert hypothesis_id("s-1", "literature", "  Metformin   inhibits\ncomplex I. ") == expected
    others = {hypothesis_id("s-2", "literature", "Metformin inhibits complex I."),
              hypothesis_id("s-1", "debate", "Metformin inhibits complex I."),
              hypothesis_id("s-1", "literature", "Metformin inhibits complex II.")}
    assert expected not in others and len(others) == 3


def test_insert_is_idempotent_on_the_id(store: SessionStore) -> None:
    rec = RecordHypothesis(title="t", statement="s", mechanism="m", entities=[], anticipated_outcomes="",
                           novelty_argument="", **CONTRACT, citations=[])
    hid = hypothesis_id(store.session_id, "literature", "s")
    assert store.hypotheses.insert(hid, rec, elo=1200.0, task_id="T-1") is True
    assert store.hypotheses.insert(hid, rec, elo=1500.0, task_id="T-2") is False
    h = store.hypotheses.get(hid)
    assert h is not None and (h.state, h.elo, h.matches_played) == ("draft", 1200.0, 0)
    assert store.hypotheses.created_by(hid) == "T-1"
    assert len(store.hypotheses.all()) == 1


@pytest.mark.parametrize(("current", "new"), [
    (c, n) for c, n in itertools.product(STATES, STATES) if c != n])
def test_state_machine_table(store: SessionStore, add_hypothesis, current: str, new: str) -> None:
    hid = add_hypothesis(f"{current} to {new}", state=current)
    if new in ALLOWED[current]:
        assert store.hypotheses.set_state(hid, new) is True
        assert store.hypotheses.get(hid).state == new
    else:
        with pytest.raises(IllegalTransition, match=f"{current} -> {new}"):
            store.hypotheses.set_state(hid, new)
        assert store.hypotheses.get(hid).state == current


def test_named_illegal_transitions(store: SessionStore, add_hypothesis) -> None:
    draft = add_hypothesis("a draft")
    with pytest.raises(IllegalTransition):
        store.hypotheses.set_state(draft, "in_tournament")  # must be reviewed first
    rejected = add_hypothesis("a rejected one", state="rejected")
    for new in ("draft", "reviewed", "in_tournament", "pinned", "quarantined", "retired"):
        with pytest.raises(IllegalTransition):
            store.hypotheses.set_state(rejected, new)
    assert issubclass(IllegalTransition, CosciError)


def test_the_legal_path_and_a_repeated_state_is_a_no_op(store: SessionStore, add_hypothesis) -> None:
    hid = add_hypothesis("walks the path")
    for state in ("reviewed", "in_tournament", "pinned", "in_tournament"):
        assert store.hypotheses.set_state(hid, state) is True
    assert store.hypotheses.set_state(hid, "in_tournament") is False  # re-entering: no change, no error
    assert store.hypotheses.get(hid).state == "in_tournament"


@pytest.mark.parametrize("state", ["reviewed", "in_tournament", "pinned"])
def test_only_from_draft_never_regresses_or_moves_a_later_state(store: SessionStore, add_hypothesis,
                                                                  state: str) -> None:
    hid = add_hypothesis(f"already {state}", state=state, elo=1290.0, matches=4)
    assert store.hypotheses.set_state(hid, "reviewed", only_from="draft") is False
    h = store.hypotheses.get(hid)
    assert h is not None and (h.state, h.elo, h.matches_played) == (state, 1290.0, 4)


def test_only_from_draft_moves_a_draft(store: SessionStore, add_hypothesis) -> None:
    hid = add_hypothesis("fresh")
    assert store.hypotheses.set_state(hid, "reviewed", only_from="draft") is True
    assert store.hypotheses.get(hid).state == "reviewed"


def test_unknown_hypothesis_is_a_key_error(store: SessionStore) -> None:
    with pytest.raises(KeyError):
        store.hypotheses.set_state("H-000000000000", "reviewed")


def test_ranked_and_count_follow_the_states(store: SessionStore, add_hypothesis) -> None:
    low = add_hypothesis("low", state="in_tournament", elo=1100.0)
    high = add_hypothesis("high", state="pinned", elo=1300.0)
    add_hypothesis("draft one")
    add_hypothesis("gone", state="rejected")
    add_hypothesis("quarantined one", state="quarantined")
    assert [h.id for h in store.hypotheses.ranked()] == [high, low]
    assert store.hypotheses.count() == 3  # rejected, retired and quarantined are out of the pool


def test_ranked_keeps_decoded_rows_but_reads_what_changes(store: SessionStore, add_hypothesis, tmp_path) -> None:
    """ranked() decodes a row once (design.md#scale) yet returns the current Elo, state and citations, including a
    write by another connection to the same file."""
    a, b = add_hypothesis("first", state="in_tournament"), add_hypothesis("second", state="in_tournament")
    first = store.hypotheses.ranked()
    with store.db.tx() as c:
        c.execute("UPDATE hypotheses SET elo=1250, matches_played=3, wins=2 WHERE id=?", (b,))
    after = store.hypotheses.ranked()
    assert [(h.id, h.elo, h.matches_played, h.wins) for h in after] == [(b, 1250.0, 3, 2), (a, 1200.0, 0, 0)]
    assert next(h for h in after if h.id == a) is next(h for h in first if h.id == a)  # kept, not decoded again
    store.hypotheses.set_citations(a, [{"url": "https://example.org/x", "status": "verified", "support": "supported"}])
    assert next(h for h in store.hypotheses.ranked() if h.id == a).grounded
    other = SessionStore.open(tmp_path / "store.sqlite", store.session_id)
    try:
        with other.db.tx() as c:
            c.execute("UPDATE hypotheses SET title='renamed' WHERE id=?", (b,))
    finally:
        other.close()
    assert next(h for h in store.hypotheses.ranked() if h.id == b).title == "renamed"
    store.hypotheses.set_state(a, "retired")
    assert [h.id for h in store.hypotheses.ranked()] == [b]
