"""A project's best hypotheses are its standing (design.md#projects): the rule of a session's leaderboard (BT score,
which holds the researcher's preferences, then final Elo) over every session's rows, and an idea a lab result
refuted is never 'best', in whichever session it was refuted."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cosci.records import RecordReview
from cosci.session.projects import project_lines
from cosci.store import SessionStore
from cosci.store.project import ProjectStore
from tests.store.rows import insert_hypothesis

REFUTED_IDEA = "Disulfiram inhibits ALDH1A1 in NPM1-mutant AML stem cells"


def _session(path: Path, sid: str) -> SessionStore:
    store = SessionStore.open(path / f"{sid}.sqlite", sid)
    store.sessions.create(goal="Find repurposable drugs for AML.", config_snapshot={}, overrides=[],
                          models_choice="fake", budget_usd=1.0, budget_tokens=None, wall_clock_seconds=60.0)
    return store


def _player(store: SessionStore, statement: str, elo: float, state: str = "in_tournament") -> str:
    return insert_hypothesis(store, statement, state=state, elo=elo, matches=3, entities=("AML",))


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[tuple[ProjectStore, SessionStore, SessionStore]]:
    """Project ``lab`` under ``tmp_path/data`` and two session stores, ``s-first`` and ``s-second``, closed after."""
    project = ProjectStore.open(tmp_path / "data", "lab")
    first, second = _session(tmp_path, "s-first"), _session(tmp_path, "s-second")
    try:
        yield project, first, second
    finally:
        first.close()
        second.close()
        project.close()


def test_the_project_s_best_are_its_standing_and_never_a_refuted_idea(
        tmp_path: Path, lab: tuple[ProjectStore, SessionStore, SessionStore]) -> None:
    data = tmp_path / "data"
    project, first, second = lab
    judged = _player(first, "Metformin inhibits complex I to deplete leukemic stem cells", 1300.0)
    preferred = _player(first, "Itraconazole blocks SMO to sensitise relapsed blasts", 1200.0)
    old_copy = _player(first, REFUTED_IDEA, 1250.0)
    # the researcher preferred the low-Elo hypothesis: its BT score (the fit holds the preference) leads
    first.matches.save_bt({judged: (-0.5, -1.2, 0.2), preferred: (0.8, 0.1, 1.5), old_copy: (0.1, -0.6, 0.8)}, 6,
                          time.time())
    project.sync(first)
    carried = _player(second, REFUTED_IDEA, 1280.0)  # the same idea, carried over into the second session
    second.researcher.add_observation(carried, "refuted", {"viability_pct": 98.0}, "no effect in the assay")
    with second.db.tx() as c:  # what cosci result does to a refuted hypothesis (session/researcher._move)
        c.execute("UPDATE hypotheses SET state='rejected' WHERE id=?", (carried,))
    project.sync(second)

    best = [h.hypothesis_id for h in project.best(3)]
    assert best == [preferred, judged], best  # BT first (the preference), and the refuted idea in neither copy
    assert [h.hypothesis_id for h in project.hypotheses("s-first")][:2] == [preferred, old_copy]
    assert {h.hypothesis_id: h.rank for h in project.hypotheses("s-first")} == {preferred: 1, old_copy: 2,
                                                                                 judged: 3}
    lines = project_lines(data, "lab")
    shown = lines[lines.index(next(x for x in lines if x.startswith("best hypotheses"))) + 1:][:3]
    assert shown[0].startswith(f"  [{preferred}]  BT +0.80  Elo 1200") and shown[1].startswith(f"  [{judged}]")
    assert shown[2] == "", lines  # the refuted idea is listed under rejected directions only
    rejected = lines[lines.index("rejected directions:") + 1:]
    assert any(x.startswith(f"  [{carried}]") and " refuted " in x for x in rejected[:rejected.index("")]), lines


def test_an_idea_a_later_session_put_out_of_the_tournament_is_not_best_on_its_earlier_copy(
        lab: tuple[ProjectStore, SessionStore, SessionStore]) -> None:
    project, first, second = lab
    kept = _player(first, "Metformin inhibits complex I to deplete leukemic stem cells", 1300.0)
    explained = _player(first, "Itraconazole blocks SMO to sensitise relapsed blasts", 1250.0)
    retired = _player(first, "Venetoclax plus azacitidine overcomes BCL2 dependence", 1240.0)
    running = _player(first, "Tigecycline inhibits mitochondrial translation in AML", 1230.0)
    project.sync(first)
    copy = _player(second, "Itraconazole blocks SMO to sensitise relapsed blasts", 1200.0, state="reviewed")
    second.hypotheses.add_review(copy, RecordReview(verdict="already_explained", evidence=[], notes="known"),
                                 task_id="T-review-1")
    _player(second, "Venetoclax plus azacitidine overcomes BCL2 dependence", 1190.0, state="retired")
    _player(second, "Tigecycline inhibits mitochondrial translation in AML", 1200.0, state="draft")
    project.sync(second)
    best = [h.hypothesis_id for h in project.best(5)]
    # the later session's verdict replaces the earlier; a copy not yet judged leaves the earlier one standing
    assert best == [kept, running], (best, explained, retired)
    assert [h.hypothesis_id for h in project.best(5, exclude_session="s-second")] == [kept, explained, retired,
                                                                                       running]
