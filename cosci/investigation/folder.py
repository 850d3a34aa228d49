"""An investigation's folder, ``<data>/investigations/<run id>/``: the one place that spells out its layout
(docs/design.md#investigation).

``manifest.json`` (run id, task digest, overrides, isolation, MLflow ids, status), ``task/`` (a frozen copy of the
task), ``.lock`` (one process per run, flock), ``events.jsonl`` (append-only: every cycle start and end),
``prefect_results/``, ``views/`` (staged task views), ``workers/w<K>/`` (``best/``, ``best.json``,
``history.jsonl``, ``memory.jsonl``, ``cycles/c<NNN>/``), ``shared/`` (``conclusions.jsonl``, ``memory.jsonl``:
what crosses workers), ``evidence/``, ``report.md``, ``claims.json``, ``summary.json``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from cosci.errors import CosciError
from cosci.investigation.digest import tree_digest


class RunBusy(CosciError):
    """Another process runs this investigation."""


class RunNotFound(CosciError):
    """No investigation with that id under the data folder."""


def new_run_id(task_name: str, overrides: list[str]) -> str:
    """``inv-`` + 12 hex digits of sha256(task, overrides, time): unique per start."""
    body = json.dumps([task_name, overrides, time.time_ns(), os.getpid()])
    return "inv-" + hashlib.sha256(body.encode()).hexdigest()[:12]


class RunFolder:
    def __init__(self, data_dir: Path, run_id: str) -> None:
        self.run_id = run_id
        self.root = (data_dir / "investigations" / run_id).resolve()
        self._lock_fd: int | None = None

    @classmethod
    def existing(cls, data_dir: Path, run_id: str) -> RunFolder:
        folder = cls(data_dir, run_id)
        if not (folder.root / "manifest.json").is_file():
            raise RunNotFound(f"no investigation {run_id} under {data_dir / 'investigations'}")
        return folder

    # --- layout ------------------------------------------------------------------------------------------
    @property
    def task_dir(self) -> Path:
        """The frozen copy of the task, ``task/<task name>/`` (its name is the task's)."""
        return self.task_of(self.root)

    @staticmethod
    def task_of(root: Path) -> Path:
        """The frozen task copy of the run folder ``root``."""
        return next(p for p in sorted((root / "task").iterdir()) if p.is_dir())

    @property
    def results_dir(self) -> Path:
        return self.root / "prefect_results"

    def worker(self, w: int) -> Path:
        return self.root / "workers" / f"w{w}"

    def best(self, w: int) -> Path:
        return self.worker(w) / "best"

    # --- creation, lock, manifest -----------------------------------------------------------------------
    def create(self, task_src: Path, manifest: dict[str, Any]) -> None:
        """The folder with a frozen copy of the task and the manifest (its ``task_digest`` over the copy)."""
        self.root.mkdir(parents=True)
        shutil.copytree(task_src, self.root / "task" / task_src.name, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
        self.write_manifest({**manifest, "run_id": self.run_id, "task_digest": tree_digest(self.task_dir),
                             "created": time.time(), "status": "running"})

    def lock(self) -> None:
        """Hold ``.lock`` for this process. Raises RunBusy when another process holds it."""
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RunBusy(f"investigation {self.run_id} is running in another process") from None
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def manifest(self) -> dict[str, Any]:
        return json.loads((self.root / "manifest.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]

    def write_manifest(self, data: dict[str, Any]) -> None:
        tmp = self.root / "manifest.json.tmp"
        tmp.write_text(json.dumps(data, indent=1, default=str), encoding="utf-8")
        tmp.replace(self.root / "manifest.json")

    def update_manifest(self, **changes: Any) -> None:
        self.write_manifest({**self.manifest(), **changes})

    # --- append-only logs and rewritten state -------------------------------------------------------------
    def event(self, kind: str, **detail: Any) -> None:
        with (self.root / "events.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"t": time.time(), "event": kind, "pid": os.getpid(), **detail}) + "\n")

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        path = self.root / "events.jsonl"
        if not path.is_file():
            return []
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [r for r in rows if kind is None or r["event"] == kind]

    def write_jsonl(self, path: Path, rows: list[dict[str, Any]]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows), encoding="utf-8")
        tmp.replace(path)
