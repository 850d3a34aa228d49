"""The store keeps the valid verdicts between reads (design.md#scale): topped up by rowid, in the record's order,
and a new store on the same file (a resumed session) reads the same list."""

from __future__ import annotations

from pathlib import Path

from cosci.store import SessionStore
from tests.store.conftest import SESSION
from tests.tournament.shipped import ELO


def _read(store: SessionStore) -> tuple[list[tuple[str, str, float]], list[str | None], int]:
    return store.matches.verdicts(), store.matches.first_shown(), store.matches.valid_count()


def _sql(store: SessionStore) -> tuple[list[tuple[str, str, float]], list[str | None], int]:
    rows = store.db.query("SELECT hyp_a, hyp_b, winner, draw, first_shown, dual_order FROM tournament_matches"
                          " WHERE verdict_valid=1 ORDER BY created_at, id")
    return ([(r["hyp_a"], r["hyp_b"], 0.5 if r["draw"] else float(r["winner"] == r["hyp_a"])) for r in rows],
            [None if r["dual_order"] else r["first_shown"] for r in rows], len(rows))


def test_kept_verdicts_follow_the_record(store: SessionStore, add_hypothesis, tmp_path: Path) -> None:
    a, b, c = add_hypothesis("a"), add_hypothesis("b"), add_hypothesis("c")
    assert _read(store) == ([], [], 0)
    plays = [("M-1", a, b, a, a, None), ("M-2", b, c, None, b, None), ("M-3", a, c, "draw", c, None),
             ("M-4", b, c, c, b, [{"first": b, "winner": c}, {"first": c, "winner": c}])]
    for mid, x, y, winner, first, verdicts in plays:
        store.matches.apply(mid, x, y, mode="pairwise", winner=winner, rule=ELO, rationale="", transcript=[],
                            task_id="T-1", first_shown=first, verdicts=verdicts)
        assert _read(store) == _sql(store)  # read after every match: the kept list is topped up
    assert _read(store) == ([(a, b, 1.0), (a, c, 0.5), (b, c, 0.0)], [a, c, None], 3)
    # a row whose time sorts before the kept ones (another process's clock): the list is re-sorted
    store.matches.apply("M-0", a, b, mode="pairwise", winner=b, rule=ELO, rationale="", transcript=[],
                        task_id="T-2", first_shown=b)
    with store.db.tx() as conn:
        conn.execute("UPDATE tournament_matches SET created_at=0 WHERE id='M-0'")
    assert _read(store) == _sql(store) and store.matches.verdicts()[0] == (a, b, 0.0)
    again = SessionStore.open(tmp_path / "store.sqlite", SESSION)  # a resumed session reads them all
    try:
        assert _read(again) == _sql(store)
    finally:
        again.close()
