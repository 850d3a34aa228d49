"""Compare sessions tracked in MLflow (design.md#deployment): a polars table and two plots.

Sessions are selected by experiment name, by a sweep's parent run id, or by run ids / session ids. The
table has one row per session: ids, status, start time, every param (``param.<name>``), the latest value of
every metric (``metric.<name>``) and the cosci tags (``tag.<name>``). The plots: the top-1 Elo trajectories
overlaid (step = finished tasks), and cost (USD) against the final top-1 Elo; each session is labelled by what
sets it apart from the others (:func:`cosci.tracking.labels.session_labels`). ``bench/`` uses these too.

Looking creates nothing: a SQLite or local store that does not exist is refused, an HTTP server is probed
(``<uri>/health``) before MLflow's own retries could keep the command waiting for minutes, and the store's
errors become one-line :class:`~cosci.errors.CosciError` (:mod:`cosci.tracking.stores`).
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

from cosci.config.renames import RENAMED
from cosci.errors import CosciError
from cosci.text import error_line
from cosci.tracking import MLFLOW_FILE, default_uri
from cosci.tracking.labels import distinguishing, session_labels
from cosci.tracking.stores import (
    check_store,
    redacted,
    short_http_retries,
    store_errors,
)


def _runs(client: MlflowClient, *, experiment: str | None, parent: str | None, ids: list[str] | None) -> list[Run]:
    if parent:
        from cosci.tracking.sweeps import child_runs

        try:
            client.get_run(parent)
        except MlflowException:
            raise CosciError(f"no MLflow run '{parent}' in {redacted(client.tracking_uri)}") from None
        runs = child_runs(client, parent)  # children may sit in other experiments (a sweep over experiment=)
        if not runs:
            raise CosciError(f"run '{parent}' has no child runs (is it a sweep's parent run?)")
        return list(runs)
    if experiment:
        exp = client.get_experiment_by_name(experiment)
        if exp is None:
            raise CosciError(
                f"no MLflow experiment '{experiment}' (known: {', '.join(e.name for e in client.search_experiments())})"
            )
        everything = client.search_runs(
            [exp.experiment_id], order_by=["attributes.start_time ASC"], max_results=10_000
        )
        sessions = [r for r in everything if r.data.tags.get("cosci.sweep") != "true"]  # not a sweep's parent
        if not sessions:
            raise CosciError(f"MLflow experiment '{experiment}' has no session runs")
        return sessions
    exps = [e.experiment_id for e in client.search_experiments()]
    found: dict[str, Run] = {}
    for key in ids or []:
        try:
            run = client.get_run(key)
        except MlflowException:  # not a run id: try it as a session id
            match = client.search_runs(exps, f"tags.`cosci.session_id` = '{key}'", max_results=1)
            if not match:
                raise CosciError(f"no MLflow run for '{key}' (neither a run id nor a session id)") from None
            run = match[0]
        found.setdefault(run.info.run_id, run)
    return list(found.values())


def sessions_frame(runs: list[Run]) -> pl.DataFrame:
    """One row per run (see module docstring)."""
    rows = []
    for r in runs:
        row: dict[str, object] = {
            "run_id": r.info.run_id,
            "session_id": r.data.tags.get("cosci.session_id", r.info.run_name),
            "status": r.info.status,
            "start_time": r.info.start_time / 1000.0 if r.info.start_time is not None else None,
        }
        # a run logged before the vocabulary renames has its params under the old key names (design.md#vocabulary)
        row.update({f"param.{RENAMED.get(k, k)}": v for k, v in r.data.params.items()})
        row.update({f"metric.{k}": float(v) for k, v in r.data.metrics.items()})
        row.update({f"tag.{k.removeprefix('cosci.')}": v for k, v in r.data.tags.items() if k.startswith("cosci.")})
        rows.append(row)
    return (
        pl.DataFrame(rows, infer_schema_length=None)  # every row: a key only later runs have is kept
        if rows
        else pl.DataFrame({"run_id": [], "session_id": []}, schema={"run_id": pl.Utf8, "session_id": pl.Utf8})
    )


def elo_overlay_png(client: MlflowClient, frame: pl.DataFrame, path: Path) -> Path:
    """Top-1 Elo against step (finished tasks) for every session, overlaid."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = session_labels(frame)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    for i, run_id in enumerate(frame["run_id"].to_list()):
        hist = sorted(client.get_metric_history(run_id, "top1_elo"), key=lambda m: m.step)
        if hist:
            ax.plot([m.step for m in hist], [m.value for m in hist], label=labels[i], linewidth=1.4)
    ax.set_xlabel("finished tasks")
    ax.set_ylabel("top-1 Elo rating")
    ax.set_title("Top-1 Elo trajectories")
    if ax.get_legend_handles_labels()[0]:
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

    labels = session_labels(frame)
    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=110)
    cost = "metric.final_spent_usd" if "metric.final_spent_usd" in frame.columns else None
    elo = "metric.final_top1_elo" if "metric.final_top1_elo" in frame.columns else None
    if cost and elo:
        for i in range(frame.height):
            x, y = frame[cost][i], frame[elo][i]
            if x is not None and y is not None:
                ax.scatter([x], [y])
                ax.annotate(labels[i], (x, y), fontsize=6)
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
    """Sessions as a table; with ``out_dir``, also ``sessions.parquet`` and the two plots written there.

    The store is checked first (:func:`check_store`) and MLflow's HTTP retries are kept short
    (:func:`short_http_retries`). ``out_dir`` is created only once sessions were found.

    Returns:
        The table and the files written (``sessions.parquet``, ``elo_overlay.png``, ``cost_vs_elo.png``;
        none without ``out_dir``).

    Raises:
        CosciError: no selector given, no store at the URI, a store error, nothing matched the selector, or
            ``out_dir`` cannot be created or written.
    """
    if not (experiment or parent or ids):
        raise CosciError("compare needs --experiment, --parent or --ids")
    check_store(tracking_uri)
    with short_http_retries(), store_errors(tracking_uri):
        try:
            client = MlflowClient(tracking_uri=tracking_uri)
        except ImportError as exc:  # a database driver MLflow needs for this URI is not installed
            raise CosciError(f"MLflow store {redacted(tracking_uri)}: {error_line(exc)}") from None
        frame = sessions_frame(_runs(client, experiment=experiment, parent=parent, ids=ids))
        if frame.height == 0:
            raise CosciError("no sessions matched")
        if out_dir is None:
            return frame, []
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CosciError(f"cannot create the output folder {out_dir}: {exc.strerror or exc}") from None
        written = out_dir / "sessions.parquet"
        try:
            frame.write_parquet(written)
            return frame, [
                written,
                elo_overlay_png(client, frame, out_dir / "elo_overlay.png"),
                cost_vs_elo_png(frame, out_dir / "cost_vs_elo.png"),
            ]
        except OSError as exc:
            raise CosciError(f"cannot write to {out_dir}: {exc.strerror or exc}") from None


