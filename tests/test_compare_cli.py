"""`cosci compare`: one-line errors that create nothing, integer counts, distinguishing labels, the files written.

The stores are small MLflow SQLite stores built here with the client, their runs tagged as a session's tracker
and a sweep's parent tag them (:mod:`cosci.tracking.mlflow_run`, :mod:`cosci.tracking.sweeps`). No network:
the unreachable server is an unused local port.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import polars as pl
import pytest
from mlflow.entities import Metric, Param
from mlflow.tracking import MlflowClient

from cosci.errors import CosciError
from cosci.tracking.compare import sessions_frame
from cosci.tracking.labels import distinguishing, session_labels
from cosci.tracking.stores import HTTP_ENV, check_store, store_path
from tests.test_cli import _cli

COMMON = "experiment=demo models=fake tools.offline=True"


def _session(client: MlflowClient, exp: str, sid: str, max_hypotheses: int, parent: str | None) -> str:
    tags = {"cosci.session_id": sid, "cosci.models": "fake", "cosci.experiment": "demo",
            "cosci.stop_reason": "max_hypotheses"}
    if parent:
        tags |= {"mlflow.parentRunId": parent, "cosci.sweep_overrides": f"{COMMON} run.max_hypotheses={max_hypotheses}"}
    run_id = client.create_run(exp, run_name=sid, tags=tags).info.run_id
    now = int(time.time() * 1000)
    finals = {"top1_elo": 1230.5 + max_hypotheses, "spent_usd": 0.0461, "hypotheses": 5.0, "matches": 321.0,
              "wall_seconds": 2.5}
    client.log_batch(
        run_id,
        params=[Param("experiment", "demo"), Param("models", "fake"), Param("run.max_hypotheses", str(max_hypotheses))],
        metrics=[Metric("top1_elo", 1200.0 + 5 * s, now, s * 5) for s in range(4)]
        + [Metric(f"final_{k}", v, now, 0) for k, v in finals.items()],
    )
    client.set_terminated(run_id, status="FINISHED")
    return run_id


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A data folder whose ``mlflow.db`` holds experiment ``demo``: a sweep parent and its two sessions
    (``run.max_hypotheses`` 4 and 5); and experiment ``empty`` holding only a sweep parent. Returns (data, parent)."""
    data = tmp_path_factory.mktemp("data")
    client = MlflowClient(f"sqlite:///{data / 'mlflow.db'}")
    exp = client.create_experiment("demo", artifact_location=(data / "mlartifacts" / "demo").as_uri())
    parent = client.create_run(exp, run_name="sweep-1", tags={"cosci.sweep": "true"}).info.run_id
    for i, max_hypotheses in enumerate((4, 5)):
        _session(client, exp, f"s-20260101-00000{i}-abc{i}{i}{i}", max_hypotheses, parent)
    client.set_terminated(parent, status="FINISHED")
    empty = client.create_experiment("empty", artifact_location=(data / "mlartifacts" / "empty").as_uri())
    client.create_run(empty, run_name="sweep-2", tags={"cosci.sweep": "true"})
    return data, parent


def _files(root: Path) -> set[Path]:
    return set(root.rglob("*"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# 1. an HTTP tracking URI with no server behind it


def test_an_unreachable_server_fails_in_seconds_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in HTTP_ENV:
        monkeypatch.delenv(key, raising=False)
    uri = f"http://127.0.0.1:{_free_port()}"
    start = time.monotonic()
    code, _, err = _cli(capsys, "--data-dir", str(tmp_path), "compare", "--experiment", "demo", "--tracking-uri", uri)
    assert time.monotonic() - start < 15
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"cosci: no MLflow server answers at {uri}")
    assert not any(k in os.environ for k in HTTP_ENV)  # the short retries were for this command only
    assert not (tmp_path / "compare").exists()


def test_a_password_in_the_uri_is_not_printed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    uri = f"http://me:secret@127.0.0.1:{_free_port()}"
    code, _, err = _cli(capsys, "--data-dir", str(tmp_path), "compare", "--experiment", "demo", "--tracking-uri", uri)
    assert code == 2 and "secret" not in err and "me:***@127.0.0.1" in err


def test_short_http_retries_keep_what_the_user_exported(monkeypatch: pytest.MonkeyPatch) -> None:
    from cosci.tracking.compare import short_http_retries

    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "77")
    monkeypatch.delenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", raising=False)
    with short_http_retries():
        assert os.environ["MLFLOW_HTTP_REQUEST_TIMEOUT"] == "77"
        assert os.environ["MLFLOW_HTTP_REQUEST_MAX_RETRIES"] == HTTP_ENV["MLFLOW_HTTP_REQUEST_MAX_RETRIES"]
    assert os.environ["MLFLOW_HTTP_REQUEST_TIMEOUT"] == "77" and "MLFLOW_HTTP_REQUEST_MAX_RETRIES" not in os.environ


