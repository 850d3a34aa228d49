"""A project's sessions are grouped in MLflow by the ``cosci.project`` run tag (design.md#projects): a session of a
project carries it, a session outside one does not, and a tag search finds the project's runs."""

from __future__ import annotations

from pathlib import Path

from mlflow.tracking import MlflowClient

from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from cosci.tracking.mlflow_run import SessionTracker
from tests.conftest import FAST, make_config


async def _run_id(tmp_path: Path, uri: str, *overrides: str) -> str:
    """The MLflow run a new session's tracker creates on the local SQLite store ``uri``."""
    config = make_config(tmp_path / "data", "tracking.enabled=true", f"tracking.tracking_uri={uri}",
                         "tracking.traces=false", *overrides)
    rt = await SessionRuntime.open(config, overrides=list(FAST), models_choice="fake")
    try:
        tracker = SessionTracker.start(config, rt.store, list(FAST), "fake")
        tracker.interrupted()
        return tracker.run_id
    finally:
        await rt.close()


async def test_a_project_session_run_carries_the_project_tag(fake: FakeBackend, tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    in_project = await _run_id(tmp_path, uri, "session.project=lab")
    alone = await _run_id(tmp_path, uri)
    client = MlflowClient(uri)
    assert client.get_run(in_project).data.tags["cosci.project"] == "lab"
    assert "cosci.project" not in client.get_run(alone).data.tags
    experiments = [e.experiment_id for e in client.search_experiments()]
    found = client.search_runs(experiments, filter_string="tags.`cosci.project` = 'lab'")
    assert [r.info.run_id for r in found] == [in_project]
