"""Matches and the append-only Elo journal: atomic, applied once per match id, Elo = initial + journal deltas
(seed 000 "Elo Update", seed 001 ``elo_journal`` UNIQUE on match_id)."""

from __future__ import annotations

import random
import sqlite3

import pytest

from cosci.ids import hypothesis_id
from cosci.records import RecordHypothesis
from cosci.store import SessionStore
from tests.contract import CONTRACT
from tests.tournament.shipped import ELO

RULE = ELO


def test_a_valid_match_moves_both_ratings_by_the_rule(store: SessionStore, add_hypothesis) -> None:
    a, b = add_hypothesis("a"), add_hypothesis("b")
    row = store.matches.apply("M-1", a, b, mode="debate", winner=a, rule=RULE, rationale="a is better",
                               transcript=[{"speaker": "judge", "text": "better idea: 1"}], task_id="T-1")
    assert row is not None and row.verdict_valid and row.winner == a
    assert (row.elo_a_before, row.elo_b_before, row.elo_a_after, row.elo_b_after) == (1200, 1200, 1216, 1184)
    ha, hb = store.hypotheses.get(a), store.hypotheses.get(b)
    assert (ha.elo, ha.matches_played, ha.wins) == (1216.0, 1, 1)
    assert (hb.elo, hb.matches_played, hb.wins) == (1184.0, 1, 0)
    assert store.db.scalar("SELECT k_factor FROM tournament_matches WHERE id='M-1'") == 32.0
    assert store.matches.transcript("M-1") == [{"speaker": "judge", "text": "better idea: 1"}]


def test_an_invalid_verdict_is_recorded_with_elo_unchanged(store: SessionStore, add_hypothesis) -> None:
    a, b = add_hypothesis("a"), add_hypothesis("b")
    row = store.matches.apply("M-1", a, b, mode="pairwise", winner=None, rule=RULE, rationale="undecided",
                               transcript=[], task_id="T-1")
    assert row is not None and not row.verdict_valid and row.winner is None
    assert store.matches.count() == 1 and store.matches.count(valid_only=True) == 0
    assert store.db.scalar("SELECT COUNT(*) FROM elo_journal") == 0
    for hid in (a, b):
        h = store.hypotheses.get(hid)
        assert (h.elo, h.matches_played) == (1200.0, 0)


def test_a_winner_that_is_not_a_player_counts_as_invalid(store: SessionStore, add_hypothesis) -> None:
    a, b = add_hypothesis("a"), add_hypothesis("b")
    row = store.matches.apply("M-1", a, b, mode="debate", winner="H-someone-else", rule=RULE, rationale="",
                               transcript=[], task_id=None)
    assert row is not None and not row.verdict_valid
    assert store.hypotheses.get(a).elo == 1200.0


def test_the_same_match_id_applies_once(store: SessionStore, add_hypothesis) -> None:
    a, b = add_hypothesis("a"), add_hypothesis("b")
    first = store.matches.apply("M-1", a, b, mode="debate", winner=b, rule=RULE, rationale="", transcript=[],
                                 task_id="T-1")
    again = store.matches.apply("M-1", a, b, mode="debate", winner=a, rule=RULE, rationale="", transcript=[],
                                 task_id="T-1")
    assert first is not None and again is None
    assert store.matches.count() == 1
    assert store.db.scalar("SELECT COUNT(*) FROM elo_journal") == 1
    assert store.hypotheses.get(b).elo == 1216.0


def test_the_journal_refuses_a_second_row_for_a_match(store: SessionStore, add_hypothesis) -> None:
    a, b = add_hypothesis("a"), add_hypothesis("b")
    store.matches.apply("M-1", a, b, mode="debate", winner=a, rule=RULE, rationale="", transcript=[],
                         task_id=None)
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"), store.db.tx() as c:
        c.execute("INSERT INTO elo_journal (session_id, match_id, hyp_a, hyp_b, delta_a, delta_b, created_at)"
                  " VALUES (?, 'M-1', ?, ?, 16, -16, 0)", (store.session_id, a, b))


