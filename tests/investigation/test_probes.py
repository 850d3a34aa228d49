"""Rubric gates check behaviour (docs/design.md#gates): circle packing's ``no_hardcoded_answer`` runs the candidate
again in the sandbox with other seeds. A program that prints stored coordinates, with ``def best_radii`` and
``rng`` in its comments (which passed the old text rubric), fails; the initial program, which computes its
packing, passes. Real programs under bubblewrap, the task's own search evaluator."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.investigation.check import contract
from cosci.investigation.cycle import rubric_statuses
from cosci.investigation.gates import gate_a
from cosci.investigation.harness import Harness
from cosci.investigation.probes import Prober
from cosci.investigation.rubrics import SOURCE_ONLY, RubricStatus, adjudicate
from cosci.investigation.task import Rubric, load_task
from cosci.sandbox.bwrap import probe
from tests.investigation.conftest import write_task

CIRCLES = Path(__file__).resolve().parents[2] / "tasks" / "circle_packing"
CENTRES = [[(i % 6 + 0.5) / 6, (i // 6 + 0.5) / 6] for i in range(26)]
STORED = f'''"""Pack 26 circles: def best_radii(centers) solves the LP; rng = default_rng(seed) jitters them."""
import json
# def best_radii(centers): radii from a linear program, centres moved by rng
CENTERS = {CENTRES!r}
print(json.dumps({{"centers": CENTERS, "radii": [0.0833] * 26}}))
'''


@pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")
def test_stored_coordinates_fail_the_rubric_and_a_computed_packing_passes(tmp_path: Path) -> None:
    task, isolation = load_task(CIRCLES), probe()
    assert isolation is not None
    assert task.rubrics["no_hardcoded_answer"].source_contains == []  # no text rubric left to satisfy
    harness = Harness(task, isolation, tmp_path / "views")
    prober = Prober(harness, tmp_path / "probes")
    outcomes = {}
    for name, source in (("stored", STORED), ("initial", (CIRCLES / "initial" / "program.py").read_text())):
        program = tmp_path / name
        program.mkdir()
        (program / "program.py").write_text(source)
        e = harness.evaluate(program, "search", task.spec.search_seed, tmp_path / f"work-{name}")
        assert e.ok and e.correct, e.reason  # both print a valid packing at the search seed
        statuses = rubric_statuses(task, ["valid_packing", "no_hardcoded_answer"], program, e, prober)
        a = gate_a(exit_code=e.exit_code, valid=e.valid, rubrics=[RubricStatus(**s) for s in statuses])
        outcomes[name] = (a.passed, statuses[1]["reason"])
    assert outcomes["stored"][0] is False and "perturbed seed 101: the same answer" in outcomes["stored"][1]
    assert outcomes["initial"] == (True, "seed(s) 101, 202: a valid, different answer each")
    # the rubric as it was (the strings in the source) fails too: its patterns are in comments and a docstring
    old = Rubric(id="no_hardcoded_answer", text="The program computes the packing.",
                 source_contains=["def best_radii", "rng"])
    status = adjudicate(old, evaluation_ok=True, correct=True, metrics={}, sources={"program.py": STORED})
    assert not status.passed and "does not contain" in status.reason


def test_the_check_refuses_a_rubric_with_no_behaviour_check(tmp_path: Path) -> None:
    rubrics = ('- id: positive\n  text: "score is at least 0"\n'
               '- id: computes\n  text: "The program computes it."\n  source_contains: ["def compute"]\n'
               '- id: seeded\n  text: "Other seeds, other answers."\n  perturb: {seeds: [0, 5]}\n')
    task = load_task(write_task(tmp_path / "t", rubrics=rubrics))
    assert contract(task) == [
        "rubrics.yaml: computes has no behaviour check (a metric threshold in its text, or perturb); "
        "source_contains alone checks text",
        "rubrics.yaml: seeded: perturb.seeds holds the search seed 0"]
    source_only = task.rubrics["computes"]
    status = adjudicate(source_only, evaluation_ok=True, correct=True, metrics={"score": 1.0},
                        sources={"program.py": "def compute():\n    return 1\n"})
    assert not status.passed and status.reason == SOURCE_ONLY
