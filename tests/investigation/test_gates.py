"""Gate A, gate B and rubric adjudication: every branch, with inputs written here (docs/design.md#gates)."""

from __future__ import annotations

import pytest

from cosci.investigation.gates import gate_a, gate_b
from cosci.investigation.rubrics import (
    FAILED_ACCEPTANCE,
    FAILED_EVALUATION,
    NO_THRESHOLD,
    NOT_PROBED,
    SOURCE_ONLY,
    Probe,
    RubricStatus,
    adjudicate,
    code_of,
    code_text,
    parse_threshold,
)
from cosci.investigation.task import Perturbation, Rubric

OK = RubricStatus("r1", True, "fine")
BAD = RubricStatus("r2", False, "sum_of_radii = 1.9, needs sum_of_radii >= 2")


def judge(text: str, metrics: dict, *, ok: bool = True, correct: bool = True, patterns=(),
          sources=None) -> RubricStatus:
    rubric = Rubric(id="r", text=text, source_contains=list(patterns))
    return adjudicate(rubric, evaluation_ok=ok, correct=correct, metrics=metrics, sources=sources or {})


# --- gate A ---------------------------------------------------------------------------------------------------
def test_gate_a_fails_on_a_non_zero_exit() -> None:
    a = gate_a(exit_code=1, valid=True, rubrics=[OK])
    assert not a.passed and "exit status 1" in a.reason


def test_gate_a_fails_on_invalid_output() -> None:
    a = gate_a(exit_code=0, valid=False, rubrics=[OK])
    assert not a.passed and a.reason == "invalid output"


def test_gate_a_fails_on_an_empty_rubric_list() -> None:
    a = gate_a(exit_code=0, valid=True, rubrics=[])
    assert not a.passed and "empty rubric list" in a.reason


def test_gate_a_fails_when_one_rubric_fails_and_names_it() -> None:
    a = gate_a(exit_code=0, valid=True, rubrics=[OK, BAD])
    assert not a.passed and a.reason.startswith("r2: ")


def test_gate_a_passes_when_every_rubric_passes() -> None:
    assert gate_a(exit_code=0, valid=True, rubrics=[OK, OK]).passed


def test_failed_correctness_fails_every_rubric_and_so_gate_a() -> None:
    status = judge("sum_of_radii exceeds 2.0", {"sum_of_radii": 2.5}, correct=False)
    assert not status.passed and status.reason == FAILED_ACCEPTANCE
    assert not gate_a(exit_code=0, valid=True, rubrics=[status]).passed


def test_a_failed_evaluation_is_not_assessed() -> None:
    status = judge("sum_of_radii exceeds 2.0", {"sum_of_radii": 2.5}, ok=False)
    assert not status.passed and status.reason == FAILED_EVALUATION


# --- gate B ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("correct", "score", "best", "direction", "expected"), [
    (True, 2.3, 2.2, "maximize", True),
    (True, 2.2, 2.2, "maximize", False),      # equal is not strictly higher
    (True, 2.1, 2.2, "maximize", False),
    (False, 2.9, 2.2, "maximize", False),     # incorrect never replaces the best
    (True, 2.0, None, "maximize", True),      # no best yet
    (False, 2.0, None, "maximize", False),
    (True, 0.05, 0.1, "minimize", True),      # lower is better
    (True, 0.2, 0.1, "minimize", False),
    (True, None, 0.1, "minimize", False),     # no score
    (True, float("nan"), 0.1, "maximize", False),
])
def test_gate_b(correct: bool, score: float | None, best: float | None, direction: str, expected: bool) -> None:
    assert gate_b(correct=correct, score=score, best=best, direction=direction) is expected


def test_all_four_gate_combinations_are_independent() -> None:
    rubric_ok = [judge("score at least 1", {"score": 2.0})]
    rubric_bad = [judge("score at least 3", {"score": 2.0})]
    combos = {(gate_a(exit_code=0, valid=True, rubrics=r).passed,
               gate_b(correct=True, score=2.0, best=b, direction="maximize"))
              for r in (rubric_ok, rubric_bad) for b in (1.0, 2.5)}
    assert combos == {(True, True), (True, False), (False, True), (False, False)}


