"""The idea-bundle contract, the findings' claim check, the aggregator, ablations, intervals and outcomes
(docs/design.md#evidence); inputs written here."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from cosci.investigation.claims import check_finding
from cosci.investigation.evidence import Interval, gain, outcome, refutes, revert, select, summary
from cosci.investigation.records import IdeaRejected, RecordIdea, normalise_idea

IDEA = {"title": " Tune  ", "hypothesis": "More iterations help.", "plan": ["a", " "], "rubric_ids": ["r1", "r1"]}


def test_a_bundle_missing_a_field_is_rejected() -> None:
    for field in ("title", "hypothesis", "plan", "rubric_ids"):
        with pytest.raises(ValidationError):
            RecordIdea.model_validate({k: v for k, v in IDEA.items() if k != field})


def test_a_bundle_is_normalised() -> None:
    idea = normalise_idea(RecordIdea.model_validate(IDEA), ["r1", "r2"], [])
    assert (idea.title, idea.plan, idea.rubric_ids) == ("Tune", ["a"], ["r1"])


@pytest.mark.parametrize(("change", "message"), [
    ({"rubric_ids": ["r1", "r9"]}, "unknown rubric id(s) r9"),
    ({"rubric_ids": [" "]}, "rubric_ids is empty"),
    ({"title": "  "}, "title is empty"),
    ({"hypothesis_id": "H-123456789abc"}, "was not seeded"),
])
def test_a_bundle_breaking_the_contract_is_rejected(change: dict, message: str) -> None:
    with pytest.raises(IdeaRejected, match=message.replace("(", r"\(").replace(")", r"\)")):
        normalise_idea(RecordIdea.model_validate({**IDEA, **change}), ["r1", "r2"], [])


def test_a_seeded_hypothesis_id_is_kept() -> None:
    idea = normalise_idea(RecordIdea.model_validate({**IDEA, "hypothesis_id": "H-aaaaaaaaaaaa"}), ["r1"],
                          ["H-aaaaaaaaaaaa"])
    assert idea.hypothesis_id == "H-aaaaaaaaaaaa"


ROWS = {"E1": "selected: mean sum_of_radii 2.2231, 95 % interval [2.1980, 2.2482], n = 5",
        "E2": "initial: mean sum_of_radii 2.1474, 95 % interval [2.0975, 2.1973], n = 5"}


@pytest.mark.parametrize(("sentence", "status", "problem"), [
    ("The selected program reached 2.2231 [E1].", "supported", None),
    ("From 2.1474 to 2.2231 [E1].", "unsupported", "'2.1474' is not in the cited row(s)"),
    ("From 2.1474 to 2.2231 [E1, E2].", "supported", None),
    ("It reached 2.22 [E1].", "unsupported", "'2.22' is not in the cited row(s)"),
    ("The search improved the score by 0.08.", "unsupported", "cites no evidence row"),
    ("See row [E7] for 2.2231.", "unsupported", "unknown evidence row E7"),
    ("Selection kept the better program.", "supported", None),
])
def test_findings_resolve_to_evidence_rows(sentence: str, status: str, problem: str | None) -> None:
    f = check_finding(sentence, ROWS)
    assert f.status == status
    if problem:
        assert any(problem in p for p in f.problems), f.problems


def result(worker: int, cycle: int, gate_b: bool, score: float) -> dict:
    return {"worker": worker, "cycle": cycle, "gate_b": gate_b, "score": score, "candidate_dir": f"w{worker}c{cycle}"}


def test_the_aggregator_picks_the_best_gate_b_program_across_workers() -> None:
    results = [result(1, 1, True, 2.3), result(2, 1, True, 2.4), result(2, 2, False, 2.9), result(1, 2, True, 2.4)]
    sel = select(results, "initial", 2.2, "maximize")
    assert (sel.worker, sel.cycle, sel.score) == (1, 2, 2.4)  # 2.9 failed gate B; a tie keeps the lower worker
    assert select([], "initial", 2.2, "maximize").program == "initial"
    assert select([result(1, 1, True, 0.3)], "initial", 0.5, "minimize").worker == 1


def test_an_interval_and_a_paired_gain() -> None:
    s = summary([1.0, 2.0, 3.0], 0.95)
    assert s.mean == 2.0 and s.low == pytest.approx(2.0 - 2.4842, abs=1e-3)
    assert summary([2.0], 0.95).low is None and not summary([2.0], 0.95).excludes_zero()
    g = gain({1: 0.10, 2: 0.12, 3: 0.11}, {1: 0.20, 2: 0.21, 3: 0.22}, "minimize", 0.95)
    assert g is not None and g.mean == pytest.approx(0.1) and g.excludes_zero()
    assert gain({1: 1.0}, {2: 1.0}, "maximize", 0.95) is None


def iv(mean: float, low: float | None, high: float | None, baseline: float = 2.2, n: int = 5) -> Interval:
    return Interval(mean, low, high, n, 0.95, baseline=baseline)


MARGIN = 0.01  # evidence.equivalence_margin: 1 % of the baseline's mean, 0.022 on a baseline of 2.2
A_PASS = {"worker": 1, "cycle": 1, "gate_a": True, "gate_b": True}
RETRY = {"worker": 1, "cycle": 2, "gate_a": True, "gate_b": False}


def test_a_gain_interval_above_zero_supports() -> None:
    assert outcome([A_PASS, RETRY], {"w1c1": iv(0.1, 0.05, 0.15)}, MARGIN) == "supported"


def test_an_improving_idea_followed_by_a_non_improving_retry_is_not_refuted() -> None:
    """Changed on purpose (issue "labels that hold in the corners"): this asserted ``refuted``, from cycle 2's one
    search run that did not beat the best. A retry that did not improve, measured over the seeds or not, does not
    undo an attempt whose interval includes a real gain: inconclusive."""
    improving = {"w1c1": iv(0.1, -0.05, 0.25)}
    assert outcome([A_PASS, RETRY], improving, MARGIN) == "inconclusive"
    no_gain = {**improving, "w1c2": iv(-0.001, -0.004, 0.002)}   # the retry measured: equivalent to nothing
    assert outcome([A_PASS, RETRY], no_gain, MARGIN) == "inconclusive"


def test_a_single_gate_b_miss_is_inconclusive() -> None:
    """Changed on purpose: a correct program that did not beat the best in one search run was ``refuted``; it is a
    single unreplicated comparison, so it decides nothing."""
    assert outcome([RETRY], {}, MARGIN) == "inconclusive"
    assert outcome([RETRY], {"w1c2": iv(-0.01, None, None, n=1)}, MARGIN) == "inconclusive"  # one seed: no interval


@pytest.mark.parametrize(("gain", "verdict", "why"), [
    (iv(-0.1, -0.2, -0.05), "refuted", "measured worse over the seeds"),
    (iv(0.0, 0.0, 0.0), "refuted", "no change on any seed: equivalent"),
    (iv(-0.002, -0.01, 0.006), "refuted", "mean <= 0, upper bound 0.006 under the 0.022 margin"),
    (iv(-0.002, -0.01, 0.03), "inconclusive", "the interval still holds a gain above the margin"),
    (iv(0.004, -0.001, 0.009), "inconclusive", "a positive mean is never a refutation"),
    (iv(-0.01, -0.02, 0.0001, baseline=0.0), "inconclusive", "a zero baseline: margin 0, needs an upper bound < 0"),
    (iv(-0.01, -0.02, -0.001, baseline=0.0), "refuted", "a zero baseline, measured worse"),
    (iv(-0.0004, -0.0009, 0.0001, baseline=-0.05), "refuted", "the margin uses the baseline's size"),
])
def test_refuted_needs_a_replicated_gain_under_the_equivalence_margin(gain: Interval, verdict: str,
                                                                       why: str) -> None:
    assert outcome([RETRY], {"w1c2": gain}, MARGIN) == verdict, why
    assert refutes(gain, MARGIN) is (verdict == "refuted")


def test_both_verdicts_read_only_attempts_that_passed_gate_a() -> None:
    """A gate-B pass whose rubrics failed is an unexplained gain: it neither supports nor refutes."""
    b_only = {"worker": 1, "cycle": 1, "gate_a": False, "gate_b": True}
    assert outcome([b_only], {"w1c1": iv(0.1, 0.05, 0.15)}, MARGIN) == "inconclusive"
    assert outcome([b_only], {"w1c1": iv(-0.1, -0.2, -0.05)}, MARGIN) == "inconclusive"
    broken = [{"worker": 1, "cycle": c, "gate_a": False, "gate_b": False} for c in (1, 2)]
    assert outcome(broken, {}, MARGIN) == "inconclusive"                 # never implemented correctly: no evidence
    assert outcome([], {}, MARGIN) == "inconclusive"                     # never tried


def test_every_attempt_measured_must_refute() -> None:
    worse, equal = iv(-0.1, -0.2, -0.05), iv(0.0, 0.0, 0.0)
    assert outcome([A_PASS, RETRY], {"w1c1": worse, "w1c2": equal}, MARGIN) == "refuted"
    assert outcome([A_PASS, RETRY], {"w1c1": worse}, MARGIN) == "refuted"  # the retry was not measured: no evidence


def test_a_gain_carries_its_baseline() -> None:
    g = gain({1: 2.3, 2: 2.2}, {1: 2.2, 2: 2.0}, "maximize", 0.95)
    assert g is not None and g.baseline == pytest.approx(2.1) and g.mean == pytest.approx(0.15)


def test_an_ablation_reverts_one_change_and_keeps_the_others(tmp_path: Path) -> None:
    before, after, selected = (tmp_path / n for n in ("before", "after", "selected"))
    for folder, text in ((before, "A = 1\n\nB = 2\n\nC = 3\n"), (after, "A = 1\n\nB = 5\n\nC = 3\n"),
                         (selected, "A = 1\n\nB = 5\n\nC = 9\n")):
        folder.mkdir()
        (folder / "p.py").write_text(text)
    assert revert(selected, before, after, tmp_path / "abl") == ""
    assert (tmp_path / "abl" / "p.py").read_text() == "A = 1\n\nB = 2\n\nC = 9\n"


def test_an_ablation_of_adjacent_lines_and_an_overlapping_change(tmp_path: Path) -> None:
    before, after, selected, overl = (tmp_path / n for n in ("before", "after", "selected", "over"))
    for folder, text in ((before, "A = 1\nB = 2\nC = 3\n"), (after, "A = 1\nB = 5\nC = 3\n"),
                         (selected, "A = 1\nB = 5\nC = 9\n"), (overl, "A = 1\nB = 7\nC = 3\n")):
        folder.mkdir()
        (folder / "p.py").write_text(text)
    assert revert(selected, before, after, tmp_path / "abl") == ""
    assert (tmp_path / "abl" / "p.py").read_text() == "A = 1\nB = 2\nC = 9\n"
    assert "a later change overlaps" in revert(overl, before, after, tmp_path / "abl2")
