"""The session process's own machinery beside its flow: Ctrl-C and SIGTERM handling, the BLAS thread limit, the
embedder's warm-up thread and the offline screen's process (design.md#supervisor, "The session's start", "BLAS
threads" and "The offline screen in a process"; design.md#resume)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import threading
import time
from typing import Any

from cosci.safety.classifier import screening_on
from cosci.session.runtime import SessionRuntime
from cosci.session.screen_worker import ScreenWorker
from cosci.supervisor.loop import Supervisor

log = logging.getLogger(__name__)


SAME_SIGNAL_SECONDS = 0.5
"""Signals closer together than this count as one Ctrl-C (a person's second press takes longer)."""


def on_interrupt(sup: Supervisor) -> list[signal.Signals]:
    """Ctrl-C or SIGTERM once: stop, leaving interrupted actions for `cosci resume`; twice: exit at once."""

    first: list[float] = []

    def handler() -> None:
        if first and time.monotonic() - first[0] > SAME_SIGNAL_SECONDS:
            reopen(sup)
            print(f"{below_echo()}cosci: quit at once; `cosci resume {session_of(sup)}` continues it", file=sys.stderr,
                  flush=True)  # fresh-user trial: the quit said nothing, so how to go on was nowhere on the screen
            os._exit(130)
        if first:  # one keypress delivered twice (e.g. `timeout -s INT` signals the child and its group)
            return
        first.append(time.monotonic())
        below = below_echo()
        if sup.finalising:  # the session has stopped: its last calls (feedback, overview) finish it
            print(f"{below}cosci: the session has stopped and is writing its overview; it finishes (Ctrl-C again to"
                  " quit at once: `cosci resume` then finishes it)", file=sys.stderr, flush=True)
            return
        print(
            f"{below}cosci: stopping; interrupted actions go back to the queue (Ctrl-C again to quit at once)",
            file=sys.stderr,
            flush=True,
        )
        sup.interrupt()

    loop, handled = asyncio.get_running_loop(), []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, handler)
            handled.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread (a served deployment)
            pass
    return handled


def below_echo() -> str:
    """``"\n"`` on a terminal, so a line starts below its "^C" echo; captured, ``""`` (no blank line)."""
    return "\n" if sys.stderr.isatty() else ""


def session_of(sup: Supervisor) -> str:
    """The session's id for the quit's resume line; ``<id>`` when the store cannot say (the process is quitting)."""
    try:
        return str(sup.store.session_id)
    except Exception:  # a quit at once must not fail on its last line
        return "<id>"


def reopen(sup: Supervisor) -> None:
    """Before a second Ctrl-C quits a session at once, in whatever phase: the record says the researcher stopped it
    (stop reason ``interrupted``; it is otherwise written only once the overview is, so a quit while the overview was
    written read ``-`` in `cosci list` and `cosci status`: fresh-user trial), and a record already marked ``done``
    goes back to ``running``, so `cosci resume` finishes what the quit cut short (the overview file, the report, the
    MLflow run, left RUNNING with part of its metrics: fresh-user trial), as docs/commands.md promises;
    finalisation's finished tasks replay, nothing is paid twice (design.md#resume). One transaction (the store stays
    readable); any error is ignored: the process is quitting."""
    try:
        status = sup.store.sessions.status()
        if status in ("running", "done"):  # a refused goal or an abort keeps the record's own words
            sup.store.sessions.update(stop_reason="interrupted", **({"status": "running"} if status == "done" else {}))
    except Exception:  # a quit at once must not fail on the record it could not reopen
        log.debug("the record could not be reopened before the quit", exc_info=True)


def one_blas_thread() -> None:
    """Limit BLAS (numpy's and scipy's OpenBLAS) to one thread in the session process (design.md#supervisor, "BLAS
    threads"): its matrices are small (one row or column per hypothesis), and on shared cores OpenBLAS's second
    thread spins while it waits: the leaderboard fit at 46 hypotheses took 3.4 s of CPU and 27 s of wall on two
    threads, 0.74 s and 8.6 s on one (load average 18 on 2 cores; bench/README.md). Called once the runtime is
    open: the limit binds only the libraries already loaded (the tournament's scipy among them)."""
    from threadpoolctl import threadpool_limits

    import cosci.tournament.bt  # noqa: F401  # scipy.linalg, so scipy's OpenBLAS is loaded and limited too

    threadpool_limits(limits=1, user_api="blas")


JOIN_SECONDS = 60.0
"""How long a session's end waits for the embedder's warm-up (seconds): its imports take about a second, and far
longer only on a machine so loaded that the session itself crawls."""


