"""The offline screen of hypotheses in a child process (``cosci.session.screen_worker``, ``flows.process.
ScreenProcess``; design.md#supervisor, "The offline screen in a process"): the child's result is the thread's for the
same text; a text checked before the child is ready, or after it died or was closed, is checked in the thread, so
every text is screened; the child is waited for at the end; below ``run.concurrency=3``, or with no core
free, there is none."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cosci.config.schema import CosciConfig
from cosci.safety.classifier import offline_check
from cosci.session import screen_worker
from cosci.session.screen_worker import ScreenWorker
from flows import process
from flows.process import ScreenProcess

TEXTS = [
    ("A kinase inhibitor slows the growth of AML cell lines. Count the colonies at day 7: if the count falls by at "
     "least 30 % the hypothesis holds.", "hypothesis"),
    ("Increase the airborne transmissibility of the H5N1 virus in mammals.", "hypothesis"),
    ("Measure the yeast's growth rate at three temperatures.", "goal"),
]


async def test_the_child_answers_what_the_thread_answers(config: CosciConfig) -> None:
    assert config.safety is not None
    worker = ScreenWorker(config.safety)
    worker.start()
    try:
        assert worker.ready is not None and await worker.ready
        for text, subject in TEXTS:
            assert await worker.check(text, subject) == await offline_check(config.safety, text, subject)  # type: ignore[arg-type]
    finally:
        await worker.close()
    assert worker.proc is None and worker.ready is None


async def test_without_a_ready_child_the_thread_screens(config: CosciConfig, monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """Not started, or its child dead: the check is the thread's (and a dead child is not asked again)."""
    assert config.safety is not None
    threaded: list[str] = []

    async def thread_check(cfg: Any, text: str, subject: Any) -> Any:
        threaded.append(text)
        return await offline_check(cfg, text, subject)

    monkeypatch.setattr(screen_worker, "offline_check", thread_check)
    worker = ScreenWorker(config.safety)
    text, subject = TEXTS[0]
    expected = await offline_check(config.safety, text, subject)  # type: ignore[arg-type]
    assert await worker.check(text, subject) == expected  # type: ignore[arg-type]
    assert threaded == [text]
    worker.start()
    assert worker.ready is not None and await worker.ready
    assert worker.proc is not None
    worker.proc.kill()
    await worker.proc.wait()
    assert await worker.check(text, subject) == expected  # type: ignore[arg-type]
    assert threaded == [text, text] and worker.dead
    worker.start()  # not again
    await worker.close()
    assert worker.proc is None


@pytest.mark.parametrize(("concurrency", "free", "made"),
                         [(1, True, False), (2, True, False), (3, True, True), (8, True, True), (8, False, False)])
async def test_a_child_only_when_actions_run_at_once_and_a_core_is_free(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int, free: bool, made: bool) -> None:
    """From ``run.concurrency=3``, when a core is free once the first task ended; otherwise the thread screens for
    the whole session (``deps.screen`` None)."""
    from tests.conftest import make_config

    monkeypatch.setattr(process, "free_core", lambda since: free)
    config = make_config(tmp_path / "data", f"run.concurrency={concurrency}")
    rt: Any = SimpleNamespace(config=config, deps=SimpleNamespace(screen=None))
    screens = ScreenProcess(rt)
    screens.on_progress(None, 1)
    assert (screens.worker is not None) is made
    assert (rt.deps.screen is not None) is made
    if made:
        assert screens.worker is not None and screens.worker.ready is not None and await screens.worker.ready
    await screens.close()
    assert rt.deps.screen is None
    if screens.worker is not None:
        assert screens.worker.proc is None


def test_a_free_core_is_half_a_core_idle_since_the_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """Idle share × cores over the window ≥ ½; without a reading, the load average at most cores − ½."""
    monkeypatch.setattr(process.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(process, "cpu_times", lambda: (1300.0, 3000.0))
    assert process.free_core((1000.0, 2000.0))  # 300 of 1,000 ticks idle: 0.6 of 2 cores
    assert not process.free_core((1100.0, 2000.0))  # 0.4
    monkeypatch.setattr(process.os, "getloadavg", lambda: (1.4, 0.0, 0.0))
    assert process.free_core(None)
    monkeypatch.setattr(process.os, "getloadavg", lambda: (1.6, 0.0, 0.0))
    assert not process.free_core(None)


def test_the_machines_cpu_times_are_read() -> None:
    times = process.cpu_times()
    assert times is None or 0 <= times[0] <= times[1]
