"""Task keys and payloads are pinned (design.md#task-keys): a renamed key or payload field fails here.

The literal table is what every constructor of :mod:`cosci.store.task_specs` builds today; the stored sessions
(tests/data/sessions/README.md, opened and migrated as a resume opens them) hold the tasks an earlier release
enqueued, and each must be what today's constructor for its key builds, so resuming them replays rather than
re-runs.
"""

from __future__ import annotations

import inspect
import tarfile
from pathlib import Path
from typing import Any

import pytest

from cosci.store import SessionStore
from cosci.store import task_specs as specs
from cosci.store.task_specs import KEY_PATTERNS, TaskSpec, kind_of

STORED = Path(__file__).resolve().parents[1] / "data" / "sessions"
H = "H-16e5bcfc5bf3"
T = "T-0123456789abcdef"
M = "M-0123456789ab"

EXPECTED: dict[str, tuple[TaskSpec, TaskSpec]] = {
    # constructor: (what it builds, the same literally)
    "goal_screen": (specs.goal_screen(), TaskSpec("safety", "ScreenGoal", "safety::goal")),
    "goal_parse": (specs.goal_parse(), TaskSpec("goal_parsing", "ParseGoal", "goal_parsing::parse_goal")),
    "initial_generation": (specs.initial_generation(2, "debate"),
                           TaskSpec("generation", "CreateInitialHypotheses", "generation::initial::2",
                                    payload={"mode": "debate"})),
    "growth_generation": (specs.growth_generation(7, "literature"),
                          TaskSpec("generation", "GenerateHypothesis", "generation::grow::7",
                                   payload={"mode": "literature"})),
    "hypothesis_screen": (specs.hypothesis_screen(H),
                          TaskSpec("safety", "ScreenHypothesis", f"safety::{H}", target_id=H)),
    "review": (specs.review(H, "verification"),
               TaskSpec("reflection", "ReviewHypothesis", f"reflection::{H}::verification", target_id=H,
                        payload={"mode": "verification"})),
    "project_carry_over": (specs.project_carry_over(),
                           TaskSpec("generation", "CarryOver", "generation::project::carry_over")),
    "result_review": (specs.result_review(H, "O-0123456789ab"),
                      TaskSpec("reflection", "ReviewHypothesis", f"reflection::{H}::result::O-0123456789ab",
                               target_id=H, payload={"mode": "observation", "observation_id": "O-0123456789ab"})),
    "tournament_add": (specs.tournament_add(H), TaskSpec("ranking", "AddToTournament", f"ranking::add::{H}",
                                                         target_id=H)),
    "focused_round": (specs.focused_round(H), TaskSpec("ranking", "RunTournamentRound", f"ranking::focus::{H}",
                                                       target_id=H, payload={"focus_id": H})),
    "idle_round": (specs.idle_round(4), TaskSpec("ranking", "RunTournamentRound", "ranking::round::4")),
    "proximity": (specs.proximity(3), TaskSpec("proximity", "UpdateProximityGraph", "proximity::3")),
    "idle_proximity": (specs.idle_proximity(6), TaskSpec("proximity", "UpdateProximityGraph", "proximity::idle::6")),
    "system_feedback": (specs.system_feedback(1),
                        TaskSpec("metareview", "GenerateSystemFeedback", "metareview::system::1")),
    "final_system_feedback": (specs.final_system_feedback(),
                              TaskSpec("metareview", "GenerateSystemFeedback", "metareview::system::final")),
    "final_overview": (specs.final_overview(),
                       TaskSpec("metareview", "GenerateFinalResearchOverview", "metareview::final")),
    "overview_screen": (specs.overview_screen(), TaskSpec("safety", "ScreenOverview", "safety::overview")),
    "evolution": (specs.evolution(1, "simplify"),
                  TaskSpec("evolution", "EvolveHypotheses", "evolution::1", payload={"mode": "simplify"})),
    "match_batch": (specs.match_batch(M), TaskSpec("ranking", "MatchBatch", f"ranking::match_batch::{M}",
                                                   payload={"poll": 0})),
    "match_batch_last": (specs.match_batch_last(M),
                         TaskSpec("ranking", "MatchBatch", f"ranking::match_batch::{M}::last",
                                  payload={"poll": 0, "last": True})),
    "match_batch_poll": (specs.match_batch_poll(T, 2),
                         TaskSpec("ranking", "MatchBatch", f"ranking::match_batch::{T}::poll2",
                                  payload={"poll": 2, "batch_task": T})),
    "match_batch_resume": (specs.match_batch_resume(T, 3, 3),
                           TaskSpec("ranking", "MatchBatch", f"ranking::match_batch::{T}::resume3",
                                    payload={"poll": 3, "batch_task": T})),
    "match_batch_gather_resume": (specs.match_batch_gather_resume(M, 5),
                                  TaskSpec("ranking", "MatchBatch", f"ranking::match_batch::{M}::resume5",
                                           payload={"poll": 0})),
    "match_batch_stop": (specs.match_batch_stop(T, 4),
                         TaskSpec("ranking", "MatchBatch", f"ranking::match_batch::{T}::stop4",
                                  payload={"batch_task": T, "final": True})),
}
SHARED_PATTERN = {"match_batch_gather_resume": "match_batch_resume"}


