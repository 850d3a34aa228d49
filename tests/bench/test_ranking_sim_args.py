"""The ranking simulator's trial defaults (bench/ranking_sim.py: RECALL_TRIALS, COVERAGE_TRIALS)."""

import pytest

from bench import ranking_sim


def test_coverage_runs_200_trials_a_regime_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, int]] = []
    monkeypatch.setattr(ranking_sim, "coverage_main", lambda trials, first, *rest: seen.append((trials, first)))
    ranking_sim.main(["--coverage"])
    ranking_sim.main(["--coverage", "--trials", "7", "--first-trial", "9000"])
    assert seen == [(ranking_sim.COVERAGE_TRIALS, 0), (7, 9000)]
    assert ranking_sim.COVERAGE_TRIALS == 200 and ranking_sim.RECALL_TRIALS == 30
