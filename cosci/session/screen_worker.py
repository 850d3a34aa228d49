"""The offline screen of hypotheses in a worker process (design.md#supervisor, "The offline screen in a process").

The offline screen (:mod:`cosci.safety.screen`) is pure Python for most of its CPU (the term pre-screen's regular
expressions: 80-90 ms of CPU per generated hypothesis on the 1 s concurrency bench, measured at load 11; its
embedding is a small share). Run in a worker thread of the session process (:func:`cosci.safety.classifier.
_offline_check`) it holds the GIL, so the event loop, which starts every other action and sends its call, ran at
about half speed while a screen ran: the first round's hypotheses, screened one after another, left the call slots
idle in gaps of 0.1-0.6 s (bench/README.md, "Ninth pass"). :class:`ScreenWorker` runs the same screen in a child
process (``python -m cosci.session.screen_worker``) on the other core: the same function on the same text, so the
same result (it is deterministic); only where it runs changes.

Protocol (stdin/stdout of the child, each message a 4-byte big-endian length and a pickle): first the
:class:`~cosci.config.schema.SafetyCfg`, answered ``("ready", None)`` once the screen is loaded; then ``(text,
subject)`` per check, answered ``("ok", ScreenResult)`` or ``("error", "Type: message")``. The child is this
session's own (trusted pickles both ways). Whenever the worker is not there (not started, still loading, failed,
closed) the check runs in the thread as before: a text is always screened before it is shown or spent on.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import signal
import struct
import sys
from typing import Any, BinaryIO

from cosci.config.schema import SafetyCfg
from cosci.safety.classifier import offline_check
from cosci.safety.screen import ScreenResult
from cosci.store.safety import Subject

log = logging.getLogger(__name__)

HEADER = struct.Struct(">I")
"""A message's length (bytes) before its pickle."""

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The child's BLAS and OpenMP on one thread, as the session process's (``flows.process.one_blas_thread``): its
matrices are small, and on shared cores a second BLAS thread spins while it waits. With the libraries' default (two
threads) a hypothesis's screen in the child took about three times the thread's wall at load 18 (bench/README.md,
"Tenth pass")."""

CLOSE_SECONDS = 10.0
"""How long :meth:`ScreenWorker.close` waits for the child to exit once its input is closed, before killing it."""


class ScreenWorker:
    """One session's offline-screen process (module docstring). :meth:`start` it once the session's first action
    ended (its start-up, about a second of CPU, then runs beside the goal's parse call, not beside the goal's screen
    and the first call: design.md#startup); :meth:`check` a text; :meth:`close` at the session's end (the child is
    waited for, so its CPU counts as the session's)."""

    def __init__(self, cfg: SafetyCfg) -> None:
        self.cfg = cfg
        self.proc: asyncio.subprocess.Process | None = None
        self.ready: asyncio.Task[bool] | None = None
        """Whether the child loaded its screen (False: it failed; every check then runs in the thread)."""
        self.dead = False
        """The child failed during a check: it is not asked again, nor started again."""
        self._lock = asyncio.Lock()  # one check at a time on the pipe (the child is serial, as the thread's lock was)

    def start(self) -> None:
        """Launch the child (on the running loop) and send it the config; a second call does nothing."""
        if self.ready is None and not self.dead:
            self.ready = asyncio.get_running_loop().create_task(self._launch(), name="offline screen worker")

    async def _launch(self) -> bool:
        try:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "cosci.session.screen_worker", stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, env={**os.environ, **ONE_THREAD})
            await self._send(self.cfg)
            kind, _ = await self._receive()
            return bool(kind == "ready")
        except Exception as exc:  # the thread screens instead
            log.debug("the offline screen's worker did not start: %s", exc)
            return False

    async def check(self, text: str, subject: Subject) -> ScreenResult:
        """The offline screen's result for ``text``: from the worker when it is ready, else (or if it fails) from
        the thread (:func:`~cosci.safety.classifier.offline_check`)."""
        if (not self.dead and self.ready is not None and self.ready.done() and not self.ready.cancelled()
                and self.ready.result()):
            try:
                async with self._lock:
                    await self._send((text, subject))
                    kind, value = await self._receive()
                if kind == "ok" and isinstance(value, ScreenResult):
                    return value
                log.debug("the offline screen's worker answered %s: %s", kind, value)
            except Exception as exc:  # a dead worker: the thread from now on
                log.debug("the offline screen's worker failed: %s", exc)
                self.dead = True
        return await offline_check(self.cfg, text, subject)

    async def _send(self, obj: Any) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        self.proc.stdin.write(HEADER.pack(len(data)) + data)
        await self.proc.stdin.drain()

    async def _receive(self) -> tuple[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        (size,) = HEADER.unpack(await self.proc.stdout.readexactly(HEADER.size))
        kind, value = pickle.loads(await self.proc.stdout.readexactly(size))  # our own child's
        return str(kind), value

    async def close(self) -> None:
        """Stop the child: its input closed, waited for (killed after :data:`CLOSE_SECONDS`)."""
        if self.ready is not None and not self.ready.done():
            self.ready.cancel()
        self.ready = None
        proc, self.proc = self.proc, None
        if proc is None or proc.returncode is not None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            await asyncio.wait_for(proc.wait(), CLOSE_SECONDS)
        except (Exception, asyncio.CancelledError):
            proc.kill()
            await proc.wait()


def _read(stream: BinaryIO) -> Any:
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        raise EOFError
    return pickle.loads(stream.read(HEADER.unpack(head)[0]))  # our own parent's


def _write(stream: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def main() -> None:
    """The child: load the screen for the config read first, then answer checks until stdin closes (the parent's
    end; Ctrl-C is the parent's to handle, so the child ignores it). Its protocol has stdout to itself: anything
    else written there goes to stderr."""
    from cosci.safety.screen import screen_for

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    source, sink = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        screen = screen_for(_read(source))
    except EOFError:
        return
    _write(sink, ("ready", None))
    while True:
        try:
            text, subject = _read(source)
        except EOFError:
            return
        try:
            _write(sink, ("ok", screen.check(text, subject=subject)))
        except Exception as exc:
            _write(sink, ("error", f"{type(exc).__name__}: {exc}"))


__all__ = ["ScreenWorker"]


if __name__ == "__main__":
    main()
