"""A data folder the file system refuses (read-only mount, full disk, no permission) is one line and exit 2 for any
command, never a traceback (a fresh user's read-only mount: `cosci list`, `status`, `report`, `rate`, `export`)."""

from __future__ import annotations

import errno
import importlib
import sqlite3
from pathlib import Path

import pytest

import cosci.cli as cli

cli_parser = importlib.import_module("cosci.cli.parser")  # the module: `cosci.cli.parser` is also a function


@pytest.mark.parametrize("error", [
    sqlite3.OperationalError("unable to open database file"),
    sqlite3.OperationalError("attempt to write a readonly database"),
    OSError(errno.EROFS, "Read-only file system", "/data/sessions/s-1/.lock"),
    PermissionError(errno.EACCES, "Permission denied", "/data/sessions"),
])
def test_a_refused_data_folder_is_one_line(error: Exception, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    def refused(args: object) -> None:
        raise error

    monkeypatch.setattr(cli_parser, "cmd_list", refused)
    with pytest.raises(SystemExit) as ended:
        cli.main(["--data-dir", str(tmp_path), "list"])
    assert ended.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing was changed" in err[0]
    assert (getattr(error, "filename", None) or str(tmp_path)) in err[0]  # the path refused, else the data folder


@pytest.mark.parametrize("error", [sqlite3.OperationalError("no such table: sessions"),
                                   OSError(errno.EBADF, "Bad file descriptor")])
def test_other_errors_are_not_taken_for_a_refused_folder(error: Exception, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(args: object) -> None:
        raise error

    monkeypatch.setattr(cli_parser, "cmd_list", broken)
    with pytest.raises(type(error)):
        cli.main(["--data-dir", str(tmp_path), "list"])



@pytest.mark.parametrize("command", [["status", "s-20261206-000000-abcdef"],
                                     ["rate", "s-20261206-000000-abcdef", "H-aaaa", "H-bbbb", "--prefer", "a"]])
def test_a_refused_session_folder_is_named_not_the_data_folder(command: list[str], tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: a read-only session folder (SQLite's error names no file) read "cannot use the data folder
    <data>", which was writable; the line names the folder of the session the command names."""
    session = tmp_path / "sessions" / command[1]
    session.mkdir(parents=True)

    def refused(args: object) -> None:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(cli_parser, f"cmd_{command[0]}", refused)
    with pytest.raises(SystemExit) as ended:
        cli.main(["--data-dir", str(tmp_path), *command])
    assert ended.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert f"cannot use the session folder {session}: unable to open database file" in line, line
