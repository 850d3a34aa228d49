"""Sweeps: multirun as MLflow parent/children, a sweep over experiments (issue 12), `cosci compare`, launcher configs
(issue 7)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from mlflow.tracking import MlflowClient
from omegaconf import OmegaConf

from cosci.config.load import validate
from cosci.paths import conf_dir
from cosci.tracking.sweeps import child_runs

ROOT = Path(__file__).resolve().parents[1]
FAKE = ["experiment=demo", "models=fake", "tools.offline=true"]


def _cosci(args: list[str], cwd: Path, module: str = "cosci.run",
           api_url: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m module args``; with ``api_url``, on that Prefect server (the sweep starts none of its own)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(COSCI_DATA_DIR=str(cwd / "data"), PYTHONPATH=str(ROOT))
    if api_url:
        env["PREFECT_API_URL"] = api_url
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )


def _hydra_config(*overrides: str):
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
        cfg = compose("config", overrides=list(overrides), return_hydra_config=True)
    GlobalHydra.instance().clear()
    return cfg


@pytest.mark.slow
def test_a_two_by_two_sweep_over_experiments_is_one_parent_with_four_children(tmp_path: Path) -> None:
    """Two experiments by two seeds: one parent, and each session in its own experiment's MLflow experiment (issue
    12), tagged with its overrides; the summary and `cosci compare --parent` (its own process: the entry point's
    wiring) find all four by the parent-run tag. One sweep for what were two tests, the 2x2 grid on one experiment
    and the sweep over two experiments (tests/reliability/test_sweep_experiments.py): one process start, one Prefect
    server and one `cosci compare` fewer (docs/development.md, test time). A parent in its sessions' experiment (one
    experiment swept over seeds): tests/test_launchers.py."""
    result = _cosci(["-m", "experiment=demo,amr", "models=fake", "tools.offline=true", "run.seed=1,2",
                     "run.max_hypotheses=2"], tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "with 4 sessions" in result.stdout, result.stdout[-2000:]
    client = MlflowClient(f"sqlite:///{tmp_path / 'data' / 'mlflow.db'}")
    parents = [r for e in client.search_experiments() for r in client.search_runs([e.experiment_id])
               if r.data.tags.get("cosci.sweep") == "true"]
    assert len(parents) == 1
    parent = parents[0]
    children = child_runs(client, parent.info.run_id)
    assert len(children) == 4
    assert {c.data.tags["cosci.sweep_overrides"].lower() for c in children} == {
        f"experiment={e} models=fake tools.offline=true run.seed={s} run.max_hypotheses=2"
        for e in ("demo", "amr") for s in (1, 2)
    }
    assert {(client.get_experiment(c.info.experiment_id).name, c.data.tags["cosci.sweep_overrides"].split()[0])
            for c in children} == {("demo", "experiment=demo"), ("amr", "experiment=amr")}
    assert client.get_run(parent.info.run_id).info.status == "FINISHED"
    assert {a.path for a in client.list_artifacts(parent.info.run_id)} >= {"sweep_summary.parquet", "sweep_summary.md"}
    out = tmp_path / "compare"
    shown = _cosci(
        ["--data-dir", str(tmp_path / "data"), "compare", "--parent", parent.info.run_id, "--out", str(out)],
        tmp_path,
        module="cosci.cli",
    )
    assert shown.returncode == 0, shown.stderr
    rows = [ln for ln in shown.stdout.splitlines() if ln.startswith("│ s-")]
    assert len(rows) == 4
    assert (out / "elo_overlay.png").stat().st_size > 1000 and (out / "cost_vs_elo.png").stat().st_size > 1000


def test_compare_from_python(tmp_path: Path) -> None:
    from cosci.errors import CosciError
    from cosci.tracking.compare import compare

    with pytest.raises(CosciError, match="needs"):
        compare(f"sqlite:///{tmp_path / 'm.db'}")


def test_slurm_launcher_config_composes_and_validates() -> None:
    cfg = _hydra_config(*FAKE, "hydra/launcher=slurm", "launcher.slurm.partition=gpu", "launcher.slurm.mem_gb=16")
    launcher = OmegaConf.select(cfg, "hydra.launcher")
    assert launcher._target_.endswith("SlurmLauncher")
    assert (launcher.partition, launcher.mem_gb, launcher.timeout_min, launcher.cpus_per_task) == ("gpu", 16, 180, 2)
    validate({k: v for k, v in OmegaConf.to_container(cfg, resolve=False).items() if k != "hydra"})


def test_ray_launcher_config_composes_and_validates() -> None:
    cfg = _hydra_config(*FAKE, "hydra/launcher=ray_cluster", "launcher.ray.address=auto")
    launcher = OmegaConf.select(cfg, "hydra.launcher")
    assert launcher._target_ == "hydra_plugins.hydra_ray_launcher.ray_launcher.RayLauncher"
    assert launcher.ray.init.address == "auto" and launcher.ray.remote.num_cpus == 2
    validate({k: v for k, v in OmegaConf.to_container(cfg, resolve=False).items() if k != "hydra"})


def test_a_bad_launcher_value_is_rejected() -> None:
    from cosci.config.load import ConfigError
    from cosci.config.load import compose as cosci_compose

    with pytest.raises(ConfigError, match=r"launcher\.slurm\.mem_gb"):
        validate(cosci_compose([*FAKE, "launcher.slurm.mem_gb=0"]))


def test_parallel_sweeps_refuse_a_shared_sqlite_store(tmp_path: Path) -> None:
    result = _cosci(["-m", "hydra/launcher=parallel", *FAKE, "run.seed=1,2"], tmp_path)
    assert result.returncode == 2 and "mlflow server" in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.slow
def test_joblib_launcher_runs_two_sessions(tmp_path: Path, prefect_api_url: str) -> None:
    # sessions of two hypotheses: the two jobs' records done is what is read (docs/development.md, test time); on
    # the worker's Prefect server, not one of the sweep's own (a sweep's own server: the 2x2 sweep above)
    result = _cosci(["-m", "hydra/launcher=parallel", *FAKE, "tracking.enabled=false", "run.seed=1,2",
                     "run.max_hypotheses=2"], tmp_path, api_url=prefect_api_url)
    assert result.returncode == 0, result.stderr[-3000:]
    records = list((tmp_path / "data" / "sessions").glob("*/store.sqlite"))
    assert len(records) == 2
    from cosci.store import SessionStore

    for path in records:
        store = SessionStore.open(path, path.parent.name)
        assert store.sessions.get().status == "done"
        store.close()
