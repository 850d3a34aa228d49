"""A temporary local Prefect server owned by cosci, for runs without ``PREFECT_API_URL``.

Prefect's own temporary server (``SubprocessASGIServer``) is started in the terminal's process group and writes
to the terminal: a researcher's Ctrl-C killed it mid-session (the session then failed its last API calls and
waited minutes on Prefect's event worker), its "database is locked" tracebacks (PrefectHQ/prefect#18934) reached
the terminal, and a killed session left it orphaned. This starts the same app (Prefect's ``create_app``, as
Prefect does, through :mod:`flows.server_app`, which builds it with the collector paused) in its own session, with
its output in
``<PREFECT_HOME>/server.log`` and a parent-death signal, then points ``PREFECT_API_URL`` at it.

A fast start (design.md#deployment): the server's port is chosen before it starts, so ``PREFECT_API_URL`` is set at once
and the server boots (5-15 s here) while the session process imports its heavy libraries; only the first
Prefect API call waits for ``/api/health`` (:func:`server_ready`).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import fcntl
import functools
import logging
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from cosci.errors import CosciError
from cosci.net import Unreachable, health_status
from cosci.paths import copy_sqlite, template_cache

PR_SET_PDEATHSIG = 1
APP_FACTORY = "flows.server_app:create_app"
"""What uvicorn serves: Prefect's server app, built with the collector paused (:mod:`flows.server_app`)."""
STARTUP_TIMEOUT_SECONDS = 120.0
DB_FILE = "prefect.db"
"""Prefect's SQLite database in its home (its default ``PREFECT_API_DATABASE_CONNECTION_URL``)."""


SERVER_SETTINGS = {
    "PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED": "false",
    "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "false",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "25",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "1",
}
"""What a run's own server does with the events a session sends (three or more a task run; a variable set in the
environment wins), design.md#supervisor, "The run's own Prefect server":

- ``triggers`` off: it evaluates automations on every event, and a temporary server has none;
- ``event_persister`` off: it copies every event into the ``events`` table, the UI's event feed (this server runs
  no UI). The task runs and their states are still recorded, by ``task_run_recorder`` from the same events;
- ``task_run_recorder`` writes up to 25 events in one transaction, at least every second (Prefect's default: one
  transaction per event). A server stopped at the end of the run writes what it holds first (its shutdown)."""


SEEDED_SETTINGS = {
    "PREFECT_SERVER_DATABASE_MIGRATE_ON_START": ("false", "PREFECT_API_DATABASE_MIGRATE_ON_START"),
    "PREFECT_SERVER_REGISTER_BLOCKS_ON_START": ("false", "PREFECT_API_BLOCKS_REGISTER_ON_START"),
}
"""What a server on a home seeded from :func:`template_db` by this launch skips (each name: its value and
Prefect's older alias; a value the user set under either name wins): the template was written by a server of
the same Prefect version and the same Prefect collections once its start had migrated the database and
registered the block types, so running the migrations (alembic loading its scripts) and the block registration
again changes nothing. About a sixth of the server's CPU to its answer (4.4 → 3.6 s here, design.md#startup)."""


@functools.cache
def _collections_key() -> str:
    """A short hash of the installed Prefect collections (entry points of ``prefect.collections``): the block
    types a server registers at its start are Prefect's own and theirs."""
    import hashlib
    from importlib.metadata import entry_points

    names = sorted(f"{ep.name}={ep.value}" for ep in entry_points(group="prefect.collections"))
    return hashlib.sha256("\n".join(names).encode()).hexdigest()[:12]


def template_db() -> Path:
    """The per-user copy of a freshly migrated Prefect database, one per Prefect version and set of Prefect
    collections (``<user cache>/cosci/prefect-db/<collections hash>/<version>/prefect.db``).

    Measured here (design.md#store, fast start): a server on a new home spent 22 s migrating its database, one on a
    home migrated before 6.6 s; a new home seeded with a copy of a migrated database started in 6.6 s too.
    """
    return template_cache(f"prefect-db/{_collections_key()}", "prefect", DB_FILE)


def seeded_settings(seeded: bool) -> dict[str, str]:
    """The settings :data:`SEEDED_SETTINGS` gives a server whose home this launch ``seeded`` from the template,
    less those the environment sets under either name; none for a home migrated otherwise (it may hold an older
    Prefect's schema, which only the migrations bring up to date)."""
    if not seeded:
        return {}
    return {name: value for name, (value, alias) in SEEDED_SETTINGS.items()
            if name not in os.environ and alias not in os.environ}


