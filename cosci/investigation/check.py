"""``cosci investigate check TASK``: the task contract and a smoke test of both evaluators, one line per failure
(docs/design.md#task-format).

Contract: the files of the format, a non-empty rubric catalogue of at most 32 unique ids, no symlink in the task,
two evaluators that are not the same file, data paths inside the task, and search and final data that are
disjoint (no shared file, content or line) and not named by the other phase's evaluator. Smoke test: the initial
program and each evaluator run in the sandbox and give a valid, correct result; then each evaluator runs again
with the *other* phase's data visible (in its task view and under ``/data``): a result that changes reads that
data.
"""

from __future__ import annotations

import ast
import hashlib
import json
import tempfile
from pathlib import Path

from cosci.investigation.digest import UnsafeTree, file_digests
from cosci.investigation.harness import Evaluation, Harness, stage_task_view
from cosci.investigation.rubrics import parse_threshold
from cosci.investigation.task import MAX_RUBRICS, PHASES, Task, TaskError, load_task
from cosci.sandbox import Isolation

CHECK_SEED = 1
"""The seed of the final-phase smoke test (the search phase uses the task's ``search_seed``)."""


def other(phase: str) -> str:
    return "final" if phase == "search" else "search"


def contract(task: Task) -> list[str]:
    """Contract failures of a loaded task, one line each (no program is run)."""
    out: list[str] = []
    ids = [r.id for r in task.rubric_list]
    if not ids:
        out.append("rubrics.yaml: the rubric list is empty (an empty rubric list fails every attempt's gate A)")
    if len(ids) > MAX_RUBRICS:
        out.append(f"rubrics.yaml: {len(ids)} rubrics, at most {MAX_RUBRICS}")
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        out.append(f"rubrics.yaml: duplicate rubric id(s) {', '.join(dupes)}")
    out += rubric_contract(task)
    if not (task.initial / task.spec.entry).is_file():
        out.append(f"task.yaml: entry {task.spec.entry} is not a file in initial/")
    try:
        file_digests(task.root)
    except UnsafeTree as exc:
        out.append(f"task folder: {exc}")
    if same_syntax(task.evaluator("search"), task.evaluator("final")):
        out.append("evaluate_search.py and evaluate_final.py are the same program (they must be independent)")
    out += data_contract(task)
    return out


def rubric_contract(task: Task) -> list[str]:
    """Rubrics that could never pass on behaviour (design.md#gates): no metric threshold in the text and no
    ``perturb`` (a ``source_contains`` pattern alone checks text), or a perturbed seed equal to the search seed
    (its answer would be the same)."""
    out = []
    for r in task.rubric_list:
        if r.perturb is None and parse_threshold(r.text) is None:
            out.append(f"rubrics.yaml: {r.id} has no behaviour check (a metric threshold in its text, or perturb)"
                       + ("; source_contains alone checks text" if r.source_contains else ""))
        if r.perturb is not None and task.spec.search_seed in r.perturb.seeds:
            out.append(f"rubrics.yaml: {r.id}: perturb.seeds holds the search seed {task.spec.search_seed}")
    return out


def same_syntax(a: Path, b: Path) -> bool:
    """Whether two Python files are one program: the same bytes, or the same syntax tree (comments, blank lines and
    formatting aside). Files that do not parse are compared as bytes."""
    x, y = a.read_bytes(), b.read_bytes()
    if x == y:
        return True
    try:
        return ast.dump(ast.parse(x)) == ast.dump(ast.parse(y))
    except (SyntaxError, ValueError):
        return False


def data_contract(task: Task) -> list[str]:
    """Failures of the declared data: paths, existence, and disjointness of the two phases."""
    out: list[str] = []
    for rel in sorted(task.declared_data()):
        if rel.startswith("/") or ".." in Path(rel).parts:
            out.append(f"task.yaml: data path {rel} must be relative and inside the task")
    if out:
        return out
    seeds = {"search": task.spec.search_seed, "final": CHECK_SEED}
    files = {ph: task.data_files(ph, seeds[ph]) for ph in PHASES}
    for ph in PHASES:
        for p in [*files[ph]["inputs"].values(), *files[ph]["answers"].values()]:
            if not p.is_file():
                out.append(f"task.yaml: {ph} data file {p.relative_to(task.root)} does not exist")
    if out:
        return out
    search = {p.resolve() for part in files["search"].values() for p in part.values()}
    final = {p.resolve() for part in files["final"].values() for p in part.values()}
    out += [f"data: {p.relative_to(task.root)} is both search and final data" for p in sorted(search & final)]
    inputs = {ph: {p.resolve() for p in files[ph]["inputs"].values()} for ph in PHASES}
    out += overlap(task, inputs["search"] - final, inputs["final"] - search)
    for phase in PHASES:
        source = task.evaluator(phase).read_text(encoding="utf-8", errors="replace")
        them = task.data(other(phase))
        theirs = {v for part in (them.inputs, them.answers) for v in part.values()}
        named = sorted(v for v in theirs if v in source or (v.split("{seed}")[0] in source and "{seed}" in v))
        if named:
            out.append(f"evaluate_{phase}.py names the {other(phase)} data ({', '.join(named)})")
    return out


