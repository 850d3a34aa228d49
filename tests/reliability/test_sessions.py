"""Short versions of the reliability suite on whole sessions (issue 12; long versions: ``python -m
bench.reliability``): SIGKILL and resume, 30 % transient faults, the budget cap at concurrency 8, no secret in
anything a run writes, and a session whose goal cannot be parsed ends ``failed`` (its flow run Failed)."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import reliability as suite
from cosci.errors import SessionFailed
from cosci.llm.fake.provider import FakeBackend
from cosci.store import STORE_FILE, SessionStore
from tests.conftest import CliHere, make_config

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def shared_server(prefect_api_url: str) -> Iterator[str]:
    """The worker's one Prefect server for subprocesses (:func:`tests.conftest.prefect_api_url`) for this
    module's sessions (children inherit ``PREFECT_API_URL``): no boot of a server of the module's own where another
    module of the worker started it (about 5 s of CPU, docs/design.md#tests)."""
    saved = os.environ.get("PREFECT_API_URL")
    os.environ["PREFECT_API_URL"] = prefect_api_url
    try:
        yield prefect_api_url
    finally:
        if saved is None:
            os.environ.pop("PREFECT_API_URL", None)
        else:
            os.environ["PREFECT_API_URL"] = saved


KILL_POOL = "run.max_hypotheses=4"
"""The killed sessions' pool: four hypotheses, not the bench's eight (``bench.reliability.kill_trial``). The kills of
the two seeds below (after 8 and 15 finished actions) still land mid-run, in sessions of 42 and 54 actions (measured),
and the resumed rest is shorter (docs/development.md, test time, eighth pass)."""


@pytest.mark.parametrize("seed", [3, 11])
def test_sigkill_at_a_random_moment_then_resume(shared_server: str, cli_here: CliHere, tmp_path: Path,
                                                seed: int) -> None:
    # the fake's latency lets the kill land mid-run; the resumed rest only has to finish, here in the test's process
    # (the killed run is a process of its own; docs/design.md#tests)
    def resume(argv: list[str]) -> tuple[int, str]:
        code, _, err = cli_here(*argv)
        return code, err

    assert suite.kill_trial(tmp_path, random.Random(seed), KILL_POOL, resume=("models.fake.latency_seconds=0",),
                            resumer=resume) == []


def test_thirty_percent_transient_faults_still_finish_and_no_api_key_reaches_anything_a_run_writes(
        shared_server: str, tmp_path: Path) -> None:
    """The long suite's ``faults`` and ``secrets`` checks on one session, a process of its own: 30 % transient
    faults on every call with dummy API keys in its environment and tracking on; it finishes with its invariants
    held, and no key is in its record, MLflow store and artifacts, Prefect files or output, error paths included.
    (Each was a session of its own: one process start fewer, docs/design.md#tests.)"""
    proc = suite.run([sys.executable, "-m", "cosci.run", *suite.FAKE, "tracking.enabled=true",
                      "models.fake.fault_rate=0.3", "models.fake.seed=5", "retry.base_delay_seconds=0",
                      "retry.max_delay_seconds=0", "run.max_hypotheses=2"],  # two, not the demo's three
                     suite.env_for(tmp_path / "data", **suite.DUMMY_KEYS), tmp_path)
    (tmp_path / "run.log").write_text(proc.stdout + proc.stderr)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (db,) = suite.records(tmp_path / "data")
    assert suite.invariant_errors(db) == []
    assert suite.scan_for_keys(tmp_path) == []


def test_spend_never_exceeds_the_cap_at_concurrency_8(shared_server: str) -> None:
    check = suite.check_budget(1, seed=2)
    assert check.ok, check.notes


def test_the_scanner_finds_a_planted_key(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(f"oops {suite.DUMMY_KEYS['OPENAI_API_KEY']}")
    assert suite.scan_for_keys(tmp_path) == ["a.log"]


def test_a_goal_that_cannot_be_parsed_fails_the_session_and_the_flow(prefect_server: None, fake: FakeBackend,
                                                                     tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The served-deployment failure (a task that cannot reach its session: ``KeyError: 's-…'``) must end the
    session ``failed`` and raise out of the flow (Prefect then marks the run Failed), never ``done``/``idle``.
    A model error is not enough to fail goal parsing (the goal agent falls back to the goal as the plan)."""
    from cosci.session.runtime import SessionRuntime
    from flows.session import session_flow

    async def lost(self: SessionRuntime, task: object) -> object:
        raise KeyError(self.session_id)

    monkeypatch.setattr(SessionRuntime, "execute", lost)
    config = make_config(tmp_path / "data")
    with pytest.raises(SessionFailed, match=r"(supervisor/ParseGoal|safety/ScreenGoal) failed"):
        asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo"], "fake", None))
    (db,) = (tmp_path / "data" / "sessions").glob(f"*/{STORE_FILE}")
    store = SessionStore.open(db, db.parent.name)
    row = store.sessions.get()
    assert (row.status, row.stop_reason) == ("failed", "error")
    assert store.logs.events("session_failed")
    assert store.hypotheses.count() == 0
    store.close()
    with sqlite3.connect(db) as conn:  # the goal task is dead, not silently pending
        first = "ScreenGoal" if config.safety and config.safety.enabled else "ParseGoal"  # issue 15: screened first
        assert conn.execute("SELECT status FROM tasks WHERE action=?", (first,)).fetchone()[0] == "dead"


@pytest.mark.parametrize("error", ["auth", "not_found"])
def test_a_rejected_key_or_missing_model_fails_the_session(prefect_server: None, fake: FakeBackend, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch, error: str) -> None:
    """Fresh-user report: a model the provider does not serve failed every call, and the session still ended
    ``idle`` with exit 0 and an empty overview. Such an error fails every later call alike: the session ends
    ``failed`` at the first one, whichever agent meets it."""
    from cosci.llm.errors import AuthFailed, ModelUnavailable
    from cosci.session.runtime import SessionRuntime
    from flows.session import session_flow

    real = SessionRuntime.execute

    async def refused(self: SessionRuntime, task: object) -> object:
        if getattr(task, "agent", "") == "generation":
            raise (AuthFailed("invalid x-api-key") if error == "auth" else
                   ModelUnavailable("no model left in the degradation chain"))
        return await real(self, task)  # type: ignore[arg-type]

    monkeypatch.setattr(SessionRuntime, "execute", refused)
    config = make_config(tmp_path / "data")
    with pytest.raises(SessionFailed, match=r"generation/\w+ failed: (AuthFailed|ModelUnavailable)"):
        asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo"], "fake", None))
    _assert_failed(tmp_path / "data")


def test_an_unreachable_host_ends_the_session_with_its_one_line_first(
        prefect_server: None, fake: FakeBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: the session's summary of nothing (0 hypotheses, $0) came first and the line naming the host
    last, as "goal_parsing/ParseGoal failed: HostUnreachable: <model>: cannot reach ...". The line leads with the host
    and its fix, no summary buries it, and `cosci status` says why the session failed."""
    from cosci.llm.errors import HostUnreachable
    from cosci.llm.gateway.unreachable import message
    from cosci.session.runtime import SessionRuntime
    from flows.session import session_flow
    from tests.conftest import run_cli

    async def unreachable(self: SessionRuntime, task: object) -> object:
        raise HostUnreachable(message("api.example.invalid:443", "its name does not resolve"),
                              model="anthropic/claude-x", host="api.example.invalid:443")

    monkeypatch.setattr(SessionRuntime, "execute", unreachable)
    config = make_config(tmp_path / "data")
    with pytest.raises(SessionFailed) as failed:
        asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo"], "fake", None, ui=True))
    line = str(failed.value)
    assert line.startswith("cannot reach api.example.invalid:443: its name does not resolve; check the network"), line
    assert "(model anthropic/claude-x)" in line and "once the host answers, `cosci resume" in line
    assert "stopped" not in capsys.readouterr().out  # no summary of nothing before the line
    _assert_failed(tmp_path / "data")
    (folder,) = (tmp_path / "data" / "sessions").iterdir()
    code, out, _ = run_cli(capsys, "--data-dir", str(tmp_path / "data"), "status", folder.name)
    assert code == 0 and "stop reason  error (cannot reach api.example.invalid:443: its name" in out, out


def test_a_session_where_no_call_succeeds_fails(prefect_server: None, fake: FakeBackend, tmp_path: Path) -> None:
    """Fresh-user report: `models=ollama` with no Ollama server ended `idle`, exit 0, with an empty overview.
    Here every call meets a transient fault (retries spent): the session ends `failed`, naming the last error."""
    from flows.session import session_flow

    config = make_config(tmp_path / "data", "models.fake.fault_rate=1.0", "retry.base_delay_seconds=0",
                         "retry.max_delay_seconds=0")
    with pytest.raises(SessionFailed, match=r"^no model call succeeded \(\d+ attempts\); the last error: cosci-fake/"):
        asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo"], "fake", None))
    _assert_failed(tmp_path / "data")


def test_a_session_whose_generation_never_records_fails(prefect_server: None, fake: FakeBackend,
                                                        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user report: a server that answers every tool call with text (a model without tool calling) ended
    ``done`` / ``idle``, exit 0, with 0 hypotheses and an empty fallback overview. The calls succeed, so the check
    above does not see it; a session that runs out of work with no hypothesis while its actions failed ends
    ``failed``, naming the last action's error; its summary is on stdout as a finished session's is (fresh-user report:
``> summary.txt`` was empty), with no overview line (none was written)."""
    from cosci.llm.fake.types import FakeReply
    from flows.session import session_flow

    fake.script(FakeReply(text="Here is a hypothesis in prose, not a tool call."), agent="generation", times=500)
    config = make_config(tmp_path / "data", "retry.base_delay_seconds=0", "retry.max_delay_seconds=0")
    with pytest.raises(SessionFailed, match=r"^no hypothesis was made \(\d+ actions failed\); the last, "
                                            r"generation/\w+: .*record_hypothesis"):
        asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo"], "fake", None, ui=True))
    _assert_failed(tmp_path / "data")
    out = capsys.readouterr().out
    assert "stopped   error after" in out and "results   0 hypotheses" in out and "store     " in out
    assert "overview  " not in out


@pytest.mark.usefixtures("prefect_server", "fake")
def test_a_folder_that_cannot_be_written_at_the_end_is_one_line_and_a_failed_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fresh-user report: the session folder made unwritable before the overview was written ended in Hydra's block
    and two tracebacks (PermissionError from write_overview); it is one SessionFailed line naming the file and the
    resume, and the record says failed (its work kept for `cosci resume`)."""
    from cosci.session.runtime import SessionRuntime
    from flows.session import session_flow

    def unwritable(self: SessionRuntime, text: str) -> Path:
        raise PermissionError(1, "Operation not permitted", str(self.home.overview_path.parent))

    monkeypatch.setattr(SessionRuntime, "write_overview", unwritable)
    config = make_config(tmp_path / "data", "run.max_hypotheses=2")
    with pytest.raises(SessionFailed, match=r"^could not write .*final: Operation not permitted; the session is "
                                            r"recorded as failed: make its folder writable, then `cosci resume s-"):
        asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo"], "fake", None))
    _assert_failed(tmp_path / "data")


@pytest.mark.usefixtures("prefect_server", "fake")
def test_ctrl_c_while_the_overview_is_written_leaves_a_done_session_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fresh-user report: Ctrl-C once final/overview.md existed raised KeyboardInterrupt between a `done` record and
    its report and summary (the MLflow run left FAILED, no summary, exit 130); the session's handler keeps the signal
    until the end, so the session ends done with its summary."""
    import signal

    from cosci.session.runtime import SessionRuntime
    from flows.session import session_flow

    written = SessionRuntime.write_overview

    def interrupted(self: SessionRuntime, text: str) -> Path:
        os.kill(os.getpid(), signal.SIGINT)  # delivered while the overview is written, as a keypress would be
        return written(self, text)

    monkeypatch.setattr(SessionRuntime, "write_overview", interrupted)
    config = make_config(tmp_path / "data", "run.max_hypotheses=2")
    try:
        summary = asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo"], "fake", None,
                                           ui=True))
    except KeyboardInterrupt:  # what it did: fail this test, not the whole test run
        pytest.fail("Ctrl-C while the overview was written reached the flow as KeyboardInterrupt")
    assert summary["stop_reason"] != "interrupted", summary
    (db,) = (tmp_path / "data" / "sessions").glob(f"*/{STORE_FILE}")
    store = SessionStore.open(db, db.parent.name)
    try:
        assert store.sessions.get().status == "done"
    finally:
        store.close()
    assert (db.parent / "final" / "report.html").is_file()


def _assert_failed(data: Path) -> None:
    """The one session under ``data`` ended ``failed`` with stop reason ``error``."""
    (db,) = (data / "sessions").glob(f"*/{STORE_FILE}")
    store = SessionStore.open(db, db.parent.name)
    try:
        assert (store.sessions.get().status, store.sessions.get().stop_reason) == ("failed", "error")
    finally:
        store.close()
