"""Compare sessions tracked in MLflow (issue 7): a polars table and two plots.

Sessions are selected by experiment name, by a sweep's parent run id, or by run ids / session ids. The
table has one row per session: ids, status, start time, every param (``param.<name>``), the latest value of
every metric (``metric.<name>``) and the cosci tags (``tag.<name>``). The plots: the top-1 Elo trajectories
overlaid (step = finished tasks), and cost (USD) against the final top-1 Elo; each session is labelled by what
sets it apart from the others (:func:`session_labels`). ``bench/`` uses these too.

Looking creates nothing: a SQLite or local store that does not exist is refused, an HTTP server is probed
(``<uri>/health``) before MLflow's own retries could keep the command waiting for minutes, and the store's
errors become one-line :class:`~cosci.errors.CosciError`.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import polars as pl
import requests
from mlflow.entities import Run
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient
from sqlalchemy.exc import SQLAlchemyError

from cosci.errors import CosciError

PROBE_TIMEOUT_SECONDS = 5.0
HTTP_ENV = {  # MLflow's HTTP client for this command, unless the user set them: fail in seconds, not minutes
    "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2",
    "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
    "MLFLOW_HTTP_REQUEST_TIMEOUT": "30",
}
STORE_ERRORS = (MlflowException, SQLAlchemyError, requests.RequestException, OSError)
LABEL_WIDTH = 40
URI_HINT = "--tracking-uri takes sqlite:///<path>/mlflow.db or http(s)://<host>:<port>"


def _one_line(exc: BaseException, limit: int = 300) -> str:
    """The first line of an error's message, whitespace collapsed, at most ``limit`` characters."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _redacted(uri: str) -> str:
    """``uri`` without a password in its user info (it is printed in errors)."""
    parts = urlsplit(uri)
    if parts.password is None:
        return uri
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def store_path(uri: str) -> Path | None:
    """The file (SQLite) or folder (file store) a local tracking URI names; ``None`` for other stores.

    ``sqlite:///rel.db`` is relative to the working directory and ``sqlite:////abs/x.db`` absolute, as in
    SQLAlchemy; an in-memory ``sqlite://`` gives ``Path(":memory:")``.
    """
    scheme, sep, rest = uri.partition("://")
    if not sep:  # a bare path is MLflow's file store
        return Path(uri).expanduser()
    scheme = scheme.lower()
    if scheme == "file":
        return Path(urlsplit(uri).path)
    if scheme.split("+")[0] == "sqlite":
        rest = rest.split("?", 1)[0]
        path = rest[1:] if rest.startswith("/") else ""
        return Path(path) if path and path != ":memory:" else Path(":memory:")
    return None


def check_store(uri: str) -> None:
    """Refuse, creating nothing, a tracking URI with no store behind it.

    Local stores (SQLite file, file-store folder) must exist; MLflow would create them. For ``http(s)``
    URIs, ``<uri>/health`` must answer within :data:`PROBE_TIMEOUT_SECONDS` (any HTTP status will do: the
    server is up). Other schemes (databases, Databricks) are left to MLflow.

    Raises:
        CosciError: the store does not exist, or no server answers.
    """
    scheme = uri.partition("://")[0].lower() if "://" in uri else ""
    if scheme in ("http", "https"):
        import httpx

        try:
            httpx.get(f"{uri.rstrip('/')}/health", timeout=PROBE_TIMEOUT_SECONDS)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise CosciError(
                f"no MLflow server answers at {_redacted(uri)} ({type(exc).__name__}: {_one_line(exc, 120)})"
            ) from None
        return
    path = store_path(uri)
    if path is None:
        return
    if str(path) == ":memory:":
        raise CosciError(f"'{uri}' is an in-memory store with no sessions; {URI_HINT}")
    if scheme.split("+")[0] == "sqlite" and not path.is_file():
        raise CosciError(f"no MLflow store at {path.absolute()} (no such SQLite file)")
    if scheme in ("", "file") and not path.is_dir():
        raise CosciError(f"no MLflow store at {path.absolute()}; {URI_HINT}")


@contextlib.contextmanager
def short_http_retries() -> Iterator[None]:
    """Set :data:`HTTP_ENV` for the duration (keeping any value the user exported), then restore."""
    added = [k for k in HTTP_ENV if k not in os.environ]
    for k in added:
        os.environ[k] = HTTP_ENV[k]
    try:
        yield
    finally:
        for k in added:
            os.environ.pop(k, None)