# --- the rubric parser ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "comparator"), [
    ("sum_of_radii exceeds 2.5", ">"),
    ("sum_of_radii is greater than 2.5", ">"),
    ("sum_of_radii more than 2.5", ">"),
    ("sum_of_radii above 2.5", ">"),
    ("sum_of_radii is at least 2.5", ">="),
    ("sum_of_radii must be at least 2.5", ">="),
    ("sum_of_radii no less than 2.5", ">="),
    ("sum_of_radii below 2.5", "<"),
    ("sum_of_radii is less than 2.5", "<"),
    ("sum_of_radii under 2.5", "<"),
    ("sum_of_radii at most 2.5", "<="),
    ("sum_of_radii does not exceed 2.5", "<="),
    ("sum_of_radii no more than 2.5", "<="),
    ("sum_of_radii equals 2.5", "=="),
    ("sum_of_radii >= 2.5", ">="),
    ("sum_of_radii > 2.5", ">"),
    ("sum_of_radii <= 2.5", "<="),
    ("sum_of_radii ≥ 2.5", ">="),
    ("`sum_of_radii` should be at least 2.5 on the search seed", ">="),
])
def test_each_alias_parses_to_its_comparator(text: str, comparator: str) -> None:
    t = parse_threshold(text)
    assert t is not None and (t.metric, t.comparator, t.value) == ("sum_of_radii", comparator, 2.5)


@pytest.mark.parametrize(("text", "value", "passes"), [
    ("abs_error is below 0.1", 0.05, True), ("abs_error is below 0.1", 0.1, False),
    ("abs_error at most 0.1", 0.1, True), ("coverage at least 0.9", 0.95, True),
    ("coverage exceeds 0.9", 0.9, False), ("coverage exceeds 9e-1", 0.95, True),
])
def test_a_threshold_is_compared_with_the_reported_metric(text: str, value: float, passes: bool) -> None:
    metric = text.split()[0]
    assert judge(text, {metric: value}).passed is passes


def test_no_threshold_found_never_passes() -> None:
    status = judge("The packing should look elegant.", {"sum_of_radii": 2.6})
    assert not status.passed and status.reason == NO_THRESHOLD


def test_a_metric_the_evaluator_did_not_report_cannot_be_verified() -> None:
    status = judge("elegance exceeds 0.5", {"sum_of_radii": 2.6})
    assert not status.passed and status.reason.startswith("harness cannot verify")


def test_a_non_numeric_metric_cannot_be_verified() -> None:
    assert not judge("coverage at least 1", {"coverage": True}).passed
    assert not judge("coverage at least 1", {"coverage": "yes"}).passed


def test_the_metric_the_evaluator_reports_wins_over_an_earlier_triple() -> None:
    status = judge("Within 1 % of 2.635: sum_of_radii is at least 2.6.", {"sum_of_radii": 2.61})
    assert status.passed and "sum_of_radii >= 2.6" in status.reason


def test_source_contains_needs_every_pattern() -> None:
    sources = {"program.py": "from scipy.optimize import linprog\nres = linprog(c)\n"}
    assert judge("Uses an LP: score at least 1.", {"score": 2.0}, patterns=[r"linprog\("], sources=sources).passed
    status = judge("Uses an LP and a rng: score at least 1.", {"score": 2.0}, patterns=[r"linprog\(", r"default_rng"],
                   sources=sources)
    assert not status.passed and "default_rng" in status.reason


def test_a_source_pattern_alone_never_passes() -> None:
    """Changed on purpose (issue "labels that hold in the corners"): a rubric whose only check was source text
    passed when its patterns matched; source text is not behaviour, so it now fails as unverifiable."""
    sources = {"program.py": "from scipy.optimize import linprog\nres = linprog(c)\n"}
    status = judge("Uses an LP.", {"score": 2.0}, patterns=[r"linprog\("], sources=sources)
    assert not status.passed and status.reason == SOURCE_ONLY


