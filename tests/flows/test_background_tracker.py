"""The session's MLflow run is driven from one worker thread (issue 11): progress reported before the run
exists, or while the worker is busy, is logged in order and in full, and never on the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from mlflow.tracking import MlflowClient

from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from flows.tracker import BackgroundTracker
from tests.conftest import FAST, make_config


class Stats:
    """What the tracker reads of :class:`cosci.stats.SessionStats`; records the thread that read it."""

    threads: ClassVar[set[str]] = set()

    def __init__(self, step: int, tokens: int = 0) -> None:
        self.step, self.tokens = step, tokens

    def metrics(self) -> dict[str, float]:
        Stats.threads.add(threading.current_thread().name)
        return {"matches": float(self.step)}


@contextlib.asynccontextmanager
async def tracked(tmp_path: Path, every: int) -> AsyncIterator[tuple[BackgroundTracker, str]]:
    """A session runtime with its background tracker on a SQLite store in ``tmp_path``; yields it and the URI."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    config = make_config(tmp_path / "data", "tracking.enabled=true", f"tracking.tracking_uri={uri}",
                         f"tracking.log_every_tasks={every}", "tracking.traces=false")
    rt = await SessionRuntime.open(config, overrides=list(FAST), models_choice="fake")
    pending = BackgroundTracker(config, rt, list(FAST), "fake")
    try:
        yield pending, uri
    finally:
        pending.close()
        await rt.close()


async def test_steps_reported_early_or_in_a_burst_are_all_logged_off_the_event_loop(
        fake: FakeBackend, tmp_path: Path) -> None:
    async with tracked(tmp_path, every=2) as (pending, uri):
        for step in range(1, 12):  # before the run exists: MLflow is still importing or opening its store
            pending.on_progress(Stats(step), step)
        tracker = await pending.ready()
        for step in range(12, 21):
            pending.on_progress(Stats(step), step)
        await pending.call(lambda: None)  # everything asked before has run
    history = MlflowClient(uri).get_metric_history(tracker.run_id, "matches")
    assert sorted(m.step for m in history) == list(range(2, 21, 2))
    assert all(m.value == m.step for m in history)
    assert Stats.threads and all(name.startswith("cosci-mlflow") for name in Stats.threads)


