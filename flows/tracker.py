"""The session's MLflow run, driven from one worker thread (design.md#tracking, fast start): see
:class:`BackgroundTracker`."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cosci.config.schema import CosciConfig
from cosci.session.runtime import SessionRuntime
from cosci.text import error_line

if TYPE_CHECKING:
    from cosci.supervisor.loop import Supervisor
    from cosci.supervisor.termination import StopReason

log = logging.getLogger(__name__)
START_WITHOUT_CALLS = 8
"""Finished tasks after which MLflow starts even if no model call has been answered yet (a resumed session whose
first tasks are cached or call no model); before a call is answered the start would compete with the first call
(design.md#startup)."""


class BackgroundTracker:
    """The session's MLflow run, driven from one worker thread: its start (importing MLflow and opening its
    store take seconds) and every later call on it (step metrics, trace flushes, the final logging) run there,
    in the order they were asked for, so MLflow never holds up the Supervisor's event loop (design.md#supervisor: the
    metrics and trace flushes took about 2 s of the fake demo's loop). An :class:`Observer`.

    The start is asked for by the first :meth:`on_progress` after a model call has been answered (its stats count
    tokens; or after :data:`START_WITHOUT_CALLS` finished tasks, for a session whose first tasks call no model), or
    by the first :meth:`ready` or :meth:`call` if earlier: importing MLflow in this thread beside the session's first
    actions (the goal screen, the first call) took the GIL from them and doubled the time to the first model call
    (design.md#startup); after it, the import overlaps the model calls' waits. Progress reported before the run
    exists is kept for the first drain after the start, so none is lost; steps reported while the worker is busy
    are logged together by its next drain. A failure after the start is logged
    and never ends the session; the record keeps everything.
    """

    def __init__(self, config: CosciConfig, rt: SessionRuntime, overrides: list[str], models_choice: str) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cosci-mlflow")
        self._args = (config, rt, list(overrides), models_choice)
        self._future: concurrent.futures.Future[Any] | None = None
        self._lock = threading.Lock()
        self._steps: list[tuple[Any, int]] = []
        self._drain_queued = False

    def _begin(self) -> concurrent.futures.Future[Any]:
        """Ask for the start once (the worker runs it before anything submitted after it)."""
        with self._lock:
            if self._future is None:
                self._future = self._pool.submit(self._start, *self._args)
            return self._future

    @staticmethod
    def _start(config: CosciConfig, rt: SessionRuntime, overrides: list[str], models_choice: str) -> Any:
        from cosci.tracking.mlflow_run import SessionTracker

        tracker = SessionTracker.start(config, rt.store, overrides, models_choice)
        tracker.client.set_tag(tracker.run_id, "cosci.embedding_model", rt.deps.embedder.model)
        return tracker

    def started(self) -> Any | None:
        """The tracker if its start finished without error, else None (never blocks; never asks for the start)."""
        future = self._future
        if future is not None and future.done() and future.exception() is None:
            return future.result()
        return None

    def on_progress(self, stats: Any, step: int) -> None:
        if self._future is None and not stats.tokens and step < START_WITHOUT_CALLS:
            with self._lock:  # kept for the first drain after the start
                self._steps.append((stats, step))
            return
        self._begin()
        with self._lock:
            self._steps.append((stats, step))
            if self._drain_queued:  # the worker has not caught up: these steps go with the ones before
                return
            self._drain_queued = True
        self._pool.submit(self._drain)

    def _drain(self) -> None:
        """Log every step reported since the last drain in one go (one metrics batch, one trace flush)."""
        with self._lock:
            steps, self._steps, self._drain_queued = self._steps, [], False
        tracker = self.started()  # the start ran before this (one worker, in order)
        if tracker is None or not steps:
            return
        try:
            tracker.on_steps(steps)
        except Exception as exc:  # tracking must never stop the science
            log.warning("MLflow progress not logged: %s", error_line(exc))

    def prepare_finish(self) -> None:
        """Have the worker import what closing the run draws with (:func:`cosci.tracking.artifacts.warm_plots`,
        matplotlib: about half a second of CPU) while the session's final overview is written, instead of after
        the session's last model call; never waits, never asks for the start (a session whose run never started
        closes none), and a failed import is dropped (the closing imports it itself). Asked before the final
        overview's calls (docs/design.md#demo, "The finish")."""
        if self._future is not None:
            self._pool.submit(_warm_plots)

    async def ready(self) -> Any | None:
        """Wait for the start; returns the SessionTracker, or None if the start failed (logged: tracking must
        never cost the session its results, which the record keeps)."""
        try:
            return await asyncio.wrap_future(self._begin())
        except Exception as exc:
            log.warning("the MLflow run was not started: %s", error_line(exc))
            return None

    async def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn`` on the worker, after everything asked before it; returns its result (or raises its error)."""
        self._begin()
        return await asyncio.wrap_future(self._pool.submit(fn, *args))

    def call_now(self, fn: Callable[..., Any], *args: Any) -> Any:
        """:meth:`call` from synchronous code (a session ending in an error): blocks until done."""
        self._begin()
        return self._pool.submit(fn, *args).result()

    def close(self) -> None:
        """Finish what was asked (queued progress) and stop the worker."""
        self._pool.shutdown(wait=True)


async def final_calls(sup: Supervisor, reason: StopReason, pending: BackgroundTracker | None) -> str:
    """The session's last calls (:meth:`Supervisor.finalize`: its final feedback and overview; returns the overview),
    with the MLflow worker importing what the run's closing draws with meanwhile (:meth:`BackgroundTracker.
    prepare_finish`, design.md#demo, "The finish")."""
    if pending is not None:
        pending.prepare_finish()
    return await sup.finalize(reason)


def _warm_plots() -> None:
    try:
        from cosci.tracking.artifacts import warm_plots

        warm_plots()
    except Exception as exc:  # a warm-up only: the run's closing imports what is missing
        log.debug("the plots' warm-up failed: %s", error_line(exc))


__all__ = ["BackgroundTracker", "final_calls"]
