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


def test_the_hint_names_the_newest_other_session_holding_the_hypothesis(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The project's store lists hypotheses in its standing, not by session: the hint takes the latest start."""
    from types import SimpleNamespace

    from cosci.session import inputs
    from cosci.store.project import PriorHypothesis, ProjectStore

    rows = [PriorHypothesis(sid, "H-0123456789ab", "t", 1200.0, 1, "in_tournament", {}, score)
            for sid, score in (("s-20261203-090000-aaaaaa", 0.9), ("s-20261203-110000-cccccc", 0.5),
                               ("s-20261203-100000-bbbbbb", 0.1))]
    store = SimpleNamespace(hypotheses=lambda: rows, close=lambda: None)
    monkeypatch.setattr(ProjectStore, "exists", staticmethod(lambda data_dir, name: True))
    monkeypatch.setattr(ProjectStore, "open", staticmethod(lambda data_dir, name: store))
    folder = SimpleNamespace(data_dir=tmp_path, session_id="s-20261203-120000-dddddd",
                             frozen_config=lambda: SimpleNamespace(session=SimpleNamespace(project="lab")))
    said = "; it is a hypothesis of session {} of the same project"
    held = inputs._held_elsewhere
    assert held(folder, "H-0123456789ab") == said.format("s-20261203-110000-cccccc")  # type: ignore[arg-type]
    folder.session_id = "s-20261203-110000-cccccc"
    assert held(folder, "H-0123456789ab") == said.format("s-20261203-100000-bbbbbb")  # type: ignore[arg-type]
