"""Actions without a model call run beside the slots, and finalisation's leaderboard fit is made while the loop's
last actions drain (design.md#supervisor, "Actions without a call" and "The session's end"): the order in which
tasks are claimed and what the session stores do not change, only how long slots stay empty."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import cosci.agents.session_fit as session_fit
from cosci.domain import Task, TaskResult
from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from cosci.supervisor.leaderboard import FinalFit
from cosci.supervisor.loop import Supervisor
from cosci.supervisor.slots import EXTRA_ACTIONS, actions_at_once, no_call_actions
from tests.conftest import make_config, run_finished

DEMO_SCREEN = "safety.model_answer_on=[goal]"
"""The demo's setting: a tier unable to classify (the fake's) is asked about the goal alone."""


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the leaderboard fits finalisation makes (the user cache bypassed: a fit is made each time)."""
    made: list[int] = []

    def fit(ids, verdicts, first, prior_sd, workers=1):  # type: ignore[no-untyped-def]
        made.append(len(verdicts))
        return session_fit.fit_bt(ids, verdicts, prior_sd, first=first, method="eb_is", workers=workers)

    monkeypatch.setattr(session_fit, "leaderboard_fit", fit)
    return made


@pytest.mark.overrides(DEMO_SCREEN)
def test_a_hypothesis_screen_makes_no_call_only_when_no_model_is_asked(runtime: SessionRuntime,
                                                                        compose_config, tmp_path) -> None:
    assert no_call_actions(runtime.config) == ("AddToTournament", "UpdateProximityGraph", "ScreenHypothesis")
    asked = compose_config(tmp_path / "other", "safety.model_answer_on=[goal,hypothesis]")  # answer recorded
    assert no_call_actions(asked) == ("AddToTournament", "UpdateProximityGraph")
    capable = compose_config(tmp_path / "other", DEMO_SCREEN,
                             *(f"models.tiers.{t}.unable_to_classify=false" for t in ("mini", "cheap", "strong")))
    assert no_call_actions(capable) == ("AddToTournament", "UpdateProximityGraph")


async def _run(runtime: SessionRuntime) -> tuple[list[str], int, int]:
    """Two generation tasks (they call a model) and an AddToTournament (it does not), which runs first by priority
    and waits, as if busy, until both generations are in flight or half a second passed. Returns the order the tasks
    started in, and the most tasks and generations in flight at once."""
    store = runtime.store
    for i in range(2):
        store.tasks.enqueue("generation", "GenerateHypothesis", f"gen::{i}")
    store.tasks.enqueue("ranking", "AddToTournament", "add::H-x", target_id="H-x", priority=80)
    started: list[str] = []
    running: Counter[str] = Counter()
    most = [0, 0]
    both = asyncio.Event()

    async def runner(task: Task) -> TaskResult:
        started.append(task.action)
        running[task.action] += 1
        most[0] = max(most[0], sum(running.values()))
        most[1] = max(most[1], running["GenerateHypothesis"])
        if running["GenerateHypothesis"] == 2:
            both.set()
        try:
            if task.action == "AddToTournament":
                await asyncio.wait_for(both.wait(), 0.5)
            else:
                await asyncio.sleep(0.05)  # a model call
        except TimeoutError:
            pass
        running[task.action] -= 1
        return TaskResult("nothing_to_do")

    await Supervisor(runtime.config, store, runtime.budget, runner).run()
    return started, most[0], most[1]


@pytest.mark.overrides(DEMO_SCREEN, "run.concurrency=2")
async def test_an_action_without_a_call_runs_beside_the_busy_slots(runtime: SessionRuntime) -> None:
    """At two slots, the tournament entry is claimed first (its priority) but keeps no generation from its call:
    three tasks in flight, never more than two that call a model. Before, it held a slot until the second
    generation could start, which it was waiting for."""
    started, tasks, calls = await _run(runtime)
    assert started == ["AddToTournament", "GenerateHypothesis", "GenerateHypothesis"]
    assert (tasks, calls) == (3, 2)


@pytest.mark.overrides(DEMO_SCREEN, "run.concurrency=1")
async def test_at_one_slot_one_action_runs_at_a_time_in_the_queue_order(runtime: SessionRuntime) -> None:
    started, tasks, calls = await _run(runtime)
    assert started == ["AddToTournament", "GenerateHypothesis", "GenerateHypothesis"]
    assert (tasks, calls) == (1, 1)