STORED = '''"""Packs circles. def best_radii(centers) uses rng."""
import json
# def best_radii(centers): the radii come from an LP; rng = np.random.default_rng(seed)
NOTE = "def best_radii rng"
print(json.dumps({"centers": [[0.5, 0.5]], "radii": [0.5]}))
'''


def test_a_comment_or_a_string_naming_the_code_does_not_pass() -> None:
    """A program that prints stored coordinates, with ``def best_radii`` and ``rng`` in a docstring, a comment and
    a string, matches no pattern: patterns are matched on code with comments and string literals blanked."""
    status = judge("Computes it: sum_of_radii at least 0.1.", {"sum_of_radii": 0.5},
                   patterns=["def best_radii", "rng"], sources={"program.py": STORED})
    assert not status.passed and "does not contain 'def best_radii', 'rng'" in status.reason
    code = code_text(STORED)
    assert code is not None and "best_radii" not in code and "rng" not in code
    assert code.count("\n") == STORED.count("\n") and "print(json.dumps(" in code  # lines and code kept
    real = "def best_radii(centers):\n    return centers  # no rng here\nrng = 1\n"
    assert judge("x: sum_of_radii at least 0.1.", {"sum_of_radii": 0.5}, patterns=["def best_radii", r"\brng\b"],
                 sources={"program.py": real, "notes.md": "def best_radii"}).passed
    assert code_of({"notes.md": "def best_radii", "broken.py": "def (\n"}) == {}  # prose and untokenizable files


PERTURBED = Rubric(id="computes", text="The program computes its answer.", perturb=Perturbation(seeds=[101, 202]))


@pytest.mark.parametrize(("probes", "passes", "reason"), [
    ([Probe(101, True, True, True), Probe(202, True, True, True)], True, "seed(s) 101, 202: a valid, different"),
    ([Probe(101, True, True, True), Probe(202, True, True, False)], False, "perturbed seed 202: the same answer"),
    ([Probe(101, True, False, True)], False, "perturbed seed 101: the evaluator found the answer incorrect"),
    ([Probe(101, False, False, False, "program: exit status 1")], False, "perturbed seed 101: program: exit"),
    (None, False, NOT_PROBED),
    ([], False, NOT_PROBED),
])
def test_a_perturbed_rubric_passes_only_on_valid_different_answers(probes: list[Probe] | None, passes: bool,
                                                                  reason: str) -> None:
    status = adjudicate(PERTURBED, evaluation_ok=True, correct=True, metrics={}, sources={}, probes=probes)
    assert status.passed is passes and status.reason.startswith(reason), status.reason


def test_a_perturbed_rubric_is_not_assessed_after_a_failed_evaluation() -> None:
    probes = [Probe(101, True, True, True)]
    assert adjudicate(PERTURBED, evaluation_ok=False, correct=True, metrics={}, sources={},
                      probes=probes).reason == FAILED_EVALUATION
    assert adjudicate(PERTURBED, evaluation_ok=True, correct=False, metrics={}, sources={},
                      probes=probes).reason == FAILED_ACCEPTANCE


def test_source_contains_wins_over_a_threshold_in_the_text() -> None:
    sources = {"program.py": "x = 1\n"}
    assert not judge("sum_of_radii exceeds 1", {"sum_of_radii": 2.0}, patterns=["linprog"], sources=sources).passed


def test_source_contains_is_not_assessed_after_a_failed_evaluation() -> None:
    status = judge("Uses an LP.", {}, ok=False, patterns=["linprog"], sources={"p.py": "linprog("})
    assert not status.passed and status.reason == FAILED_EVALUATION


def test_a_bad_pattern_fails_the_rubric() -> None:
    assert not judge("x", {}, patterns=["("], sources={"p.py": "("}).passed


@pytest.mark.parametrize(("text", "comparator"), [
    ("sum_of_radii must not exceed 2.5", "<="), ("sum_of_radii is not below 2.5", ">="),
    ("sum_of_radii should not be greater than 2.5", "<="), ("sum_of_radii is not at least 2.5", "<"),
])
def test_a_negated_comparator_is_inverted(text: str, comparator: str) -> None:
    t = parse_threshold(text)
    assert t is not None and (t.comparator, t.value) == (comparator, 2.5)
