"""Resume through the service: the frozen configuration's own rules run before the engine starts."""

from __future__ import annotations

from typing import Any

import pytest

from cosci import api
from cosci.config.schema import CosciConfig
from cosci.errors import CosciError
from cosci.llm.fake.provider import FakeBackend
from tests.test_cli import open_only


def _opened_status(config: CosciConfig, session_id: str) -> str:
    """The session's status as the resumed engine's runtime finds it when it opens (what run_session does next)."""
    import asyncio

    from cosci.session.runtime import SessionRuntime

    async def status() -> str:
        rt = await SessionRuntime.open(config, session_id=session_id)
        try:
            return rt.store.sessions.status()
        finally:
            await rt.close()

    return asyncio.run(status())


async def test_a_resume_whose_tracking_server_is_gone_is_refused_before_the_engine(
        config: CosciConfig, fake: FakeBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    sid = await open_only(config)
    started: list[Any] = []
    monkeypatch.setattr("flows.launch.run_session", lambda *a, **kw: started.append(kw))
    session = api.open(sid, config.paths.data_dir)
    with pytest.raises(CosciError, match=r"^tracking\.tracking_uri: no MLflow server answers at http://127\.0\.0\.1:9"):
        session.resume(["tracking.enabled=true", "tracking.tracking_uri=http://127.0.0.1:9"])
    assert started == []
    resumed = session.resume()  # the same session with its own (untracked) configuration goes to the engine
    assert resumed.plan == "run" and started and started[0]["resume_id"] == sid


@pytest.mark.parametrize("before", ["stopped", "paused"])
async def test_a_pause_asked_while_a_resume_starts_wins(config: CosciConfig, fake: FakeBackend,
                                                        monkeypatch: pytest.MonkeyPatch, before: str) -> None:
    """Fresh-user report: `cosci pause` while `cosci resume` was still starting (its process booting) was dropped,
    the resume's start wrote `running` over it and the session ran on. The pause wins: the session opens paused
    (its process holds), whether it was stopped (killed) or paused before the resume."""
    from cosci.session.folder import SessionFolder

    sid = await open_only(config)
    session = api.open(sid, config.paths.data_dir)
    if before == "paused":
        session.pause()  # not running: marked paused, `cosci resume` continues it
    said: list[str] = []
    opened: list[str] = []

    def starting(config_: CosciConfig, **kw: Any) -> None:
        """The engine's start as run_session does it: the lock first, then (seconds later) the runtime opens; the
        pause arrives in between, from another command."""
        SessionFolder(config_.paths.data_dir, kw["resume_id"]).lock()
        said.append(api.open(sid, config.paths.data_dir).pause())
        opened.append(_opened_status(config_, kw["resume_id"]))

    monkeypatch.setattr("flows.launch.run_session", starting)
    session.resume()
    assert opened == ["paused"], said
    assert said and "hold" in said[0]
    assert session.status().status == "paused"


async def test_a_resume_without_a_pause_in_its_start_runs(config: CosciConfig, fake: FakeBackend,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A session paused before its resume (nothing asked meanwhile) runs again: the earlier pause is not held."""
    sid = await open_only(config)
    session = api.open(sid, config.paths.data_dir)
    session.pause()
    opened: list[str] = []

    def starting(config_: CosciConfig, **kw: Any) -> None:
        opened.append(_opened_status(config_, kw["resume_id"]))

    monkeypatch.setattr("flows.launch.run_session", starting)
    session.resume()
    assert opened == ["running"]
