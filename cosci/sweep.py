"""Hydra callback turning a multirun into an MLflow parent run (issue 7; stack notes: Hydra callbacks).

Configured in ``conf/config.yaml`` under ``hydra.callbacks.mlflow_sweep``. Single runs are untouched. The
parent is created once per multirun, in the launching process, before any job starts; jobs find it through
the environment or the sweep folder (see :mod:`cosci.tracking.sweeps`). At the end the parent gets the sweep
summary table.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

log = logging.getLogger(__name__)


def _settings(config: DictConfig) -> tuple[bool, str, str, str, Path]:
    data_dir = Path(str(OmegaConf.select(config, "paths.data_dir"))).expanduser().resolve()
    uri = OmegaConf.select(config, "tracking.tracking_uri") or f"sqlite:///{data_dir / 'mlflow.db'}"
    experiment = str(OmegaConf.select(config, "tracking.experiment_name"))
    artifacts = f"{(data_dir / 'mlartifacts').as_uri()}/{experiment}"
    sweep_dir = Path(str(OmegaConf.select(config, "hydra.sweep.dir"))).expanduser().resolve()
    return bool(OmegaConf.select(config, "tracking.enabled")), uri, experiment, artifacts, sweep_dir


class MlflowSweepCallback(Callback):
    """Parent run at multirun start, sweep summary at multirun end."""

    def __init__(self) -> None:
        self.parent: str | None = None
        self.uri = ""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        enabled, uri, experiment, artifacts, sweep_dir = _settings(config)
        if not enabled:
            return
        from cosci.tracking.mlflow_run import PARENT_ENV  # MLflow loads only for a tracked multirun (issue 11)
        from cosci.tracking.sweeps import start_parent

        sweep_dir.parent.mkdir(parents=True, exist_ok=True)
        self.uri = uri
        self.parent = start_parent(uri, experiment, artifacts, time.strftime("sweep-%Y%m%d-%H%M%S"), sweep_dir)
        os.environ[PARENT_ENV] = self.parent

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        if not self.parent:
            return
        from cosci.tracking.mlflow_run import PARENT_ENV
        from cosci.tracking.sweeps import finish_parent

        frame = finish_parent(self.uri, self.parent)
        os.environ.pop(PARENT_ENV, None)
        print(f"sweep: parent run {self.parent} with {frame.height} sessions ({self.uri})")
        print(f"       cosci compare --parent {self.parent} --tracking-uri {self.uri}")
