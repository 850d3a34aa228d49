"""``cosci investigate run``: the investigation as a Prefect flow (docs/design.md#investigation).

Rounds of cycles: in round ``c`` every worker's cycle ``c`` is a Prefect task (``investigation-cycle``), submitted
together to the task runner (threads of this process, or a Ray cluster through ``prefect-ray``); the round ends
when all have (the cycle boundary), and only then are conclusions and memory published and best programs
replaced. Each cycle caches on its own input (run, worker, cycle, the best program's score, history, conclusions,
memory, seeded hypotheses, budget) with JSON results under the run's ``prefect_results/``, and is retried on
transient errors like a session action: a resumed run replays finished cycles and runs only the rest. Evidence
evaluations (program x seed, final evaluator) are cached tasks too. MLflow logging stays in this process.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from prefect import flow, task
from prefect.context import TaskRunContext
from prefect.tasks import exponential_backoff

from cosci.config.investigation import InvestigationConfig
from cosci.domain import Call
from cosci.investigation import boundary
from cosci.investigation.cycle import CycleInput, cycle_budget, cycle_dir, run_cycle
from cosci.investigation.digest import tree_digest
from cosci.investigation.folder import RunFolder
from cosci.investigation.harness import Evaluation
from cosci.investigation.runtime import gateway, open_harness, run_async
from cosci.sandbox import Isolation
from flows.investigation_steps import finish, log_cycles
from flows.task_policy import hashed_key, retryable

log = logging.getLogger(__name__)


def keyed(context: TaskRunContext, parameters: dict[str, Any]) -> str:
    """Cache key: the task's ``key`` parameter hashed (plain data only; :func:`flows.task_policy.hashed_key`)."""
    return hashed_key("cosci-investigation-", parameters["key"])


@task(name="investigation-cycle", persist_result=True, result_serializer="json", log_prints=False)
def cycle_task(key: dict[str, Any], config_data: dict[str, Any], isolation: dict[str, str]) -> dict[str, Any]:
    """One research cycle (``key`` is the :class:`CycleInput` and the run id); returns its result as plain data."""
    cfg = InvestigationConfig.model_validate(config_data)
    inp = CycleInput(**key["input"])
    folder = RunFolder(cfg.base.paths.data_dir, key["run_id"])
    folder.event("cycle_started", worker=inp.worker, cycle=inp.cycle)
    task_, harness = open_harness(folder.root, folder.task_dir, Isolation(**isolation))
    calls: list[Call] = []
    where = cycle_dir(folder.root, inp.worker, inp.cycle)

    def record(c: Call) -> None:
        calls.append(c)
        where.mkdir(parents=True, exist_ok=True)
        with (where / "calls.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"agent": c.agent, "action": c.action, "model": c.model, "outcome": c.outcome,
                                 "cost_usd": c.cost_usd, "input_tokens": c.input_tokens,
                                 "output_tokens": c.output_tokens, "error": c.error}) + "\n")

    shares = {a: c.budget_share for a, c in cfg.investigation.agents.items()}
    budget = cycle_budget(cfg.investigation.budget_usd, shares, cfg.investigation.workers * cfg.investigation.cycles)
    gw, routes = gateway(cfg, budget, record)
    result = run_async(run_cycle(inp, task_, harness, gw, routes, calls)).to_dict()
    folder.event("cycle_finished", worker=inp.worker, cycle=inp.cycle, gate_a=result["gate_a"],
                 gate_b=result["gate_b"])
    return result


@task(name="investigation-evaluation", persist_result=True, result_serializer="json", log_prints=False)
def evaluation_task(key: dict[str, Any], run_root: str, program: str, phase: str, seed: int,
                    isolation: dict[str, str]) -> dict[str, Any]:
    """One evaluation of a program (``key``: run, program digest, phase, seed) as plain data."""
    root = Path(run_root)
    _, harness = open_harness(root, RunFolder.task_of(root), Isolation(**isolation))
    work = root / "evidence" / "runs" / f"{key['digest'][:12]}_{phase}_{seed}"
    return harness.evaluate(Path(program), phase, seed, work).to_dict()


