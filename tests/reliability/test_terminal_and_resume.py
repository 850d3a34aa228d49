"""Terminal conventions and relocatable sessions (issue 12).

- The final summary goes to stdout (``> log`` and ``| tee`` capture it); the estimate and progress stay on stderr.
- A paused process says it is paused and how to continue; an abort's stop reason reads ``aborted``.
- A session copied to another data folder resumes there, never in the folder it was created in.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from cosci.config.schema import CosciConfig
from cosci.llm.fake.provider import FakeBackend
from cosci.session.folder import SessionFolder
from cosci.session.runtime import SessionRuntime
from cosci.store import STORE_FILE, SessionStore
from cosci.supervisor.loop import Supervisor
from cosci.supervisor.termination import StopReason
from tests.test_cli import open_only


def test_the_summary_goes_to_stdout_and_the_estimate_to_stderr(monkeypatch: pytest.MonkeyPatch,
                                                                config: CosciConfig,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    import flows.launch
    import flows.session

    summary = {"session_id": "s-1", "stop_reason": "idle", "spent_usd": 0.01, "tokens": 10, "hypotheses": 2,
               "matches": 1, "top_elo": 1216.0, "elapsed_seconds": 3.0, "overview_path": "/x/overview.md",
               "store_path": "/x/store.sqlite", "mlflow_run_id": None}

    handed: dict[str, Any] = {}

    async def fake_flow(*args: Any, **kwargs: Any) -> dict[str, Any]:
        handed.update(kwargs)
        return summary

    monkeypatch.setattr(flows.launch, "ensure_server", lambda home, **kw: None)
    monkeypatch.setattr(flows.session, "session_flow", fake_flow)
    flows.launch.run_session(config, overrides=[])
    out, err = capsys.readouterr()
    assert "session   s-1" in out and "stopped   idle" in out and "overview  /x/overview.md" in out
    assert "session   s-1" not in err and "estimate" not in out.lower()
    # the flow prints the estimate on stderr once the goal screen passed (tests/flows/test_safety_flow.py)
    assert handed["estimate"].startswith("estimated cost ~$")


async def test_a_paused_session_says_so_and_an_abort_reads_aborted(config: CosciConfig, fake: FakeBackend) -> None:
    messages: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("cosci.supervisor.loop")
    logger.addHandler(handler)
    rt = await SessionRuntime.open(config, models_choice="fake")
    try:
        rt.store.sessions.update(status="paused")
        sup = Supervisor(config, rt.store, rt.budget, rt.execute)
        run = asyncio.create_task(sup.run())
        for _ in range(50):
            if messages:
                break
            await asyncio.sleep(0.1)
        rt.store.sessions.update(status="aborting")
        reason = await asyncio.wait_for(run, 30)
        await sup.finalize(reason)
    finally:
        logger.removeHandler(handler)
        await rt.close()
    sid = rt.session_id
    assert messages == [f"session {sid} is paused; this process waits: continue with `cosci resume {sid}`, stop with "
                        f"`cosci abort {sid}`"]
    assert reason == StopReason.EXTERNAL and str(reason) == "aborted"
    store = SessionStore.open(config.paths.data_dir / "sessions" / sid / STORE_FILE, sid)
    assert store.sessions.get().stop_reason == "aborted"
    store.close()


async def test_a_copied_session_resumes_in_the_folder_it_was_found(config: CosciConfig, fake: FakeBackend,
                                                                   tmp_path: Path) -> None:
    sid = await open_only(config)
    original = config.paths.data_dir
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    resumed = SessionFolder.existing(copy, sid).frozen_config()
    assert resumed.paths.data_dir == copy.resolve()

    rt = await SessionRuntime.open(resumed, session_id=sid, models_choice="fake")
    sup = Supervisor(resumed, rt.store, rt.budget, rt.execute)
    rt.write_overview(await sup.finalize(await sup.run()))
    await rt.close()

    def state(root: Path) -> tuple[str, int]:
        store = SessionStore.open(root / "sessions" / sid / STORE_FILE, sid)
        try:
            return store.sessions.status(), store.hypotheses.count()
        finally:
            store.close()

    assert state(copy)[0] == "done" and state(copy)[1] > 0
    assert state(original) == ("running", 0)  # the original was not touched
    assert (copy / "sessions" / sid / "final" / "overview.md").is_file()
    assert not (original / "sessions" / sid / "final").exists()
