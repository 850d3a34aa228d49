"""A temporary local Prefect server owned by cosci, for runs without ``PREFECT_API_URL``.

Prefect's own temporary server (``SubprocessASGIServer``) is started in the terminal's process group and writes
to the terminal: a researcher's Ctrl-C killed it mid-session (the session then failed its last API calls and
waited minutes on Prefect's event worker), its "database is locked" tracebacks (PrefectHQ/prefect#18934) reached
the terminal, and a killed session left it orphaned. This starts the same app (``uvicorn --factory
prefect.server.api.server:create_app``, as Prefect does) in its own session, with its output in
``<PREFECT_HOME>/server.log`` and a parent-death signal, then points ``PREFECT_API_URL`` at it.

A fast start (issue 11): the server's port is chosen before it starts, so ``PREFECT_API_URL`` is set at once
and the server boots (5-15 s here) while the session process imports its heavy libraries; only the first
Prefect API call waits for ``/api/health`` (:func:`server_ready`).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import importlib.util
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

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


class TemporaryServer:
    """The server process: :meth:`launch` starts it, :meth:`wait_ready` blocks until ``/api/health`` answers."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = _free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        """Start the server, wait until it answers and return its API URL.

        Raises:
            RuntimeError: it did not answer within two minutes (its log is named).
        """
        self.launch()
        self.wait_ready()
        return self.api_url

    def launch(self) -> str:
        """Start the server process without waiting for it; returns the API URL it will answer at."""
        log = (self.home / "server.log").open("ab")
        env = {
            **os.environ,
            "PREFECT_HOME": str(self.home),
            "PREFECT_UI_ENABLED": "0",
            "PREFECT__SERVER_EPHEMERAL": "1",
            "PREFECT__SERVER_FINAL": "1",
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
        return self.api_url

    def wait_ready(self) -> None:
        """Block until ``/api/health`` answers.

        Raises:
            RuntimeError: it exited or did not answer within ``STARTUP_TIMEOUT_SECONDS`` (its log is named).
        """
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while self.process is not None and time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if httpx.get(f"{self.api_url}/health", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the local Prefect server did not start; see {self.home / 'server.log'}")

    def stop(self, grace_seconds: float = 10.0) -> None:
        """Terminate the server (at exit), killing it after ``grace_seconds``; a second Ctrl-C meanwhile kills it
        instead of printing a traceback."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=grace_seconds)
            except (subprocess.TimeoutExpired, KeyboardInterrupt):
                self.process.kill()
                with contextlib.suppress(KeyboardInterrupt):
                    self.process.wait()
        self.process = None


_SERVER: TemporaryServer | None = None


def ensure_server(home: Path, *, wait: bool = True) -> str | None:
    """Start cosci's temporary server unless ``PREFECT_API_URL`` points at one already; returns its URL.

    With ``wait=False`` it returns as soon as the process is started (``PREFECT_API_URL`` is set already); call
    :func:`server_ready` before the first Prefect API call.
    """
    global _SERVER
    if os.environ.get("PREFECT_API_URL") and _SERVER is None:
        return None
    if _SERVER is None:
        _SERVER = TemporaryServer(home)
        os.environ["PREFECT_API_URL"] = _SERVER.launch()
    if wait:
        _SERVER.wait_ready()
    return _SERVER.api_url


def exit_now(code: int) -> None:
    """End the process at once after a run on cosci's own temporary server (issue 11: interpreter exit spent 2-6 s
    draining Prefect's event and log workers into a server that is about to be stopped anyway). Output is
    flushed and the server stopped first. With a server of the user's (``PREFECT_API_URL``), returns and lets the
    interpreter exit normally, so that server receives every event."""
    if _SERVER is None:
        return
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    _SERVER.stop(grace_seconds=2.0)
    os._exit(code)


def server_ready() -> None:
    """Wait for the server :func:`ensure_server` started, if any (see :meth:`TemporaryServer.wait_ready`)."""
    if _SERVER is not None:
        _SERVER.wait_ready()
