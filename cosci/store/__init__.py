"""The session store: one SQLite file per session, the scientific record of the session (design.md#store).

Usage::

    store = SessionStore.open(data_dir / "sessions" / sid / STORE_FILE, sid)
    store.hypotheses.insert(...); store.tasks.claim(...); store.matches.apply(...)

Sessions made before the store was named so keep their file, ``record.sqlite`` (:data:`LEGACY_STORE_FILE`);
:class:`cosci.session.folder.SessionFolder` opens whichever a session folder holds.
"""

from __future__ import annotations

from pathlib import Path

from cosci.domain import Call
from cosci.store.batches import BatchedMatches
from cosci.store.db import Database
from cosci.store.hypotheses import Hypotheses
from cosci.store.logs import Feedback, Logs
from cosci.store.matches import Matches, MatchRow
from cosci.store.researcher import Researcher
from cosci.store.safety import SafetyVerdict, SafetyVerdicts
from cosci.store.sessions import SessionRow, Sessions
from cosci.store.tasks import PRIORITY, Tasks

STORE_FILE = "store.sqlite"
"""The store's file in a session folder."""
LEGACY_STORE_FILE = "record.sqlite"
"""The file of sessions made before the vocabulary renames (design.md#vocabulary); still opened where found."""


class SessionStore:
    """All repositories of one session over one :class:`Database`."""

    def __init__(self, db: Database, session_id: str) -> None:
        self.db = db
        self.session_id = session_id
        self.sessions = Sessions(db, session_id)
        self.hypotheses = Hypotheses(db, session_id)
        self.matches = Matches(db, session_id)
        self.tasks = Tasks(db, session_id)
        self.logs = Logs(db, session_id)
        self.batches = BatchedMatches(db, session_id)  # the batch pool's queue (design.md#batches)
        self.safety = SafetyVerdicts(db, session_id)
        self.researcher = Researcher(db, session_id)  # ratings, experimental results, project entrants
        self.namespace = session_id

    @property
    def namespace(self) -> str:
        """What derived ids (hypothesis, match, task, review) are hashed with: :func:`cosci.ids.id_namespace`
        of the goal and seed (so the same goal and seed give the same ids; design.md#ids),
        the session id for older ones. Set once when the session is opened."""
        return self._namespace

    @namespace.setter
    def namespace(self, value: str) -> None:
        self._namespace = value
        self.hypotheses.namespace = value
        self.tasks.namespace = value

    @classmethod
    def open(cls, path: Path, session_id: str, *, read_only: bool = False) -> SessionStore:
        """Open (creating and migrating if needed; with ``read_only``, an existing file as it is: SQLite's
        ``mode=ro``) the store at ``path``, in the id namespace the session started with (its ``session_started``
        event; the session id for sessions from before namespaces)."""
        return cls.on(Database(path, read_only=read_only), session_id)

    @classmethod
    def on(cls, db: Database, session_id: str) -> SessionStore:
        """The store over an open :class:`Database` (see :meth:`open`)."""
        store = cls(db, session_id)
        started = store.logs.events("session_started")
        if started and started[0]["payload"].get("namespace"):
            store.namespace = str(started[0]["payload"]["namespace"])
        return store

    def close(self) -> None:
        self.db.close()


__all__ = [
    "LEGACY_STORE_FILE",
    "PRIORITY",
    "STORE_FILE",
    "Call",
    "Feedback",
    "MatchRow",
    "SafetyVerdict",
    "SessionRow",
    "SessionStore",
]
