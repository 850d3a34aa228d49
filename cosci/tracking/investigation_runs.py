"""An investigation as one MLflow run with a child run per worker (docs/design.md#investigation).

The parent (tags ``cosci.investigation``, the run id, the task, the isolation) gets the run's parameters, the
final metrics (selected score, evidence means and gains, gate counts, cost) and the report files as artifacts; each
worker's child (``mlflow.parentRunId``) gets, per cycle (the step), ``score``, ``gate_a``, ``gate_b``,
``best_so_far`` and ``cost_usd``. Run ids are kept in the run's manifest, so a resumed investigation logs into the
same runs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from pathlib import Path

from mlflow.entities import Metric
from mlflow.tracking import MlflowClient

from cosci.tracking.stores import experiment_id, seed_store


def start(uri: str, experiment: str, artifact_location: str | None, name: str, workers: int,
          tags: Mapping[str, str], params: Mapping[str, object]) -> tuple[str, dict[int, str]]:
    """Create the parent run and one child per worker; returns ``(parent id, {worker: child id})``."""
    seed_store(uri)
    client = MlflowClient(tracking_uri=uri)
    exp = experiment_id(client, experiment, artifact_location)
    parent = client.create_run(exp, run_name=name, tags={"cosci.investigation": "true", **tags}).info.run_id
    for key, value in params.items():
        client.log_param(parent, key, str(value)[:500])
    children = {w: client.create_run(exp, run_name=f"{name}/w{w}",
                                     tags={"mlflow.parentRunId": parent, "cosci.worker": str(w), **tags}).info.run_id
                for w in range(1, workers + 1)}
    return parent, children


def log_cycle(uri: str, child: str, cycle: int, metrics: Mapping[str, float | None]) -> None:
    """One cycle's metrics on a worker's child run, at step ``cycle`` (None and NaN skipped)."""
    client = MlflowClient(tracking_uri=uri)
    ts = int(time.time() * 1000)
    batch = [Metric(k, float(v), ts, cycle) for k, v in metrics.items() if v is not None and math.isfinite(v)]
    client.log_batch(child, metrics=batch)


def finish(uri: str, parent: str, children: Mapping[int, str], metrics: Mapping[str, float | None],
           artifacts: list[Path], failed: bool = False) -> None:
    """Log the final metrics and the artifact files on the parent; close the children and the parent."""
    client = MlflowClient(tracking_uri=uri)
    for key, value in metrics.items():
        if value is not None and math.isfinite(value):
            client.log_metric(parent, key, float(value))
    for path in artifacts:
        if path.is_file():
            client.log_artifact(parent, str(path))
    status = "FAILED" if failed else "FINISHED"
    for child in children.values():
        client.set_terminated(child, status=status)
    client.set_terminated(parent, status=status)


def child_count(uri: str, parent: str) -> int:
    """How many runs name ``parent`` as their parent (the test of "a parent with one child per worker")."""
    client = MlflowClient(tracking_uri=uri)
    exp = client.get_run(parent).info.experiment_id
    return len(client.search_runs([exp], filter_string=f"tags.mlflow.parentRunId = '{parent}'"))
