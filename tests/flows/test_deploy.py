"""`cosci schedule` serves the deployment; a run triggered by hand with overrides completes (issue 7)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


async def _wait_and_run(name: str, overrides: list[str]) -> object:
    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment

    async with get_client() as client:
        deadline = time.monotonic() + 180
        while True:
            try:
                await client.read_deployment_by_name(name)
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(1.0)
    # its state read every second instead of Prefect's 5 (design.md#tests): the same run, seen ending sooner
    return await run_deployment(name, parameters={"overrides": overrides}, timeout=600, poll_interval=1)


def test_served_deployment_runs_with_overrides(prefect_server: None, tmp_path: Path) -> None:
    from prefect.settings import PREFECT_API_URL

    data = tmp_path / "data"
    env = {
        **os.environ,
        "PREFECT_API_URL": str(PREFECT_API_URL.value()),
        "COSCI_DATA_DIR": str(data),
        "PYTHONPATH": str(ROOT),
        # the served runner asks for runs due every second instead of Prefect's 10: the run triggered below was
        # picked up 0-10 s after it was due (the same runner, the same query; docs/design.md#tests)
        "PREFECT_RUNNER_POLL_FREQUENCY": "1",
    }
    env.pop("PREFECT_HOME", None)
    base = ["experiment=demo", "models=fake", "tools.offline=true"]  # tracked, as a user's run is by default
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cosci.cli", "schedule", *base, "--cron", "0 0 1 1 *", "--name", "test"],
        env=env,
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        run = asyncio.run(_wait_and_run("cosci-scheduled-session/test",
                                        [*base, "run.max_hypotheses=2"]))
        assert run.state is not None and run.state.is_completed(), (
            run.state,
            (tmp_path / "serve.log").read_text()[-3000:],
        )
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    sessions = list((data / "sessions").glob("*/store.sqlite"))
    assert len(sessions) == 1
    from cosci.store import SessionStore

    store = SessionStore.open(sessions[0], sessions[0].parent.name)
    row = store.sessions.get()
    assert row.status == "done" and row.config_snapshot["run"]["max_hypotheses"] == 2  # the demo's is 3
    # a real session, as `python -m cosci.run` makes (issue 12: it used to end done with 0 hypotheses)
    assert store.hypotheses.count() >= 2 and store.matches.count() >= 1
    assert not store.logs.events("task_failed"), store.logs.events("task_failed")[:3]
    overview = (sessions[0].parent / "final" / "overview.md").read_text()
    assert "[H-" in overview
    # its MLflow run, written from the tracker's worker thread inside the served flow run (issue 11)
    from mlflow.tracking import MlflowClient

    client = MlflowClient(f"sqlite:///{data / 'mlflow.db'}")
    mlrun = client.get_run(row.mlflow_run_id)
    assert mlrun.info.status == "FINISHED"
    assert mlrun.data.metrics["final_hypotheses"] == store.hypotheses.count()
    assert len(client.get_metric_history(mlrun.info.run_id, "matches")) >= 1
    names = {a.path for a in client.list_artifacts(mlrun.info.run_id)}
    assert {"overview.md", "summary.json", "report.html"} <= names, names
    store.close()
