"""A temporary local Prefect server owned by cosci, for runs without ``PREFECT_API_URL``.

Prefect's own temporary server (``SubprocessASGIServer``) is started in the terminal's process group and writes
to the terminal: a researcher's Ctrl-C killed it mid-session (the session then failed its last API calls and
waited minutes on Prefect's event worker), its "database is locked" tracebacks (PrefectHQ/prefect#18934) reached
the terminal, and a killed session left it orphaned. This starts the same app (``uvicorn --factory
prefect.server.api.server:create_app``, as Prefect does) in its own session, with its output in
``<PREFECT_HOME>/server.log`` and a parent-death signal, then points ``PREFECT_API_URL`` at it.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import fcntl
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from cosci.errors import CosciError

PR_SET_PDEATHSIG = 1
STARTUP_TIMEOUT_SECONDS = 120.0


def _detach() -> None:  # pragma: no cover - runs in the child between fork and exec
    os.setsid()  # not in the terminal's process group: Ctrl-C does not reach the server
    with contextlib.suppress(OSError):  # not Linux: the atexit hook still stops it on a normal exit
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerStartFailed(CosciError):
    """The temporary Prefect server did not answer; the message names its log."""


@contextlib.contextmanager
def first_start_lock(home: Path) -> Iterator[None]:
    """Hold ``<home>/server-start.lock`` (flock) while a server starts on ``home``.

    Two servers migrating one new SQLite home at once race ("duplicate column name", stack notes; issue 12:
    5 of 11 paired first starts crashed): the second waits here until the first answers, then finds the
    database migrated. The lock is released when the process dies, so a killed start never blocks the next.
    """
    home.mkdir(parents=True, exist_ok=True)
    with (home / "server-start.lock").open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _last_error(log: Path) -> str:
    """The last line of the server's log that names an error, for the one-line failure message."""
    with contextlib.suppress(OSError):
        lines = [ln.strip() for ln in log.read_text(encoding="utf-8", errors="replace").splitlines() if ln.strip()]
        hits = [ln for ln in lines if "error" in ln.lower()] or lines
        return hits[-1][:300] if hits else ""
    return ""


class TemporaryServer:
    """The server process; :meth:`start` blocks until ``/api/health`` answers."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = _free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        """Start the server (one start per Prefect home at a time: :func:`first_start_lock`); returns its URL.

        Raises:
            ServerStartFailed: it did not answer within two minutes (one line: its last error and its log).
        """
        with first_start_lock(self.home):
            return self._start()

    def _start(self) -> str:
        log = (self.home / "server.log").open("ab")
        env = {
            **os.environ,
            "PREFECT_HOME": str(self.home),
            "PREFECT_UI_ENABLED": "0",
            "PREFECT__SERVER_EPHEMERAL": "1",
            "PREFECT__SERVER_FINAL": "1",
            "PREFECT_LOGGING_SERVER_LEVEL": "WARNING",  # its errors (a failed migration) reach server.log
        }
        env.pop("PREFECT_API_URL", None)
        spec = importlib.util.find_spec("prefect")  # not imported: Prefect reads its settings at import
        assert spec is not None and spec.origin is not None
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--app-dir",
                str(Path(spec.origin).parent.parent),
                "--factory",
                "prefect.server.api.server:create_app",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "error",
                "--lifespan",
                "on",
            ],
            env=env,
            stdout=log,
            stderr=log,
            stdin=subprocess.DEVNULL,
            preexec_fn=_detach,
        )
        atexit.register(self.stop)
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if httpx.get(f"{self.api_url}/health", timeout=2.0).status_code == 200:
                    return self.api_url
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        path = self.home / "server.log"
        why = _last_error(path)
        raise ServerStartFailed(f"the local Prefect server did not start{f' ({why})' if why else ''}; see {path}")

    def stop(self) -> None:
        """Terminate the server (at exit); a second Ctrl-C meanwhile kills it instead of printing a traceback."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except (subprocess.TimeoutExpired, KeyboardInterrupt):
                self.process.kill()
                with contextlib.suppress(KeyboardInterrupt):
                    self.process.wait()
        self.process = None


_SERVER: TemporaryServer | None = None


def ensure_server(home: Path) -> str | None:
    """Start cosci's temporary server unless ``PREFECT_API_URL`` points at one already; returns its URL."""
    global _SERVER
    if os.environ.get("PREFECT_API_URL"):
        return None
    if _SERVER is None:
        _SERVER = TemporaryServer(home)
        os.environ["PREFECT_API_URL"] = _SERVER.start()
    return _SERVER.api_url
