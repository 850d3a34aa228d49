"""The session store: one SQLite file per session (seed 001 "Database Schema").

Usage::

    record = SessionStore.open(data_dir / "sessions" / sid / "store.sqlite", sid)
    record.hypotheses.insert(...); record.tasks.claim(...); record.matches.apply(...)
"""

from __future__ import annotations

from pathlib import Path

from cosci.domain import Call
from cosci.store.batches import BatchedMatches
from cosci.store.db import Database
from cosci.store.hypotheses import Hypotheses
from cosci.store.logs import Feedback, Logs
from cosci.store.matches import Matches, MatchRow
from cosci.store.safety import SafetyVerdict, SafetyVerdicts
from cosci.store.sessions import SessionRow, Sessions
from cosci.store.tasks import PRIORITY, Tasks

STORE_FILE = "store.sqlite"


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
        self.batches = BatchedMatches(db, session_id)  # issue 16: the batch pool's queue
        self.safety = SafetyVerdicts(db, session_id)
        self.namespace = session_id

    @property
    def namespace(self) -> str:
        """What derived ids (hypothesis, match, task, review) are hashed with: :func:`cosci.domain.id_namespace`
        of the goal and seed for sessions started since issue 11 (so the same goal and seed give the same ids),
        the session id for older ones. Set once when the session is opened."""
        return self._namespace

    @namespace.setter
    def namespace(self, value: str) -> None:
        self._namespace = value
        self.hypotheses.namespace = value
        self.tasks.namespace = value

    @classmethod
    def open(cls, path: Path, session_id: str) -> SessionStore:
        """Open (creating and migrating if needed) the record at ``path``, in the id namespace the session
        started with (its ``session_started`` event; the session id for sessions from before namespaces)."""
        record = cls(Database(path), session_id)
        started = record.logs.events("session_started")
        if started and started[0]["payload"].get("namespace"):
            record.namespace = str(started[0]["payload"]["namespace"])
        return record

    def close(self) -> None:
        self.db.close()


__all__ = [
    "PRIORITY",
    "STORE_FILE",
    "Call",
    "Feedback",
    "MatchRow",
    "SafetyVerdict",
    "SessionRow",
    "SessionStore",
]
