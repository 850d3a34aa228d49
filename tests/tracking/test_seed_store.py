"""A new SQLite tracking store starts as a copy of a migrated empty store from the user cache (issue 11)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from mlflow.tracking import MlflowClient

from cosci.tracking.stores import seed_store


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_new_store_is_copied_from_the_template_and_works(cache: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    first, second = tmp_path / "a" / "mlflow.db", tmp_path / "b" / "mlflow.db"
    first.parent.mkdir()
    second.parent.mkdir()
    seed_store(f"sqlite:///{first}")
    [template] = list(cache.rglob("mlflow.db"))
    assert first.is_file() and "mlflow-db" in template.parts
    seed_store(f"sqlite:///{second}")
    for path in (first, second):
        client = MlflowClient(tracking_uri=f"sqlite:///{path}")
        exp = client.create_experiment("cosci-test")
        run = client.create_run(exp)
        client.log_metric(run.info.run_id, "x", 1.0)
        assert client.get_run(run.info.run_id).data.metrics == {"x": 1.0}
        [(location,)] = sqlite3.connect(path).execute("SELECT artifact_location FROM experiments WHERE"
                                                      " experiment_id=0").fetchall()
        assert location == str(tmp_path / "mlruns" / "0")  # where MLflow itself would put it, not the cache


def test_an_existing_store_and_other_stores_are_left_alone(cache: Path, tmp_path: Path) -> None:
    existing = tmp_path / "mlflow.db"
    existing.write_bytes(b"")
    seed_store(f"sqlite:///{existing}")
    assert existing.read_bytes() == b""
    seed_store("http://127.0.0.1:1")
    seed_store("sqlite://")
    seed_store(str(tmp_path / "mlruns"))
    assert not cache.exists()
    assert not (tmp_path / "mlruns").exists()


def test_a_cache_that_cannot_be_written_costs_only_the_saving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    store = tmp_path / "mlflow.db"
    seed_store(f"sqlite:///{store}")  # no error
    client = MlflowClient(tracking_uri=f"sqlite:///{store}")
    assert client.create_experiment("cosci-test")


def test_a_moved_data_folder_writes_artifacts_into_itself(cache: Path, tmp_path: Path) -> None:
    """Fresh-user report: resuming a session in a moved folder wrote its artifacts back to the old folder."""
    import shutil

    from cosci.tracking import artifact_location, default_uri
    from cosci.tracking.stores import experiment_id, relocate_artifacts

    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    uri = default_uri(old)
    seed_store(uri)
    client = MlflowClient(tracking_uri=uri)
    exp = experiment_id(client, "cosci", artifact_location(uri, old, "cosci"))
    run_id = client.create_run(exp).info.run_id
    client.log_text(run_id, "before the move", "overview.md")
    assert relocate_artifacts(uri, old) == 0  # nothing moved
    shutil.move(old, new)

    from mlflow.tracking._tracking_service import utils as mlflow_utils

    mlflow_utils._artifact_repos_cache.clear()  # a resume is a new process: MLflow caches a run's artifact store
    uri = default_uri(new)
    assert relocate_artifacts(uri, new) == 2  # the experiment and its run
    assert relocate_artifacts(uri, new) == 0
    client = MlflowClient(tracking_uri=uri)
    run = client.get_run(run_id)
    assert run.info.artifact_uri.startswith((new / "mlartifacts").as_uri() + "/")
    client.log_text(run_id, "after the move", "summary.md")
    assert not old.exists(), sorted(str(p) for p in old.rglob("*"))
    assert {a.path for a in client.list_artifacts(run_id)} == {"overview.md", "summary.md"}
    assert experiment_id(client, "cosci", artifact_location(uri, new, "cosci")) == exp


def test_a_store_outside_the_data_folder_is_not_relocated(cache: Path, tmp_path: Path) -> None:
    from cosci.tracking.stores import relocate_artifacts

    store = tmp_path / "elsewhere" / "mlflow.db"
    store.parent.mkdir()
    seed_store(f"sqlite:///{store}")
    assert relocate_artifacts(f"sqlite:///{store}", tmp_path / "data") == 0
    assert relocate_artifacts("http://127.0.0.1:5000", tmp_path) == 0
