"""Safety screening through the Prefect flow and the command line (issue 15): a refused goal exits 3 with one
line and the session recorded ``refused``; a flagged goal is tagged on the MLflow run; a withheld overview never
reaches MLflow."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.store import STORE_FILE, SessionStore
from flows.launch import refusal
from flows.session import session_flow
from tests.conftest import make_config

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def _run(config) -> dict:
    return asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo", "models=fake"], "fake"))


def _artifact_texts(client: MlflowClient, run_id: str, dest: Path) -> dict[str, str]:
    folder = Path(client.download_artifacts(run_id, "", str(dest)))
    return {p.relative_to(folder).as_posix(): p.read_text(errors="replace") for p in folder.rglob("*")
            if p.is_file() and p.suffix in (".md", ".json", ".txt")}


def test_flagged_goal_is_tagged_and_a_withheld_overview_stays_out_of_mlflow(
        prefect_server: None, fake: FakeBackend, tmp_path: Path, mlflow_uri: str) -> None:
    fake.script(FakeReply.verdict("flag", "biological", rationale="dual use"), agent="safety", action="ScreenGoal")
    fake.script(FakeReply.verdict("block", "biological", rationale="assembles a harmful route"),
                agent="safety", action="ScreenOverview")
    config = make_config(tmp_path / "data", "tracking.enabled=true", f"tracking.tracking_uri={mlflow_uri}")
    summary = _run(config)
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    withheld = store.safety.withheld_overview()
    store.close()
    assert withheld and "# Executive summary" in withheld
    client = MlflowClient(mlflow_uri)
    run = client.get_run(summary["mlflow_run_id"])
    assert run.data.tags["cosci.safety.goal"] == "flag" and run.data.tags["cosci.safety"] == "on"
    assert run.data.metrics["safety_flags"] == 1 and run.data.metrics["safety_blocks"] == 1
    texts = _artifact_texts(client, run.info.run_id, tmp_path / "artifacts")
    assert texts["overview.md"].startswith("# Overview withheld by safety screening")
    verdicts = json.loads(texts["safety/verdicts.json"])
    assert [v["decision"] for v in verdicts if v["subject"] in ("goal", "overview")] == ["flag", "block"]
    first_section = withheld.split("# Main research directions")[0].strip()
    assert all(first_section not in t for t in texts.values())  # the withheld text is in no artifact


def test_refused_goal_through_the_flow(prefect_server: None, fake: FakeBackend, tmp_path: Path) -> None:
    fake.script(FakeReply.verdict("block", "biological", rationale="enhancement request"),
                agent="safety", action="ScreenGoal")
    summary = _run(make_config(tmp_path / "data"))
    assert summary["stop_reason"] == "refused" and len(fake.calls) == 1
    error = refusal(tmp_path / "data", summary["session_id"])
    assert error.exit_code == 3 and "\n" not in str(error)
    assert "block (biological): enhancement request" in str(error) and "recorded as refused" in str(error)


def test_python_m_cosci_run_exits_3_on_a_refused_goal(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}
    goal = 'session.goal="Make the virus spread between ferrets [fake-safety:block]"'
    calls = tmp_path / "calls.jsonl"
    args = [sys.executable, "-m", "cosci.run", "experiment=demo", "models=fake", "tools.offline=true",
            "tracking.enabled=false", f"models.fake.call_log={calls}", goal]
    done = subprocess.run(args, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 3, done.stderr[-3000:]
    logged = [json.loads(line) for line in calls.read_text().splitlines()]
    assert [(c["agent"], c["action"]) for c in logged] == [("safety", "ScreenGoal")]  # the fake's call log
    refused = [line for line in done.stderr.splitlines() if "goal refused" in line]
    assert len(refused) == 1 and "(biological)" in refused[0] and "Traceback" not in done.stderr
    [folder] = list((data / "sessions").iterdir())
    store = SessionStore.open(folder / STORE_FILE, folder.name)
    assert store.sessions.status() == "refused" and set(store.logs.spend()) == {"safety"}
    assert store.tasks.counts() == {"done": 1}
    store.close()
