"""One contracted research cycle of one worker, as a plain function (docs/design.md#investigation).

Ideation → execution → adjudication: the submitted candidate is evaluated by the harness (search evaluator, the
task's search seed), its target rubrics adjudicated, gate A and gate B decided separately. The cycle writes only
into its own folder (``workers/w<K>/cycles/c<NNN>/``) and returns :class:`CycleResult` as plain data; the flow
applies it at the cycle boundary (best program, history, conclusions), so a cycle that is replayed from the
cache changes nothing twice.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cosci.domain import Call
from cosci.investigation.agents import execute, ideate
from cosci.investigation.digest import file_digests
from cosci.investigation.gates import gate_a, gate_b
from cosci.investigation.harness import Evaluation, Harness
from cosci.investigation.probes import Prober
from cosci.investigation.rubrics import RubricStatus, adjudicate
from cosci.investigation.task import Rubric, Task
from cosci.investigation.workspace import READ_CAP_BYTES, CycleWorkspace, read_regular
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.errors import LLMError
from cosci.llm.gateway.adapter import Gateway
from cosci.prompts import render
from cosci.safety.quoting import quote_hypothesis, quote_untrusted

SOURCE_SUFFIXES = (".py", ".txt", ".md", ".json", ".yaml", ".yml", ".cfg", ".toml")
"""Candidate files read as sources for ``source_contains`` rubrics."""


@dataclass
class CycleInput:
    """What a cycle needs, as plain data (it may run in another process: a Ray worker).

    ``best_score`` is the worker's best score before the cycle (search evaluator); ``conclusions`` and ``memory``
    are the entries published up to the previous boundary; ``seeded`` holds ``{"id", "text"}`` of the session's
    hypotheses; ``budget_usd`` is this cycle's cap (USD).
    """

    run_dir: str
    worker: int
    cycle: int
    best_dir: str
    best_score: float | None
    history: list[dict[str, Any]]
    conclusions: list[dict[str, Any]]
    memory: list[dict[str, Any]]
    seeded: list[dict[str, str]]
    budget_usd: float

    def key(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CycleResult:
    """One cycle's outcome (``workers/w<K>/cycles/c<NNN>/result.json``). Scores in the task's metric; USD."""

    worker: int
    cycle: int
    idea: dict[str, Any] | None
    rejected: str | None
    candidate: str | None
    candidate_dir: str | None
    base_dir: str
    evaluation: dict[str, Any] | None
    rubrics: list[dict[str, Any]]
    gate_a: bool
    gate_a_reason: str
    gate_b: bool
    score: float | None
    best_before: float | None
    summary: str = ""
    conclusion: str = ""
    memory: str = ""
    note: str = ""
    cost_usd: float = 0.0
    calls: int = 0
    evaluations_used: int = 0
    seconds: float = 0.0
    tool_calls: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def cycle_dir(run_dir: Path, worker: int, cycle: int) -> Path:
    return run_dir / "workers" / f"w{worker}" / "cycles" / f"c{cycle:03d}"


def sources_of(program: Path) -> dict[str, str]:
    """The program's text files by relative path (for ``source_contains``)."""
    return {rel: read_regular(program, Path(rel), 4 * READ_CAP_BYTES)
            for rel in file_digests(program) if rel.endswith(SOURCE_SUFFIXES)}


def rubric_statuses(task: Task, ids: list[str], program: Path, e: Evaluation,
                    prober: Prober | None = None) -> list[dict[str, Any]]:
    """The target rubrics' statuses on ``program``'s evaluation ``e``; ``prober`` makes the perturbed runs a
    ``perturb`` rubric needs (without one, such a rubric cannot be verified and fails)."""
    sources = sources_of(program) if e.digest else {}
    rubrics = [task.rubrics[r] for r in ids]
    probes = prober.probes(program, rubrics, e) if prober is not None else None
    return [asdict(adjudicate(r, evaluation_ok=e.ok, correct=e.correct, metrics=e.metrics, sources=sources,
                              probes=probes)) for r in rubrics]


def rubric_check(r: Rubric) -> str:
    """What the harness checks for a rubric, in words for the ideation prompt."""
    parts = []
    if r.perturb is not None:
        parts.append(f"run again with seed(s) {', '.join(map(str, r.perturb.seeds))}: a valid, different answer")
    if r.source_contains:
        parts.append("the code (not comments or strings) must match " + ", ".join(r.source_contains))
    return "; ".join([*parts, "any metric threshold in its text"])


