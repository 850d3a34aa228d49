"""An action that may call starts when the one before it reached its call (design.md#supervisor, "An action starts
when the one before it reached its call"): started together, actions ran their work before their calls in turns on
the event loop and every call waited for all of them; now each call goes out as soon as its own work is done, and
an action that does not reach a call holds the next one back by at most ``REACH_STEPS`` turns of the event loop,
never a timed wait."""

from __future__ import annotations

import asyncio
import time

import pytest

from cosci.domain import Task, TaskResult
from cosci.llm.port.reach import REACHED, reached_call
from cosci.session.runtime import SessionRuntime
from cosci.supervisor.loop import Supervisor

WORK_SECONDS = 0.02
"""An action's work on the event loop before its call (its Prefect task run, its prompt), seconds: done in two
steps with a yield between, as an action awaits on its way to its call."""


async def _session(runtime: SessionRuntime, n: int, reaches: bool = True,
                   hold: float = 0.05) -> tuple[list[str], dict[str, float]]:
    """``n`` generation tasks, each doing :data:`WORK_SECONDS` of blocking work before its call (a ``hold`` seconds'
    sleep, then done); returns the order of events (``start i`` / ``call i``) and each one's time from the first
    start."""
    for i in range(n):
        runtime.store.tasks.enqueue("generation", "GenerateHypothesis", f"gen::{i}")
    order: list[str] = []
    at: dict[str, float] = {}
    t0: list[float] = []

    def note(what: str) -> None:
        t0[:] = t0 or [time.perf_counter()]
        order.append(what)
        at[what] = time.perf_counter() - t0[0]

    async def runner(task: Task) -> TaskResult:
        i = task.idempotency_key.rsplit(":", 1)[1]
        note(f"start {i}")
        time.sleep(WORK_SECONDS / 2)  # the task run's work before its first await
        await asyncio.sleep(0)
        time.sleep(WORK_SECONDS / 2)
        if reaches:
            reached_call()
            note(f"call {i}")
        await asyncio.sleep(hold)
        return TaskResult("nothing_to_do")

    await Supervisor(runtime.config, runtime.store, runtime.budget, runner).run()
    return order, at


@pytest.mark.overrides("run.concurrency=4")
async def test_each_action_reaches_its_call_before_the_next_starts(runtime: SessionRuntime) -> None:
    """Four actions at four call slots: each starts once the one before has reached its call, so the first call goes
    out after one action's work, not four (before: 'start 0'...'start 3', then the four calls)."""
    order, at = await _session(runtime, 4)
    assert order == ["start 0", "call 0", "start 1", "call 1", "start 2", "call 2", "start 3", "call 3"]
    assert at["call 0"] < 2 * WORK_SECONDS


@pytest.mark.overrides("run.concurrency=3")
async def test_an_action_that_reaches_no_call_holds_the_next_back_a_short_while(runtime: SessionRuntime) -> None:
    """Actions that never reach a call (their wait is not a model call): each next one starts once the one before
    has done its work and is waiting (a few turns of the event loop, no timed wait: the margin is a loaded
    machine's), and all three are in flight at once, as before."""
    order, at = await _session(runtime, 3, reaches=False, hold=1.0)
    assert order == ["start 0", "start 1", "start 2"]
    assert at["start 2"] - at["start 1"] < WORK_SECONDS + 0.03
    assert at["start 2"] < 1.0  # the first is still in its wait: three in flight


def test_the_signal_does_nothing_outside_an_action() -> None:
    assert REACHED.get() is None
    reached_call()  # a command's gateway: nothing to tell
