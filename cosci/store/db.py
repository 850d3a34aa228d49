"""The SQLite connection of one session's store: pragmas, the migration runner, transactions.

design.md#store: WAL mode, foreign keys, ``busy_timeout=5000``, an idempotent migration runner over
``migrations/NNNN_*.sql`` recorded in ``schema_migrations``. One connection per process, shared by the
repositories; every write goes through :meth:`Database.tx`, which serialises writers with a re-entrant lock
(the connection is used from the event loop and from worker threads).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar, cast

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000  # design.md#retries


def dumps(value: Any) -> str:
    """JSON for a TEXT column (compact, UTF-8 kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def loads(text: str | None, default: Any = None) -> Any:
    return default if text is None else json.loads(text)


@functools.cache
def _field_names(cls: Any) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def row_to(cls: type[T], row: sqlite3.Row, *, json_columns: Mapping[str, Any] | None = None,
           bool_columns: tuple[str, ...] = (), **values: Any) -> T:
    """A dataclass from one row: each field takes the column of its name (the one row mapper of the store).

    Args:
        cls: a dataclass whose field names are column names (fields without a column keep their default).
        row: a ``sqlite3.Row``.
        json_columns: columns holding JSON text, with the value to use when NULL.
        bool_columns: INTEGER 0/1 columns read as ``bool``.
        values: fields computed by the caller (they win over columns).
    """
    columns = set(row.keys())
    data = {name: row[name] for name in _field_names(cast(Any, cls)) & columns}
    for name, default in (json_columns or {}).items():
        data[name] = loads(row[name], default)
    for name in bool_columns:
        data[name] = bool(row[name])
    data.update(values)
    return cls(**data)


SQLITE_DAMAGED = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})
"""SQLite's names for a file that is not (or no longer) a whole database: random bytes, a truncated file."""


def damaged(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite saying the file is not a sound database (:data:`SQLITE_DAMAGED`), not a
    passing condition such as a locked database."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    name = getattr(exc, "sqlite_errorname", None)
    return name in SQLITE_DAMAGED or (name is None and type(exc) is sqlite3.DatabaseError)


def migrations(folder_name: str = "migrations") -> list[tuple[int, str]]:
    """The shipped migrations of ``cosci/store/<folder_name>/`` as ``(version, sql)``, in order (``migrations``:
    a session store; ``project_migrations``: a project store, design.md#projects)."""
    folder = resources.files("cosci.store") / folder_name
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            found.append((int(entry.name.split("_", 1)[0]), entry.read_text(encoding="utf-8")))
    return sorted(found)


IMMUTABLE = "&immutable=1"
"""SQLite's URI parameter for a file on read-only media: no lock and no shared-memory file is made. A WAL store in a
folder nobody may write could not be read at all with ``mode=ro`` alone ("attempt to write a readonly database": the
reader makes the ``-shm`` file), so `cosci list`, `status` and `report` refused a read-only archive (fresh-user trial;
design.md#cli)."""


def frozen(path: Path) -> bool:
    """Whether the store at ``path`` is an archive nothing writes: in a folder this process cannot write, the file
    itself writable by nobody (no write bit) or on a read-only file system, and no write-ahead log holding pages (its
    ``-wal`` file absent or empty). Reading it as immutable is then exact. A folder only this process may not write
    (another user's, whose session may be running) is read with ``mode=ro`` as before, since an immutable read of a
    file another process writes could see a torn page."""
    wal = path.with_name(path.name + "-wal")
    if os.access(path.parent, os.W_OK) or (wal.exists() and wal.stat().st_size > 0) or not path.exists():
        return False
    return not path.stat().st_mode & 0o222 or bool(os.statvfs(path).f_flag & os.ST_RDONLY)


class Database:
    """One SQLite file with cosci's schema applied.

    Args:
        path: the store's SQLite file (created with its folder if missing).
        migrations_folder: the migrations applied (:func:`migrations`).
        busy_timeout_ms: how long a write waits for another connection's write lock, milliseconds.
        read_only: open an existing file with SQLite's ``mode=ro`` (no schema created, nothing migrated, every
            write refused by SQLite): what the read-only commands use (``cosci list``, ``report``, ``export``,
            ``status`` in a folder it cannot write). In a folder this process cannot write, with no write-ahead log
            left beside the file, also ``immutable=1`` (:func:`frozen`).
    """

    def __init__(self, path: Path, migrations_folder: str = "migrations", busy_timeout_ms: int = BUSY_TIMEOUT_MS,
                 *, read_only: bool = False) -> None:
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._migrations = migrations_folder
        self._lock = threading.RLock()
        target = f"{path.resolve().as_uri()}?mode=ro{IMMUTABLE if frozen(path) else ''}" if read_only else str(path)
        self.conn = sqlite3.connect(target, check_same_thread=False, isolation_level=None,
                                    timeout=busy_timeout_ms / 1000, uri=read_only)
        self.conn.row_factory = sqlite3.Row
        if not read_only:
            self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        if not read_only:
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.migrate()

    def pending(self) -> list[int]:
        """The shipped migration versions not recorded in this file (all of them for a file without a schema)."""
        rows = self.query("SELECT name FROM sqlite_master WHERE type='table' AND name='schema_migrations'")
        done = {r[0] for r in self.query("SELECT version FROM schema_migrations")} if rows else set()
        return [v for v, _ in migrations(self._migrations) if v not in done]

    def migrate(self) -> list[int]:
        """Apply the migrations not yet recorded; returns the versions applied now."""
        applied_now = []
        with self.tx() as c:
            c.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL)")
            done = {r[0] for r in c.execute("SELECT version FROM schema_migrations")}
            for version, sql in migrations(self._migrations):
                if version in done:
                    continue
                for statement in _statements(sql):
                    c.execute(statement)
                c.execute("INSERT INTO schema_migrations VALUES (?, ?)", (version, time.time()))
                applied_now.append(version)
        return applied_now

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``; rolled back on error). Re-entrant."""
        with self._lock:
            if self.conn.in_transaction:
                yield self.conn
                return
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def query(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self.conn.execute(sql, params).fetchall()

    def scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        rows = self.query(sql, params)
        return rows[0][0] if rows else None

    def close(self) -> None:
        with self._lock:
            self.conn.close()


def _statements(sql: str) -> list[str]:
    """Split a migration file into statements (no semicolons inside our DDL strings)."""
    body = "\n".join(line.split("--", 1)[0] for line in sql.splitlines())
    return [s.strip() for s in body.split(";") if s.strip()]