def options(fn: Any, folder: RunFolder, name: str, retries: int) -> Any:
    return fn.with_options(task_run_name=name, cache_key_fn=keyed, result_storage=folder.results_dir.resolve(),
                           result_serializer="json", persist_result=True, retries=retries,
                           retry_delay_seconds=exponential_backoff(backoff_factor=1.0), retry_jitter_factor=0.5,
                           retry_condition_fn=retryable)


def evaluate_many(folder: RunFolder, jobs: list[tuple[str, str, str, int]], isolation: dict[str, str],
                  digest: str) -> dict[tuple[str, int], Evaluation]:
    """Evaluations ``(label, program, phase, seed)`` submitted together, one per distinct program content and
    seed (two folders holding the same program are evaluated once); results by ``(program, seed)``."""
    futures: dict[tuple[str, str, int], Any] = {}
    wanted: list[tuple[str, str, str, int]] = []
    for _label, program, phase, seed in jobs:
        tree = tree_digest(Path(program))
        wanted.append((program, tree, phase, seed))
        if (tree, phase, seed) in futures:
            continue
        key = {"run_id": folder.run_id, "task": digest, "digest": tree, "phase": phase, "seed": seed}
        fn = options(evaluation_task, folder, f"evaluate {tree[:8]} {phase} seed {seed}", 1)
        futures[(tree, phase, seed)] = fn.submit(key, str(folder.root), program, phase, seed, isolation)
    done = {k: Evaluation.from_dict(f.result()) for k, f in futures.items()}
    return {(program, seed): done[(tree, phase, seed)] for program, tree, phase, seed in wanted}


def run_rounds(cfg: InvestigationConfig, folder: RunFolder, isolation: dict[str, str],
               initial_score: float | None) -> list[dict[str, Any]]:
    """Every round of cycles, each ending at its boundary; returns all cycle results."""
    inv = cfg.investigation
    manifest = folder.manifest()
    seeded = manifest.get("seeded", [])
    per_cycle = inv.budget_usd * (inv.agents["ideation"].budget_share + inv.agents["execution"].budget_share) / (
        inv.workers * inv.cycles)
    initial = folder.task_dir / "initial"
    results: list[dict[str, Any]] = []
    boundary.apply(folder, results, inv.workers, initial, initial_score)
    data = cfg.model_dump(mode="json")
    for c in range(1, inv.cycles + 1):
        futures = []
        for w in range(1, inv.workers + 1):
            inp = boundary.cycle_inputs(folder, results, w, c, initial=initial, initial_score=initial_score,
                                        history_cycles=inv.history_cycles, seeded=seeded, budget_usd=per_cycle)
            fn = options(cycle_task, folder, f"worker {w} cycle {c}", cfg.base.lease.max_attempts - 1)
            futures.append(fn.submit({"run_id": folder.run_id, "input": inp.key()}, data, isolation))
        results += [f.result() for f in futures]
        boundary.apply(folder, results, inv.workers, initial, initial_score)
        log_cycles(cfg, folder, [r for r in results if r["cycle"] == c], results)
    return results


@flow(name="cosci-investigation", persist_result=False, log_prints=False, validate_parameters=False)
def investigation_flow(config_data: dict[str, Any], data_dir: str, run_id: str,
                       isolation: dict[str, str]) -> dict[str, Any]:
    """Run (or resume) one investigation to its end; returns its summary as plain data."""
    cfg = InvestigationConfig.model_validate(config_data)
    folder = RunFolder.existing(Path(data_dir), run_id)
    folder.event("flow_started", task_runner=cfg.investigation.task_runner)
    digest = folder.manifest()["task_digest"]
    initial = str(folder.task_dir / "initial")
    task_, _ = open_harness(folder.root, folder.task_dir, Isolation(**isolation))
    base = evaluate_many(folder, [("initial", initial, "search", task_.spec.search_seed)], isolation, digest)
    initial_eval = base[(initial, task_.spec.search_seed)]
    if not initial_eval.ok:
        log.warning("the initial program's search evaluation failed: %s", initial_eval.reason)
    results = run_rounds(cfg, folder, isolation, initial_eval.score if initial_eval.ok else None)
    return finish(cfg, folder, task_, results, initial_eval, isolation,
                  lambda jobs: evaluate_many(folder, jobs, isolation, digest))
