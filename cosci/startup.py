"""Start-up phase marks: when a session process reached each step before its first model call.

``python -m bench.run --only startup`` (bench/startup.py) sets ``COSCI_STARTUP_LOG`` to a file; each :func:`mark`
then appends one JSON line ``{"phase": NAME, "t": <epoch seconds>, "cpu": <process CPU seconds>}`` to it. Without
the variable a mark costs one dictionary lookup and writes nothing. A leaf: it imports nothing of cosci's, so the
entry point can mark before anything else loads (design.md#startup).

Also the garbage collector's pause over a session's start-up (:func:`pause_collector`, :func:`resume_collector`).
"""

from __future__ import annotations

import gc
import json
import os
import time

LOG_ENV = "COSCI_STARTUP_LOG"
"""The environment variable naming the file the marks are appended to (unset: no marks)."""


def mark(phase: str) -> None:
    """Append ``phase`` with the wall clock (``time.time()``, seconds since the epoch: the bench compares it with
    its own launch time) and this process's CPU seconds, if ``COSCI_STARTUP_LOG`` is set. A mark that cannot be
    written is dropped: it never fails a session."""
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    line = json.dumps({"phase": phase, "t": time.time(), "cpu": time.process_time(), "pid": os.getpid()})
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except OSError:
        pass


_PAUSED: list[bool] = []
"""Whether :func:`pause_collector` disabled the collector and :func:`resume_collector` has not yet enabled it."""


def pause_collector() -> None:
    """Disable Python's cyclic garbage collector while a session process imports its libraries and opens its
    session: the collector's passes over the millions of objects those imports create were about a quarter of the
    imports' CPU (5.2 s → 3.8 s for LiteLLM, Prefect, scikit-learn and cosci here; design.md#startup). Start-up
    creates long-lived module objects, little cyclic garbage. Does nothing if the collector is already off."""
    if gc.isenabled():
        gc.disable()
        _PAUSED.append(True)


def resume_collector() -> None:
    """Enable the collector again if :func:`pause_collector` disabled it (idempotent; a collector someone else
    turned off stays off), first moving every object alive now to the permanent generation (:func:`gc.freeze`): the
    modules, classes and schemas start-up made live as long as the process, and the first full pass over them
    once the collector was back took about half a second of CPU, then again at every later full pass (in the
    Supervisor's loop). Cyclic garbage made during the pause is then never collected (little: design.md#startup)."""
    if _PAUSED:
        _PAUSED.clear()
        gc.freeze()
        gc.enable()
