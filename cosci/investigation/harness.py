"""One evaluation of a program: run it, then run an evaluator on its answer, each in its own sandbox
(docs/design.md#task-format).

The program sees ``/program`` (its own tree, read-only), its phase's ``inputs`` under ``/data`` and a writable
``/workspace``; it never sees the evaluators or the answers. The evaluator sees the task view (the task without
its data) at ``/task``, the program's answer at ``/answer/answer.json``, the phase's inputs and answers under
``/data`` and its own ``/workspace``; it never runs candidate code. A tree with a symlink is refused before either
runs.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cosci.investigation.digest import UnsafeTree, tree_digest
from cosci.investigation.task import Task
from cosci.sandbox import Isolation, Limits, Mount
from cosci.sandbox.run import SandboxResult, View, run_sandboxed


@dataclass
class Evaluation:
    """The outcome of one evaluation. ``exit_code``: the first non-zero exit of the program or the evaluator;
    ``valid``: the evaluator printed a JSON object with ``metrics`` (the score metric a finite number) and a boolean
    ``correct``; ``score``: the score metric; ``reason``: why not valid (one line, "" when valid); ``stage``: where
    it stopped (``tree``, ``program``, ``evaluator``, ``done``); seconds are wall-clock."""

    phase: str
    seed: int
    exit_code: int
    valid: bool
    correct: bool
    score: float | None
    metrics: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    stage: str = "done"
    digest: str = ""
    seconds: float = 0.0
    limit: str | None = None
    answer_digest: str = ""
    """sha256 of the program's answer (its JSON object, keys sorted); "" when it printed none. Two runs gave the
    same answer when their digests are equal (the perturbation probe of design.md#gates)."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.valid

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Evaluation:
        return cls(**data)


def last_json(text: str) -> dict[str, Any] | None:
    """The last line of ``text`` that is a JSON object (programs and evaluators may log before it)."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
        if line:
            return None
    return None


def answer_digest(answer: dict[str, Any]) -> str:
    """sha256 (hex) of an answer as canonical JSON (keys sorted, no spaces)."""
    return hashlib.sha256(json.dumps(answer, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def stage_task_view(task: Task, dest: Path, extra: tuple[str, ...] = ()) -> Path:
    """Copy the task without its declared data files (except the task-relative paths in ``extra``) to ``dest``:
    the evaluators' read-only ``/task``. Idempotent (an existing ``dest`` is replaced)."""
    hidden = {p for p in task.declared_data() if p not in extra}
    hidden_abs = {str((task.root / p).resolve()) for p in hidden if "{seed}" not in p}
    patterns = [p for p in hidden if "{seed}" in p]

    def ignore(folder: str, names: list[str]) -> set[str]:
        out = set()
        for n in names:
            full = str(Path(folder, n).resolve())
            rel = Path(folder, n).resolve().relative_to(task.root).as_posix()
            if full in hidden_abs or any(_matches(p, rel) for p in patterns) or n == "__pycache__":
                out.add(n)
        return out

    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(task.root, dest, symlinks=True, ignore=ignore)
    return dest


def _matches(pattern: str, rel: str) -> bool:
    head, _, tail = pattern.partition("{seed}")
    return rel.startswith(head) and rel.endswith(tail) and rel[len(head):len(rel) - len(tail)].isdigit()


AGENT_HIDDEN = ("evaluate_final.py", "make_data.py", "drafting")
"""Left out of what the execution agent may read: the final evaluator, the data generator (it holds how the
answers are drawn) and a drafted task's log (docs/design.md#draft)."""


class Harness:
    """Evaluates programs of one task with one isolation; ``views`` is a folder for staged task views."""

    def __init__(self, task: Task, isolation: Isolation, views: Path) -> None:
        self.task, self.isolation = task, isolation
        self.view_dir = views / "task"  # staged once per run (the first harness of a run stages it)
        self.agent_view = views / "agent_task"  # what the execution agent may read: no data, no final evaluator
        if not self.agent_view.exists():
            stage_task_view(task, self.view_dir)
            shutil.copytree(self.view_dir, self.agent_view, ignore=shutil.ignore_patterns(*AGENT_HIDDEN))

    def limits(self, seconds: float) -> Limits:
        lim = self.task.spec.limits
        return Limits(lim.cpu_seconds, seconds, lim.memory_mb, lim.file_size_mb, lim.processes)

    def evaluate(self, program: Path, phase: str, seed: int, work: Path, *,
                 evaluator_view: Path | None = None, extra_data: dict[str, Path] | None = None) -> Evaluation:
        """Run ``program`` then the ``phase`` evaluator with ``seed``; ``work`` (created, emptied) keeps the run's
        workspaces, logs and answer. ``evaluator_view`` and ``extra_data`` replace the evaluator's task view and add
        files to its ``/data`` (the check's probes)."""
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
        try:
            digest = tree_digest(program)
        except UnsafeTree as exc:
            return Evaluation(phase, seed, 1, False, False, None, reason=f"refused: {exc}", stage="tree")
        files = self.task.data_files(phase, seed)
        missing = [p for part in files.values() for p in part.values() if not p.is_file()]
        if missing:
            return Evaluation(phase, seed, 1, False, False, None, digest=digest, stage="tree",
                              reason=f"task data missing: {missing[0].relative_to(self.task.root)}")
        ran = self._program(program, files["inputs"], seed, work)
        if not ran.ok:
            return Evaluation(phase, seed, ran.exit_code or 1, False, False, None, reason=f"program: {ran.reason}",
                              stage="program", digest=digest, seconds=ran.wall_seconds, limit=ran.limit)
        answer = last_json(ran.stdout)
        if answer is None:
            return Evaluation(phase, seed, 0, False, False, None, digest=digest, seconds=ran.wall_seconds,
                              stage="program", reason="program: printed no JSON object on its last line")
        (work / "answer").mkdir()
        (work / "answer" / "answer.json").write_text(json.dumps(answer), encoding="utf-8")
        data = {**files["inputs"], **files["answers"], **(extra_data or {})}
        judged = self._evaluator(phase, seed, work, data, evaluator_view or self.view_dir)
        out = parse_evaluator(judged, self.task.spec.score.metric, phase, seed)
        out.digest, out.seconds = digest, ran.wall_seconds + judged.wall_seconds
        out.answer_digest = answer_digest(answer)
        return out

    def _program(self, program: Path, inputs: dict[str, Path], seed: int, work: Path) -> SandboxResult:
        (work / "program_ws").mkdir()
        mounts = [Mount(program.resolve(), "/program"), Mount(work / "program_ws", "/workspace", writable=True),
                  *[Mount(p.resolve(), f"/data/{name}") for name, p in inputs.items()]]
        view = View(mounts, self.isolation)
        argv = ["python", f"/program/{self.task.spec.entry}", "--seed", str(seed)]
        env = {"COSCI_DATA": view.where("/data"), "COSCI_SEED": str(seed), "HOME": view.where("/workspace")}
        return run_sandboxed(view, argv, cwd="/workspace", limits=self.limits(self.task.spec.timeouts.program_seconds),
                             logs=work / "program_logs", env=env)

    def _evaluator(self, phase: str, seed: int, work: Path, data: dict[str, Path], task_view: Path) -> SandboxResult:
        (work / "evaluator_ws").mkdir()
        mounts = [Mount(task_view, "/task"), Mount(work / "answer", "/answer"),
                  Mount(work / "evaluator_ws", "/workspace", writable=True),
                  *[Mount(p.resolve(), f"/data/{name}") for name, p in data.items()]]
        view = View(mounts, self.isolation)
        argv = ["python", f"/task/evaluate_{phase}.py", "/answer/answer.json", "--seed", str(seed), "--data", "/data"]
        limits = self.limits(self.task.spec.timeouts.evaluator_seconds)
        return run_sandboxed(view, argv, cwd="/workspace", limits=limits,
                             logs=work / "evaluator_logs", env={"HOME": view.where("/workspace")})


def parse_evaluator(ran: SandboxResult, metric: str, phase: str, seed: int) -> Evaluation:
    """An evaluator's run as an :class:`Evaluation` (validity rules in its docstring)."""
    def bad(reason: str, code: int = 0) -> Evaluation:
        return Evaluation(phase, seed, code, False, False, None, reason=reason, stage="evaluator", limit=ran.limit)

    if not ran.ok:
        return bad(f"evaluate_{phase}.py: {ran.reason}", ran.exit_code or 1)
    out = last_json(ran.stdout)
    if out is None:
        return bad(f"evaluate_{phase}.py printed no JSON object on its last line")
    metrics, correct = out.get("metrics"), out.get("correct")
    if not isinstance(metrics, dict) or not isinstance(correct, bool):
        return bad(f"evaluate_{phase}.py: its JSON needs a 'metrics' object and a boolean 'correct'")
    score = metrics.get(metric)
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        return bad(f"evaluate_{phase}.py: metric {metric!r} (the score) is missing or not a finite number")
    return Evaluation(phase, seed, 0, True, correct, float(score), metrics=metrics)
