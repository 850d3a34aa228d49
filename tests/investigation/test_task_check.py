"""``cosci investigate check``: the shipped tasks pass; a task whose final evaluator reads the search data, whose
rubric list is empty, or whose evaluator prints no JSON fails in one line each (docs/design.md#task-format)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cosci.investigation.check import check_task
from cosci.investigation.task import load_task
from cosci.sandbox.bwrap import probe
from tests.investigation.conftest import EVALUATOR, write_task

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")


def copy_treatment(tmp_path: Path) -> Path:
    dest = tmp_path / "treatment_effect"
    shutil.copytree(ROOT / "tasks" / "treatment_effect", dest)
    return dest


@pytest.mark.parametrize("name", ["circle_packing", "treatment_effect"])
def test_the_shipped_tasks_pass(name: str) -> None:
    assert check_task(ROOT / "tasks" / name, probe()) == []


def test_circle_packing_states_the_best_published_value_and_its_source() -> None:
    text = (ROOT / "tasks" / "circle_packing" / "task.md").read_text()
    assert "2.635" in text and "AlphaEvolve" in text and "Novikov" in text


def test_the_treatment_task_search_and_final_data_are_disjoint() -> None:
    task = load_task(ROOT / "tasks" / "treatment_effect")
    search = (task.root / task.spec.data.search.inputs["observations.csv"]).read_text().splitlines()[1:]
    finals = [p.read_text().splitlines()[1:] for p in (task.root / "data" / "final").glob("observations_*.csv")]
    assert len(finals) == 10 and not set(search) & {row for f in finals for row in f}
    ids = {r.split(",")[0] for r in search}
    assert not ids & {r.split(",")[0] for f in finals for r in f}


def test_a_final_evaluator_reading_the_search_data_by_name_fails(tmp_path: Path) -> None:
    task = copy_treatment(tmp_path)
    src = (task / "evaluate_final.py").read_text()
    (task / "evaluate_final.py").write_text(src.replace('(Path(args.data) / "truth.json")',
                                                        '(Path(__file__).parent / "data/search/truth.json")'))
    failures = check_task(task, probe())
    assert len(failures) == 1 and "evaluate_final.py names the search data" in failures[0]


def test_a_final_evaluator_reading_the_search_data_by_a_built_path_fails(tmp_path: Path) -> None:
    """No file name in its source: the probe run with the search data visible catches it."""
    task = copy_treatment(tmp_path)
    src = (task / "evaluate_final.py").read_text()
    cheat = ('import os\n_P = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "se" + "arch", '
             '"observations.csv")\n_N = sum(1 for _ in open(_P)) if os.path.exists(_P) else 0\n')
    src = src.replace("KEYS = (", cheat + "KEYS = (").replace('"covered": 1 if', '"rows_peeked": _N, "covered": 1 if')
    (task / "evaluate_final.py").write_text(src)
    failures = check_task(task, probe())
    assert len(failures) == 1 and failures[0].startswith("evaluate_final.py reads the search data")


def test_an_empty_rubric_list_fails(tmp_path: Path) -> None:
    failures = check_task(write_task(tmp_path / "t", rubrics="[]\n"), probe())
    assert len(failures) == 1 and "rubric list is empty" in failures[0]


def test_an_evaluator_that_prints_no_json_fails(tmp_path: Path) -> None:
    silent = EVALUATOR.replace('print(json.dumps({"metrics": {"score": v}, "correct": v >= 0}))', 'print("score", v)')
    failures = check_task(write_task(tmp_path / "t", search=silent, final="PHASE = 'final'\n" + EVALUATOR), probe())
    assert failures == ["evaluate_search.py on the initial program: printed no JSON object on its last line"]


def test_shared_lines_between_search_and_final_inputs_fail(tmp_path: Path) -> None:
    task = copy_treatment(tmp_path)
    search = (task / "data" / "search" / "observations.csv").read_text().splitlines()
    final = task / "data" / "final" / "observations_1.csv"
    final.write_text(final.read_text() + search[5] + "\n")
    failures = check_task(task, probe())
    assert len(failures) == 1 and "shares 1 line(s) with the search data" in failures[0]


@pytest.mark.parametrize("final", [EVALUATOR, "# the final one\n\n" + EVALUATOR.replace("\n", "\n\n")])
def test_identical_evaluators_are_not_independent(tmp_path: Path, final: str) -> None:
    """The same bytes, or the same syntax tree with comments and blank lines added."""
    failures = check_task(write_task(tmp_path / "t", final=final), probe())
    assert failures == ["evaluate_search.py and evaluate_final.py are the same program (they must be independent)"]


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    root = write_task(tmp_path / "t")
    (root / "evaluate_final.py").unlink()
    (failure,) = check_task(root, probe())
    assert "missing evaluate_final.py" in failure