class EmbedderWarmup:
    """Loads the session's embedder (:meth:`~cosci.llm.embeddings.embedder.Embedder.warm`) in a daemon thread once
    the session's first task has finished (an :class:`Observer`): the goal's screen and parse are one call at a time,
    and the hash embedder's first use imports scikit-learn, about a second of CPU that the first hypotheses each
    waited for after their calls (design.md#supervisor, "The session's start"). Not sooner: an import beside the
    goal's screen takes the GIL from it and delays the first model call (design.md#startup). An error in the thread
    is dropped: the first embedding meets it again."""

    def __init__(self, rt: SessionRuntime) -> None:
        self.rt = rt
        self.thread: threading.Thread | None = None

    def on_progress(self, stats: Any, step: int) -> None:
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="cosci-warm-embedder", daemon=True)
            self.thread.start()

    def _run(self) -> None:
        try:
            self.rt.deps.embedder.warm()
        except Exception as exc:  # a warm-up only
            log.debug("the embedder's warm-up failed: %s", exc)

    def join(self, timeout: float = JOIN_SECONDS) -> None:
        """Wait for a started warm-up to end (at most ``timeout`` seconds) before the session ends: a daemon thread
        still importing at interpreter exit holds a module lock, and a finaliser that imports (LiteLLM's HTTP
        client's ``__del__``) then waits on it for ever; a session refused at its goal screen hung so."""
        if self.thread is not None:
            self.thread.join(timeout)


SCREEN_PROCESS_CONCURRENCY = 3
"""The least ``run.concurrency`` at which hypotheses are screened in a child process (:class:`ScreenProcess`): the
default (4) and the concurrency bench (8). Below it the thread stays: at 1 one action runs at a time, so a screen
holds up nothing; at 2, the embedded demo's setting (design.md#demo), the model's own threads use both cores, and a
second process's start-up (about a second of CPU) and screens would take CPU from its calls."""


def cpu_times() -> tuple[float, float] | None:
    """The machine's ``(idle, total)`` CPU time so far (clock ticks, all cores: ``/proc/stat``'s ``cpu`` line, idle
    and I/O wait counted idle), or None where there is no ``/proc/stat``."""
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            ticks = [float(v) for v in fh.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return (ticks[3] + ticks[4], sum(ticks)) if len(ticks) == 8 else None


def free_core(since: tuple[float, float] | None = None) -> bool:
    """Whether a core is free for the screen's process: at least half a core idle on average since ``since`` (a
    :func:`cpu_times` reading: the session's start, so the window holds the goal's screen and its call), else, with
    no reading, the 1-minute load average at most ``cores − 1/2``. With none free the process only splits the
    session's share of the cores (the scheduler shares them by session, not by process): at load 17-22 on 2 cores a
    hypothesis's screen in the child took about three times the thread's wall, and the 1 s bench's wall / ideal was
    2.29-2.33x against main's 1.79-1.93x (bench/README.md, "Tenth pass")."""
    cores = os.cpu_count() or 1
    now = cpu_times()
    if since is not None and now is not None and now[1] > since[1]:
        return (now[0] - since[0]) / (now[1] - since[1]) * cores >= 0.5
    return os.getloadavg()[0] <= cores - 0.5


class ScreenProcess:
    """The offline screen of the session's hypotheses in a child process (:class:`~cosci.session.screen_worker.
    ScreenWorker`), started once the session's first task has finished (an :class:`Observer`, as
    :class:`EmbedderWarmup`: its start-up runs beside the goal's parse call), when screening is on and
    ``run.concurrency`` ≥ :data:`SCREEN_PROCESS_CONCURRENCY` and a core was free since the session's start
    (:func:`free_core`; else the thread, as before, for the whole session). The goal and the overview are screened
    in the session process as before (the goal before the worker starts; the overview's screen reads what its
    warm-up, ``warm_screen``, left in this process)."""

    def __init__(self, rt: SessionRuntime) -> None:
        self.rt = rt
        config = rt.config
        self.worker = (ScreenWorker(config.safety) if config.safety is not None and screening_on(config)
                       and config.run.concurrency >= SCREEN_PROCESS_CONCURRENCY else None)
        if self.worker is not None:
            rt.deps.screen = self.worker.check
        self.since = cpu_times()

    def on_progress(self, stats: Any, step: int) -> None:
        if self.worker is None or self.worker.ready is not None:
            return
        if free_core(self.since):
            self.worker.start()
        else:
            self.worker = None
            self.rt.deps.screen = None

    async def close(self) -> None:
        """Stop the child (waited for: its CPU is the session's); later screens run in the thread."""
        self.rt.deps.screen = None
        if self.worker is not None:
            await self.worker.close()


__all__ = ["JOIN_SECONDS", "SAME_SIGNAL_SECONDS", "SCREEN_PROCESS_CONCURRENCY", "EmbedderWarmup", "ScreenProcess",
           "cpu_times", "free_core", "on_interrupt", "one_blas_thread"]
