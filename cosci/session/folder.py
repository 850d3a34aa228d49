"""One session's folder: its layout, its lock and its store (the one place that spells them out).

Layout of one session (``<paths.data_dir>/sessions/<session id>/``)::

    store.sqlite         the session store, the scientific record (design.md#store; ``record.sqlite`` in
                         sessions made before the store was named so)
    .lock                held (flock) while a process runs the session: one session, one process
    prefect_results/     cached action results (a resumed session replays finished actions from here)
    http_cache/          literature tool responses (the same query never goes out twice)
    vectors/index.faiss  a copy of the FAISS index (rebuilt from the store on open)
    final/overview.md    the research overview
    final/claims.json    its claim map and audit (design.md#grounding); final/report.html, the report page

Nothing here imports Prefect, MLflow or Hydra; the CLI, ``python -m cosci.run``, the launcher
(``flows/launch.py``) and :class:`cosci.session.runtime.SessionRuntime` all go through :class:`SessionFolder`.
"""

from __future__ import annotations

import fcntl
import re
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from cosci.errors import CosciError, SessionNotFound, StoreDamaged
from cosci.ids import normal_id, wrong_kind
from cosci.store import LEGACY_STORE_FILE, STORE_FILE, SessionStore
from cosci.store.db import Database, damaged
from cosci.store.standing import none_yet

if TYPE_CHECKING:
    from cosci.config.schema import CosciConfig

LOCK_FILE = ".lock"
SESSIONS = "sessions"
"""Sub-folder of the data directory holding one folder per session."""

_HELD: dict[Path, IO[str]] = {}
"""Session folders whose lock this process holds, with the open lock file."""


class SessionBusy(CosciError):
    """Another process is running this session."""

    @classmethod
    def of(cls, session_id: str) -> SessionBusy:
        """The one line for a session another process runs (its lock, and the service's resume rule)."""
        return cls(f"session {session_id} is already running in another process")


SESSION_ID = re.compile(r"^s-\d{8}-\d{6}-[0-9a-f]{6}$")
"""A session id as :func:`new_session_id` makes it."""
SESSION_SHAPE = "a session id is s-YYYYmmdd-HHMMSS-xxxxxx; see `cosci list`"
"""How a session id looks, said when an id of another kind is given for one (:func:`cosci.ids.wrong_kind`)."""
NEAREST = 3
"""How many of the nearest session ids a not-found line names (a mistyped id's likely meaning, not a listing)."""
WHOLE_ID = "(give the whole id)"
PART_MIN = 4
"""The fewest characters of an id's start or end a not-found line matches ids by: four hex characters are one in
65,536 by chance; three or fewer would list chance matches."""


def nearest(data_dir: Path, session_id: str) -> str:
    """``"; the session id ending with it: <id> (give the whole id)"`` for a part of an id (its start or its end, at
    least :data:`PART_MIN` characters, any case: a short hash is typed so), else ``"; nearest: <id>, <id>"``: the
    session ids under ``data_dir`` closest to ``session_id`` (difflib's ratio, at least 0.6), or ``""``: a fresh
    user's mistyped or shortened id read only "no session" (design.md#cli). A part is not resolved to its session."""
    from difflib import get_close_matches

    root = data_dir / SESSIONS
    try:
        ids = sorted(p.name for p in root.iterdir() if has_store(p)) if root.is_dir() else []
    except OSError:  # an unreadable folder: the line says what it can
        return ""
    key = session_id.strip().lower()
    starts = [i for i in ids if len(key) >= PART_MIN and i.startswith(key)]
    ends = [i for i in ids if len(key) >= PART_MIN and i.endswith(key) and i not in starts]
    if part := starts + ends:
        how = "starting or ending" if starts and ends else "starting" if starts else "ending"
        more = f" and {len(part) - NEAREST} more" if len(part) > NEAREST else ""
        shown = ", ".join(part[:NEAREST])
        return f"; the session id{'s' if len(part) > 1 else ''} {how} with it: {shown}{more} {WHOLE_ID}"
    close = get_close_matches(session_id.strip(), ids, n=NEAREST, cutoff=0.6)
    return f"; nearest: {', '.join(close)}" if close else ""


def has_store(path: Path) -> bool:
    """Whether the folder ``path`` holds a session store (today's file or an earlier release's): a session folder
    ``cosci list`` shows and a not-found line may name."""
    return (path / STORE_FILE).is_file() or (path / LEGACY_STORE_FILE).is_file()


def new_session_id() -> str:
    """``s-YYYYmmdd-HHMMSS-xxxxxx`` (sortable by start time, unique)."""
    return time.strftime("s-%Y%m%d-%H%M%S-", time.gmtime()) + secrets.token_hex(3)


