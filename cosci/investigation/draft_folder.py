"""The folder ``cosci investigate draft`` writes (docs/design.md#draft): the drafted task files, the data its
``make_data.py`` writes in the sandbox, and the drafting log under ``drafting/`` (the design and its review, then
one record per round: the drafted files, the check's failures, the alignment judge's verdicts).

Drafted code never runs on the host: ``make_data.py`` runs in the sandbox with only its own file and the task's
``data/`` (writable) visible; the program and the evaluators run in the sandbox through the check.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from cosci.investigation.draft_records import RecordTaskDraft
from cosci.sandbox import Isolation, Limits, Mount
from cosci.sandbox.run import View, run_sandboxed

LOG = "drafting"
"""The drafting log's folder inside the task folder (kept out of the execution agent's view: harness.py)."""
ENTRY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\.py$")
DATA_LIMITS = Limits(cpu_seconds=60, wall_seconds=60, memory_mb=1024, file_size_mb=64, processes=16)
"""Limits of one ``make_data.py`` run (docs/design.md#draft): a small task's data is written in seconds."""


def entry_of(task_yaml: str) -> str:
    """The program's file name named by ``task.yaml`` (``program.py`` when it names none or an unsafe one)."""
    try:
        raw = yaml.safe_load(task_yaml)
    except yaml.YAMLError:
        return "program.py"
    entry = raw.get("entry") if isinstance(raw, dict) else None
    return entry if isinstance(entry, str) and ENTRY.match(entry) else "program.py"


class DraftFolder:
    """A task folder being drafted at ``root``; each round replaces the task files and keeps the log."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.log_dir = root / LOG

    def start(self, brief: str, meta: dict[str, Any]) -> None:
        """Create the folder and its log (the brief as given, and how the drafting was asked for)."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        (self.log_dir / "brief.md").write_text(brief, encoding="utf-8")
        self.write_json("request.json", meta)

    def write_json(self, name: str, data: Any) -> None:
        (self.log_dir / name).write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")

    def append(self, event: dict[str, Any]) -> None:
        """One line of ``drafting/log.jsonl``."""
        with (self.log_dir / "log.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(event, default=str) + "\n")

    def clear(self) -> None:
        """Remove the previous round's task files and data (the log stays)."""
        for child in self.root.iterdir():
            if child.name == LOG:
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()

    def write(self, draft: RecordTaskDraft, round_no: int) -> dict[str, str]:
        """Write the drafted files (and a copy under ``drafting/round_<n>/``); returns path -> text."""
        self.clear()
        files = {name: getattr(draft, field) for field, name in RecordTaskDraft.FILES.items()
                 if getattr(draft, field).strip()}
        files[f"initial/{entry_of(draft.task_yaml)}"] = draft.program
        copy = self.log_dir / f"round_{round_no}"
        for rel, text in files.items():
            for where in (self.root / rel, copy / rel):
                where.parent.mkdir(parents=True, exist_ok=True)
                where.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
        return files

    def make_data(self, isolation: Isolation) -> list[str]:
        """Run ``make_data.py --out /out`` in the sandbox with ``data/`` writable; failures, one line each."""
        script = self.root / "make_data.py"
        if not script.is_file():
            return []
        out = self.root / "data"
        out.mkdir(exist_ok=True)
        logs = self.log_dir / "make_data_logs"
        if logs.exists():
            shutil.rmtree(logs)
        view = View([Mount(script.resolve(), "/gen/make_data.py"), Mount(out.resolve(), "/out", writable=True)],
                    isolation)
        ran = run_sandboxed(view, ["python", "/gen/make_data.py", "--out", "/out"], cwd="/out", limits=DATA_LIMITS,
                            logs=logs, env={"HOME": view.where("/out")})
        return [] if ran.ok else [f"make_data.py: {ran.reason}"]
