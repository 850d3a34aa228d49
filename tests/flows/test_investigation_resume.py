"""Kill an investigation mid-cycle with SIGKILL, resume it: no finished cycle runs again
(docs/design.md#investigation). Two rounds of two workers: the kill lands in the second, after a finished round (a
third round only ran more cycles to the end; docs/design.md#tests)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from cosci.sandbox.bwrap import probe

pytestmark = [pytest.mark.slow, pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")]
ROOT = Path(__file__).resolve().parents[2]


def _events(run: Path) -> list[dict]:
    path = run / "events.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


def test_sigkill_mid_cycle_then_resume(prefect_api_url: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    # the worker's Prefect server for subprocesses: neither process boots one of its own (docs/design.md#tests)
    env = {**os.environ, "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(ROOT), "PREFECT_API_URL": prefect_api_url}
    cmd = [sys.executable, "-m", "cosci.cli", "investigate", "run", str(ROOT / "tasks" / "circle_packing"),
           "models=fake", "models.fake.latency_seconds=0.4", "investigation.workers=2", "investigation.cycles=2",
           "evidence.seeds=2", "tracking.enabled=false"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    run: Path | None = None
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            runs = list((data / "investigations").glob("inv-*")) if (data / "investigations").exists() else []
            run = runs[0] if runs else None
            ev = _events(run) if run else []
            finished = {(e["worker"], e["cycle"]) for e in ev if e["event"] == "cycle_finished"}
            started = {(e["worker"], e["cycle"]) for e in ev if e["event"] == "cycle_started"}
            if {(1, 1), (2, 1)} <= finished and started - finished:  # round 1 done, round 2 under way
                break
            time.sleep(0.1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert run is not None, proc.stderr.read().decode()[-2000:] if proc.stderr else ""
    before = _events(run)
    done_before = {(e["worker"], e["cycle"]) for e in before if e["event"] == "cycle_finished"}
    assert {(1, 1), (2, 1)} <= done_before and len(done_before) < 4, "the kill did not land mid-run"
    assert json.loads((run / "manifest.json").read_text())["status"] == "running"

    out = subprocess.run([sys.executable, "-m", "cosci.cli", "investigate", "resume", run.name], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    after = _events(run)[len(before):]
    starts = Counter((e["worker"], e["cycle"]) for e in after if e["event"] == "cycle_started")
    assert not set(starts) & done_before, f"finished cycles ran again: {sorted(set(starts) & done_before)}"
    every = {(e["worker"], e["cycle"]) for e in _events(run) if e["event"] == "cycle_finished"}
    assert every == {(w, c) for w in (1, 2) for c in (1, 2)}
    assert json.loads((run / "manifest.json").read_text())["status"] == "done"
    assert "4 cycles (2 workers)" in out.stdout