SHOWN = {
    "session_id": "session",
    "differs": "differs",
    "tag.stop_reason": "stop",
    "metric.final_top1_elo": "top1_elo",
    "metric.final_hypotheses": "hypotheses",
    "metric.final_matches": "matches",
    "metric.final_spent_usd": "usd",
    "metric.final_wall_seconds": "wall_s",
}
COUNTS = ("hypotheses", "matches")
"""Shown columns that are counts: printed as integers."""


def shown_table(frame: pl.DataFrame) -> pl.DataFrame:
    """The printed table: session, what sets it apart (:func:`distinguishing`), stop reason, final metrics.

    Counts are integers and other numbers are rounded to 3 decimals; the full frame keeps every value.
    """
    frame = frame.with_columns(pl.Series("differs", distinguishing(frame), dtype=pl.Utf8))
    shown = frame.select([pl.col(c).alias(name) for c, name in SHOWN.items() if c in frame.columns])
    if not any(shown["differs"].to_list()):
        shown = shown.drop("differs")
    shown = shown.with_columns(pl.col(pl.Float64).round(3))
    counts = [c for c in COUNTS if c in shown.columns]
    return shown.with_columns([pl.col(c).round(0).cast(pl.Int64) for c in counts])


def _default_out(data_dir: Path) -> Path:
    """``<data>/compare/<time>``, with a ``-2``, ``-3``… suffix if a comparison in the same second has it."""
    base = data_dir / "compare" / time.strftime("%Y%m%d-%H%M%S")
    out, n = base, 1
    while out.exists():
        n += 1
        out = base.with_name(f"{base.name}-{n}")
    return out


def compare_cli(args: argparse.Namespace, data_dir: Path) -> None:
    """``cosci compare``: print the table and write ``sessions.parquet`` and the plots.

    The store is ``--tracking-uri``, else ``<data>/mlflow.db``; the output folder ``--out``, else
    ``<data>/compare/<time>``.

    Raises:
        CosciError: as :func:`compare`; the CLI prints it as one line and exits 2.
    """
    for name in ("mlflow", "alembic"):  # MLflow logs its table creation at INFO on its own handler
        logging.getLogger(name).setLevel(logging.WARNING)
    uri = args.tracking_uri or default_uri(data_dir)
    if not args.tracking_uri and not (data_dir / MLFLOW_FILE).exists():
        raise CosciError(f"no MLflow store at {data_dir / MLFLOW_FILE}: run a session first, or pass --tracking-uri")
    out = Path(args.out).expanduser() if args.out else _default_out(data_dir)
    frame, written = compare(uri, experiment=args.experiment, parent=args.parent, ids=args.ids, out_dir=out)
    with pl.Config(
        tbl_rows=-1,
        tbl_cols=-1,
        fmt_str_lengths=70,
        tbl_width_chars=220,
        tbl_hide_column_data_types=True,
        tbl_hide_dataframe_shape=True,
    ):
        print(shown_table(frame))
    for p in written:
        print(f"wrote {p}")