@contextlib.contextmanager
def store_errors(uri: str) -> Iterator[None]:
    """Turn the tracking store's errors into one-line :class:`CosciError` naming the store."""
    try:
        yield
    except CosciError:
        raise
    except STORE_ERRORS as exc:
        raise CosciError(f"MLflow store {_redacted(uri)}: {_one_line(exc)}") from None


def _runs(client: MlflowClient, *, experiment: str | None, parent: str | None, ids: list[str] | None) -> list[Run]:
    if parent:
        try:
            run = client.get_run(parent)
        except MlflowException:
            raise CosciError(f"no MLflow run '{parent}' in {_redacted(client.tracking_uri)}") from None
        runs = client.search_runs(
            [run.info.experiment_id],
            f"tags.mlflow.parentRunId = '{parent}'",
            order_by=["attributes.start_time ASC"],
            max_results=10_000,
        )
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
        row.update({f"param.{k}": v for k, v in r.data.params.items()})
        row.update({f"metric.{k}": float(v) for k, v in r.data.metrics.items()})
        row.update({f"tag.{k.removeprefix('cosci.')}": v for k, v in r.data.tags.items() if k.startswith("cosci.")})
        rows.append(row)
    return (
        pl.DataFrame(rows, infer_schema_length=None)  # every row: a key only later runs have is kept
        if rows
        else pl.DataFrame({"run_id": [], "session_id": []}, schema={"run_id": pl.Utf8, "session_id": pl.Utf8})
    )


def _overrides(text: str) -> dict[str, str]:
    """``key=value`` pairs of a space-joined override list (a word without ``=`` continues the last value)."""
    pairs: dict[str, str] = {}
    key = None
    for word in text.split():
        if "=" in word and not word.startswith("="):
            key, _, value = word.partition("=")
            pairs[key] = value
        elif key is not None:
            pairs[key] += " " + word
    return pairs


def _differing(settings: list[dict[str, str]]) -> list[str]:
    """The keys (in first-seen order) whose values are not the same in every one of ``settings``."""
    keys = list(dict.fromkeys(k for s in settings for k in s))
    return [k for k in keys if len({s.get(k) for s in settings}) > 1]


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def distinguishing(frame: pl.DataFrame) -> list[str]:
    """Per session, the settings that differ between the compared sessions (``""`` when none do).

    The sweep overrides (tag ``cosci.sweep_overrides``) that differ, e.g. ``run.max_ideas=4``; for a session
    without overrides, or whose overrides match the others', the params (``param.*``) that differ.
    """
    n = frame.height
    cols = set(frame.columns)
    texts = frame["tag.sweep_overrides"].to_list() if "tag.sweep_overrides" in cols else [None] * n
    overrides = [_overrides(t or "") for t in texts]
    param_cols = [c for c in frame.columns if c.startswith("param.")]
    params = [
        {c.removeprefix("param."): str(v) for c, v in row.items() if v is not None}
        for row in frame.select(param_cols).iter_rows(named=True)
    ] if param_cols else [{} for _ in range(n)]
    by_override, by_param = _differing(overrides), _differing(params)
    out = []
    for i in range(n):
        parts = [f"{k}={overrides[i][k]}" for k in by_override if k in overrides[i]]
        if not parts:
            parts = [f"{k}={params[i][k]}" for k in by_param if k in params[i]]
        out.append(" ".join(parts))
    return out


def session_labels(frame: pl.DataFrame, width: int = LABEL_WIDTH) -> list[str]:
    """Short plot labels: :func:`distinguishing` cut to ``width`` characters, else the session id.

    Labels that would still coincide get the end of their session id, e.g. ``run.seed=1 (3f5ba9)``.
    """
    sids = [str(s) for s in frame["session_id"].to_list()]
    labels = [_shorten(d, width) if d else sid for d, sid in zip(distinguishing(frame), sids, strict=True)]
    counts = Counter(labels)
    return [
        f"{lab} ({sid[-6:]})" if counts[lab] > 1 and lab != sid else lab
        for lab, sid in zip(labels, sids, strict=True)
    ]


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
            raise CosciError(f"MLflow store {_redacted(tracking_uri)}: {_one_line(exc)}") from None
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
    uri = args.tracking_uri or f"sqlite:///{data_dir / 'mlflow.db'}"
    if not args.tracking_uri and not (data_dir / "mlflow.db").exists():
        raise CosciError(f"no MLflow store at {data_dir / 'mlflow.db'}: run a session first, or pass --tracking-uri")
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