# 2. a URI that is no store, and the store's own errors


def test_a_nonsense_uri_is_one_line_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _cli(capsys, "compare", "--experiment", "demo", "--tracking-uri", "nonsense")
    assert code == 2 and err.count("\n") == 1
    assert "no MLflow store at" in err and "nonsense" in err and "sqlite:///" in err
    assert _files(tmp_path) == set()


def test_a_store_error_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "broken.db").write_text("not a database", encoding="utf-8")
    uri = f"sqlite:///{tmp_path / 'broken.db'}"
    code, _, err = _cli(capsys, "--data-dir", str(tmp_path), "compare", "--experiment", "demo", "--tracking-uri", uri)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"cosci: MLflow store {uri}: ") and "not a database" in err


# 3. an output folder that cannot be created


def test_an_output_folder_that_cannot_be_created_is_one_line(
    store: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, _ = store
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    out = tmp_path / "a-file" / "compare"
    code, _, err = _cli(capsys, "--data-dir", str(data), "compare", "--experiment", "demo", "--out", str(out))
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"cosci: cannot create the output folder {out}: ")
    if Path("/proc").is_dir():
        code, _, err = _cli(capsys, "--data-dir", str(data), "compare", "--experiment", "demo", "--out", "/proc/nope")
        assert code == 2 and err.count("\n") == 1 and "cannot create the output folder /proc/nope" in err


# 4. a SQLite URI naming a file that does not exist


def test_a_missing_sqlite_store_is_refused_and_not_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "nope" / "x.db"
    code, _, err = _cli(
        capsys, "--data-dir", str(tmp_path), "compare", "--experiment", "demo", "--tracking-uri", f"sqlite:///{db}"
    )
    assert code == 2 and err.count("\n") == 1 and f"no MLflow store at {db}" in err
    assert _files(tmp_path) == set()


def test_store_paths_follow_sqlalchemy(tmp_path: Path) -> None:
    assert store_path("sqlite:////abs/x.db") == Path("/abs/x.db")
    assert store_path("sqlite:///rel/x.db") == Path("rel/x.db")
    assert store_path("sqlite:///x.db?timeout=5") == Path("x.db")
    assert store_path(f"file://{tmp_path}") == tmp_path
    assert store_path("mlruns") == Path("mlruns")
    assert store_path("http://127.0.0.1:5000") is None and store_path("postgresql://h/db") is None
    with pytest.raises(CosciError, match="in-memory"):
        check_store("sqlite://")


# 5. the printed table


