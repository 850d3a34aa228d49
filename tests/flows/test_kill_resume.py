"""Kill a running session with SIGKILL, resume it, and check nothing finished is paid for twice (issue 6).

The killed or interrupted run is a process of its own (the signal's target); ``cosci resume`` runs in the test's
process (:func:`tests.conftest.cli_here`): the same command without a second process's start (docs/design.md#tests);
its own process is tested in tests/test_stored_sessions.py."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cosci.agents.session_fit import session_verdicts
from cosci.store import STORE_FILE, SessionStore
from cosci.tournament.bt import fit_bt
from tests.conftest import CliHere
from tests.flows.test_session_flow import check_invariants

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
NO_LATENCY = ["models.fake.latency_seconds=0"]
"""The resume's override: the fake's latency is there so a signal lands mid-run; the resumed rest of the session
only has to finish, and at the run's latency it waited about as long again on sleeps (docs/design.md#tests)."""


def _done_tasks(db: Path) -> set[str]:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return {r[0] for r in conn.execute("SELECT id FROM tasks WHERE status='done'")}
    except sqlite3.Error:
        return set()


def _calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []


def _wait_for_done_tasks(proc: subprocess.Popen, data: Path, n: int, timeout: float = 240) -> Path | None:
    """Poll until the running session's store has ``n`` done tasks (or the process ends); returns the record."""
    deadline = time.monotonic() + timeout
    db: Path | None = None
    while time.monotonic() < deadline and proc.poll() is None:
        found = list((data / "sessions").glob(f"*/{STORE_FILE}")) if (data / "sessions").exists() else []
        db = found[0] if found else None
        if db and len(_done_tasks(db)) >= n:
            break
        time.sleep(0.2)
    return db


