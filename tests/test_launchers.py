"""Sweeps beyond one machine (issue 19): the Ray and submitit launchers run real sessions into one MLflow server
and one Prefect server; a launcher missing its plugin or its SLURM commands fails in one line.

The slow tests start, on a free loopback port, one ``mlflow server`` for the module, and report to the worker's
Prefect server (``prefect_api_url``, tests/conftest.py: the same app cosci starts for a single run,
:class:`flows.server.TemporaryServer`), so they read back only the runs started after the test began. Ray runs as a
local instance started by the launcher (``ray.init()``) or as a one-node cluster (``ray start --head``); submitit
runs its ``local`` executor. `cosci compare --parent` is read in this process (``run_cli``); its own process is
tested in tests/test_sweeps.py.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from cosci.config.load import ConfigError
from cosci.launchers import check_launcher, launcher_choice
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
FAKE = ["experiment=demo", "models=fake", "tools.offline=true"]
TWO = "run.max_hypotheses=2"
"""Each swept session of two hypotheses, not the demo's three: what is read is that every job finished into the
one MLflow and one Prefect server (docs/development.md, test time, seventh pass)."""
NO_DASHBOARD = "+hydra.launcher.ray.init.include_dashboard=false"
"""A local Ray instance without its dashboard (``ray.init(include_dashboard=False)``); not for joining a cluster."""
ONE_SLOT = "+hydra.launcher.ray.init.num_cpus=1"
"""A local Ray instance of one CPU (``ray.init(num_cpus=1)``): with ``launcher.ray.num_cpus=1`` its jobs run one after
the other in one Ray worker process, which imports the session's stack once (two jobs at once on two CPUs started a
worker each, importing it twice; docs/development.md, test time, eighth pass)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path, seconds: float = 240.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text(errors="replace")[-2000:]
        try:
            if httpx.get(url, timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{url} did not answer in {seconds:.0f} s: {log.read_text(errors='replace')[-2000:]}")


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group started with ``start_new_session``; SIGKILL it if still there after 30 s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=30)
            return
        except subprocess.TimeoutExpired:
            continue


