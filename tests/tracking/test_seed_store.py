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