def test_unknown_player_is_refused_without_a_trace(store: SessionStore, add_hypothesis) -> None:
    a = add_hypothesis("a")
    with pytest.raises(KeyError, match="unknown hypothesis"):
        store.matches.apply("M-1", a, "H-000000000000", mode="debate", winner=a, rule=RULE, rationale="",
                             transcript=[], task_id=None)
    assert store.matches.count() == 0


def test_elo_is_initial_plus_journal_and_zero_sum_over_many_matches(store: SessionStore,
                                                                    add_hypothesis) -> None:
    rng = random.Random(4)
    ids = [add_hypothesis(f"hypothesis {i}", state="in_tournament") for i in range(8)]
    for m in range(300):
        a, b = rng.sample(ids, 2)
        winner = rng.choice([a, b, None]) if m % 10 == 0 else rng.choice([a, b])
        store.matches.apply(f"M-{m}", a, b, mode="pairwise", winner=winner, rule=RULE, rationale="",
                             transcript=[], task_id=None)
    sums = store.matches.journal_sums()
    hyps = store.hypotheses.all()
    for h in hyps:
        assert h.elo == pytest.approx(1200.0 + sums.get(h.id, 0.0), abs=1e-9)
    assert sum(h.elo for h in hyps) == pytest.approx(1200.0 * len(ids), abs=1e-6)  # zero-sum
    assert sum(h.matches_played for h in hyps) == 2 * store.matches.count(valid_only=True)
    assert len({h.elo for h in hyps}) > 1


def _child_of(store: SessionStore, *parents: str) -> str:
    """An evolved hypothesis in the tournament whose parents are ``parents``."""
    rec = RecordHypothesis(title="evolved", statement=f"evolved from {' and '.join(parents)}", mechanism="m",
                           entities=[], anticipated_outcomes="o", novelty_argument="n", **CONTRACT, citations=[],
                           mode="combine", parent_ids=list(parents))
    hid = hypothesis_id(store.session_id, "combine:" + ",".join(sorted(parents)), rec.statement)
    assert store.hypotheses.insert(hid, rec, elo=1200.0, task_id=None)
    store.hypotheses.set_state(hid, "reviewed")
    store.hypotheses.set_state(hid, "in_tournament")
    return hid


def test_an_evolved_hypothesis_that_beats_its_parent_retires_it(store: SessionStore, add_hypothesis) -> None:
    """design.md#retired: the child superseded the parent, which leaves the tournament (kept, shown apart)."""
    a, b = add_hypothesis("parent a", state="in_tournament"), add_hypothesis("parent b", state="in_tournament")
    child = _child_of(store, a, b)
    row = store.matches.apply("M-1", a, child, mode="pairwise", winner=child, rule=RULE, rationale="",
                              transcript=[], task_id="T-1")
    assert row is not None and row.retired == a
    assert store.hypotheses.get(a).state == "retired" and store.hypotheses.get(b).state == "in_tournament"
    assert a not in {h.id for h in store.hypotheses.ranked()} and store.hypotheses.get(a).elo < 1200.0
    events = store.logs.events("hypothesis_retired")
    assert [e["payload"] for e in events] == [{"id": a, "by": child, "match_id": "M-1"}]
    assert store.matches.apply("M-1", a, child, mode="pairwise", winner=child, rule=RULE, rationale="",
                               transcript=[], task_id="T-1") is None  # replayed: nothing twice
    assert len(store.logs.events("hypothesis_retired")) == 1


@pytest.mark.parametrize("case", ["parent wins", "draw", "invalid", "not a parent", "pinned parent"])
def test_nothing_else_retires_a_hypothesis(store: SessionStore, add_hypothesis, case: str) -> None:
    parent = add_hypothesis("parent", state="pinned" if case == "pinned parent" else "in_tournament")
    other = add_hypothesis("unrelated", state="in_tournament")
    child = _child_of(store, other if case == "not a parent" else parent)
    winner = {"parent wins": parent, "draw": "draw", "invalid": None}.get(case, child)
    row = store.matches.apply("M-1", parent, child, mode="pairwise", winner=winner, rule=RULE, rationale="",
                              transcript=[], task_id="T-1")
    assert row is not None and row.retired is None
    assert store.hypotheses.get(parent).state in ("in_tournament", "pinned")
    assert not store.logs.events("hypothesis_retired")
