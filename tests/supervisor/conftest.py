"""Fixtures of the scheduling tests: a record with a parsed research plan, and players put straight into it.

``config`` is the agent tests' memoised config (see ``tests/agents/conftest.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from cosci.agents.base import fallback_plan
from cosci.domain import Task, TaskResult
from cosci.ids import hypothesis_id
from cosci.records import RecordHypothesis
from cosci.session.runtime import SessionRuntime
from cosci.supervisor.rules import Scheduler
from tests.agents.conftest import compose_config, config, pytest_configure  # noqa: F401
from tests.contract import CONTRACT
from tests.tournament.shipped import ELO

AddPlayer = Callable[..., str]


class FreshScheduler(Scheduler):
    """A Scheduler that reloads its in-memory views from the record before each decision.

    These tests write hypotheses, matches and tasks straight into the record; in a session the Supervisor
    updates the views from each task's result instead (``tests/supervisor/test_state.py`` checks that both
    agree)."""

    def _fresh(self) -> None:
        self.pool.load()
        self.tally.load()

    def follow_ups(self, task: Task, result: TaskResult) -> int:
        self._fresh()
        return super().follow_ups(task, result)

    def decide_next_steps(self) -> int:
        self._fresh()
        return super().decide_next_steps()

    def reconcile(self) -> int:
        self._fresh()
        return super().reconcile()

    def pool_complete(self) -> bool:
        self._fresh()
        return super().pool_complete()

    def stalled(self) -> bool:
        self._fresh()
        return super().stalled()


@pytest.fixture
def scheduler(runtime: SessionRuntime) -> Scheduler:
    """The scheduler of the runtime's session, after goal parsing stored a research plan."""
    row = runtime.store.sessions.get()
    runtime.store.sessions.update(
        research_plan=fallback_plan(row.research_goal, list(runtime.config.session.preferences)).model_dump())
    return FreshScheduler(runtime.config, runtime.store)


@pytest.fixture
def add_player(runtime: SessionRuntime) -> AddPlayer:
    """Insert a hypothesis in ``state`` with ``elo`` and ``matches`` (written directly)."""
    count = [0]

    def add(*, state: str = "in_tournament", elo: float = 1200.0, matches: int = 0,
            cluster: int | None = 0) -> str:
        count[0] += 1
        statement = f"Hypothesis number {count[0]}."
        hid = hypothesis_id(runtime.store.namespace, "literature", statement)
        rec = RecordHypothesis(title=f"H{count[0]}", statement=statement, mechanism="m", entities=[],
                               anticipated_outcomes="", novelty_argument="", **CONTRACT, citations=[])
        runtime.store.hypotheses.insert(hid, rec, elo=elo, task_id=None)
        with runtime.store.db.tx() as c:
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
            runtime.store.matches.apply(f"M-{played[0]}", a, b, mode="pairwise", winner=a, rule=ELO,
                                         rationale="", transcript=[], task_id=None)

    return run
