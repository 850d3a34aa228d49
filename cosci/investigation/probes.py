"""The perturbation probe of a rubric (docs/design.md#gates): a candidate run again, in the sandbox, with other
seeds.

A rubric with ``perturb`` passes only when the candidate, run on the search phase with each of its seeds and judged
by the search evaluator, gives a valid, correct answer that differs from its answer at the search seed: behaviour
a program printing a stored answer cannot show, whatever its source text says. Probes are made once per candidate
(candidates never change) and only for a candidate whose own evaluation was valid and correct.
"""

from __future__ import annotations

from pathlib import Path

from cosci.investigation.harness import Evaluation, Harness
from cosci.investigation.rubrics import Probe
from cosci.investigation.task import Rubric


def probe_seeds(rubrics: list[Rubric]) -> list[int]:
    """The perturbation seeds the target ``rubrics`` ask for, each once, in order."""
    return list(dict.fromkeys(s for r in rubrics if r.perturb is not None for s in r.perturb.seeds))


def run_probes(harness: Harness, program: Path, seeds: list[int], base: Evaluation, work: Path) -> list[Probe]:
    """One :class:`Probe` per seed: ``program`` evaluated on the search phase with that seed under ``work``
    (``work/seed_<S>``), compared with ``base`` (its evaluation at the search seed)."""
    out = []
    for seed in seeds:
        e = harness.evaluate(program, "search", seed, work / f"seed_{seed}")
        differs = bool(e.answer_digest) and e.answer_digest != base.answer_digest
        out.append(Probe(seed, e.ok, e.correct, differs, e.reason))
    return out


class Prober:
    """A cycle's probes, made once per program folder (the workspace's reports and the harness's own
    adjudication ask about the same candidate)."""

    def __init__(self, harness: Harness, work: Path) -> None:
        self.harness, self.work = harness, work
        self.made: dict[str, list[Probe]] = {}

    def probes(self, program: Path, rubrics: list[Rubric], base: Evaluation) -> list[Probe] | None:
        """The probes of ``program`` for ``rubrics``; None when none asks for one or ``base`` is not valid and
        correct (the rubric is then decided before the probe layer)."""
        seeds = probe_seeds(rubrics)
        if not seeds or not (base.ok and base.correct):
            return None
        key = str(program)
        if key not in self.made:
            self.made[key] = run_probes(self.harness, program, seeds, base,
                                        self.work / f"{program.parent.name}_{program.name}")
        return self.made[key]
