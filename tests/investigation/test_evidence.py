"""The idea-bundle contract, the findings' claim check, the aggregator, ablations, intervals and outcomes
(docs/design.md#evidence); inputs written here."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from cosci.investigation.claims import check_finding
from cosci.investigation.evidence import Interval, gain, outcome, revert, select, summary
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


def iv(mean: float, low: float, high: float) -> Interval:
    return Interval(mean, low, high, 5, 0.95)


def test_outcomes_of_a_seeded_hypothesis() -> None:
    tried = [{"worker": 1, "cycle": 1, "gate_a": True, "gate_b": True},
             {"worker": 1, "cycle": 2, "gate_a": True, "gate_b": False}]
    assert outcome(tried, {"w1c1": iv(0.1, 0.05, 0.15)}) == "supported"
    assert outcome(tried, {"w1c1": iv(0.1, -0.05, 0.25)}) == "refuted"  # cycle 2 implemented it and did not beat
    assert outcome([tried[1]], {}) == "refuted"                         # a correct program, gate B failed
    assert outcome([tried[0]], {"w1c1": iv(0.1, -0.05, 0.25)}) == "inconclusive"  # better, but within the noise
    assert outcome([tried[0]], {"w1c1": iv(-0.1, -0.2, -0.05)}) == "refuted"      # measured worse
    broken = [{"worker": 1, "cycle": c, "gate_a": False, "gate_b": False} for c in (1, 2)]
    assert outcome(broken, {}) == "inconclusive"                        # never implemented correctly: no evidence
    assert outcome([], {}) == "inconclusive"                            # never tried


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
