"""Sessions of the scripted fake for the web UI's tests: one finished (with the hostile text of the report tests:
a script tag in a title, an ``onerror`` handler in a review, HTML in a debate), one stopped before any task.

The finished one is a copy of the worker's (``finished_copy`` of ``tests/conftest.py``, run in-process without
Prefect); a session started from the form in these tests runs in-process too (:func:`tests.test_cli.run_plain`:
the launcher's ``run`` is replaced); the browser test starts the real thing.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cosci.llm.fake.provider import FAKE
from cosci.store import STORE_FILE, SessionStore
from tests.conftest import FinishedCopy, make_config
from tests.report.conftest import add_hostile_text
from tests.test_cli import open_only, run_plain

PROJECT = "aml-lab"
"""The project the finished session belongs to."""


@dataclass(frozen=True)
class Sessions:
    data: Path
    done: str
    stopped: str
    hostile: str
    quarantined: str

    def store(self, sid: str) -> SessionStore:
        return SessionStore.open(self.data / "sessions" / sid / STORE_FILE, sid)

    def ranked(self, sid: str) -> list[str]:
        store = self.store(sid)
        try:
            return [h.id for h in store.hypotheses.ranked() if h.state == "in_tournament"]
        finally:
            store.close()


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory, finished_copy: FinishedCopy) -> Sessions:
    data = tmp_path_factory.mktemp("web") / "data"
    done = finished_copy(data, f"session.project={PROJECT}")  # the worker's copy (tests/conftest.py)
    FAKE.reset()
    try:
        stopped = asyncio.run(open_only(make_config(data)))
    finally:
        FAKE.reset()
    store = SessionStore.open(data / "sessions" / done / STORE_FILE, done)
    try:
        hostile, quarantined = add_hostile_text(store)
    finally:
        store.close()
    return Sessions(data, done, stopped, hostile, quarantined)


@pytest.fixture
def copy(sessions: Sessions, tmp_path: Path) -> Sessions:
    """A copy of the sessions a test may change."""
    data = tmp_path / "copy"
    shutil.copytree(sessions.data, data)
    return Sessions(data, sessions.done, sessions.stopped, sessions.hostile, sessions.quarantined)


def plain_run(checked: Any) -> str:
    """The launcher's run in these tests: the checked session in-process on the fake, no Prefect."""
    FAKE.reset()
    return asyncio.run(run_plain(checked.prepared.config))


BASE = "http://127.0.0.1:7878"
"""The address the test client sends its requests to (a loopback ``Host``, as a browser on this machine does)."""


def client_of(data: Path, token: str | None = None) -> TestClient:
    from cosci.web.app import create_app
    from cosci.web.launch import Launcher

    return TestClient(create_app(data, token, Launcher(data, run=plain_run)), base_url=BASE)


@pytest.fixture
def client(sessions: Sessions) -> Iterator[TestClient]:
    with client_of(sessions.data) as c:
        yield c


def csrf(client: TestClient) -> str:
    """The form secret the server put in its pages."""
    return str(client.app.state.web.guard.csrf)  # type: ignore[attr-defined]


TABLES = ("researcher_ratings", "observations", "system_feedback", "events", "safety_verdicts", "transcripts")
"""The tables a researcher input, its screening or a session's start adds rows to."""


def written(data: Path) -> dict[str, Any]:
    """What a refused input must leave as it was: the sessions and files under the data folder (SQLite's side files
    aside) and, in each session's store, the rows every researcher input and screening adds."""
    files = sorted(str(p.relative_to(data)) for p in data.rglob("*")
                   if p.is_file() and not p.name.endswith(("-wal", "-shm", ".lock")))
    rows = {}
    for folder in sorted((data / "sessions").iterdir()):
        store = SessionStore.open(folder / STORE_FILE, folder.name)
        try:
            rows[folder.name] = {t: store.db.scalar(f"SELECT COUNT(*) FROM {t}") for t in TABLES}
            rows[folder.name]["states"] = sorted((h.id, h.state) for h in store.hypotheses.all())
            rows[folder.name]["status"] = store.sessions.status()
        finally:
            store.close()
    return {"files": files, "rows": rows}
