"""The cycle boundary: a cycle's input holds only what earlier rounds published; the best program is the last
gate-B candidate; applying the boundary twice changes nothing (docs/design.md#investigation)."""

from __future__ import annotations

from pathlib import Path

from cosci.investigation import boundary
from cosci.investigation.folder import RunFolder
from tests.investigation.conftest import write_task


def result(folder: Path, worker: int, cycle: int, gate_b: bool, score: float, value: float) -> dict:
    cand = folder / f"w{worker}c{cycle}"
    cand.mkdir(parents=True)
    (cand / "program.py").write_text(f"VALUE = {value}\n")
    return {"worker": worker, "cycle": cycle, "idea": {"title": f"idea w{worker}c{cycle}"}, "rejected": None,
            "gate_a": True, "gate_b": gate_b, "gate_a_reason": "", "score": score, "candidate_dir": str(cand),
            "conclusion": f"lesson w{worker}c{cycle}", "memory": f"note w{worker}c{cycle}" if worker == 1 else ""}


def test_inputs_see_only_earlier_rounds(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "data", "inv-000000000001")
    folder.create(write_task(tmp_path / "t"), {"task": "t", "config": {}})
    initial = folder.task_dir / "initial"
    results = [result(tmp_path / "c", 1, 1, True, 2.0, 2.0), result(tmp_path / "c", 2, 1, False, 0.5, 0.5),
               result(tmp_path / "c", 1, 2, False, 1.5, 1.5), result(tmp_path / "c", 2, 2, True, 3.0, 3.0)]
    boundary.apply(folder, results, 2, initial, 1.0)
    again = (folder.best(1) / "program.py").read_text()
    boundary.apply(folder, results, 2, initial, 1.0)
    assert (folder.best(1) / "program.py").read_text() == again == "VALUE = 2.0\n"
    assert (folder.best(2) / "program.py").read_text() == "VALUE = 3.0\n"
    first = boundary.cycle_inputs(folder, results, 2, 1, initial=initial, initial_score=1.0, history_cycles=5,
                                  seeded=[], budget_usd=1.0)
    assert first.conclusions == [] and first.memory == [] and first.best_score == 1.0
    second = boundary.cycle_inputs(folder, results, 2, 2, initial=initial, initial_score=1.0, history_cycles=5,
                                   seeded=[], budget_usd=1.0)
    assert [(c["worker"], c["cycle"]) for c in second.conclusions] == [(1, 1), (2, 1)]
    assert [m["text"] for m in second.memory] == ["note w1c1"] and second.best_score == 1.0  # w2c1 failed gate B
    third = boundary.cycle_inputs(folder, results, 1, 3, initial=initial, initial_score=1.0, history_cycles=1,
                                  seeded=[], budget_usd=1.0)
    assert len(third.conclusions) == 4 and [h["cycle"] for h in third.history] == [2] and third.best_score == 2.0
