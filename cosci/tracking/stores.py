"""MLflow tracking stores: for `cosci compare` (design.md#tracking), refuse, creating nothing, a URI with no store
behind it; keep MLflow's HTTP retries short; turn store errors into one-line :class:`~cosci.errors.CosciError`.
For a session (fast start), a new SQLite store starts from a copy of a migrated empty one (:func:`seed_store`)."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import requests
from mlflow.exceptions import MlflowException
from mlflow.tracking import MlflowClient
from sqlalchemy.exc import SQLAlchemyError

from cosci.errors import CosciError
from cosci.net import Unreachable, health_status
from cosci.paths import copy_sqlite, template_cache
from cosci.text import error_line

log = logging.getLogger(__name__)

PROBE_TIMEOUT_SECONDS = 5.0
HTTP_ENV = {  # MLflow's HTTP client for this command, unless the user set them: fail in seconds, not minutes
    "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2",
    "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
    "MLFLOW_HTTP_REQUEST_TIMEOUT": "30",
}
STORE_ERRORS = (MlflowException, SQLAlchemyError, requests.RequestException, OSError)
URI_HINT = "--tracking-uri takes sqlite:///<path>/mlflow.db or http(s)://<host>:<port>"


def redacted(uri: str) -> str:
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


def seed_store(uri: str) -> None:
    """Start a SQLite tracking store that does not exist yet as a copy of a migrated empty store.

    MLflow migrates a new SQLite store on first use (about 1.4 s of CPU here, measured in design.md#store, in the
    seconds a session's first tasks run). The migrated empty store is built once per MLflow version in the user
    cache (:func:`cosci.paths.template_cache`) and copied. A cache: any failure is logged and MLflow then
    migrates the new store itself. Other stores (existing files, servers, databases) are left alone.
    """
    path = store_path(uri)
    if uri.partition("://")[0].split("+")[0].lower() != "sqlite" or path is None or str(path) == ":memory:":
        return
    if path.exists():
        return
    try:
        template = template_cache("mlflow-db", "mlflow", "mlflow.db")
        if not template.is_file():
            template.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=template.parent) as tmp:
                built = Path(tmp) / "mlflow.db"
                MlflowClient(tracking_uri=f"sqlite:///{built}").search_experiments(max_results=1)
                copy_sqlite(built, template)
        copy_sqlite(template, path)
        with contextlib.closing(sqlite3.connect(path)) as db, db:  # as MLflow would have set it: ./mlruns/0
            db.execute("UPDATE experiments SET artifact_location=? WHERE experiment_id=0",
                       (str(Path.cwd() / "mlruns" / "0"),))
    except Exception as exc:  # only the saving is lost
        log.debug("MLflow store template not used: %s", error_line(exc))


def relocate_artifacts(uri: str, data_dir: Path) -> int:
    """Point a moved or copied data folder's SQLite store at the folder's own artifacts.

    A local experiment keeps its artifacts in ``<data_dir>/mlartifacts`` as an absolute file URI
    (:func:`cosci.tracking.artifact_location`), stored in MLflow's database for the experiment and each run. When
    the whole data folder is moved or copied, its store still names the old folder, and a resumed session wrote
    its artifacts there (into the original, for a copy; fresh-user report). MLflow has no API to change an
    artifact location, so this rewrites the old ``.../mlartifacts`` prefix to the new one in the store's tables
    (experiments, runs). Only for a SQLite store inside ``data_dir`` (the default one); others are left alone.

    Returns:
        The number of rows rewritten (0 when nothing moved).
    """
    path = store_path(uri)
    if uri.partition("://")[0].split("+")[0].lower() != "sqlite" or path is None or not path.is_file():
        return 0
    if path.resolve().parent != data_dir.resolve():
        return 0
    new_root = (data_dir.resolve() / "mlartifacts").as_uri()
    marker = "/mlartifacts/"
    with contextlib.closing(sqlite3.connect(path, timeout=30)) as db, db:
        rows = db.execute("SELECT artifact_location FROM experiments WHERE artifact_location LIKE 'file://%'"
                          " AND instr(artifact_location, ?) > 0", (marker,)).fetchall()
        old_roots = {loc[: loc.index(marker) + len(marker) - 1] for (loc,) in rows} - {new_root}
        n = 0
        for old in old_roots:
            for table, column in (("experiments", "artifact_location"), ("runs", "artifact_uri")):
                n += db.execute(f"UPDATE {table} SET {column} = ? || substr({column}, ?) WHERE substr({column}, 1, ?)"
                                " = ?", (new_root, len(old) + 1, len(old) + 1, old + "/")).rowcount
    return n


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
        try:
            health_status(uri, PROBE_TIMEOUT_SECONDS)  # any HTTP status will do
        except Unreachable as exc:
            raise CosciError(f"no MLflow server answers at {redacted(uri)} ({exc})") from None
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
        raise CosciError(f"MLflow store {redacted(uri)}: {error_line(exc)}") from None


def experiment_id(client: MlflowClient, name: str, artifact_location: str | None) -> str:
    """The id of the MLflow experiment ``name``, created if new (``artifact_location`` only applies then;
    ``None``: the tracking server's default)."""
    exp = client.get_experiment_by_name(name)
    return str(exp.experiment_id) if exp else str(client.create_experiment(name, artifact_location=artifact_location))
