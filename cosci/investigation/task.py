"""The task format of an investigation (docs/design.md#task-format).

A task folder holds ``task.md`` (the question), ``initial/`` (the starting program), ``evaluate_search.py`` and
``evaluate_final.py``, ``rubrics.yaml`` (the rubric catalogue: ``id``, ``text``, optional ``source_contains`` and
``perturb``) and ``task.yaml`` (:class:`TaskSpec`). The program is run as ``python <entry> --seed S`` with its
phase's ``inputs`` under ``/data`` and prints its answer as a JSON object on its last line; an evaluator is run as
``python evaluate_<phase>.py ANSWER.json --seed S --data /data`` with the phase's ``inputs`` and ``answers`` and prints
``{"metrics": {...}, "correct": true|false}`` on its last line. Evaluators never execute candidate code.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cosci.errors import CosciError

MAX_RUBRICS = 32
"""At most 32 rubrics per task (design.md#task-format: a longer catalogue is refused by the check)."""
PROCESSES = 64
"""Default process limit of one run (design.md#sandbox): room for a process pool per core of this 2-core machine
class and the threads numerical libraries start (each counts), while ``workers x 2`` runs of 64 stay far below a
host's process table (32,768 ids by default on Linux)."""
PHASES = ("search", "final")
RUBRIC_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
REQUIRED = ("task.md", "initial", "evaluate_search.py", "evaluate_final.py", "rubrics.yaml", "task.yaml")


class TaskError(CosciError):
    """A task folder that cannot be loaded (one line naming the file and the rule)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScoreSpec(_Strict):
    metric: str = Field(min_length=1, description="The evaluator metric that is the score (gate B compares it).")
    direction: Literal["maximize", "minimize"] = Field(description="Whether a higher or a lower score is better.")


class PhaseData(_Strict):
    inputs: dict[str, str] = Field(default_factory=dict, description="Name under /data -> task-relative file the "
                                   "program and the evaluator see; '{seed}' in a path is the run's seed.")
    answers: dict[str, str] = Field(default_factory=dict, description="Name under /data -> file only the "
                                    "evaluator sees (the truth the program must not read).")


class DataSpec(_Strict):
    search: PhaseData = Field(default_factory=PhaseData, description="Data of the search phase (the cycles).")
    final: PhaseData = Field(default_factory=PhaseData, description="Data of the final phase (the evidence); "
                             "disjoint from the search data.")


class Timeouts(_Strict):
    program_seconds: float = Field(gt=0, le=86_400, description="Wall clock of one program run, seconds.")
    evaluator_seconds: float = Field(gt=0, le=86_400, description="Wall clock of one evaluator run, seconds.")


class ResourceLimits(_Strict):
    cpu_seconds: int = Field(gt=0, le=86_400, description="CPU time of one run, seconds.")
    memory_mb: int = Field(ge=64, le=1_048_576, description="Address space of one run, MB.")
    file_size_mb: int = Field(gt=0, le=1_048_576, description="Largest file one run may write, MB.")
    processes: int = Field(default=PROCESSES, ge=4, le=4_096, description="Processes (tasks: each thread counts) "
                           "one run may have at once; a fork bomb stops there (design.md#sandbox).")


class TaskSpec(_Strict):
    """``task.yaml``."""

    score: ScoreSpec
    entry: str = Field(default="program.py", description="The program's main file, relative to initial/.")
    evaluation_budget: int = Field(ge=1, le=1_000, description="run_evaluation calls per research cycle.")
    search_seed: int = Field(default=0, ge=0, description="The seed of every search-phase evaluation.")
    timeouts: Timeouts
    limits: ResourceLimits
    data: DataSpec = Field(default_factory=DataSpec)


class Perturbation(_Strict):
    """A rubric's behaviour probe (design.md#gates): the candidate is run again, in the sandbox, on the search
    phase with each of ``seeds`` and judged by the search evaluator; every answer must be valid, correct and
    different from the answer at the search seed."""

    seeds: list[int] = Field(min_length=1, max_length=4, description="Seeds of the perturbed runs (not the "
                             "search seed; 1-4 of them: each costs one program and one evaluator run).")

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, v: list[int]) -> list[int]:
        if any(s < 0 for s in v) or len(set(v)) != len(v):
            raise ValueError("perturb.seeds must be distinct seeds >= 0")
        return v


class Rubric(_Strict):
    """One rubric of ``rubrics.yaml``; adjudicated by :func:`cosci.investigation.rubrics.adjudicate`. It needs a
    behaviour check (a metric threshold in ``text``, or ``perturb``); ``source_contains`` only adds a condition on
    the code."""

    id: str = Field(description="Identifier an idea bundle targets.")
    text: str = Field(min_length=1, description="The criterion; a metric-comparator-threshold triple in it is "
                      "checked against the evaluator's metrics.")
    source_contains: list[str] = Field(default_factory=list, description="Regular expressions the candidate's "
                                       "Python code (comments and string literals removed) must all match, in "
                                       "addition to a behaviour check (never instead of one).")
    perturb: Perturbation | None = Field(default=None, description="Run the candidate with other seeds: a valid, "
                                         "correct and different answer each time (a behaviour check).")

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not RUBRIC_ID.match(v):
            raise ValueError(f"rubric id {v!r} must be a letter then letters, digits, '_', '.', '-' (64 at most)")
        return v


class Task:
    """A loaded task folder: ``root`` (absolute), ``spec``, ``rubrics`` by id, and the question (``task.md``)."""

    def __init__(self, root: Path, spec: TaskSpec, rubrics: list[Rubric], question: str) -> None:
        self.root, self.spec, self.question = root, spec, question
        self.rubric_list = rubrics
        self.rubrics = {r.id: r for r in rubrics}

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def initial(self) -> Path:
        return self.root / "initial"

    def evaluator(self, phase: str) -> Path:
        return self.root / f"evaluate_{phase}.py"

    def data(self, phase: str) -> PhaseData:
        return getattr(self.spec.data, phase)  # type: ignore[no-any-return]

    def data_files(self, phase: str, seed: int | None = None) -> dict[str, dict[str, Path]]:
        """``{"inputs": {name: host path}, "answers": {...}}`` of a phase, ``{seed}`` filled in when given."""
        d = self.data(phase)
        fill = (lambda p: p.replace("{seed}", str(seed))) if seed is not None else (lambda p: p)
        return {"inputs": {k: self.root / fill(v) for k, v in d.inputs.items()},
                "answers": {k: self.root / fill(v) for k, v in d.answers.items()}}

    def declared_data(self) -> set[str]:
        """Every task-relative data path of both phases (``{seed}`` unexpanded)."""
        return {p for ph in PHASES for part in (self.data(ph).inputs, self.data(ph).answers) for p in part.values()}


def _yaml(path: Path) -> object:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TaskError(f"{path.name}: cannot be read as YAML ({' '.join(str(exc).split())[:200]})") from None


def _first_error(name: str, exc: ValidationError) -> TaskError:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(top)"
    return TaskError(f"{name}: {where}: {err['msg']}")


def load_task(path: Path) -> Task:
    """Load and validate a task folder.

    Raises:
        TaskError: a required file is missing, or ``task.yaml`` / ``rubrics.yaml`` breaks the format (one line).
    """
    root = Path(path).expanduser().resolve()
    if not root.is_dir():
        raise TaskError(f"{path}: no such task folder")
    missing = [n for n in REQUIRED if not (root / n).exists()]
    if missing:
        raise TaskError(f"{root.name}: missing {', '.join(missing)} (a task needs {', '.join(REQUIRED)})")
    try:
        spec = TaskSpec.model_validate(_yaml(root / "task.yaml"))
    except ValidationError as exc:
        raise _first_error("task.yaml", exc) from None
    raw = _yaml(root / "rubrics.yaml")
    raw = raw.get("rubrics", raw) if isinstance(raw, dict) else raw
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise TaskError("rubrics.yaml: must be a list of rubrics (id, text, optional source_contains, perturb)")
    try:
        rubrics = [Rubric.model_validate(r) for r in raw]
    except ValidationError as exc:
        raise _first_error("rubrics.yaml", exc) from None
    question = (root / "task.md").read_text(encoding="utf-8")
    return Task(root, spec, rubrics, question)