def test_sigkill_mid_run_then_resume(prefect_api_url: str, cli_here: CliHere, tmp_path: Path) -> None:
    data, log = tmp_path / "data", tmp_path / "calls.jsonl"
    env = {**os.environ, "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(ROOT), "PREFECT_API_URL": prefect_api_url}
    args = [
        sys.executable,
        "-m",
        "cosci.run",
        "experiment=demo",
        "models=fake",
        "tools.offline=true",
        "tracking.enabled=false",
        f"models.fake.call_log={log}",
        "models.fake.latency_seconds=0.25",
        "run.max_hypotheses=10",
    ]
    out = (tmp_path / "first.log").open("w")
    proc = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        db = _wait_for_done_tasks(proc, data, 12)
        assert proc.poll() is None, (
            f"the session ended before it could be killed:\n{(tmp_path / 'first.log').read_text()}"
        )
        assert db is not None
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    done_at_kill = _done_tasks(db)
    matches_at_kill = _matches(db)
    calls_at_kill = len(_calls(log))
    sid = db.parent.name
    # the rest in this process, without the latency that let the kill land mid-run (idle wall otherwise)
    code, _, err = cli_here("--data-dir", str(data), "resume", sid, *NO_LATENCY)
    assert code == 0, err[-3000:]
    after = _calls(log)[calls_at_kill:]
    assert after, "the resumed session made no calls"
    repeated = [c for c in after if c["task_id"] in done_at_kill]
    assert not repeated, f"finished actions called the model again: {repeated[:3]}"
    store = SessionStore.open(db, sid)
    assert store.sessions.get().status == "done"
    check_invariants(store)
    # issue 13: the matches played before the kill are kept as they were (same ids, order shown, outcome), and
    # the stored Bradley–Terry fit is the refit of the resumed record's verdicts
    assert matches_at_kill.items() <= _matches(db).items()
    players = {h.id for h in store.hypotheses.ranked()}
    stored = store.matches.bt()
    # a hypothesis added after the last refit has no matches yet: the stored fit is over the players it had then,
    # and its empirical-Bayes prior is fitted over those players, so the refit is too
    assert stored and set(stored) <= players
    verdicts, first = session_verdicts(store, 1)  # with the first-shown ids, as the session fits
    refit = fit_bt(sorted(stored), verdicts, first=first).table()
    for hid, row in stored.items():
        assert row == pytest.approx(refit[hid], abs=1e-6)
    store.close()


def _matches(db: Path) -> dict[str, tuple]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        return {r[0]: tuple(r[1:]) for r in conn.execute(
            "SELECT id, hyp_a, hyp_b, first_shown, winner, draw, verdicts FROM tournament_matches")}


def test_ctrl_c_stops_at_once_and_resume_finishes(prefect_api_url: str, cli_here: CliHere, tmp_path: Path) -> None:
    """A researcher's Ctrl-C (SIGINT to the whole process group) stops promptly; nothing is lost."""
    data = tmp_path / "data"
    env = {**os.environ, "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(ROOT), "PREFECT_API_URL": prefect_api_url}
    args = [sys.executable, "-m", "cosci.run", "experiment=demo", "models=fake", "tools.offline=true",
            "tracking.enabled=false", "models.fake.latency_seconds=0.5"]
    out = tmp_path / "first.log"
    proc = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=out.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        db = _wait_for_done_tasks(proc, data, 3)
        assert db is not None and proc.poll() is None, out.read_text()
        os.killpg(proc.pid, signal.SIGINT)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    text = out.read_text()
    assert code == 130, text
    assert "stopped   interrupted" in text and "cosci resume" in text and "Traceback" not in text
    assert "never awaited" not in text and "RuntimeWarning" not in text  # cancelled calls leave no warning
    sid = db.parent.name
    # one message, in order: interrupted, what was saved, how to resume; no bare "interrupted" after the hint
    # (fresh-user trial: it read as a second failure)
    lines = text.splitlines()
    assert "cosci: interrupted" not in lines, text
    said = [i for i, line in enumerate(lines) if line.startswith(("cosci: stopping", "stopped   interrupted",
                                                                    "store     "))]
    assert len(said) == 3 and said == sorted(said), text
    assert lines[-1] == f"continue  cosci resume {sid}", text
    store = SessionStore.open(db, sid)
    row = store.sessions.get()
    assert (row.status, row.stop_reason) == ("paused", "interrupted")
    assert not store.db.query("SELECT 1 FROM tasks WHERE status IN ('in_progress', 'leased')")  # back to pending
    store.close()
    code, _, err = cli_here("--data-dir", str(data), "resume", sid, *NO_LATENCY)
    assert code == 0, err[-3000:]
    store = SessionStore.open(db, sid)
    assert store.sessions.get().status == "done"
    check_invariants(store)
    store.close()


def test_a_second_ctrl_c_while_the_overview_is_written_says_interrupted(prefect_api_url: str,
                                                                        tmp_path: Path) -> None:
    """Fresh-user trial: Ctrl-C, then Ctrl-C again while the overview was written, left the stop reason `-` in
    `cosci list` and `cosci status` (it is written once the overview is). The first SIGINT lands once the final
    overview's call is sent (the fake's call log), the second a second later: exit 130, the record reads `running`
    (`cosci resume` finishes it) with the stop reason `interrupted`, and the store opens."""
    data, log = tmp_path / "data", tmp_path / "calls.jsonl"
    env = {**os.environ, "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(ROOT), "PREFECT_API_URL": prefect_api_url}
    args = [sys.executable, "-m", "cosci.run", "experiment=demo", "models=fake", "tools.offline=true",
            "tracking.enabled=false", "models.fake.latency_seconds=1", "run.max_hypotheses=2",
            f"models.fake.call_log={log}"]
    out = tmp_path / "first.log"
    proc = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=out.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        db = _wait_for_done_tasks(proc, data, 1)
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline and not any(
                c["agent"] == "metareview" and c["mode"] == "final" for c in _calls(log)):
            time.sleep(0.1)
        assert db is not None and proc.poll() is None, out.read_text()
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(1.0)  # a person's second press, past SAME_SIGNAL_SECONDS
        os.killpg(proc.pid, signal.SIGINT)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    text = out.read_text()
    assert code == 130, text
    assert "is writing its overview" in text, text
    store = SessionStore.open(db, db.parent.name)
    row = store.sessions.get()
    assert (row.status, row.stop_reason) == ("running", "interrupted"), text
    store.close()