def _constructors() -> set[str]:
    return {name for name, f in inspect.getmembers(specs, inspect.isfunction)
            if f.__module__ == specs.__name__ and name != "kind_of"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_constructor_builds_the_pinned_key_and_payload(name: str) -> None:
    built, expected = EXPECTED[name]
    assert built == expected
    assert kind_of(built.key) == (SHARED_PATTERN.get(name, name), KEY_PATTERNS[SHARED_PATTERN.get(name, name)]
                                  .fullmatch(built.key).groupdict())  # type: ignore[union-attr]


def test_every_constructor_is_pinned_and_has_a_pattern() -> None:
    assert set(EXPECTED) == _constructors()
    assert set(KEY_PATTERNS) == _constructors() - set(SHARED_PATTERN)


def test_a_key_no_constructor_builds_is_recognised_as_none() -> None:
    assert kind_of("ranking::batch::3") is None  # the key before the vocabulary renames (design.md#vocabulary)
    assert kind_of("supervisor::parse_goal") is None
    assert kind_of("safety::goal") == ("goal_screen", {})  # not a hypothesis screen of a hypothesis "goal"


def _rebuilt(key: str, payload: dict[str, Any]) -> TaskSpec:
    """Today's constructor for ``key``, called with the key's fields and the rest from ``payload``."""
    found = kind_of(key)
    assert found is not None, f"no constructor builds the stored task key {key!r}"
    name, args = found
    if name == "match_batch_resume" and "batch_task" not in payload:
        name, args = "match_batch_gather_resume", {"match_id": args["batch_task"], "count": args["count"]}
    make = getattr(specs, name)
    values: dict[str, Any] = {}
    for param in inspect.signature(make).parameters.values():
        raw = args[param.name] if param.name in args else payload[param.name]
        values[param.name] = int(raw) if param.annotation == "int" else raw
    spec: TaskSpec = make(**values)
    return spec


@pytest.mark.parametrize("archive", ["finished", "killed"])
def test_every_stored_task_is_what_todays_constructor_builds(archive: str, tmp_path: Path) -> None:
    with tarfile.open(STORED / f"{archive}.tar.xz") as tar:
        tar.extractall(tmp_path, filter="data")
    (path,) = (tmp_path / "data" / "sessions").glob("*/record.sqlite")
    store = SessionStore.open(path, path.parent.name)  # migrated as a resume opens it
    try:
        keys = [r[0] for r in store.db.query("SELECT idempotency_key FROM tasks")]
        kinds = set()
        for stored in keys:
            key = stored.removeprefix(f"{store.namespace}::")
            task = store.tasks.by_key(key)
            assert task is not None and task.idempotency_key == stored
            assert _rebuilt(key, task.payload) == TaskSpec(task.agent, task.action, key, task.target_id,
                                                           task.payload)
            kinds.add(kind_of(key)[0])  # type: ignore[index]
    finally:
        store.close()
    assert len(keys) >= 40 and len(kinds) >= 12  # the archives hold most kinds, not only one or two