def test_the_table_prints_counts_as_integers_and_no_shape(
    store: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, parent = store
    code, out, err = _cli(capsys, "--data-dir", str(data), "compare", "--parent", parent, "--out", str(tmp_path))
    assert code == 0, err
    assert "shape:" not in out
    rows = [ln.split("┆") for ln in out.splitlines() if ln.startswith("│ s-")]
    assert len(rows) == 2
    cells = [[c.strip(" │") for c in row] for row in rows]
    header = [c.strip(" │") for c in next(ln for ln in out.splitlines() if "session" in ln).split("┆")]
    for row in cells:
        named = dict(zip(header, row, strict=True))
        assert named["hypotheses"] == "5" and named["matches"] == "321"
        assert named["usd"] == "0.046"
    differs = [dict(zip(header, r, strict=True))["differs"] for r in cells]
    assert differs == ["run.max_hypotheses=4", "run.max_hypotheses=5"]
    parquet = pl.read_parquet(tmp_path / "sessions.parquet")
    assert parquet["metric.final_matches"].to_list() == [321.0, 321.0]  # the file keeps MLflow's values


# 6. labels


def _frame(store: tuple[Path, str], **selector: object) -> pl.DataFrame:
    from cosci.tracking.compare import compare

    data, _ = store
    frame, written = compare(f"sqlite:///{data / 'mlflow.db'}", **selector)  # type: ignore[arg-type]
    assert written == []
    return frame


def test_sweep_sessions_are_labelled_by_the_overrides_that_differ(store: tuple[Path, str]) -> None:
    _, parent = store
    frame = _frame(store, parent=parent)
    assert session_labels(frame) == ["run.max_hypotheses=4", "run.max_hypotheses=5"]


def test_sessions_without_overrides_are_labelled_by_differing_params(store: tuple[Path, str]) -> None:
    frame = _frame(store, experiment="demo").drop("tag.sweep_overrides")
    assert distinguishing(frame) == ["run.max_hypotheses=4", "run.max_hypotheses=5"]
    assert session_labels(frame) == ["run.max_hypotheses=4", "run.max_hypotheses=5"]


def test_one_session_or_identical_ones_fall_back_to_session_ids(store: tuple[Path, str]) -> None:
    frame = _frame(store, experiment="demo")
    one = frame.head(1)
    assert session_labels(one) == one["session_id"].to_list()
    same = frame.with_columns(pl.lit(COMMON).alias("tag.sweep_overrides"),
                              pl.lit("4").alias("param.run.max_hypotheses"))
    assert session_labels(same) == frame["session_id"].to_list()


def test_labels_stay_short_and_distinct() -> None:
    long = "tier.fast=anthropic/claude-sonnet-4-5-20250929-with-a-long-name"
    frame = pl.DataFrame(
        {
            "run_id": ["r1", "r2", "r3"],
            "session_id": ["s-1-aaaaaa", "s-2-bbbbbb", "s-3-cccccc"],
            "tag.sweep_overrides": [f"{COMMON} {long}1", f"{COMMON} {long}2", f"{COMMON} run.seed=3"],
        }
    )
    labels = session_labels(frame, width=30)
    assert labels[2] == "run.seed=3"
    assert labels[0] != labels[1] and labels[0].endswith("(aaaaaa)") and labels[1].endswith("(bbbbbb)")
    assert all(len(label) <= 30 + len(" (aaaaaa)") for label in labels)
    assert all("experiment=demo" not in label for label in labels)


def test_override_values_with_spaces_stay_whole() -> None:
    frame = pl.DataFrame(
        {
            "run_id": ["r1", "r2"],
            "session_id": ["s-1", "s-2"],
            "tag.sweep_overrides": ["session.goal=why do cells age run.seed=1", "session.goal=why run.seed=1"],
        }
    )
    assert distinguishing(frame) == ["session.goal=why do cells age", "session.goal=why"]


# 7. the files written, for every selector


@pytest.mark.parametrize("selector", ["experiment", "parent", "ids"])
def test_every_selector_writes_the_table_and_plots(
    selector: str, store: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, parent = store
    frame = _frame(store, parent=parent)
    args = {"experiment": ["demo"], "parent": [parent], "ids": [frame["run_id"][0], frame["session_id"][1]]}
    out = tmp_path / "out"
    code, stdout, err = _cli(capsys, "--data-dir", str(data), "compare", f"--{selector}", *args[selector],
                             "--out", str(out))
    assert code == 0, err
    assert {p.name for p in out.iterdir()} == {"sessions.parquet", "elo_overlay.png", "cost_vs_elo.png"}
    assert pl.read_parquet(out / "sessions.parquet")["session_id"].to_list() == frame["session_id"].to_list()
    assert f"wrote {out / 'sessions.parquet'}" in stdout
    assert (out / "elo_overlay.png").stat().st_size > 1000


def test_the_default_output_folder_is_new_each_time(store: tuple[Path, str], capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    data, parent = store
    data_copy = tmp_path / "data"
    data_copy.mkdir()
    (data_copy / "mlflow.db").write_bytes((data / "mlflow.db").read_bytes())
    for _ in range(2):
        code, _, err = _cli(capsys, "--data-dir", str(data_copy), "compare", "--parent", parent)
        assert code == 0, err
    folders = sorted((data_copy / "compare").iterdir())
    assert len(folders) == 2 and all((f / "sessions.parquet").is_file() for f in folders)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--experiment", "empty"], "MLflow experiment 'empty' has no session runs"),
        (["--experiment", "nope"], "no MLflow experiment 'nope' (known: "),
        (["--ids", "s-unknown"], "no MLflow run for 's-unknown'"),
    ],
)
def test_no_runs_is_one_line_and_writes_nothing(
    args: list[str], message: str, store: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, _ = store
    out = tmp_path / "out"
    code, _, err = _cli(capsys, "--data-dir", str(data), "compare", *args, "--out", str(out))
    assert code == 2 and err.count("\n") == 1 and message in err
    assert not out.exists()


def test_a_run_without_children_is_no_sweep(store: tuple[Path, str], tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = store
    child = _frame(store, experiment="demo")["run_id"][0]
    code, _, err = _cli(capsys, "--data-dir", str(data), "compare", "--parent", child, "--out", str(tmp_path / "o"))
    assert code == 2 and "has no child runs" in err and not (tmp_path / "o").exists()


def test_the_frame_keeps_keys_only_late_runs_have() -> None:
    from mlflow.entities import Run, RunData, RunInfo

    def run(i: int, metrics: dict[str, float]) -> Run:
        info = RunInfo(run_id=f"r{i}", experiment_id="1", user_id="", status="FINISHED", start_time=i,
                       end_time=None, lifecycle_stage="active", run_name=f"s-{i}")
        return Run(info, RunData(metrics=[Metric(k, v, 0, 0) for k, v in metrics.items()]))

    frame = sessions_frame([run(i, {}) for i in range(120)] + [run(120, {"late": 1.0})])
    assert frame["metric.late"].to_list()[-1] == 1.0