async def test_mlflow_starts_after_the_first_answered_call_not_beside_it(
        fake: FakeBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 46: the MLflow start (its import and store) waits for a finished task after a model call has been
    answered, so it does not take the GIL from the session's first actions (the goal screen and the first call);
    then it runs once, on the worker, and logs the steps reported before it."""
    from cosci.tracking.mlflow_run import SessionTracker

    starts: list[str] = []
    real = SessionTracker.start.__func__  # type: ignore[attr-defined]

    def counted(cls: type[SessionTracker], *args: object, **kwargs: object) -> SessionTracker:
        starts.append(threading.current_thread().name)
        return real(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(SessionTracker, "start", classmethod(counted))
    async with tracked(tmp_path, every=1) as (pending, _uri):
        await asyncio.sleep(0.2)  # time in which the old tracker had begun its start
        assert starts == [] and pending.started() is None
        pending.on_progress(Stats(1), 1)  # a task without a model call (e.g. the goal's offline screen alone)
        await asyncio.sleep(0.2)
        assert starts == [] and pending.started() is None
        pending.on_progress(Stats(2, tokens=120), 2)  # the first call has been answered
        tracker = await pending.ready()
        await pending.call(lambda: None)
    assert tracker is not None
    assert len(starts) == 1 and starts[0].startswith("cosci-mlflow")
    history = MlflowClient(_uri).get_metric_history(tracker.run_id, "matches")
    assert sorted(m.step for m in history) == [1, 2]


async def test_mlflow_starts_without_a_call_after_a_few_tasks(fake: FakeBackend, tmp_path: Path) -> None:
    """A session whose first tasks call no model still gets its MLflow run while it runs."""
    from flows.tracker import START_WITHOUT_CALLS

    async with tracked(tmp_path, every=1) as (pending, _uri):
        for step in range(1, START_WITHOUT_CALLS):
            pending.on_progress(Stats(step), step)
        assert pending.started() is None and pending._future is None
        pending.on_progress(Stats(START_WITHOUT_CALLS), START_WITHOUT_CALLS)
        assert pending._future is not None


@pytest.fixture(autouse=True)
def _tracker_log(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """``caplog``'s handler on the ``flows.tracker`` logger itself: a session run in this process configures Prefect's
    logging, after which that logger may not propagate to the root logger ``caplog`` listens on (the warnings were
    printed, ``caplog.text`` read empty, depending on which test ran first)."""
    log = logging.getLogger("flows.tracker")
    log.addHandler(caplog.handler)
    yield
    log.removeHandler(caplog.handler)

async def test_a_failing_store_call_is_logged_and_later_steps_still_run(
        fake: FakeBackend, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async with tracked(tmp_path, every=1) as (pending, uri):
        tracker = await pending.ready()

        class Broken(Stats):
            def metrics(self) -> dict[str, float]:
                raise RuntimeError("store went away")

        pending.on_progress(Broken(1), 1)
        await pending.call(lambda: None)
        pending.on_progress(Stats(2), 2)
        await pending.call(lambda: None)
    assert "MLflow progress not logged: store went away" in caplog.text
    assert [m.step for m in MlflowClient(uri).get_metric_history(tracker.run_id, "matches")] == [2]


def test_a_tracking_server_that_fails_after_the_check_costs_the_session_nothing(
        prefect_server: None, fake: FakeBackend, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """It answers ``/health`` (the check before the session passes) but is no MLflow server: the session still
    ends done with its overview, and the summary names no MLflow run (fresh-user report: the session ran, then
    ended failed without its overview)."""
    import http.server

    from cosci.store import SessionStore
    from tests.flows.test_session_flow import SMALL, _run

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        config = make_config(tmp_path / "data", "tracking.enabled=true",
                             f"tracking.tracking_uri=http://127.0.0.1:{server.server_address[1]}", *SMALL)
        summary = _run(config)
    finally:
        server.shutdown()
    assert summary["mlflow_run_id"] is None
    assert "the MLflow run was not started" in caplog.text
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    try:
        assert store.sessions.get().status == "done"
        assert Path(summary["overview_path"]).read_text().strip()
    finally:
        store.close()


def test_a_run_that_cannot_be_completed_leaves_the_session_done(
        prefect_server: None, fake: FakeBackend, tmp_path: Path, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from cosci.store import SessionStore
    from cosci.tracking.mlflow_run import SessionTracker
    from tests.flows.test_session_flow import SMALL, _run

    def broken(*_: object, **__: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(SessionTracker, "finish", broken)
    config = make_config(tmp_path / "data", "tracking.enabled=true",
                         f"tracking.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}", *SMALL)
    summary = _run(config)
    assert "was not completed: disk full" in caplog.text
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    try:
        assert store.sessions.get().status == "done"
    finally:
        store.close()


async def test_the_closing_plot_imports_run_on_the_worker_before_the_run_closes(
        fake: FakeBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The demo's finish (bench/README.md, the seventeenth stop): matplotlib's import, which closing the run
    needs for its plots, is asked for before the final overview and runs on the worker, never on the event loop;
    not before the run's start was asked for (a session whose run never started closes none), and a failed
    warm-up is dropped without stopping what comes after it."""
    import cosci.tracking.artifacts as artifacts

    ran: list[str] = []

    def warm() -> None:
        ran.append(threading.current_thread().name)
        if len(ran) == 2:
            raise RuntimeError("no matplotlib")

    monkeypatch.setattr(artifacts, "warm_plots", warm)
    caplog.set_level(logging.DEBUG, logger="flows.tracker")
    async with tracked(tmp_path, every=1) as (pending, _uri):
        pending.prepare_finish()  # the start not asked for yet: nothing
        await asyncio.sleep(0.1)
        assert ran == [] and pending._future is None
        await pending.ready()
        pending.prepare_finish()
        pending.prepare_finish()  # this one fails
        done = await pending.call(lambda: "after")  # the worker runs what comes next
    assert done == "after"
    assert len(ran) == 2 and all(name.startswith("cosci-mlflow") for name in ran)
    assert "the plots' warm-up failed: no matplotlib" in caplog.text


def test_warm_plots_leaves_pyplot_on_the_agg_backend() -> None:
    """What the warm-up imports is what the plots draw with: pyplot on Agg (files only, no display)."""
    import sys

    from cosci.tracking.artifacts import pyplot, warm_plots

    warm_plots()
    assert "matplotlib.pyplot" in sys.modules
    assert pyplot().get_backend().lower() == "agg"


def test_a_session_warms_the_closing_plots_on_the_worker_before_its_run_closes(
        prefect_server: None, fake: FakeBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole fake session with tracking: the warm-up is asked for once, before the final overview, runs on the
    MLflow worker, and ends before the run's closing (which then draws its plots with what it imported)."""
    import cosci.tracking.artifacts as artifacts
    from cosci.tracking.mlflow_run import SessionTracker
    from tests.flows.test_session_flow import SMALL, _run

    events: list[tuple[str, str]] = []
    real_finish = SessionTracker.finish

    def warm() -> None:
        events.append(("warm", threading.current_thread().name))

    def finish(self: SessionTracker, *args: object, **kwargs: object) -> None:
        events.append(("finish", threading.current_thread().name))
        real_finish(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(artifacts, "warm_plots", warm)
    monkeypatch.setattr(SessionTracker, "finish", finish)
    config = make_config(tmp_path / "data", "tracking.enabled=true",
                         f"tracking.tracking_uri=sqlite:///{tmp_path / 'mlflow.db'}", *SMALL)
    summary = _run(config)
    assert summary["mlflow_run_id"]
    assert [kind for kind, _ in events] == ["warm", "finish"]
    assert all(name.startswith("cosci-mlflow") for _, name in events)
