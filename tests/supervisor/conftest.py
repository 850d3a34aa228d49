"""Fixtures of the scheduling tests: a record with a parsed research plan, and players put straight into it.

``config`` is the agent tests' memoised config (see ``tests/agents/conftest.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cosci.agents.base import fallback_plan
from cosci.domain import hypothesis_id
from cosci.records import RecordHypothesis
from cosci.session.runtime import SessionRuntime
from cosci.supervisor.rules import Scheduler
from cosci.tournament.elo import EloRule
from tests.agents.conftest import compose_config, config, pytest_configure  # noqa: F401

AddPlayer = Callable[..., str]


@pytest.fixture
def scheduler(runtime: SessionRuntime) -> Scheduler:
    """The scheduler of the runtime's session, after goal parsing stored a research plan."""
    row = runtime.record.sessions.get()
    runtime.record.sessions.update(
        research_plan=fallback_plan(row.research_goal, list(runtime.config.session.preferences)).model_dump())
    return Scheduler(runtime.config, runtime.record)


@pytest.fixture
def add_player(runtime: SessionRuntime) -> AddPlayer:
    """Insert a hypothesis in ``state`` with ``elo`` and ``matches`` (written directly)."""
    count = [0]

    def add(*, state: str = "in_tournament", elo: float = 1200.0, matches: int = 0,
            cluster: int | None = 0) -> str:
        count[0] += 1
        statement = f"Hypothesis number {count[0]}."
        hid = hypothesis_id(runtime.session_id, "literature", statement)
        rec = RecordHypothesis(title=f"H{count[0]}", statement=statement, mechanism="m", entities=[],
                               anticipated_outcomes="", novelty_argument="", citations=[])
        runtime.record.hypotheses.insert(hid, rec, elo=elo, task_id=None)
        with runtime.record.db.tx() as c:
            c.execute("UPDATE hypotheses SET state=?, matches_played=?, dedup_cluster=? WHERE id=?",
                      (state, matches, cluster, hid))
        return hid

    return add


@pytest.fixture
def play(runtime: SessionRuntime) -> Callable[[str, str, int], None]:
    """``play(a, b, n)``: record ``n`` valid matches won by ``a`` (Elo and match counts move)."""
    played = [0]

    def run(a: str, b: str, n: int) -> None:
        for _ in range(n):
            played[0] += 1
            runtime.record.matches.apply(f"M-{played[0]}", a, b, mode="pairwise", winner=a, rule=EloRule(),
                                         rationale="", transcript=[], task_id=None)

    return run
