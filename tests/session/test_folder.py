"""One session's folder (issue 18): layout, the record as a context manager, the lock, is_running."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cosci.errors import SessionNotFound
from cosci.session.folder import SessionBusy, SessionFolder, new_session_id

ROOT = Path(__file__).resolve().parents[2]


def test_layout(tmp_path: Path) -> None:
    folder = SessionFolder(tmp_path, "s-1")
    assert folder.path == tmp_path / "sessions" / "s-1"
    assert folder.store_path == folder.path / "store.sqlite" and folder.lock_path == folder.path / ".lock"
    assert folder.results_dir.name == "prefect_results" and folder.http_cache.name == "http_cache"
    assert folder.overview_path == folder.path / "final" / "overview.md"
    assert folder.vectors_file == folder.path / "vectors" / "index.faiss"
    assert new_session_id().startswith("s-") and new_session_id() != new_session_id()


def test_a_missing_session_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFound, match=r"no session 's-nope' under .*cosci list") as err:
        SessionFolder.existing(tmp_path, "s-nope")
    assert "\n" not in str(err.value)
    with pytest.raises(SessionNotFound), SessionFolder(tmp_path, "s-nope").store():
        pass
    assert not (tmp_path / "sessions").exists()  # looking does not create anything
    assert SessionFolder.all(tmp_path) == []


def test_a_mistyped_session_id_names_the_nearest_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci status` with an id one character off read only "no session": the nearest ids are
    named (at most three), on the one line, with the exit status of every not-found error (2)."""
    from tests.conftest import run_cli
    from tests.store.rows import session_with

    for sid in ("s-20261206-214533-99c474", "s-20261206-220900-5d299b", "s-20250101-000000-000000"):
        session_with(tmp_path, [], sid=sid)
    with pytest.raises(SessionNotFound) as err:
        SessionFolder.existing(tmp_path, "s-20261206-214533-99c475")
    assert "; nearest: s-20261206-214533-99c474" in str(err.value) and "cosci list" in str(err.value)
    code, _, line = run_cli(capsys, "--data-dir", str(tmp_path), "status", "s-20261206-220900-5d299")
    assert code == 2 and line.count("\n") == 1 and "starting with it: s-20261206-220900-5d299b" in line, line
    with pytest.raises(SessionNotFound) as err:
        SessionFolder.existing(tmp_path, "nope")
    assert "nearest" not in str(err.value)  # nothing close: no guess


def test_a_part_of_a_session_id_names_the_sessions_it_starts_or_ends(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci status 99c474` (the id's last characters, as a short hash is typed) named no id at
    all: the line names the session whose id ends (or starts) with it, and the candidates when several do, on its one
    line, exit 2; nothing is resolved for the researcher (design.md#cli)."""
    from tests.conftest import run_cli
    from tests.store.rows import session_with

    for sid in ("s-20261206-214533-99c474", "s-20261206-220900-5d299b", "s-20261206-221000-1d299b"):
        session_with(tmp_path, [], sid=sid)
    code, _, line = run_cli(capsys, "--data-dir", str(tmp_path), "status", "99C474")
    assert code == 2 and line.count("\n") == 1, line
    assert "; the session id ending with it: s-20261206-214533-99c474 (give the whole id)" in line, line
    with pytest.raises(SessionNotFound) as err:
        SessionFolder.existing(tmp_path, "d299b")
    assert "the session ids ending with it: s-20261206-220900-5d299b, s-20261206-221000-1d299b" in str(err.value)
    with pytest.raises(SessionNotFound) as err:
        SessionFolder.existing(tmp_path, "s-20261206-2145")
    assert "the session id starting with it: s-20261206-214533-99c474" in str(err.value)
    with pytest.raises(SessionNotFound) as err:
        SessionFolder.existing(tmp_path, "299")  # too short to mean one session: no list of chance matches
    assert "with it" not in str(err.value)


def test_the_record_is_closed_on_leaving_the_block_also_on_an_error(tmp_path: Path) -> None:
    from tests.store.rows import session_with

    folder = SessionFolder(tmp_path, "s-1")
    session_with(tmp_path, [], sid="s-1")  # a store with its session row (one without is a damaged store)
    with pytest.raises(RuntimeError), folder.store() as store:
        held = store
        raise RuntimeError("boom")
    with pytest.raises(Exception, match="closed"):
        held.db.query("SELECT 1")
    assert SessionFolder.all(tmp_path) == [folder] and SessionFolder.existing(tmp_path, "s-1") == folder


def test_the_lock_is_one_process_per_session(tmp_path: Path) -> None:
    folder = SessionFolder(tmp_path, "s-1")
    assert not folder.is_running() and folder.shown_status("running") == "stopped"
    assert folder.shown_status("aborting") == "stopped (abort asked)"  # `cosci resume` writes its overview
    assert folder.shown_status("done") == "done"
    folder.lock()
    try:
        folder.lock()  # holding it already is a no-op
        assert folder.is_running() and folder.shown_status("running") == "running"
        assert folder.shown_status("aborting") == "aborting"
        other = subprocess.run(
            [sys.executable, "-c", "import sys; from pathlib import Path; from cosci.session.folder import "
             "SessionFolder; f = SessionFolder(Path(sys.argv[1]), 's-1'); print(f.is_running()); f.lock()",
             str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
        assert other.stdout.strip() == "True" and SessionBusy.__name__ in other.stderr
    finally:
        folder.unlock()
    assert not folder.is_running()


def test_a_folder_without_a_store_is_said_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: a session folder holding no store (a run stopped before its store was made, a store moved
    away) read "no session 's-…-aaaaaa' …; the session id starting with it: s-…-aaaaaa (give the whole id)", the id
    given named back as the one to give. The line says the folder holds no store; no other id is hinted at such a
    folder; nothing is made in it."""
    from tests.conftest import run_cli
    from tests.store.rows import session_with

    empty, kept = "s-20261207-000000-aaaaaa", "s-20261207-000000-aaaaab"
    (tmp_path / "sessions" / empty).mkdir(parents=True)
    session_with(tmp_path, [], sid=kept)
    for command in ("status", "report", "resume"):
        code, out, line = run_cli(capsys, "--data-dir", str(tmp_path), command, empty)
        assert (code, out) == (2, "") and line.count("\n") == 1, line
        assert line == f"cosci: session {empty} has no store: its folder {tmp_path / 'sessions' / empty} holds no " \
                       "store.sqlite (the run stopped before making it, or it was moved); `cosci list` shows the " \
                       "sessions there\n", line
    assert not any((tmp_path / "sessions" / empty).iterdir())
    with pytest.raises(SessionNotFound) as err:
        SessionFolder.existing(tmp_path, "s-20261207-000000-aaaaac")
    assert "nearest: s-20261207-000000-aaaaab" in str(err.value) and empty not in str(err.value)
