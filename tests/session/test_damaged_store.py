"""A damaged session store (random bytes, truncated, empty) is one line and changes nothing; `cosci list` still
shows the other sessions (design.md#store)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cosci.session.folder import SessionFolder
from tests.conftest import run_cli
from tests.store.rows import session_with

GOOD = "s-20261203-120000-abcdef"
BAD = "s-20261203-130000-fedcba"


def _damage(path: Path, how: str) -> None:
    if how == "random":
        path.write_bytes(os.urandom(16384))
    elif how == "truncated":
        for extra in ("-wal", "-shm"):
            Path(f"{path}{extra}").unlink(missing_ok=True)
        path.write_bytes(path.read_bytes()[:8192])
    else:
        path.write_bytes(b"")


@pytest.mark.parametrize("how", ["random", "truncated", "empty"])
def test_a_damaged_store_is_one_line_and_changes_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, how: str) -> None:
    data = tmp_path / "data"
    session_with(data, ["metformin inhibits complex I"], sid=GOOD)
    session_with(data, [f"statement {i} " + "x" * 2000 for i in range(40)], sid=BAD)
    store = SessionFolder(data, BAD).store_path
    _damage(store, how)
    before = store.read_bytes()

    code, out, err = run_cli(capsys, "--data-dir", str(data), "list")
    assert code == 0, err
    assert "1 hypothesis" in next(x for x in out.splitlines() if GOOD in x)
    line = next(x for x in out.splitlines() if BAD in x)
    assert "damaged store: " in line
    assert store.read_bytes() == before  # the empty file got no schema

    for command in (["status", BAD], ["report", BAD], ["export", BAD, "--format", "md"], ["resume", BAD]):
        code, out, err = run_cli(capsys, "--data-dir", str(data), *command)
        assert code == 2, (command, err)
        assert "Traceback" not in err
        assert out == "", (command, out)  # no `batches  not polled, ...` line on stdout before the one line
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].endswith("; nothing was changed"), (command, err)
        assert f"the store of {BAD} is damaged (" in lines[0]
        assert store.read_bytes() == before, command
