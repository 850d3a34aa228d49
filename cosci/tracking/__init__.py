"""Experiment tracking: each session is an MLflow run (issue 6). Only :mod:`.mlflow_run` imports mlflow."""

from __future__ import annotations

from cosci.config.schema import CosciConfig


def tracking_uri(config: CosciConfig) -> str:
    """The MLflow tracking URI: ``tracking.tracking_uri``, else ``sqlite:///<data_dir>/mlflow.db`` (absolute)."""
    return config.tracking.tracking_uri or f"sqlite:///{config.paths.data_dir / 'mlflow.db'}"


def artifact_root(config: CosciConfig) -> str:
    """Where new experiments keep artifacts: ``<data_dir>/mlartifacts`` as a file URI (absolute)."""
    return (config.paths.data_dir / "mlartifacts").as_uri()
