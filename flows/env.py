"""Prefect's environment, set before Prefect is imported (Prefect reads its settings at import).

``PREFECT_HOME`` under cosci's data directory (absolute), analytics off, Prefect's own console logging quiet
(its "database is locked" noise, upstream PrefectHQ/prefect#18934, and per-task chatter stay out of the
researcher's terminal; they go to ``$PREFECT_HOME/prefect.log``, by default ``<data_dir>/prefect/prefect.log``).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from cosci.paths import writable_data_dir


def prepare(data_dir: Path, *, quiet: bool = True) -> Path:
    """Point Prefect at ``<data_dir>/prefect`` (unless ``PREFECT_HOME`` is set, e.g. per job of a parallel sweep)
    and quiet its console output. Idempotent. Returns the Prefect home in use (created).

    Raises:
        DataDirUnusable: the data folder cannot be created or written (one line).
    """
    writable_data_dir(data_dir)
    os.environ.setdefault("PREFECT_HOME", str((data_dir / "prefect").resolve()))
    home = Path(os.environ["PREFECT_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("DO_NOT_TRACK", "1")  # Prefect, MLflow and LiteLLM honour it: no telemetry notice
    os.environ.setdefault("MLFLOW_DISABLE_TELEMETRY", "true")
    os.environ.setdefault("MLFLOW_LOGGING_LEVEL", "WARNING")  # its store migration and trace-queue INFO lines
    os.environ.setdefault("PREFECT_LOGGING_TO_API_BATCH_INTERVAL", "5")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")
    os.environ.setdefault("PREFECT_RESULTS_PERSIST_BY_DEFAULT", "true")
    if quiet:
        os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
        os.environ.setdefault("PREFECT_LOGGING_SERVER_LEVEL", "CRITICAL")
        for name in ("httpx", "httpcore", "prefect", "prefect.server", "uvicorn", "alembic", "docket"):
            logging.getLogger(name).setLevel(logging.ERROR)
    return home
