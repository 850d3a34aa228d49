"""Compare sessions tracked in MLflow (issue 7): a polars table and two plots.

Sessions are selected by experiment name, by a sweep's parent run id, or by run ids / session ids. The
table has one row per session: ids, status, start time, every param (``param.<name>``), the latest value of
every metric (``metric.<name>``) and the cosci tags (``tag.<name>``). The plots: the top-1 Elo trajectories
overlaid (step = finished tasks), and cost (USD) against the final top-1 Elo. ``bench/`` uses these too.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path

import polars as pl
from mlflow.entities import Run
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient

from cosci.errors import CosciError


def _runs(client: MlflowClient, *, experiment: str | None, parent: str | None, ids: list[str] | None) -> list[Run]:
    if parent:
        try:
            run = client.get_run(parent)
        except MlflowException:
            raise CosciError(f"no MLflow run '{parent}' in {client.tracking_uri}") from None
        return client.search_runs(
            [run.info.experiment_id],
            f"tags.mlflow.parentRunId = '{parent}'",
            order_by=["attributes.start_time ASC"],
            max_results=10_000,
        )
    exps = [e.experiment_id for e in client.search_experiments()]
    if experiment:
        exp = client.get_experiment_by_name(experiment)
        if exp is None:
            raise CosciError(
                f"no MLflow experiment '{experiment}' (known: {', '.join(e.name for e in client.search_experiments())})"
            )
        runs = client.search_runs([exp.experiment_id], order_by=["attributes.start_time ASC"], max_results=10_000)
        return [r for r in runs if r.data.tags.get("cosci.sweep") != "true"]
    found = []
    for key in ids or []:
        try:
            found.append(client.get_run(key))
            continue
        except Exception:  # not a run id: try it as a session id
            pass
        match = client.search_runs(exps, f"tags.`cosci.session_id` = '{key}'", max_results=1)
        if not match:
            raise CosciError(f"no MLflow run for '{key}' (neither a run id nor a session id)")
        found.append(match[0])
    return found


def sessions_frame(runs: list[Run]) -> pl.DataFrame:
    """One row per run (see module docstring)."""
    rows = []
    for r in runs:
        row: dict[str, object] = {
            "run_id": r.info.run_id,
            "session_id": r.data.tags.get("cosci.session_id", r.info.run_name),
            "status": r.info.status,
            "start_time": r.info.start_time / 1000.0,
        }
        row.update({f"param.{k}": v for k, v in r.data.params.items()})
        row.update({f"metric.{k}": float(v) for k, v in r.data.metrics.items()})
        row.update({f"tag.{k.removeprefix('cosci.')}": v for k, v in r.data.tags.items() if k.startswith("cosci.")})
        rows.append(row)
    return (
        pl.DataFrame(rows)
        if rows
        else pl.DataFrame({"run_id": [], "session_id": []}, schema={"run_id": pl.Utf8, "session_id": pl.Utf8})
    )


def _label(frame: pl.DataFrame, i: int) -> str:
    row = frame.row(i, named=True)
    return str(row.get("tag.sweep_overrides") or row.get("session_id"))[:60]


def elo_overlay_png(client: MlflowClient, frame: pl.DataFrame, path: Path) -> Path:
    """Top-1 Elo against step (finished tasks) for every session, overlaid."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    for i, run_id in enumerate(frame["run_id"].to_list()):
        hist = sorted(client.get_metric_history(run_id, "top1_elo"), key=lambda m: m.step)
        if hist:
            ax.plot([m.step for m in hist], [m.value for m in hist], label=_label(frame, i), linewidth=1.4)
    ax.set_xlabel("finished tasks")
    ax.set_ylabel("top-1 Elo rating")
    ax.set_title("Top-1 Elo trajectories")
    if frame.height:
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def cost_vs_elo_png(frame: pl.DataFrame, path: Path) -> Path:
    """Final cost (USD) against final top-1 Elo, one point per session."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=110)
    cost = "metric.final_spent_usd" if "metric.final_spent_usd" in frame.columns else None
    elo = "metric.final_top1_elo" if "metric.final_top1_elo" in frame.columns else None
    if cost and elo:
        for i in range(frame.height):
            x, y = frame[cost][i], frame[elo][i]
            if x is not None and y is not None:
                ax.scatter([x], [y])
                ax.annotate(_label(frame, i), (x, y), fontsize=6)
    ax.set_xlabel("cost (USD)")
    ax.set_ylabel("final top-1 Elo rating")
    ax.ticklabel_format(useOffset=False, style="plain")
    ax.tick_params(axis="x", labelrotation=30)
    ax.set_title("Cost against top-1 Elo")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def compare(
    tracking_uri: str,
    *,
    experiment: str | None = None,
    parent: str | None = None,
    ids: list[str] | None = None,
    out_dir: Path | None = None,
) -> tuple[pl.DataFrame, list[Path]]:
    """Sessions as a table, plus the two plots written to ``out_dir`` (if given).

    Raises:
        CosciError: no selector given, or nothing matched it.
    """
    if not (experiment or parent or ids):
        raise CosciError("compare needs --experiment, --parent or --ids")
    client = MlflowClient(tracking_uri=tracking_uri)
    frame = sessions_frame(_runs(client, experiment=experiment, parent=parent, ids=ids))
    if frame.height == 0:
        raise CosciError("no sessions matched")
    plots: list[Path] = []
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        plots = [
            elo_overlay_png(client, frame, out_dir / "elo_overlay.png"),
            cost_vs_elo_png(frame, out_dir / "cost_vs_elo.png"),
        ]
    return frame, plots


SHOWN = {
    "session_id": "session",
    "tag.sweep_overrides": "overrides",
    "tag.stop_reason": "stop",
    "metric.final_top1_elo": "top1_elo",
    "metric.final_hypotheses": "hypotheses",
    "metric.final_matches": "matches",
    "metric.final_spent_usd": "usd",
    "metric.final_wall_seconds": "wall_s",
}


def compare_cli(args: argparse.Namespace, data_dir: Path) -> None:
    for name in ("mlflow", "alembic"):  # MLflow logs its table creation at INFO on its own handler
        logging.getLogger(name).setLevel(logging.WARNING)
    uri = args.tracking_uri or f"sqlite:///{data_dir / 'mlflow.db'}"
    if not args.tracking_uri and not (data_dir / "mlflow.db").exists():
        raise CosciError(f"no MLflow store at {data_dir / 'mlflow.db'}: run a session first, or pass --tracking-uri")
    out = Path(args.out) if args.out else data_dir / "compare" / time.strftime("%Y%m%d-%H%M%S")
    frame, plots = compare(uri, experiment=args.experiment, parent=args.parent, ids=args.ids, out_dir=out)
    shown = frame.select([pl.col(c).alias(name) for c, name in SHOWN.items() if c in frame.columns])
    shown = shown.with_columns(pl.col(pl.Float64).round(3))
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=70, tbl_width_chars=220, tbl_hide_column_data_types=True):
        print(shown)
    frame.write_parquet(out / "sessions.parquet")
    for p in plots:
        print(f"wrote {p}")
    print(f"wrote {out / 'sessions.parquet'}")