@dataclass(frozen=True)
class SessionFolder:
    """The folder of session ``session_id`` under ``data_dir`` (which need not exist yet).

    Attributes:
        data_dir: the data directory (``paths.data_dir``); the folder is ``<data_dir>/sessions/<session_id>``.
        session_id: the session id (``s-...``).
    """

    data_dir: Path
    session_id: str

    @classmethod
    def all(cls, data_dir: Path) -> list[SessionFolder]:
        """Every session with a store under ``data_dir``, sorted by id (that is, by start time)."""
        root = data_dir / SESSIONS
        if not root.is_dir():
            return []
        return [cls(data_dir, p.name) for p in sorted(root.iterdir()) if has_store(p)]

    @classmethod
    def existing(cls, data_dir: Path, session_id: str) -> SessionFolder:
        """The folder of a session that exists.

        Raises:
            SessionNotFound: no store for this id under ``data_dir`` (one line, naming ``cosci list``; a folder
                without a store is said so, not hinted at as the id to give); an empty id
                or one with a path separator names no session (it would resolve to the sessions folder or outside).
        """
        if not (data_dir / SESSIONS / session_id).is_dir():
            session_id = normal_id(session_id)  # `S-...-ABCDEF`: ids are hex, case carries nothing (design.md#ids)
        folder = cls(data_dir, session_id)
        one_folder = session_id.strip() not in ("", ".", "..") and Path(session_id).name == session_id
        if not one_folder or not folder.store_path.is_file():
            if wrong := wrong_kind(session_id, "session", SESSION_SHAPE):  # e.g. a hypothesis id in its place
                raise SessionNotFound(wrong)
            if one_folder and folder.path.is_dir():  # its id named back as the one to give (fresh-user trial)
                raise SessionNotFound(f"session {session_id} has no store: its folder {folder.path} holds no "
                                      f"{STORE_FILE} (the run stopped before making it, or it was moved); "
                                      "`cosci list` shows the sessions there")
            line = f"no session '{session_id}' under {data_dir / SESSIONS}{(hint := nearest(data_dir, session_id))}"
            if hint.endswith(WHOLE_ID):  # a part of an id: the sessions it names, no more to say
                raise SessionNotFound(line)
            if session_id.strip().lower().startswith("s-") and not SESSION_ID.match(session_id):
                raise SessionNotFound(f"{line} ({SESSION_SHAPE})")  # the id's form, for a mistyped one
            raise SessionNotFound(f"{line} (see `cosci list`)")
        return folder

    # --- layout ------------------------------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return self.data_dir / SESSIONS / self.session_id

    @property
    def store_path(self) -> Path:
        """The session store's file: ``store.sqlite``, or ``record.sqlite`` for a session made before the store
        was named so (design.md#vocabulary: such a session keeps its file)."""
        legacy = self.path / LEGACY_STORE_FILE
        return legacy if legacy.is_file() and not (self.path / STORE_FILE).exists() else self.path / STORE_FILE

    @property
    def lock_path(self) -> Path:
        return self.path / LOCK_FILE

    @property
    def results_dir(self) -> Path:
        """Prefect's result store for the session's actions (JSON files)."""
        return self.path / "prefect_results"

    @property
    def http_cache(self) -> Path:
        return self.path / "http_cache"

    @property
    def vectors_file(self) -> Path:
        return self.path / "vectors" / "index.faiss"

    @property
    def final_dir(self) -> Path:
        return self.path / "final"

    @property
    def overview_path(self) -> Path:
        return self.final_dir / "overview.md"

    @property
    def withheld_overview_path(self) -> Path:
        """Where an overview the safety screen withheld is kept (never in overview.md or MLflow; design.md#safety)."""
        return self.final_dir / "overview.withheld.md"

    # --- the store ---------------------------------------------------------------------------------------
    def open_store(self) -> SessionStore:
        """Open (creating it if needed) the session's store; the caller closes it (prefer :meth:`store`)."""
        self.path.mkdir(parents=True, exist_ok=True)
        return SessionStore.open(self.store_path, self.session_id)

    @contextmanager
    def store(self, *, read_only: bool = False) -> Iterator[SessionStore]:
        """The session's store, closed on leaving the block (also on an error). The file is first looked at
        read-only (SQLite's ``mode=ro``): a damaged one is refused before anything writes to it.

        Args:
            read_only: keep the store opened read-only (``cosci list``, ``report``, ``export``): no schema is
                created or migrated, nothing is written; a store from an older cosci that lacks migrations is
                still brought up to date first (as every command did before), its queries need the new columns.

        Raises:
            SessionNotFound: the session has no store yet.
            StoreDamaged: the file is not a sound database (random bytes, truncated, empty, no session row),
                also when SQLite finds a damaged page inside the block.
        """
        if not self.store_path.is_file():
            raise SessionNotFound(f"no session '{self.session_id}' under {self.data_dir / SESSIONS}")
        store = self._checked_store(read_only)
        try:
            with self._damage_named():
                yield store
        finally:
            store.close()

    @contextmanager
    def _damage_named(self) -> Iterator[None]:
        """SQLite's damaged-file errors (:func:`cosci.store.db.damaged`) in the block, raised as StoreDamaged."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if damaged(exc):
                raise StoreDamaged(self.session_id, str(exc)) from None
            raise

    def _checked_store(self, read_only: bool) -> SessionStore:
        """The store, opened after a read-only look that finds it sound (see :meth:`store`)."""
        path = self.store_path
        if path.stat().st_size == 0:
            raise StoreDamaged(self.session_id, "the file is empty")
        with self._damage_named():
            db = Database(path, read_only=True)
            try:
                if not db.query("SELECT name FROM sqlite_master WHERE type='table' AND name='sessions'"):
                    raise StoreDamaged(self.session_id, "no sessions table")
                if not db.scalar("SELECT count(*) FROM sessions"):
                    raise StoreDamaged(self.session_id, "no session row")
                if read_only and not db.pending():
                    return SessionStore.on(db, self.session_id)
            except BaseException:
                db.close()
                raise
            db.close()
            return SessionStore.open(path, self.session_id)

    def frozen_config(self, overrides: Sequence[str] = (), *, lifecycle: bool = False) -> CosciConfig:
        """The session's frozen config with ``key=value`` overrides, in this data folder
        (:func:`cosci.config.frozen.frozen_config`); ``lifecycle``: refuse a retired model (a resume).

        Raises:
            SessionNotFound: no store. ConfigError: a bad override or an invalid merged config.
        """
        from cosci.config.frozen import frozen_config  # OmegaConf: only when a config is needed

        with self.store() as store:
            snapshot = store.sessions.get().config_snapshot
        return frozen_config(snapshot, self.data_dir, overrides, lifecycle=lifecycle)

    # --- the lock (one session, one process) -------------------------------------------------------------
    def lock(self) -> None:
        """Hold the session's lock (``.lock``, flock) for this process; holding it already is a no-op.

        Raises:
            SessionBusy: another process holds it (the session is running there).
        """
        key = self.path.resolve()
        if key in _HELD:
            return
        self.path.mkdir(parents=True, exist_ok=True)
        fh = self.lock_path.open("w")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise SessionBusy.of(self.session_id) from None
        _HELD[key] = fh

    def unlock(self) -> None:
        """Let go of the lock if this process holds it."""
        fh = _HELD.pop(self.path.resolve(), None)
        if fh is not None:
            fcntl.flock(fh, fcntl.LOCK_UN)
            fh.close()

    def is_running(self) -> bool:
        """Whether a process (this one included) holds the session's lock. The lock file is opened for reading:
        flock needs no write access, and opening it to append made `cosci status` refuse a session in a read-only
        folder that `cosci report` read (fresh-user trial; design.md#cli)."""
        if self.path.resolve() in _HELD:
            return True
        if not self.lock_path.exists():
            return False
        with self.lock_path.open("rb") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(fh, fcntl.LOCK_UN)
        return False

    def shown_status(self, status: str) -> str:
        """The stored status as a researcher reads it: a ``running`` session whose process is gone (killed)
        is shown ``stopped``, an ``aborting`` one ``stopped (abort asked)``: ``cosci resume`` continues the first
        and writes the second's overview and ends it (design.md#cli)."""
        if status not in ("running", "aborting") or self.is_running():
            return status
        return "stopped" if status == "running" else "stopped (abort asked)"


def shown_status(store: SessionStore) -> str:
    """The status of the session ``store`` holds as a researcher reads it (:meth:`SessionFolder.shown_status`, the
    folder being the store file's): ``cosci status``, ``cosci list``, ``cosci report``, ``cosci export`` and the
    report page say the same word (design.md#cli)."""
    folder = store.db.path.parent
    return SessionFolder(folder.parent.parent, store.session_id).shown_status(store.sessions.get().status)


def nothing_yet(store: SessionStore) -> str | None:
    """None when the session ``store`` holds a hypothesis (in any state); else what to say instead of an empty
    leaderboard, its judge's "n/a" statistics or a hypothesis id not found (fresh-user trial: a paused session's
    report explained how to read an empty leaderboard): "no hypothesis has been generated yet; `cosci resume <id>`
    continues it" for a session that runs on, "... yet (it is running)" while it runs, "no hypothesis was generated
    (stop reason: <reason>)" for an ended one (design.md#cli)."""
    if store.hypotheses.state_counts():
        return None
    return none_yet(store.session_id, shown_status(store), store.sessions.get().stop_reason)
