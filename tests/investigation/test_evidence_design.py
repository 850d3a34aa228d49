"""Designed baselines and ablations (docs/design.md#evidence): the proposer reads the initial->selected diff, the
filter screens its proposals, a script checks each kept one, and the built programs run in the sandbox with the
final evaluator over the evidence seeds, beside the selected program; the gain is paired. Scripted proposals
include wrong ones: text that is not in the file, an "ablation" of a line the selected program did not introduce,
a file outside the program, one the filter drops. The diagnostics read the selected program's own evaluations."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cosci.config.investigation import load_investigation
from cosci.investigation import evidence as E
from cosci.investigation.evidence_design import diagnostics, introduced, program_diff
from cosci.investigation.harness import Evaluation, Harness
from cosci.investigation.task import load_task
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.sandbox.bwrap import probe
from flows.investigation_steps import design_evidence, measure, scores_by_seed
from tests.investigation.conftest import write_task

INITIAL = 'import json\nVALUE = 1.0\nSCALE = 2\nprint(json.dumps({"value": VALUE * SCALE}))\n'
SELECTED = ('import json\nVALUE = 3.0\nSCALE = 2\nBONUS = 0.5\n'
            'print(json.dumps({"value": VALUE * SCALE + BONUS}))\n')
FAKE = ["models=fake", "retry.base_delay_seconds=0", "retry.max_delay_seconds=0", "evidence.seeds=3"]


def _proposal(kind: str, title: str, old: str, new: str, file: str = "program.py") -> dict[str, Any]:
    return {"kind": kind, "title": title, "hypothesis": f"{title} changes the value.",
            "edits": [{"file": file, "old": old, "new": new}]}


PROPOSALS = [_proposal("ablation", "without the larger value", "VALUE = 3.0", "VALUE = 1.0"),
             _proposal("ablation", "without the scale", "SCALE = 2", "SCALE = 1"),            # not introduced
             _proposal("ablation", "without a line that is not there", "VALUE = 7.0", "VALUE = 1.0"),
             _proposal("baseline", "no bonus", "BONUS = 0.5", "BONUS = 0.0"),                 # the filter drops it
             _proposal("baseline", "a changed evaluator", "x", "y", file="../evaluate_final.py")]


def _setup(tmp_path: Path) -> tuple[Any, Any, Any, E.Selection, str]:
    task_dir = write_task(tmp_path / "task", program=INITIAL)
    selected = tmp_path / "w1" / "c001"
    selected.mkdir(parents=True)
    (selected / "program.py").write_text(SELECTED)
    cfg = load_investigation([*FAKE, f"paths.data_dir={tmp_path / 'data'}"])
    folder = SimpleNamespace(root=tmp_path / "run")
    sel = E.Selection(1, 1, str(selected), 7.0)
    return cfg, folder, load_task(task_dir), sel, str(task_dir / "initial")


def test_the_diff_and_the_lines_the_selected_program_introduced(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "program.py").write_text(INITIAL)
    (tmp_path / "b" / "program.py").write_text(SELECTED)
    diff = program_diff(tmp_path / "a", tmp_path / "b")
    assert "-VALUE = 1.0\n+VALUE = 3.0\n" in diff and "+BONUS = 0.5\n" in diff and "+SCALE" not in diff
    assert introduced(tmp_path / "a", tmp_path / "b")["program.py"] == {
        "VALUE = 3.0", "BONUS = 0.5", 'print(json.dumps({"value": VALUE * SCALE + BONUS}))'}


def test_proposals_are_screened_checked_built_and_read_back_on_resume(tmp_path: Path, fake: FakeBackend) -> None:
    cfg, folder, task, sel, initial = _setup(tmp_path)
    fake.script(FakeReply.record("record_evidence_plan", proposals=PROPOSALS), agent="proposer")
    fake.script(FakeReply.record("record_evidence_screen", verdicts=[
        {"proposal": n, "keep": n != 4, "reason": "drop: the bonus is not the question" if n == 4 else "keep"}
        for n in range(1, 6)]), agent="filter")
    designs = design_evidence(cfg, folder, task, sel, initial)
    assert [(d.kind, d.program is not None, d.note) for d in designs] == [
        ("ablation", True, ""),
        ("ablation", False, "an ablation must undo text the selected program introduced; these edits touch none "
                            "of it"),
        ("ablation", False, "the old text of an edit to program.py occurs 0 times in it (it must occur exactly "
                            "once)"),
        ("baseline", False, "dropped by the filter: drop: the bonus is not the question"),
        ("baseline", False, "../evaluate_final.py is not a file of the selected program")]
    built = Path(designs[0].program or "")
    assert (built / "program.py").read_text() == SELECTED.replace("VALUE = 3.0", "VALUE = 1.0")
    assert Path(sel.program, "program.py").read_text() == SELECTED  # the selected program is frozen
    proposer, screener = fake.calls_for(agent="proposer")[0].prompt, fake.calls_for(agent="filter")[0].prompt
    assert "+VALUE = 3.0" in proposer and "Propose at most 4 " in proposer
    assert "without the scale" in screener and "+BONUS = 0.5" in screener
    kept = json.loads((folder.root / "evidence" / "design.json").read_text())
    assert len(kept["plan"]["proposals"]) == 5 and kept["designed"][0]["program"] == str(built)
    fake.calls.clear()
    again = design_evidence(cfg, folder, task, sel, initial)  # a resumed run pays no design call twice
    assert fake.calls == [] and [d.to_dict() for d in again] == [d.to_dict() for d in designs]


def test_no_design_call_without_a_change_or_when_switched_off(tmp_path: Path, fake: FakeBackend) -> None:
    cfg, folder, task, _, initial = _setup(tmp_path)
    assert design_evidence(cfg, folder, task, E.Selection(0, 0, initial, 2.0), initial) == []
    off = load_investigation([*FAKE, "evidence.designed=0", f"paths.data_dir={tmp_path / 'data'}"])
    assert design_evidence(off, folder, task, E.Selection(1, 1, initial, 2.0), initial) == []
    assert fake.calls == []


@pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")
def test_a_built_ablation_runs_in_the_sandbox_over_the_seeds_and_its_paired_gain_is_reported(
        tmp_path: Path, fake: FakeBackend) -> None:
    cfg, folder, task, sel, initial = _setup(tmp_path)
    fake.script(FakeReply.record("record_evidence_plan", proposals=PROPOSALS[:1]), agent="proposer")
    fake.script(FakeReply.record("record_evidence_screen", verdicts=[{"proposal": 1, "keep": True,
                                                                      "reason": "one change"}]), agent="filter")
    designs = design_evidence(cfg, folder, task, sel, initial)
    isolation = probe()
    assert isolation is not None
    harness = Harness(task, isolation, tmp_path / "views")

    def evaluate(jobs: list[tuple[str, str, str, int]]) -> dict[tuple[str, int], Evaluation]:
        return {(p, s): harness.evaluate(Path(p), phase, s, tmp_path / "work" / f"{Path(p).name}_{s}")
                for _, p, phase, s in jobs}

    programs = [("selected", sel.program), ("initial", initial), *((d.label, d.program) for d in designs)]
    measured = measure(cfg, task, programs, [], [], sel, initial, evaluate, designs)
    gains = dict(measured["gains"])
    g = gains["the selected program over the ablation 'without the larger value'"]
    assert (g.mean, g.low, g.high, g.n) == (4.0, 4.0, 4.0, 3)  # 6.5 - 2.5 on each of the 3 evidence seeds
    runs = {seed: e for (p, seed), e in measured_evals(measured).items() if p == designs[0].program}
    assert sorted(runs) == [1, 2, 3] and all(e["phase"] == "final" for e in runs.values())
    names = [name for name, _ in measured["diagnostics"]]
    assert names == ["seconds"]  # the tiny evaluator reports only its score metric
    shutil.rmtree(tmp_path / "work", ignore_errors=True)


def measured_evals(measured: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(k.rsplit("#", 1)[0], int(k.rsplit("#", 1)[1])): v for k, v in measured["evaluations"].items()}


def test_diagnostics_are_the_other_metrics_and_seconds_of_the_valid_runs_with_intervals() -> None:
    def ev(seed: int, score: float, violations: int, seconds: float, ok: bool = True) -> Evaluation:
        return Evaluation("final", seed, 0 if ok else 1, ok, ok, score, {"score": score, "violations": violations,
                                                                         "flag": True, "note": "x"},
                          seconds=seconds)

    evals = {("p", 1): ev(1, 1.0, 0, 2.0), ("p", 2): ev(2, 1.0, 2, 4.0), ("p", 3): ev(3, 9.0, 9, 9.0, ok=False),
             ("q", 1): ev(1, 5.0, 5, 5.0)}
    out = dict(diagnostics(evals, "p", "score", 0.95))
    assert list(out) == ["violations", "seconds"]  # booleans and text are not measurements
    assert (out["violations"].mean, out["violations"].n) == (1.0, 2) and out["seconds"].mean == 3.0
    assert out["seconds"].low is not None and out["seconds"].low < 3.0 < (out["seconds"].high or 0)
    assert scores_by_seed(evals, "p") == {1: 1.0, 2: 1.0}


def test_the_papers_run_facts_say_which_designed_programs_ran_and_why_the_others_did_not() -> None:
    from cosci.investigation.paper_sources import run_facts

    summary = {"workers": 1, "cycles": 2, "cycles_run": 2, "selected": {"label": "worker 1, cycle 1", "score": 7.0},
               "initial_score": 2.0, "gates": {}, "cost_usd": 0.0,
               "designed": [{"kind": "ablation", "title": "without the larger value", "program": "/x/d01",
                             "note": ""},
                            {"kind": "baseline", "title": "no bonus", "program": None,
                             "note": "dropped by the filter: off topic"}]}
    facts = run_facts(summary)
    assert facts["F5"] == ("designed evidence: 2 baseline/ablation proposal(s) from the code diff; 1 passed the "
                           "filter and the script's checks and ran over the evidence seeds (ablation 'without the "
                           "larger value'); not run: baseline 'no bonus' (dropped by the filter: off topic)")
    del summary["designed"]
    assert "F5" not in run_facts(summary)
