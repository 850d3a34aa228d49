"""An evaluation (``cosci eval``, design.md#eval) as one MLflow parent run; each session it runs is a child.

:func:`start_eval_parent` creates the parent run (tags ``cosci.eval``, benchmark, corpus, seeds, models) and
returns its id; the caller sets ``COSCI_MLFLOW_PARENT_RUN_ID`` so each session's own tracker tags itself
``mlflow.parentRunId`` (as in a sweep, :mod:`cosci.tracking.sweeps`). :func:`log_child_metrics` adds the
session's eval metrics to its (finished) child run; :func:`finish_eval_parent` logs the report files as
artifacts and the overall numbers as metrics, and closes the parent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from mlflow.tracking import MlflowClient

from cosci.tracking.stores import experiment_id, seed_store


def start_eval_parent(uri: str, experiment: str, artifact_location: str, name: str,
                      tags: Mapping[str, str], params: Mapping[str, object]) -> str:
    """Create the parent run of an evaluation; returns its run id."""
    seed_store(uri)
    client = MlflowClient(tracking_uri=uri)
    exp_id = experiment_id(client, experiment, artifact_location)
    run = client.create_run(exp_id, run_name=name, tags={"cosci.eval": "true", **tags})
    for key, value in params.items():
        client.log_param(run.info.run_id, key, str(value)[:500])
    return run.info.run_id


def log_child_metrics(uri: str, run_id: str, metrics: Mapping[str, float]) -> None:
    """Log ``eval_<name>`` metrics on a session's run (missing values, NaN, are skipped)."""
    client = MlflowClient(tracking_uri=uri)
    for key, value in metrics.items():
        if value is not None and not math.isnan(value):
            client.log_metric(run_id, f"eval_{key}", float(value))


def finish_eval_parent(uri: str, run_id: str, report_dir: Path, metrics: Mapping[str, float],
                       failed: bool = False) -> None:
    """Log every file in ``report_dir`` as an artifact and ``metrics`` (NaN skipped); close the parent."""
    client = MlflowClient(tracking_uri=uri)
    client.log_artifacts(run_id, str(report_dir))
    for key, value in metrics.items():
        if not math.isnan(value):
            client.log_metric(run_id, key, float(value))
    client.set_terminated(run_id, status="FAILED" if failed else "FINISHED")


def child_runs(uri: str, parent_run_id: str) -> list[str]:
    """Run ids of the children of ``parent_run_id``, oldest first."""
    client = MlflowClient(tracking_uri=uri)
    parent = client.get_run(parent_run_id)
    runs = client.search_runs([parent.info.experiment_id],
                              filter_string=f"tags.mlflow.parentRunId = '{parent_run_id}'",
                              order_by=["attributes.start_time ASC"], max_results=10_000)
    return [r.info.run_id for r in runs]
