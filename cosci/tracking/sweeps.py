"""A sweep (Hydra multirun) as one MLflow parent run whose children are the sessions (design.md#deployment).

:func:`start_parent` creates the parent run; each session's tracker finds its id (environment variable
``COSCI_MLFLOW_PARENT_RUN_ID``, or the file ``.mlflow_parent_run_id`` in the sweep folder for launchers whose
workers do not inherit the environment) and tags itself ``mlflow.parentRunId``. :func:`finish_parent` reads
the children back into the sweep summary table (one row per session: overrides, stop reason, top-1 Elo,
hypotheses, matches, USD, wall seconds), logs it as ``sweep_summary.parquet`` and ``sweep_summary.md``, and
closes the parent.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl
from mlflow.entities import Run, ViewType
from mlflow.tracking import MlflowClient

from cosci.tracking import PARENT_FILE
from cosci.tracking.stores import experiment_id, seed_store


def start_parent(uri: str, experiment: str, artifact_location: str | None, name: str, sweep_dir: Path) -> str:
    """Create the parent run and write its id to ``sweep_dir``; returns the run id.

    ``artifact_location`` is used only if the experiment is new (``None``: the tracking server's default).
    """
    seed_store(uri)
    client = MlflowClient(tracking_uri=uri)
    exp_id = experiment_id(client, experiment, artifact_location)
    run = client.create_run(exp_id, run_name=name, tags={"cosci.sweep": "true", "cosci.sweep_dir": str(sweep_dir)})
    sweep_dir.mkdir(parents=True, exist_ok=True)
    (sweep_dir / PARENT_FILE).write_text(run.info.run_id, encoding="utf-8")
    return run.info.run_id


def child_runs(client: MlflowClient, parent_run_id: str) -> list[Run]:
    """Every run tagged ``mlflow.parentRunId = parent_run_id``, oldest first, in *any* experiment: a sweep over
    ``experiment=demo,amr`` logs each session to its own experiment, while the parent is made before the sweep
    chooses one, in the base config's (``default`` when no experiment is set outside the sweep; design.md#resume)."""
    ids = [e.experiment_id for e in client.search_experiments(view_type=ViewType.ALL)]
    runs: list[Run] = []
    for start in range(0, len(ids), 100):  # MLflow caps the experiments of one search
        runs += client.search_runs(
            ids[start : start + 100],
            filter_string=f"tags.mlflow.parentRunId = '{parent_run_id}'",
            run_view_type=ViewType.ALL,
            max_results=10_000,
        )
    return sorted(runs, key=lambda r: (r.info.start_time or 0, r.info.run_id))


def children_frame(client: MlflowClient, parent_run_id: str) -> pl.DataFrame:
    """The sweep summary: one row per child run of ``parent_run_id`` (any experiment), oldest first."""
    runs = child_runs(client, parent_run_id)
    rows = []
    for r in runs:
        m, t = r.data.metrics, r.data.tags
        rows.append(
            {
                "session_id": t.get("cosci.session_id", r.info.run_name),
                "run_id": r.info.run_id,
                "overrides": t.get("cosci.sweep_overrides", ""),
                "stop_reason": t.get("cosci.stop_reason", ""),
                "top1_elo": m.get("final_top1_elo", m.get("top1_elo")),
                "hypotheses": m.get("final_hypotheses"),
                "matches": m.get("final_matches"),
                "spent_usd": m.get("final_spent_usd"),
                "wall_seconds": m.get("final_wall_seconds"),
                "status": r.info.status,
            }
        )
    schema = {
        "session_id": pl.Utf8,
        "run_id": pl.Utf8,
        "overrides": pl.Utf8,
        "stop_reason": pl.Utf8,
        "top1_elo": pl.Float64,
        "hypotheses": pl.Float64,
        "matches": pl.Float64,
        "spent_usd": pl.Float64,
        "wall_seconds": pl.Float64,
        "status": pl.Utf8,
    }
    return pl.DataFrame(rows, schema=schema)


def finish_parent(uri: str, parent_run_id: str, failed: bool = False) -> pl.DataFrame:
    """Log the sweep summary on the parent run and close it; returns the summary."""
    client = MlflowClient(tracking_uri=uri)
    frame = children_frame(client, parent_run_id)
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=80, tbl_formatting="MARKDOWN"):
        client.log_text(parent_run_id, str(frame) + "\n", "sweep_summary.md")
    with tempfile.TemporaryDirectory() as tmp:  # parquet needs a file
        frame.write_parquet(Path(tmp) / "sweep_summary.parquet")
        client.log_artifacts(parent_run_id, tmp)
    client.log_metric(parent_run_id, "sessions", float(frame.height))
    client.set_terminated(parent_run_id, status="FAILED" if failed else "FINISHED")
    return frame
