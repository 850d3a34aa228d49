"""The cycle boundary: what the flow applies after every round of cycles (docs/design.md#investigation).

State is rebuilt from the cycle results alone, so applying it again (a resumed run replays cached cycles) gives
the same folders: each worker's best program is its last gate-B candidate (else the initial program), its history
is its results, and what crosses workers — the distilled conclusions and memory entries — is published to
``shared/``. :func:`cycle_inputs` gives a cycle only what was published before it started.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from cosci.investigation.cycle import CycleInput
from cosci.investigation.digest import same_program
from cosci.investigation.folder import RunFolder


def conclusion(r: dict[str, Any]) -> dict[str, Any]:
    """The one entry a cycle publishes to the other workers (never its logs or programs)."""
    title = (r.get("idea") or {}).get("title") or "(idea rejected)"
    return {"worker": r["worker"], "cycle": r["cycle"], "title": title, "gate_a": r["gate_a"],
            "gate_b": r["gate_b"], "score": r["score"], "text": r.get("conclusion") or r.get("gate_a_reason") or ""}


def best_of(results: list[dict[str, Any]], initial: Path,
            initial_score: float | None) -> tuple[Path, float | None, int]:
    """A worker's best program after ``results`` (its own, in cycle order): ``(folder, score, cycle)``."""
    best, score, cycle = initial, initial_score, 0
    for r in sorted(results, key=lambda r: r["cycle"]):
        if r["gate_b"]:
            best, score, cycle = Path(r["candidate_dir"]), r["score"], r["cycle"]
    return best, score, cycle


def apply(folder: RunFolder, results: list[dict[str, Any]], workers: int, initial: Path,
          initial_score: float | None) -> None:
    """Write every worker's best program, ``best.json`` and history, and the shared conclusions and memory."""
    for w in range(1, workers + 1):
        mine = sorted((r for r in results if r["worker"] == w), key=lambda r: r["cycle"])
        program, score, cycle = best_of(mine, initial, initial_score)
        dest = folder.best(w)
        if not dest.exists() or not same_program(program, dest):
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(program, dest, ignore=shutil.ignore_patterns("__pycache__"))
        folder.write_jsonl(folder.worker(w) / "best.jsonl", [{"score": score, "cycle": cycle, "source": str(program)}])
        folder.write_jsonl(folder.worker(w) / "history.jsonl", [{k: v for k, v in r.items() if k != "evaluation"}
                                                                 for r in mine])
        folder.write_jsonl(folder.worker(w) / "memory.jsonl", _memory(mine))
    ordered = sorted(results, key=lambda r: (r["cycle"], r["worker"]))
    folder.write_jsonl(folder.root / "shared" / "conclusions.jsonl", [conclusion(r) for r in ordered])
    folder.write_jsonl(folder.root / "shared" / "memory.jsonl", _memory(ordered))


def _memory(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"worker": r["worker"], "cycle": r["cycle"], "text": r["memory"]} for r in results if r.get("memory")]


def cycle_inputs(folder: RunFolder, results: list[dict[str, Any]], worker: int, cycle: int, *, initial: Path,
                 initial_score: float | None, history_cycles: int, seeded: list[dict[str, str]],
                 budget_usd: float) -> CycleInput:
    """The input of cycle ``cycle`` of ``worker``: only results of earlier cycles count (the boundary rule)."""
    before = [r for r in results if r["cycle"] < cycle]
    mine = sorted((r for r in before if r["worker"] == worker), key=lambda r: r["cycle"])
    _, score, _ = best_of(mine, initial, initial_score)
    history = [{k: r.get(k) for k in ("cycle", "idea", "rejected", "gate_a", "gate_b", "gate_a_reason", "score")}
               for r in mine][-history_cycles:] if history_cycles else []
    ordered = sorted(before, key=lambda r: (r["cycle"], r["worker"]))
    return CycleInput(run_dir=str(folder.root), worker=worker, cycle=cycle, best_dir=str(folder.best(worker)),
                      best_score=score, history=history, conclusions=[conclusion(r) for r in ordered],
                      memory=_memory(ordered), seeded=seeded, budget_usd=budget_usd)
