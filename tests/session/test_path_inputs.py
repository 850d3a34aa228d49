"""File names given on the command line (`--file`, `session.goal_file`): one that is not valid UTF-8 is refused in one
line with its bad bytes escaped, nothing recorded (design.md#cli)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cosci.session.folder import SessionFolder
from tests.conftest import run_cli
from tests.store.rows import session_with


def _observations(data: Path, sid: str) -> int:
    with SessionFolder(data, sid).store() as store:
        return len(store.researcher.observations())


@pytest.mark.parametrize("exists", [True, False])
def test_a_data_file_whose_name_is_not_utf8_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                        exists: bool) -> None:
    data = tmp_path / "data"
    sid, (h,) = session_with(data, ["metformin inhibits complex I"])
    name = os.fsdecode(os.fsencode(str(tmp_path)) + b"/x-\xff.csv")
    if exists:
        Path(name).write_bytes(b"well,od\nA1,0.3\n")
    code, out, err = run_cli(capsys, "--data-dir", str(data), "result", sid, h, "--outcome", "inconclusive",
                             "--file", name)
    assert code == 2 and not out and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"--file {tmp_path}/x-\\xff.csv: the path is not valid UTF-8" in err, err
    assert _observations(data, sid) == 0


def test_a_data_file_that_is_no_regular_file_is_named_so_and_a_large_one_is_hashed_in_pieces(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Break-it pass: ``--file /dev/zero`` said "no such file" (it exists: a device, read without end if it were
    read); a data file is hashed in pieces, its size and sha256 those of the whole file
    (design.md#experimental-results)."""
    import hashlib

    from cosci.session.inputs import data_file

    data = tmp_path / "data"
    sid, (h,) = session_with(data, ["metformin inhibits complex I"])
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    for name in ("/dev/zero", str(fifo)):
        code, out, err = run_cli(capsys, "--data-dir", str(data), "result", sid, h, "--outcome", "inconclusive",
                                 "--file", name)
        assert code == 2 and not out and err == (f"cosci: --file {name}: is no regular file (a device or a pipe); "
                                                 "name one data file (its path and sha256 are recorded)\n"), err
    assert _observations(data, sid) == 0
    big = tmp_path / "plate.bin"
    body = os.urandom(3 << 20)  # many of file_digest's pieces
    big.write_bytes(body)
    assert data_file(str(big)) == (str(big.resolve()), hashlib.sha256(body).hexdigest(), len(body))


@pytest.mark.parametrize("quote", ["", '"'])
def test_a_goal_file_whose_name_is_not_utf8_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch, quote: str) -> None:
    from cosci.run import main

    monkeypatch.delenv("PREFECT_HOME", raising=False)
    data = tmp_path / "data"
    name = os.fsdecode(os.fsencode(str(tmp_path)) + b"/goal-\xff.txt")
    Path(name).write_text("Suggest approved drugs to repurpose for acute myeloid leukemia", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["experiment=demo", "models=fake", f"paths.data_dir={data}", f"session.goal_file={quote}{name}{quote}"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert f"session.goal_file {tmp_path}/goal-\\xff.txt: the path is not valid UTF-8" in err, err
    assert not data.exists() or not any(data.rglob("*"))


@pytest.mark.parametrize("command", [
    ["result", "{sid}", "{h}", "--outcome", "inconclusive", "--file", ""],
    ["report", "{sid}", "--out", ""],
    ["report", "{sid}", "--html", "--out", ""],
    ["export", "{sid}", "--format", "md", "--out", ""],
    ["list", "--data-dir", ""],
])
def test_an_empty_path_flag_is_one_line_and_writes_nothing(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                           command: list[str]) -> None:
    data = tmp_path / "data"
    sid, (h,) = session_with(data, ["metformin inhibits complex I"])
    before = sorted(p for p in data.rglob("*") if p.is_file())
    argv = [a.format(sid=sid, h=h) for a in command]
    flag = argv[argv.index("") - 1]
    code, out, err = run_cli(capsys, "--data-dir", str(data), *argv)
    assert code == 2 and not out and err == f"cosci: {flag} is empty: give a path\n", (out, err)
    assert _observations(data, sid) == 0
    assert sorted(p for p in data.rglob("*") if p.is_file()) == before  # no final/report.html
