"""SIGKILL while a batch of matches is pending at the (fake) provider, then resume (issue 16): the resumed
session polls the same batch id, submits no match twice, and applies each match's Elo once."""

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

from bench.scheduling import FAKE_DEDUP
from cosci.store import STORE_FILE, SessionStore
from tests.conftest import CliHere
from tests.flows.test_session_flow import check_invariants

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
RESUMED = ["models.fake.latency_seconds=0", "ranking.batch_poll_seconds=0"]
"""The resume's overrides beside the polls: the latency and the poll interval let the kill land on a pending batch;
the resumed rest only has to finish (docs/design.md#tests)."""


def _pending_batch(data: Path) -> tuple[Path, str] | None:
    """The record and the batch id of a submitted batch, once one exists."""
    for db in (data / "sessions").glob(f"*/{STORE_FILE}") if (data / "sessions").exists() else []:
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
                row = conn.execute("SELECT batch_id FROM tasks WHERE batch_id IS NOT NULL LIMIT 1").fetchone()
        except sqlite3.Error:
            continue
        if row:
            return db, row[0]
    return None


def test_sigkill_while_a_batch_is_pending_then_resume(prefect_api_url: str, cli_here: CliHere, tmp_path: Path) -> None:
    data, batches = tmp_path / "data", tmp_path / "batches"
    env = {**os.environ, "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(ROOT), "PREFECT_API_URL": prefect_api_url}
    args = [sys.executable, "-m", "cosci.run", "experiment=demo", "models=fake", "tools.offline=true",
            "tracking.enabled=false", "+models.tiers.cheap.batch=true", "ranking.batch_top_chance=1.0",
            "ranking.batch_size=2", "ranking.batch_poll_seconds=0.2",
            f"models.fake.batch_dir={batches}", "models.fake.batch_polls=1000000",  # never ends in this process
            "models.fake.latency_seconds=0.05", *FAKE_DEDUP]  # chance 1: every match is batched
    out = tmp_path / "first.log"
    proc = subprocess.Popen(args, env=env, cwd=tmp_path, stdout=out.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    found = None
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None and found is None:
            found = _pending_batch(data)
            time.sleep(0.2)
        assert found is not None and proc.poll() is None, f"no pending batch to kill:\n{out.read_text()[-3000:]}"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    db, batch_id = found
    log_path = batches / "log.jsonl"
    seen_at_kill = len(log_path.read_text().splitlines())
    log = [json.loads(x) for x in log_path.read_text().splitlines()]
    killed = set(next(e["custom_ids"] for e in log if e["op"] == "create" and e["batch_id"] == batch_id))

    sid = db.parent.name
    # `cosci resume` in this process: the killed run was the process (tests/conftest.py, cli_here)
    code, _, err = cli_here("--data-dir", str(data), "resume", sid, "models.fake.batch_polls=1", *RESUMED)
    assert code == 0, err[-3000:]

    log = [json.loads(x) for x in log_path.read_text().splitlines()]
    after = log[seen_at_kill:]
    assert any(e["op"] == "poll" and e["batch_id"] == batch_id for e in after)  # the same batch, polled again
    assert any(e["op"] == "results" and e["batch_id"] == batch_id for e in after)
    assert not any(e["op"] == "create" and killed & set(e["custom_ids"]) for e in after)  # never resubmitted
    sent = [c for e in log if e["op"] == "create" for c in e["custom_ids"]]
    assert len(sent) == len(set(sent))  # no match in two batches
    store = SessionStore.open(db, sid)
    try:
        assert store.sessions.get().status == "done"
        journal = [r["match_id"] for r in store.db.query("SELECT match_id FROM elo_journal")]
        assert killed <= set(journal) and len(journal) == len(set(journal))  # applied, and once
        check_invariants(store)
    finally:
        store.close()
