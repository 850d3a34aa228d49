"""A session id on the command line names one folder under ``sessions/``: an empty id, ``.``/``..`` or one with a
path separator is refused in one line even when a stray store lies where it would resolve."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.errors import SessionNotFound
from cosci.session.folder import SessionFolder


@pytest.mark.parametrize("session_id", ["", " ", ".", "..", "../s-1", "a/b"])
def test_an_id_that_is_not_one_folder_names_no_session(tmp_path: Path, session_id: str) -> None:
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "store.sqlite").touch()  # a stray store where the empty id would resolve
    (tmp_path / "store.sqlite").touch()
    with pytest.raises(SessionNotFound, match="no session"):
        SessionFolder.existing(tmp_path, session_id)
