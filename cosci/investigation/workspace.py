"""A cycle's experiment workspace and the execution agent's tools over it (docs/design.md#investigation).

The workspace is the cycle folder: ``candidates/c1``, ``c2``... (append-only: each ``write_candidate`` makes a new
folder, never overwrites one) and ``evaluations/``. ``read_file`` reads ``task/...`` (the task without its data
and without the final evaluator), ``best/...`` (the worker's best program) or ``c<N>/...``, without following a
symlink, at most :data:`READ_CAP_BYTES`. ``run_evaluation`` runs the search evaluator on a candidate and counts
against the cycle's evaluation budget; the harness's own adjudication of the submitted candidate does not.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cosci.investigation.digest import UnsafeTree, file_digests
from cosci.investigation.harness import Evaluation, Harness
from cosci.llm.port.types import ToolSpec
from cosci.tools.base import ToolResult

READ_CAP_BYTES = 64_000
"""read_file returns at most this many bytes of a file (the model's context is the limit that matters)."""
WRITE_CAP_BYTES = 256_000
"""A candidate file written by the model is at most this large."""
MAX_CANDIDATES = 20
"""Candidates one cycle may create."""
CANDIDATE = re.compile(r"^c[1-9][0-9]*$")


class WorkspaceError(ValueError):
    """A request the workspace refuses (bad path, symlink, over a cap); its text goes back to the model."""


def safe_relative(path: str) -> Path:
    rel = Path(path.strip().removeprefix("./"))
    if not path.strip() or rel.is_absolute() or ".." in rel.parts:
        raise WorkspaceError(f"{path!r}: give a relative path without '..'")
    return rel


def read_regular(root: Path, rel: Path, cap: int = READ_CAP_BYTES) -> str:
    """Text of ``root/rel``: every component checked with ``lstat`` (no symlink), opened with ``O_NOFOLLOW``."""
    current = root
    for part in rel.parts:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            raise WorkspaceError(f"{rel}: no such file") from None
        if stat.S_ISLNK(mode):
            raise WorkspaceError(f"{rel}: refused, {part} is a symlink")
    if stat.S_ISDIR(os.lstat(current).st_mode):
        return "folder: " + ", ".join(sorted(p.name + ("/" if p.is_dir() else "") for p in current.iterdir()))
    fd = os.open(current, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise WorkspaceError(f"{rel}: not a regular file")
        data = fh.read(cap + 1)
    text = data[:cap].decode("utf-8", "replace")
    return text + (f"\n[... cut at {cap} bytes]" if len(data) > cap else "")


class CycleWorkspace:
    """One cycle's candidates and evaluations (see the module docstring)."""

    def __init__(self, root: Path, best: Path, task_view: Path, harness: Harness, budget: int, seed: int,
                 rubric_check: Callable[[Path, Evaluation], list[dict[str, Any]]]) -> None:
        self.root, self.best, self.task_view, self.harness = root, best, task_view, harness
        self.budget, self.seed, self.rubric_check = budget, seed, rubric_check
        self.candidates = root / "candidates"
        self.candidates.mkdir(parents=True, exist_ok=True)
        self.used = 0
        self.evaluations: dict[str, Evaluation] = {}

    def program(self, name: str) -> Path:
        if name in ("best", ""):
            return self.best
        if not CANDIDATE.match(name) or not (self.candidates / name).is_dir():
            raise WorkspaceError(f"no candidate {name!r} (written so far: {', '.join(self.written()) or 'none'})")
        return self.candidates / name

    def written(self) -> list[str]:
        return sorted((p.name for p in self.candidates.iterdir() if CANDIDATE.match(p.name)), key=lambda n: int(n[1:]))

    def read(self, path: str) -> str:
        head, _, rest = safe_relative(path).as_posix().partition("/")
        roots = {"task": self.task_view, "best": self.best}
        root = roots.get(head) or (self.program(head) if CANDIDATE.match(head) else None)
        if root is None:
            raise WorkspaceError(f"{path!r}: paths start with task/, best/ or a candidate id (c1/...)")
        return read_regular(root, Path(rest) if rest else Path("."))

    def write(self, path: str, content: str, base: str = "best") -> str:
        """A new candidate: a copy of ``base`` with ``path`` (relative to the program) set to ``content``."""
        rel = safe_relative(path)
        if len(content.encode()) > WRITE_CAP_BYTES:
            raise WorkspaceError(f"content is over {WRITE_CAP_BYTES} bytes")
        if len(self.written()) >= MAX_CANDIDATES:
            raise WorkspaceError(f"this cycle already has {MAX_CANDIDATES} candidates")
        source = self.program(base)
        try:
            file_digests(source)
        except UnsafeTree as exc:
            raise WorkspaceError(f"base {base} refused: {exc}") from None
        name = f"c{len(self.written()) + 1}"
        target = self.candidates / name
        target.mkdir()  # raises if it exists: candidates are append-only
        shutil.copytree(source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_text(content, encoding="utf-8")
        return name

    def evaluate(self, name: str, *, counted: bool = True) -> Evaluation:
        """The search evaluation of a candidate (cached per candidate: candidates never change)."""
        if name in self.evaluations:
            return self.evaluations[name]
        if counted and self.used >= self.budget:
            raise WorkspaceError(f"the evaluation budget of this cycle ({self.budget}) is used up; submit with "
                                 "record_attempt")
        program = self.program(name)
        if counted:
            self.used += 1
        result = self.harness.evaluate(program, "search", self.seed, self.root / "evaluations" / name)
        self.evaluations[name] = result
        return result


def _spec(name: str, description: str, props: dict[str, Any], required: list[str]) -> ToolSpec:
    return ToolSpec(name, description, {"type": "object", "properties": props, "required": required})


class WorkspaceTool:
    """One execution tool (the :class:`cosci.tools.base.Tool` protocol) over a :class:`CycleWorkspace`."""

    def __init__(self, spec: ToolSpec, run: Callable[[dict[str, Any]], str]) -> None:
        self.spec, self._run = spec, run

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            return ToolResult(await asyncio.to_thread(self._run, arguments), source=self.spec.name)
        except (WorkspaceError, OSError, KeyError, TypeError) as exc:
            return ToolResult(f"{self.spec.name}: {exc}", is_error=True, source=self.spec.name)


def tools(ws: CycleWorkspace) -> dict[str, WorkspaceTool]:
    """``read_file``, ``write_candidate``, ``run_evaluation`` (``record_attempt`` is the loop's terminal record)."""
    def run_evaluation(args: dict[str, Any]) -> str:
        name = str(args["candidate"])
        e = ws.evaluate(name)
        report = {"candidate": name, "exit_code": e.exit_code, "valid": e.valid, "correct": e.correct,
                  "score": e.score, "metrics": e.metrics, "reason": e.reason,
                  "rubrics": ws.rubric_check(ws.program(name), e), "evaluations_left": ws.budget - ws.used}
        return json.dumps(report)

    def write_candidate(args: dict[str, Any]) -> str:
        name = ws.write(str(args["path"]), str(args["content"]), str(args.get("base") or "best"))
        return f"candidate {name} written ({args['path']} changed from {args.get('base') or 'best'})"

    return {
        "read_file": WorkspaceTool(_spec("read_file", "Read a file: task/<file>, best/<file> or c<N>/<file>.",
                                         {"path": {"type": "string"}}, ["path"]),
                                   lambda a: ws.read(str(a["path"]))),
        "write_candidate": WorkspaceTool(_spec(
            "write_candidate", "Create a NEW candidate program: a copy of base (best or c<N>) with one file set to "
            "content. Never overwrites; returns the new candidate id.",
            {"path": {"type": "string"}, "content": {"type": "string"}, "base": {"type": "string"}},
            ["path", "content"]), write_candidate),
        "run_evaluation": WorkspaceTool(_spec(
            "run_evaluation", "Run the search evaluator on a candidate (counts against this cycle's budget); returns "
            "metrics, correctness and the target rubrics' status.", {"candidate": {"type": "string"}},
            ["candidate"]), run_evaluation),
    }
