"""Experiment tracking: each session is an MLflow run (design.md#tracking).

MLflow is imported only inside this package (the ``mlflow`` contract in ``pyproject.toml``): by
:mod:`.mlflow_run`, :mod:`.traces`, :mod:`.sweeps`, :mod:`.eval_runs`, :mod:`.compare` and :mod:`.stores`. This
module imports none, so the entry points and the sweep callback can read the names below without loading it.
"""

from __future__ import annotations

from pathlib import Path

from cosci.config.schema import CosciConfig
from cosci.errors import CosciError

PARENT_ENV = "COSCI_MLFLOW_PARENT_RUN_ID"
"""Environment variable carrying a sweep's parent run id to each job (design.md#deployment)."""
SWEEP_OVERRIDES_ENV = "COSCI_SWEEP_OVERRIDES"
"""Environment variable carrying a job's own overrides, tagged on its run."""
PARENT_FILE = ".mlflow_parent_run_id"
"""The file in a sweep folder holding the parent run id (written by :func:`cosci.tracking.sweeps.start_parent`)."""


MLFLOW_FILE = "mlflow.db"
"""The default MLflow store: a SQLite file in the data folder."""


def default_uri(data_dir: Path) -> str:
    """The default tracking URI, ``sqlite:///<data_dir>/mlflow.db`` (absolute when ``data_dir`` is)."""
    return f"sqlite:///{data_dir / MLFLOW_FILE}"


def tracking_uri(config: CosciConfig) -> str:
    """The MLflow tracking URI: ``tracking.tracking_uri``, else :func:`default_uri` of ``paths.data_dir``."""
    return config.tracking.tracking_uri or default_uri(config.paths.data_dir)


def artifact_root(config: CosciConfig) -> str:
    """Where new experiments keep artifacts: ``<data_dir>/mlartifacts`` as a file URI (absolute)."""
    return (config.paths.data_dir / "mlartifacts").as_uri()


def artifact_location(uri: str, data_dir: Path, experiment: str) -> str | None:
    """Where a new experiment keeps its artifacts.

    ``None`` for an MLflow server (``http(s)://``): the server's own artifact store (``mlflow server`` proxies
    ``mlflow-artifacts:/`` to its ``--artifacts-destination``), so jobs on every machine of a sweep write to one
    place (design.md#launchers). Otherwise ``<data_dir>/mlartifacts/<experiment>`` as a file URI (absolute).
    """
    if uri.lower().startswith(("http://", "https://")):
        return None
    return f"{(data_dir / 'mlartifacts').as_uri()}/{experiment}"


PROBE_SECONDS = 5.0
"""How long a tracking server has to answer ``/health`` before a session starts (seconds)."""


def check_tracking(config: CosciConfig) -> None:
    """Refuse to start a tracked session whose MLflow server does not answer, before any model is paid.

    Only ``http(s)://`` URIs are probed (``GET /health``, any HTTP status will do); a local store is created by
    the session. Fresh-user report: an unreachable server let a whole session run, MLflow retried for four
    minutes, and the session ended failed without its overview.

    Raises:
        CosciError: ``tracking.tracking_uri: no MLflow server answers at <uri> (<error>)`` (one line).
    """
    uri = tracking_uri(config)
    if not config.tracking.enabled or not uri.lower().startswith(("http://", "https://")):
        return
    from cosci.net import Unreachable, health_status  # httpx: only for a server to probe (design.md#startup)

    try:
        health_status(uri, PROBE_SECONDS)
    except Unreachable as exc:
        raise CosciError(f"tracking.tracking_uri: no MLflow server answers at {uri} ({exc}); start it, or pass "
                          "tracking.enabled=false") from None