def _stop_head(head: subprocess.Popen[bytes]) -> None:
    """Stop a ``ray start --head --block`` process: SIGTERM to it alone, as `ray stop` does, then its group.

    On SIGTERM the head drains its node through the GCS (for up to 30 s) before stopping the processes it started.
    A SIGTERM to the whole group stopped the GCS first, so the drain waited out its 30 s every run (measured: 30.1 s
    then, 4.3 s for the head alone at load 10; docs/development.md, test time)."""
    with contextlib.suppress(ProcessLookupError):
        head.send_signal(signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        head.wait(timeout=30)
    _stop_group(head)  # whatever the head left behind


@pytest.fixture(scope="module")
def mlflow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One ``mlflow server`` (SQLite backend, proxied artifacts) on a free loopback port; yields its URI."""
    root = tmp_path_factory.mktemp("mlflow")
    port, log = _free_port(), root / "server.log"
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "MLFLOW_DISABLE_TELEMETRY": "true",
           "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}  # no job-runner processes: only tracking is needed here
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "mlflow", "server", "--backend-store-uri", f"sqlite:///{root / 'mlflow.db'}",
             "--artifacts-destination", str(root / "artifacts"), "--host", "127.0.0.1", "--port", str(port),
             "--workers", "1"],
            stdout=out, stderr=out, stdin=subprocess.DEVNULL, env=env, start_new_session=True,
        )
    uri = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(f"{uri}/health", process, log)
        yield uri
    finally:
        _stop_group(process)


def _since(start: datetime) -> dict[str, dict[str, str]]:
    """A Prefect filter on runs started at ``start`` or later (the worker's server holds other tests' runs too)."""
    return {"start_time": {"after_": start.isoformat()}}


def _sweep(
    tmp_path: Path, launcher: str, uri: str, api_url: str, *extra: str, seeds: tuple[int, ...] = (1, 2),
    env_extra: dict[str, str] | None = None,
) -> str:
    """Run a sweep over ``run.seed`` through ``launcher``; returns the parent run id."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(COSCI_DATA_DIR=str(tmp_path / "data"), PYTHONPATH=str(ROOT), PREFECT_API_URL=api_url)
    env.update(env_extra or {})
    result = subprocess.run(
        [sys.executable, "-m", "cosci.run", "-m", f"hydra/launcher={launcher}", *FAKE, TWO,
         f"run.seed={','.join(map(str, seeds))}", f"tracking.tracking_uri={uri}", *extra],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert "validated against ConfigStore schema" not in result.stderr
    found = re.search(rf"sweep: parent run ([0-9a-f]{{32}}) with {len(seeds)} sessions", result.stdout)
    assert found, result.stdout[-2000:]
    return found.group(1)


def _check_one_place(capsys: pytest.CaptureFixture[str], tmp_path: Path, parent: str, uri: str, api_url: str,
                     start: datetime, seeds: tuple[int, ...] = (1, 2)) -> None:
    """The parent has one finished child per seed, their artifacts on the server; `cosci compare --parent`
    prints every child; the Prefect server holds every session's completed flow run (started after ``start``)."""
    from mlflow.tracking import MlflowClient

    client = MlflowClient(uri)
    exp_id = client.get_run(parent).info.experiment_id
    children = client.search_runs([exp_id], filter_string=f"tags.mlflow.parentRunId = '{parent}'")
    assert len(children) == len(seeds)
    assert {c.info.status for c in children} == {"FINISHED"}
    assert all(c.data.tags.get("cosci.stop_reason") for c in children)
    sessions = sorted(c.data.tags["cosci.session_id"] for c in children)
    assert sorted(p.name for p in (tmp_path / "data" / "sessions").iterdir()) == sessions
    for child in children:
        assert child.info.artifact_uri.startswith("mlflow-artifacts:"), child.info.artifact_uri
        assert "overview.md" in {a.path for a in client.list_artifacts(child.info.run_id)}
    assert client.get_run(parent).info.status == "FINISHED"

    code, out, err = run_cli(capsys, "compare", "--parent", parent, "--tracking-uri", uri,
                             "--out", str(tmp_path / "compare"))
    assert code == 0, err[-2000:]
    for sid in sessions:
        assert sid in out
    if len(seeds) > 1:  # the column of what sets the sessions apart
        assert all(f"run.seed={seed}" in out for seed in seeds)

    runs = httpx.post(f"{api_url}/flow_runs/filter", json={"flow_runs": _since(start), "limit": 200},
                      timeout=30).json()
    # the server is the worker's: other tests' flow runs carry other data folders or another config shape
    ours = [r for r in runs
            if r["parameters"].get("config_data", {}).get("paths", {}).get("data_dir") == str(tmp_path / "data")]
    assert sorted(r["parameters"]["config_data"]["run"]["seed"] for r in ours) == sorted(seeds)
    assert {r["state_type"] for r in ours} == {"COMPLETED"}


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_ray_launcher_runs_a_sweep_into_one_mlflow_and_one_prefect_server(
    tmp_path: Path, mlflow_server: str, prefect_api_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # the local instance without Ray's dashboard (its processes took about 3.3 s of CPU of a 7 s `ray.init()` here,
    # and nothing here reads it; docs/design.md#tests)
    start = datetime.now(UTC)
    parent = _sweep(tmp_path, "ray", mlflow_server, prefect_api_url, "launcher.ray.num_cpus=1", NO_DASHBOARD,
                    ONE_SLOT)
    _check_one_place(capsys, tmp_path, parent, mlflow_server, prefect_api_url, start)


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_an_investigation_runs_its_cycles_on_a_local_ray_instance(
    tmp_path: Path, mlflow_server: str, prefect_api_url: str
) -> None:
    """``investigation.task_runner=ray`` (prefect-ray): the same fake run as with threads, every cycle a Ray task
    reporting to the one Prefect server; the same number of cycles, run in Ray worker processes. No designed
    evidence (``evidence.designed=0``): it runs after the cycles, not as their Ray tasks; tests/investigation/
    test_evidence_design.py tests it."""
    import json

    from cosci.sandbox.bwrap import probe

    if probe() is None:
        pytest.skip("bubblewrap cannot build a sandbox here")
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(COSCI_DATA_DIR=str(data), PYTHONPATH=str(ROOT), PREFECT_API_URL=prefect_api_url)
    start = datetime.now(UTC)
    result = subprocess.run(
        [sys.executable, "-m", "cosci.cli", "investigate", "run", str(ROOT / "tasks" / "circle_packing"), "models=fake",
         "investigation.workers=2", "investigation.cycles=3", "investigation.task_runner=ray", "evidence.seeds=2",
         "evidence.designed=0", f"tracking.tracking_uri={mlflow_server}"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert "6 cycles (2 workers)" in result.stdout
    (run,) = list((data / "investigations").iterdir())
    events = [json.loads(x) for x in (run / "events.jsonl").read_text().splitlines()]
    finished = [e for e in events if e["event"] == "cycle_finished"]
    assert sorted((e["worker"], e["cycle"]) for e in finished) == [(w, c) for w in (1, 2) for c in (1, 2, 3)]
    driver = {e["pid"] for e in events if e["event"] == "flow_started"}
    assert driver and not driver & {e["pid"] for e in finished}  # the cycles ran in Ray's worker processes
    runs = httpx.post(f"{prefect_api_url}/task_runs/filter", json={"task_runs": _since(start), "limit": 200},
                      timeout=30).json()
    cycles = [r for r in runs if r["name"].startswith("worker ") and r["state_type"] == "COMPLETED"]
    assert len(cycles) >= 6


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_ray_launcher_joins_an_existing_cluster_by_address(
    tmp_path: Path, mlflow_server: str, prefect_api_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cluster form: `ray start --head` (a one-node cluster here), then launcher.ray.address=<head>."""
    temp = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))  # Ray's socket paths must stay under 107 characters
    port, log = _free_port(), temp / "head.log"
    # a cluster's nodes run its code; they inherit the head's environment, which must not carry another test's
    # Prefect server (the session-wide harness of tests/flows sets PREFECT_API_URL in this process)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update({"PYTHONPATH": str(ROOT), "RAY_AUTH_MODE": "disabled"})
    with log.open("wb") as out:
        head = subprocess.Popen(
            [str(Path(sys.executable).parent / "ray"), "start", "--head", "--node-ip-address", "127.0.0.1",
             "--port", str(port), "--num-cpus", "1", "--include-dashboard", "false", "--disable-usage-stats",
             "--temp-dir", str(temp / "t"), "--block"],
            stdout=out, stderr=out, stdin=subprocess.DEVNULL, env=env, start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 240
        while b"block forever" not in log.read_bytes():
            assert head.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")[-2000:]
            time.sleep(1)
        start = datetime.now(UTC)
        parent = _sweep(tmp_path, "ray", mlflow_server, prefect_api_url, f"launcher.ray.address=127.0.0.1:{port}",
                        "launcher.ray.num_cpus=1", seeds=(3,), env_extra={"RAY_AUTH_MODE": "disabled"})
        _check_one_place(capsys, tmp_path, parent, mlflow_server, prefect_api_url, start, seeds=(3,))
    finally:
        _stop_head(head)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_submitit_local_executor_runs_a_sweep_into_one_mlflow_and_one_prefect_server(
    tmp_path: Path, mlflow_server: str, prefect_api_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One job: each submitit job is a process of its own running the same pickled callback, so a second showed
    nothing a first does not (several jobs sharing the servers: the Ray sweep above; docs/design.md#tests)."""
    start = datetime.now(UTC)
    parent = _sweep(tmp_path, "slurm_local", mlflow_server, prefect_api_url, "launcher.slurm.cpus_per_task=1",
                    seeds=(1,))
    _check_one_place(capsys, tmp_path, parent, mlflow_server, prefect_api_url, start, seeds=(1,))
    assert list((tmp_path / "data" / "hydra" / "multirun").glob("*/*/.submitit/*/*_result.pkl"))


def test_launcher_choice_is_the_last_override() -> None:
    assert launcher_choice(["experiment=demo", "hydra/launcher=ray", "hydra/launcher=slurm_local"]) == "slurm_local"
    assert launcher_choice(["experiment=demo"]) is None


def test_slurm_without_its_commands_fails_in_one_line_before_anything_is_written(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"  # a PATH with no SLURM commands on it
    bin_dir.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": str(bin_dir), "COSCI_DATA_DIR": str(tmp_path / "data")}
    result = subprocess.run(
        [sys.executable, "-m", "cosci.run", "-m", "hydra/launcher=slurm", *FAKE, "run.seed=1,2",
         "tracking.tracking_uri=http://127.0.0.1:9"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1, result.stderr
    assert "not found on PATH: sbatch, srun, sacct" in result.stderr and "slurm_local" in result.stderr
    assert not (tmp_path / "data").exists()


def test_slurm_with_its_commands_passes_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for cmd in ("sbatch", "srun", "sacct"):
        (tmp_path / cmd).write_text("#!/bin/sh\n", encoding="utf-8")
        (tmp_path / cmd).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    check_launcher(["hydra/launcher=slurm"])
    (tmp_path / "srun").unlink()
    with pytest.raises(ConfigError, match=r"not found on PATH: srun;"):
        check_launcher(["hydra/launcher=slurm"])


def test_a_launcher_without_its_plugin_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import cosci.launchers as launchers

    monkeypatch.setattr(launchers, "_installed", lambda module: module != "ray")
    with pytest.raises(ConfigError, match=r"hydra/launcher=ray: .*pip install -e '\.\[ray\]'"):
        check_launcher(["hydra/launcher=ray"])
    monkeypatch.setattr(launchers, "_installed", lambda module: "submitit" not in module)
    with pytest.raises(ConfigError, match=r"hydra/launcher=slurm_local: .*pip install -e '\.\[slurm\]'"):
        check_launcher(["hydra/launcher=slurm_local"])
    check_launcher(["hydra/launcher=ray"])


def test_remote_jobs_get_the_parent_run_and_the_prefect_server(monkeypatch: pytest.MonkeyPatch) -> None:
    from cosci.sweep import MlflowSweepCallback
    from cosci.tracking import PARENT_ENV

    callback = MlflowSweepCallback()
    callback.parent, callback.prefect_api_url, callback.data_dir = "a" * 32, "http://head:4200/api", "/shared/data"
    remote = pickle.loads(pickle.dumps(callback))  # what a launcher ships to a worker
    for name in (PARENT_ENV, "PREFECT_API_URL", "COSCI_DATA_DIR"):
        monkeypatch.setenv(name, "")  # recorded first, so the variables the callback sets are undone afterwards
        monkeypatch.delenv(name)  # (a delenv of an unset name records nothing: a later test's subprocess got them)
    remote.on_job_start(config=None)
    assert os.environ[PARENT_ENV] == "a" * 32 and os.environ["PREFECT_API_URL"] == "http://head:4200/api"
    assert os.environ["COSCI_DATA_DIR"] == "/shared/data"
    later = pickle.loads(pickle.dumps(callback))  # the next sweep's job on the same (reused) worker process
    later.parent, later.prefect_api_url = "b" * 32, "http://head2:4200/api"
    later.on_job_start(config=None)
    assert os.environ[PARENT_ENV] == "b" * 32 and os.environ["PREFECT_API_URL"] == "http://head2:4200/api"
    monkeypatch.setenv("PREFECT_API_URL", "http://node-local:4200/api")  # the machine's own server wins
    remote.on_job_start(config=None)
    assert os.environ["PREFECT_API_URL"] == "http://node-local:4200/api"


def test_a_tracking_server_keeps_the_artifacts(tmp_path: Path) -> None:
    from cosci.tracking import artifact_location

    assert artifact_location("http://mlflow.lab:5000", tmp_path, "demo") is None
    assert artifact_location(f"sqlite:///{tmp_path}/m.db", tmp_path, "demo") == f"{tmp_path.as_uri()}/mlartifacts/demo"