def ideation_prompt(task: Task, inp: CycleInput, best: Path) -> str:
    """The ideation agent's context (prompt ``investigation.idea``); model-written text is quoted."""
    spec = task.spec
    source = read_regular(best, Path(spec.entry), 8_000)
    history = [{"cycle": h["cycle"], "title": (h.get("idea") or {}).get("title") or "(idea rejected)",
                "gate_a": h["gate_a"], "gate_b": h["gate_b"], "score": h["score"],
                "reason": h.get("rejected") or h.get("gate_a_reason") or ""} for h in inp.history]
    conclusions = [quote_untrusted(f"worker {c['worker']}, cycle {c['cycle']}: \"{c['title']}\" — gate A "
                                   f"{'pass' if c['gate_a'] else 'fail'}, gate B {'pass' if c['gate_b'] else 'fail'}, "
                                   f"score {c['score']}: {c['text']}", f"conclusion-w{c['worker']}-c{c['cycle']}")
                   for c in inp.conclusions]
    memory = [quote_untrusted(m["text"], f"memory-w{m['worker']}-c{m['cycle']}") for m in inp.memory]
    seeded = [quote_hypothesis(f"[{s['id']}] {s['text']}", s["id"]) for s in inp.seeded]
    rubrics = [{"id": r.id, "text": r.text, "check": rubric_check(r)} for r in task.rubric_list]
    return render("investigation.idea", question=task.question, metric=spec.score.metric,
                  direction=spec.score.direction, rubrics=rubrics, worker=inp.worker, cycle=inp.cycle,
                  best={"score": inp.best_score, "files": list(file_digests(best)), "entry": spec.entry,
                        "source": quote_untrusted(source, "best-program")},
                  history=history, conclusions=conclusions, memory=memory, seeded=seeded)


async def run_cycle(inp: CycleInput, task: Task, harness: Harness, gateway: Gateway,
                    routes: dict[str, Any], calls: list[Call]) -> CycleResult:
    """Run one cycle (see the module docstring). LLM failures end the cycle with a note, never the run."""
    started = time.monotonic()
    folder = cycle_dir(Path(inp.run_dir), inp.worker, inp.cycle)
    if folder.exists():  # an unfinished earlier try of this cycle (its result was never published)
        shutil.rmtree(folder)
    base = folder / "base"
    shutil.copytree(inp.best_dir, base, ignore=shutil.ignore_patterns("__pycache__"))
    tid = f"w{inp.worker}/c{inp.cycle:03d}"
    out = CycleResult(inp.worker, inp.cycle, None, None, None, None, str(base), None, [], False, "", False, None,
                      inp.best_score)
    try:
        await _contract(inp, task, harness, gateway, routes, base, folder, tid, out)
    except LLMError as exc:
        out.note = f"{type(exc).__name__}: {exc}"[:500]
        out.gate_a_reason = out.gate_a_reason or "cycle ended by a model error"
    out.cost_usd = sum(c.cost_usd for c in calls)
    out.calls = sum(1 for c in calls if c.outcome == "ok")
    out.seconds = time.monotonic() - started
    (folder / "result.json").write_text(json.dumps(out.to_dict(), indent=1), encoding="utf-8")
    return out


async def _contract(inp: CycleInput, task: Task, harness: Harness, gateway: Gateway, routes: dict[str, Any],
                    base: Path, folder: Path, tid: str, out: CycleResult) -> None:
    seeded = [s["id"] for s in inp.seeded]
    idea = await ideate(gateway, routes["ideation"], task, ideation_prompt(task, inp, base), seeded, tid)
    if idea.idea is None:
        out.rejected, out.gate_a_reason = idea.rejected, f"idea rejected: {idea.rejected}"
        return
    out.idea = idea.idea.model_dump()
    (folder / "idea.json").write_text(json.dumps(out.idea, indent=1), encoding="utf-8")
    spec = task.spec
    prober = Prober(harness, folder / "probes")
    ws = CycleWorkspace(folder, base, harness.agent_view, harness, spec.evaluation_budget, spec.search_seed,
                        lambda program, e: rubric_statuses(task, idea.idea.rubric_ids, program, e,  # type: ignore[union-attr]
                                                           prober))
    timeout = spec.timeouts.program_seconds + spec.timeouts.evaluator_seconds + 30.0
    attempt = await execute(gateway, routes["execution"], task, idea.idea, ws, list(file_digests(base)), tid, timeout,
                            inp.best_score)
    out.summary, out.conclusion = attempt.summary, attempt.conclusion
    out.memory, out.note = attempt.memory, attempt.note
    out.tool_calls, out.evaluations_used = attempt.tool_calls, ws.used
    if attempt.candidate is None:
        out.gate_a_reason = "no candidate written"
        return
    program = ws.program(attempt.candidate)
    e = ws.evaluate(attempt.candidate, counted=False)
    out.candidate, out.candidate_dir, out.evaluation = attempt.candidate, str(program), e.to_dict()
    out.rubrics = rubric_statuses(task, idea.idea.rubric_ids, program, e, prober)
    statuses = [RubricStatus(r["rubric_id"], r["passed"], r["reason"]) for r in out.rubrics]
    a = gate_a(exit_code=e.exit_code, valid=e.valid, rubrics=statuses)
    out.gate_a, out.gate_a_reason = a.passed, a.reason
    out.gate_b = gate_b(correct=e.ok and e.correct, score=e.score, best=inp.best_score,
                        direction=spec.score.direction)
    out.score = e.score
    if not out.conclusion:
        out.conclusion = f"{idea.idea.title}: score {e.score}, {e.reason or 'evaluated'}"


def cycle_budget(total_usd: float, shares: dict[str, float], n_cycles: int) -> TokenBudget:
    """A cycle's budget: its equal part of the ideation and execution shares of the investigation's cap, with the
    two agents' shares in proportion (so the cap is never exceeded whichever process runs the cycle)."""
    s = shares["ideation"] + shares["execution"]
    return TokenBudget(cap_usd=total_usd * s / n_cycles,
                       shares={"ideation": shares["ideation"] / s, "execution": shares["execution"] / s},
                       reserve_share=0.0)
