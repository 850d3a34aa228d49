"""``copy_sqlite`` (the MLflow store copied from its template): a copy left by a killed process is removed by the next
copy, one of a live process is kept (fresh-user trial: `.mlflow.db.<pid>.tmp`, 954 KB, stayed after a SIGKILL)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from cosci.paths import copy_sqlite


def test_a_killed_copys_temporary_file_is_removed_and_a_live_ones_kept(tmp_path: Path) -> None:
    src, dst = tmp_path / "template.db", tmp_path / "data" / "mlflow.db"
    with sqlite3.connect(src) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    dst.parent.mkdir()
    dead = dst.with_name(f".mlflow.db.{gone.stdout.strip()}.tmp")
    live = dst.with_name(f".mlflow.db.{os.getppid()}.tmp")  # this test's parent: alive
    other = dst.with_name(".other.db.1.tmp")
    for path in (dead, live, other):
        path.write_bytes(b"partial")
    copy_sqlite(src, dst)
    assert dst.is_file() and not dead.exists() and live.exists() and other.exists()
    with sqlite3.connect(dst) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("t",)]
    db.close()
