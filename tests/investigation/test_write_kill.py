"""Kill ``cosci investigate write`` with SIGKILL mid-repair, run it again: no finished call is asked twice
(docs/design.md#paper)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cosci.llm.fake.provider import FakeBackend
from tests.conftest import run_cli
from tests.investigation.test_write import RUN, finished_run

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _calls(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text().splitlines() if x.strip()] if log.exists() else []


def test_sigkill_mid_repair_then_resume_pays_no_finished_call_twice(tmp_path: Path, fake: FakeBackend,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    data, log = tmp_path / "data", tmp_path / "calls.jsonl"
    root = finished_run(data)
    env = {**os.environ, "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    # paper.max_words=100: the autopilot's paper is longer, so the length check fails and every round repairs
    cmd = [sys.executable, "-m", "cosci.cli", "investigate", "write", RUN, "models=fake", "paper.max_words=100",
           "models.fake.latency_seconds=1.0", f"models.fake.call_log={log}", "paper.reviewers=1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if any(c["action"] == "Repair1/1" for c in _calls(log)):  # the repair is in flight
                break
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = _calls(log)
    assert [c["action"] for c in before] == ["Plan/1", "Write/1", "Audit1/1", "Repair1/1"], (
        before, proc.stderr.read().decode()[-2000:] if proc.stderr else "")
    assert not (root / "paper" / "status.json").exists()

    # again without the latency that let the kill land mid-repair (a call's key holds no latency), in this process:
    # the killed run was the command's process (docs/design.md#tests)
    again = [a if not a.startswith("models.fake.latency_seconds=") else "models.fake.latency_seconds=0" for a in cmd]
    code, _, err = run_cli(capsys, *again[3:])
    assert code == 1, err[-3000:]  # the rounds ran out on the length check, and it says so
    after = _calls(log)[len(before):]
    # the last one was in flight when the process died; a later round may ask the same text again under its own
    # action (the autopilot's repair is the same paper), which is a new call, not a replay
    finished = {(c["action"], c["hash"]) for c in before[:-1]}
    assert not finished & {(c["action"], c["hash"]) for c in after}, "a finished call was asked again"
    assert after[0]["action"] == "Repair1/1"
    assert [c["action"] for c in after] == ["Repair1/1", "Audit2/1", "Repair2/1", "Audit3/1", "Review1/1",
                                            "Chair/1"]
    status = json.loads((root / "paper" / "status.json").read_text())
    assert not status["passed"] and status["checks"]["length"] == "fail"
    assert (root / "paper" / "paper.tex").read_text().startswith("% cosci checks: FAILING at the round limit")