async def _calling(runtime: SessionRuntime, n: int) -> int:
    """``n`` generation tasks that each wait, as if for a call slot, until the last is in flight or a quarter of a
    second passed; returns the most in flight at once."""
    for i in range(n):
        runtime.store.tasks.enqueue("generation", "GenerateHypothesis", f"gen::{i}")
    running, most, all_in = [0], [0], asyncio.Event()

    async def runner(task: Task) -> TaskResult:
        running[0] += 1
        most[0] = max(most[0], running[0])
        if running[0] == n:
            all_in.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(all_in.wait(), 0.25)
        running[0] -= 1
        return TaskResult("nothing_to_do")

    await Supervisor(runtime.config, runtime.store, runtime.budget, runner).run()
    return most[0]


@pytest.mark.overrides("run.concurrency=3")
async def test_actions_beyond_the_call_slots_are_in_flight(runtime: SessionRuntime) -> None:
    """A slot is a model call, not an action: at three call slots, ``3 + EXTRA_ACTIONS`` actions that may call are in
    flight (the gateway keeps their calls to three at once: tests/llm/test_call_slots.py)."""
    assert actions_at_once(3) == 3 + EXTRA_ACTIONS
    assert await _calling(runtime, 8) == 3 + EXTRA_ACTIONS


@pytest.mark.overrides("run.concurrency=1")
async def test_at_one_slot_no_action_waits_beside_the_call(runtime: SessionRuntime) -> None:
    assert actions_at_once(1) == 1
    assert await _calling(runtime, 3) == 1


async def test_a_session_never_has_more_calls_out_than_its_concurrency(tmp_path: Path, fake: FakeBackend,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole fake session at three call slots and five actions: the fake never has more than three requests out at
    once, and has three at some point (the slots are used)."""
    out, most = [0], [0]
    respond = fake.respond

    async def counted(*args: Any, **kwargs: Any) -> Any:
        out[0] += 1
        most[0] = max(most[0], out[0])
        try:
            await asyncio.sleep(0.01)  # a provider's latency
            return await respond(*args, **kwargs)
        finally:
            out[0] -= 1

    monkeypatch.setattr(fake, "respond", counted)
    await run_finished(make_config(tmp_path / "data", "run.concurrency=3", "run.max_hypotheses=8"))
    assert most[0] == 3


async def test_the_final_fit_is_made_while_a_generation_drains_and_stored_at_finalisation(
        runtime: SessionRuntime, add_player: Callable[..., str], play: Callable[[str, str, int], None],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A round in flight at the stop adds its verdict before the fit starts; a generation still calling does not
    hold it back. Finalisation stores that fit (one fit in all, on every verdict), the same as it would have made."""
    store, cfg = runtime.store, runtime.config
    a, b, c = add_player(), add_player(), add_player()
    play(a, b, 2)
    made = _counted(monkeypatch)
    calling = asyncio.Event()

    async def round_() -> None:
        await asyncio.sleep(0.05)
        play(b, c, 1)

    final = FinalFit(cfg, store)
    inflight = {asyncio.create_task(round_(), name="ranking/RunTournamentRound"),
                asyncio.create_task(calling.wait(), name="generation/GenerateHypothesis")}
    final.start(inflight)
    assert final.running is not None
    await asyncio.wait_for(asyncio.shield(final.running), 10)
    assert not calling.is_set() and made == [3]  # fitted on the round's verdict too, the generation still calling
    calling.set()
    await asyncio.wait(inflight)
    await final.refit_if_stale()
    assert made == [3]
    assert store.matches.bt() == _expected(runtime)
    assert len(store.logs.events("bt_refit")) == 1


async def test_a_verdict_after_the_final_fit_is_refitted_at_finalisation(
        runtime: SessionRuntime, add_player: Callable[..., str], play: Callable[[str, str, int], None],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Inputs that changed after the fit beside the drain (a provider batch settled at finalisation) are refitted:
    the stored fit is made on every verdict."""
    a, b = add_player(), add_player()
    play(a, b, 2)
    made = _counted(monkeypatch)
    final = FinalFit(runtime.config, runtime.store)
    final.start(set())
    assert final.running is not None
    await final.running
    play(b, a, 1)
    await final.refit_if_stale()
    assert made == [2, 3]
    assert runtime.store.matches.bt() == _expected(runtime)


def _expected(runtime: SessionRuntime) -> dict[str, tuple[float, float, float]]:
    """The leaderboard fit of the store's current inputs, made here."""
    ids, verdicts, first = session_fit.refit_inputs(runtime.store, runtime.config.ranking.researcher_weight)
    return session_fit.fit_bt(ids, verdicts, runtime.config.ranking.bt_prior_sd, first=first, method="eb_is").table()
