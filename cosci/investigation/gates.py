"""The two gates of a research cycle, decided separately (docs/design.md#gates).

Gate A (the attempt passes, the contract is complete): exit 0, valid output, and every target rubric passes; an
empty rubric list fails (no "declare no rubrics and pass" loophole). Gate B (the worker's best is replaced): the
candidate is correct and its score is strictly better than the best's, or there is no best yet. All four
combinations are legal outcomes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from cosci.investigation.rubrics import RubricStatus


@dataclass(frozen=True)
class GateA:
    passed: bool
    reason: str


def gate_a(*, exit_code: int, valid: bool, rubrics: Sequence[RubricStatus]) -> GateA:
    """Gate A: ``exit_code == 0 and valid and bool(rubrics) and all(r.passed for r in rubrics)``, with the first
    reason it fails."""
    if exit_code != 0:
        return GateA(False, f"exit status {exit_code}")
    if not valid:
        return GateA(False, "invalid output")
    if not rubrics:
        return GateA(False, "no target rubrics (an empty rubric list fails)")
    failed = [r for r in rubrics if not r.passed]
    if failed:
        return GateA(False, "; ".join(f"{r.rubric_id}: {r.reason}" for r in failed))
    return GateA(True, f"all {len(rubrics)} rubric(s) pass")


def better(candidate: float, best: float, direction: str) -> bool:
    """Strictly better in ``direction`` (``maximize`` or ``minimize``)."""
    return candidate > best if direction == "maximize" else candidate < best


def gate_b(*, correct: bool, score: float | None, best: float | None, direction: str) -> bool:
    """Gate B: ``correct and score is finite and (best is None or score strictly better than best)``."""
    if not correct or score is None or not math.isfinite(score):
        return False
    return best is None or better(score, best, direction)
