"""A store in a folder this process cannot write is read as immutable (fresh-user trial: `cosci status`, `list` and
`report` refused a read-only archive with "attempt to write a readonly database"; design.md#cli)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cosci.store import db


def _unwritable(folder: Path):  # type: ignore[no-untyped-def]
    real = os.access

    def access(path, mode, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(path) == folder and mode == os.W_OK:
            return False
        return real(path, mode, *args, **kwargs)
    return access


def test_a_store_in_an_unwritable_folder_is_read_immutable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "store.sqlite"
    writer = db.Database(path)
    writer.conn.execute("CREATE TABLE t (x INTEGER)")
    writer.conn.execute("INSERT INTO t VALUES (7)")
    writer.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    writer.conn.close()
    assert db.frozen(path) is False  # a folder root or the owner can write
    monkeypatch.setattr(db.os, "access", _unwritable(tmp_path))
    assert db.frozen(path) is False  # the file still writable by someone: another user's session may write it
    path.chmod(0o444)
    assert db.frozen(path)
    reader = db.Database(path, read_only=True)
    assert [r[0] for r in reader.query("SELECT x FROM t")] == [7]
    with pytest.raises(Exception, match="readonly"):
        reader.conn.execute("INSERT INTO t VALUES (8)")


def test_a_store_with_a_log_holding_pages_is_not_read_immutable(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages still in the write-ahead log would be missed by an immutable read: such a store is read as before."""
    path = tmp_path / "store.sqlite"
    db.Database(path).conn.close()
    path.chmod(0o444)
    (tmp_path / "store.sqlite-wal").write_bytes(b"\0" * 32)
    monkeypatch.setattr(db.os, "access", _unwritable(tmp_path))
    assert not db.frozen(path)
