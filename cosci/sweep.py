"""Hydra callback turning a multirun into an MLflow parent run (Hydra's callbacks are the hook for a sweep;
design.md#launchers).

Configured in ``conf/config.yaml`` under ``hydra.callbacks.mlflow_sweep``. Single runs are untouched. The
parent is created once per multirun, in the launching process, before any job starts; jobs find it through
the environment or the sweep folder (see :mod:`cosci.tracking.sweeps`). At the end the parent gets the sweep
summary table.

Launchers that run jobs on other machines (Ray, SLURM; design.md#launchers) pickle this callback with the Hydra context
and call :meth:`MlflowSweepCallback.on_job_start` in the job's process: it sets the parent run id, the launching
shell's ``PREFECT_API_URL`` and its data folder (``COSCI_DATA_DIR``, absolute) there, so every job joins the one
parent run and the one Prefect server and writes its session where the launching shell would, even when the
worker neither inherits the launching environment nor sees the sweep folder.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from cosci.tracking import PARENT_ENV, artifact_location, default_uri

log = logging.getLogger(__name__)
DATA_DIR_ENV = "COSCI_DATA_DIR"
"""Read by ``paths.data_dir`` in conf/config.yaml; a relative default would otherwise resolve in each worker's
working directory (seen: a Ray cluster's sessions landed under the head node's working directory)."""


def _settings(config: DictConfig) -> tuple[bool, str, str, str | None, Path]:
    data_dir = Path(str(OmegaConf.select(config, "paths.data_dir"))).expanduser().resolve()
    uri = OmegaConf.select(config, "tracking.tracking_uri") or default_uri(data_dir)
    experiment = str(OmegaConf.select(config, "tracking.experiment_name"))
    artifacts = artifact_location(uri, data_dir, experiment)
    sweep_dir = Path(str(OmegaConf.select(config, "hydra.sweep.dir"))).expanduser().resolve()
    return bool(OmegaConf.select(config, "tracking.enabled")), uri, experiment, artifacts, sweep_dir


_SET_HERE: dict[str, str] = {}
"""Environment values a sweep's job start set in this process (a reused worker keeps them between sweeps)."""


def _set_unless_own(name: str, value: str) -> None:
    """Set ``name`` unless the process's environment gave it a value of its own."""
    current = os.environ.get(name)
    if current is None or current == _SET_HERE.get(name):
        os.environ[name] = value
        _SET_HERE[name] = value


class MlflowSweepCallback(Callback):
    """Parent run at multirun start, sweep summary at multirun end."""

    def __init__(self) -> None:
        self.parent: str | None = None
        self.uri = ""
        self.prefect_api_url: str | None = None
        self.data_dir: str | None = None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        enabled, uri, experiment, artifacts, sweep_dir = _settings(config)
        self.prefect_api_url = os.environ.get("PREFECT_API_URL")
        self.data_dir = str(Path(str(OmegaConf.select(config, "paths.data_dir"))).expanduser().resolve())
        os.environ.setdefault(DATA_DIR_ENV, self.data_dir)  # jobs started from here (Ray, submitit) inherit it
        if not enabled:
            return
        from cosci.tracking.sweeps import start_parent  # MLflow loads only for a tracked multirun (design.md#tracking)

        sweep_dir.parent.mkdir(parents=True, exist_ok=True)
        self.uri = uri
        self.parent = start_parent(uri, experiment, artifacts, time.strftime("sweep-%Y%m%d-%H%M%S"), sweep_dir)
        os.environ[PARENT_ENV] = self.parent

    def on_job_start(self, config: DictConfig, **kwargs: Any) -> None:
        """In the job's process (local or remote): this sweep's parent run id (always: a Ray worker process is
        reused across sweeps, and a parent left there by an earlier sweep would file this job under the wrong
        one), and the launching shell's Prefect server and data folder (absolute) unless the job's machine sets
        its own (a value an earlier sweep's job set in this process is not the machine's own: it is replaced)."""
        if self.data_dir:
            _set_unless_own(DATA_DIR_ENV, self.data_dir)
        if self.parent:
            os.environ[PARENT_ENV] = self.parent
        if self.prefect_api_url:
            _set_unless_own("PREFECT_API_URL", self.prefect_api_url)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        if not self.parent:
            return
        from cosci.tracking.sweeps import finish_parent

        frame = finish_parent(self.uri, self.parent)
        os.environ.pop(PARENT_ENV, None)
        print(f"sweep: parent run {self.parent} with {frame.height} sessions ({self.uri})")
        print(f"       cosci compare --parent {self.parent} --tracking-uri {self.uri}")