def overlap(task: Task, search: set[Path], final: set[Path]) -> list[str]:
    """Search and final inputs must share no content: no identical file, no identical line (headers excepted).
    Answers may coincide (a planted effect is the same number in every replicate)."""
    out: list[str] = []
    digests = {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in search}
    for p in sorted(final):
        twin = digests.get(hashlib.sha256(p.read_bytes()).hexdigest())
        if twin is not None:
            out.append(f"data: {p.relative_to(task.root)} has the same content as search data "
                       f"{twin.relative_to(task.root)}")
    lines = {ln for p in search for ln in _lines(p)}
    for p in sorted(final):
        shared = [ln for ln in _lines(p) if ln in lines]
        if shared:
            out.append(f"data: {p.relative_to(task.root)} shares {len(shared)} line(s) with the search data "
                       f"(e.g. {shared[0][:60]!r})")
    return out


def _lines(path: Path) -> set[str]:
    try:
        rows = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        return set()
    return {r.strip() for r in rows[1:] if len(r.strip()) > 8}  # the first line may be a shared header


def smoke(task: Task, harness: Harness, work: Path) -> list[str]:
    """Run the initial program with each evaluator; then each evaluator with the other phase's data visible."""
    out: list[str] = []
    seeds = {"search": task.spec.search_seed, "final": CHECK_SEED}
    for phase in PHASES:
        base = harness.evaluate(task.initial, phase, seeds[phase], work / phase)
        if not base.ok:
            why = base.reason.removeprefix(f"evaluate_{phase}.py").lstrip(": ")
            out.append(f"evaluate_{phase}.py on the initial program: {why}")
            continue
        if not base.correct:
            out.append(f"evaluate_{phase}.py on the initial program: correct is false (the initial program must pass)")
        theirs = task.data_files(other(phase), seeds[other(phase)])
        visible = {*task.data(other(phase)).inputs.values(), *task.data(other(phase)).answers.values()}
        if not visible:
            continue
        rels = tuple(str(p.relative_to(task.root)) for part in theirs.values() for p in part.values())
        view = stage_task_view(task, work / f"{phase}_probe_view", extra=tuple(visible) + rels)
        mine = {*task.data(phase).inputs, *task.data(phase).answers}
        extra = {n: p for part in theirs.values() for n, p in part.items() if n not in mine}
        probe = harness.evaluate(task.initial, phase, seeds[phase], work / f"{phase}_probe", evaluator_view=view,
                                 extra_data=extra)
        if _outcome(probe) != _outcome(base):
            out.append(f"evaluate_{phase}.py reads the {other(phase)} data: its result changes when that data is "
                       f"visible ({_outcome(base)} -> {_outcome(probe)})")
    return out


def _outcome(e: Evaluation) -> str:
    if not e.ok:
        return f"failed: {e.reason}"
    return f"correct={e.correct} metrics={json.dumps(e.metrics, sort_keys=True)}"


def production(task: Task, harness: Harness, work: Path) -> str | None:
    """The production check (docs/design.md#production-check): the initial program through the search workload
    (one search-phase evaluation with the task's ``search_seed``, inside the task's timeouts and limits) before
    any cycle is paid for. Returns why it fails (one line), or None when the initial program completes it with a
    valid, correct result."""
    base = harness.evaluate(task.initial, "search", task.spec.search_seed, work)
    if not base.ok:
        return f"the initial program fails its search workload: {base.reason}"
    if not base.correct:
        return "the initial program fails its search workload: evaluate_search.py says correct is false"
    return None


def check_task(path: Path, isolation: Isolation) -> list[str]:
    """Every failure of the task at ``path``, one line each ([] when it passes); the smoke test runs only when
    the contract holds."""
    try:
        task = load_task(path)
    except TaskError as exc:
        return [str(exc)]
    failures = contract(task)
    if failures:
        return failures
    with tempfile.TemporaryDirectory(prefix="cosci-check-") as tmp:
        harness = Harness(task, isolation, Path(tmp))
        return smoke(task, harness, Path(tmp) / "runs")
