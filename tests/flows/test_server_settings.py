"""A run's own Prefect server (design.md#supervisor, "The run's own Prefect server"): the services that read every
event and that a temporary server has no use for are off, the task run recorder writes events in batches, and every
task run and its states are still recorded by the time the server has stopped."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flows import server as server_module
from flows.server import DB_FILE, SEEDED_SETTINGS, SERVER_SETTINGS, TemporaryServer, template_db

ROOT = Path(__file__).resolve().parents[2]


class _Started(Exception):
    """Raised by the fake Popen with the environment it was given."""

    def __init__(self, env: dict[str, str]) -> None:
        super().__init__("started")
        self.env = env


def _launch_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: str = "home") -> dict[str, str]:
    def popen(*_args: Any, env: dict[str, str], **_kwargs: Any) -> None:
        raise _Started(env)

    monkeypatch.setattr(server_module.subprocess, "Popen", popen)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    server = TemporaryServer(tmp_path / home)
    try:
        with pytest.raises(_Started) as started:
            server.launch()
    finally:  # launch took the home's first-start lock (flock): a second launch on it in this process would wait
        server._start_lock.close()  # forever while the first's file is open (the traceback keeps it)
    return started.value.env


def test_the_servers_event_services_are_set_and_the_environment_wins(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SERVER_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    env = _launch_env(tmp_path, monkeypatch)
    assert env["PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED"] == "false"
    assert env["PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED"] == "false"
    assert int(env["PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE"]) > 1
    assert "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED" not in env  # the task runs are still recorded

    monkeypatch.setenv("PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED", "true")  # a user's choice is kept
    assert _launch_env(tmp_path, monkeypatch)["PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED"] == "true"


def _clear_seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, (_value, alias) in SEEDED_SETTINGS.items():
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(alias, raising=False)


def test_a_home_seeded_from_the_template_skips_the_migrations_and_the_block_registration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """design.md#startup: only a home this launch seeded from the template (written by a server of the same Prefect
    version and collections once it had migrated and registered) skips them; a new home without a template and a
    home that existed before (possibly an older Prefect's schema) migrate as Prefect does by default."""
    _clear_seeded(monkeypatch)
    monkeypatch.delenv("PREFECT_API_DATABASE_CONNECTION_URL", raising=False)
    monkeypatch.delenv("PREFECT_SERVER_DATABASE_CONNECTION_URL", raising=False)
    unseeded = _launch_env(tmp_path, monkeypatch, "no-template")  # no template in this user cache yet
    assert not any(name in unseeded for name in SEEDED_SETTINGS)

    template_db().parent.mkdir(parents=True)
    with sqlite3.connect(template_db()) as db:
        db.execute("CREATE TABLE alembic_version (version_num TEXT)")
    db.close()
    seeded = _launch_env(tmp_path, monkeypatch, "new")
    assert (tmp_path / "new" / DB_FILE).is_file()
    assert seeded["PREFECT_SERVER_DATABASE_MIGRATE_ON_START"] == "false"
    assert seeded["PREFECT_SERVER_REGISTER_BLOCKS_ON_START"] == "false"

    again = _launch_env(tmp_path, monkeypatch, "new")  # its database existed before this launch: not seeded by it
    assert not any(name in again for name in SEEDED_SETTINGS)

    monkeypatch.setenv("PREFECT_API_DATABASE_MIGRATE_ON_START", "true")  # a user's choice, under the old name, wins
    mine = _launch_env(tmp_path, monkeypatch, "newer")
    assert "PREFECT_SERVER_DATABASE_MIGRATE_ON_START" not in mine
    assert mine["PREFECT_API_DATABASE_MIGRATE_ON_START"] == "true"
    assert mine["PREFECT_SERVER_REGISTER_BLOCKS_ON_START"] == "false"


RUN = """
from prefect import flow, task

@task(name="agent-action")
def action(i: int) -> int:
    return i + 1

@flow(name="settings-check")
def run() -> int:
    return sum(action(i) for i in range(3))

print(run(), flush=True)
"""


@pytest.mark.slow
def test_every_task_run_and_its_states_are_recorded_once_the_server_stopped(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Three task runs (three state events each: fewer than a recorder batch) are in the server's database once
    it stopped: its shutdown writes what the recorder holds; no event is copied into the ``events`` table."""
    for name in SERVER_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    server = TemporaryServer(tmp_path / "home")
    url = server.start()
    try:
        env = {**os.environ, "PREFECT_API_URL": url, "PREFECT_HOME": str(tmp_path / "home"),
               "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PYTHONPATH": str(ROOT)}
        done = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip().splitlines()[-1] == "6"
    finally:
        server.stop()
    with sqlite3.connect(tmp_path / "home" / DB_FILE) as db:
        runs = db.execute("SELECT state_type FROM task_run").fetchall()
        states = db.execute("SELECT count(*) FROM task_run_state").fetchone()[0]
        events = db.execute("SELECT count(*) FROM events").fetchone()[0]
    assert runs == [("COMPLETED",)] * 3
    assert states >= 3 * 3  # pending, running, completed for each
    assert events == 0
