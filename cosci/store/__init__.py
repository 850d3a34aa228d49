"""The session record: one SQLite file per session (seed 001 "Database Schema").

Usage::

    record = SessionRecord.open(data_dir / "sessions" / sid / "record.sqlite", sid)
    record.hypotheses.insert(...); record.tasks.claim(...); record.matches.apply(...)
"""

from __future__ import annotations

from pathlib import Path

from cosci.domain import CallRecord
from cosci.store.batches import BatchedMatches
from cosci.store.db import Database
from cosci.store.hypotheses import Hypotheses
from cosci.store.logs import Feedback, Logs
from cosci.store.matches import Matches, MatchRow
from cosci.store.sessions import SessionRow, Sessions
from cosci.store.tasks import PRIORITY, Tasks

RECORD_FILE = "record.sqlite"


class SessionRecord:
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

    @classmethod
    def open(cls, path: Path, session_id: str) -> SessionRecord:
        """Open (creating and migrating if needed) the record at ``path``."""
        return cls(Database(path), session_id)

    def close(self) -> None:
        self.db.close()


__all__ = ["PRIORITY", "RECORD_FILE", "CallRecord", "Feedback", "MatchRow", "SessionRecord", "SessionRow"]
