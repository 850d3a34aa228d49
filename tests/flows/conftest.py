"""Flow tests share one Prefect test server and one MLflow store per test session (both are slow to start)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from flows.env import prepare


@pytest.fixture(scope="session")
def prefect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    prepare(tmp_path_factory.mktemp("prefect-home"))
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture(scope="session")
def mlflow_uri(tmp_path_factory: pytest.TempPathFactory) -> str:
    return f"sqlite:///{Path(tmp_path_factory.mktemp('mlflow')) / 'mlflow.db'}"