def _own_sqlite(home: Path) -> bool:
    """Whether the server keeps its database at ``<home>/prefect.db`` (no database URL set by the user)."""
    return not os.environ.get("PREFECT_API_DATABASE_CONNECTION_URL") and not os.environ.get(
        "PREFECT_SERVER_DATABASE_CONNECTION_URL")


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

    Two servers migrating one new SQLite home at once race ("duplicate column name";
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
    """The server process: :meth:`launch` starts it, :meth:`wait_ready` blocks until ``/api/health`` answers."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = _free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        self.process: subprocess.Popen[bytes] | None = None
        self._seeded = False  # set by _seed_db: this launch copied the template into the home
        self._start_lock = contextlib.ExitStack()

    def start(self) -> str:
        """Start the server, wait until it answers and return its API URL (one start per Prefect home at a time:
        :func:`first_start_lock`, held from :meth:`launch` until :meth:`wait_ready` returns).

        Raises:
            ServerStartFailed: it did not answer within two minutes (one line: its last error and its log).
        """
        self.launch()
        self.wait_ready()
        return self.api_url

    def launch(self) -> str:
        """Start the server process without waiting for it; returns the API URL it will answer at. Takes
        :func:`first_start_lock` (released by :meth:`wait_ready`)."""
        self._start_lock.close()
        self._start_lock.enter_context(first_start_lock(self.home))
        self._seed_db()
        log = (self.home / "server.log").open("ab")
        env = {
            **os.environ,
            "PREFECT_HOME": str(self.home),
            "PREFECT_UI_ENABLED": "0",
            "PREFECT__SERVER_EPHEMERAL": "1",
            "PREFECT__SERVER_FINAL": "1",
            "PREFECT_LOGGING_SERVER_LEVEL": "WARNING",  # its errors (a failed migration) reach server.log
            # glibc's default of 8 arenas a core lets the server's threads keep freed memory resident (design.md#local)
            "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", "2"),
            **{k: os.environ.get(k, v) for k, v in SERVER_SETTINGS.items()},
            **seeded_settings(self._seeded),
        }
        env.pop("PREFECT_API_URL", None)
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--app-dir",
                str(Path(__file__).resolve().parents[1]),  # where `flows` is: its app factory, not Prefect's
                "--factory",
                APP_FACTORY,
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

    def _seed_db(self) -> None:
        """A new home starts from the migrated template database, if there is one (a cache: any failure only
        means the server migrates its own database, as Prefect does by default); a home seeded so skips the
        migrations and the block registration (:data:`SEEDED_SETTINGS`)."""
        self._fresh = _own_sqlite(self.home) and not (self.home / DB_FILE).exists()
        self._seeded = False
        if self._fresh and template_db().is_file():
            with contextlib.suppress(OSError, sqlite3.Error):
                copy_sqlite(template_db(), self.home / DB_FILE)
                self._fresh = False
                self._seeded = True

    def _keep_template(self) -> None:
        """After a server migrated a new home's database, keep a copy as the template for the next new home (it
        holds Prefect's schema and registered block types only: no flow has run yet)."""
        if getattr(self, "_fresh", False) and not template_db().is_file():
            with contextlib.suppress(OSError, sqlite3.Error):
                copy_sqlite(self.home / DB_FILE, template_db())

    def wait_ready(self) -> None:
        """Block until ``/api/health`` answers.

        Raises:
            RuntimeError: it exited or did not answer within ``STARTUP_TIMEOUT_SECONDS`` (its log is named).
        """
        with self._start_lock:  # the next start on this home may go once this one answers (or failed)
            deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
            while self.process is not None and time.monotonic() < deadline:
                if self.process.poll() is not None:
                    break
                with contextlib.suppress(Unreachable):
                    if health_status(self.api_url, 2.0) == 200:
                        self._keep_template()
                        return
                time.sleep(0.1)
        self.stop()
        path = self.home / "server.log"
        why = _last_error(path)
        raise ServerStartFailed(f"the local Prefect server did not start{f' ({why})' if why else ''}; see {path}")

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
    """End the process at once after a run on cosci's own temporary server (interpreter exit spent 2-6 s draining
    Prefect's event and log workers into a server that is about to be stopped anyway). Output is
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


def running() -> bool:
    """Whether this process started cosci's temporary server and it has not been stopped."""
    return _SERVER is not None


def boot_server(data_dir: Path) -> None:
    """Start cosci's temporary Prefect server without waiting (unless ``PREFECT_API_URL`` names one), as early as
    the command line is known to be valid: the server's start (6-22 s here) overlaps everything before the flow.
    ``flows.launch.run_session`` finds it running (:func:`ensure_server` is idempotent)."""
    from flows.env import prepare

    ensure_server(prepare(data_dir), wait=False)


def stop_server(within: Sequence[Path]) -> None:
    """Kill cosci's own temporary server if this process started one whose home lies in one of the folders
    ``within`` (a run refused before its session, about to delete them).

    Killed, not terminated: such a server was booted moments ago (:func:`boot_server`) and uvicorn holds a SIGTERM
    until the app's start-up is over (its ``capture_signals`` spans loading Prefect's app and the lifespan, seconds
    here), so a terminate waited out its whole grace and killed it anyway, 2 s added to every refused command line
    (and to each of the suite's bad-input tests). Its home is deleted next: nothing it would write is kept
    (docs/design.md#tests)."""
    global _SERVER
    if _SERVER is not None and any(_SERVER.home.resolve().is_relative_to(p.resolve()) for p in within):
        _SERVER.stop(grace_seconds=0.0)
        _SERVER = None
        os.environ.pop("PREFECT_API_URL", None)


def server_ready() -> None:
    """Wait for the server :func:`ensure_server` started, if any (see :meth:`TemporaryServer.wait_ready`)."""
    if _SERVER is not None:
        _SERVER.wait_ready()
