"""The head line of ``cosci status`` (cosci.session.status.status_report): one status word, and the process only
when it says more than the word (fresh-user trial: '(running, running now)')."""

from __future__ import annotations

from pathlib import Path

from cosci.session.folder import SessionFolder
from cosci.session.status import status_report
from tests.store.rows import session_with


def _head(data: Path, sid: str, status: str) -> str:
    folder = SessionFolder(data, sid)
    with folder.store() as store:
        store.sessions.update(status=status)
        return status_report(folder, store)[0]


def test_the_head_line_names_the_process_only_beside_another_word(tmp_path: Path) -> None:
    data = tmp_path / "data"
    sid, _ = session_with(data, ["Metformin inhibits complex I in AML blasts"])
    folder = SessionFolder(data, sid)
    assert _head(data, sid, "running") == f"session      {sid} (stopped)"  # no process holds it
    folder.lock()
    try:
        assert _head(data, sid, "running") == f"session      {sid} (running)"
        assert _head(data, sid, "paused") == f"session      {sid} (paused, its process still running)"
        # ended, the process still closing its run: not "still running", which read as if it had not ended
        assert _head(data, sid, "done") == f"session      {sid} (done, its process finishing)"
    finally:
        folder.unlock()
    assert _head(data, sid, "done") == f"session      {sid} (done)"
