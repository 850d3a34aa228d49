"""The ranking benches' simulated judges (bench/ranking_judges.py) and P1 printed as a ratio to the bound
(bench/ranking_sim.py: bound_rows)."""

import itertools

import numpy as np
import pytest

from bench import ranking_sim
from bench.ranking_judges import REPEAT, Judge, davidson, logistic


def _rerun_flips(model: str, seed: int = 0, reruns: int = 4000) -> float:
    """Share of reruns of one even ordered pair whose verdict differs from the previous one."""
    judge = Judge(model, 0.0, logistic, np.random.default_rng(seed))
    scores = [judge("H00", "H01", 0.0) for _ in range(reruns)]
    return float(np.mean([a != b for a, b in itertools.pairwise(scores)]))


def test_a_judge_with_memory_flips_on_a_rerun_as_often_as_the_cited_measurement() -> None:
    assert _rerun_flips("memory") == pytest.approx((1 - REPEAT) * 0.5, abs=0.02)  # 0.125 at an even pair
    assert _rerun_flips("independent") == pytest.approx(0.5, abs=0.03)


def test_the_swapped_order_keeps_no_memory_and_the_order_effect_is_per_pair() -> None:
    judge = Judge("memory", 0.3, davidson, np.random.default_rng(1))
    judge("H00", "H01", 0.0)
    judge("H01", "H00", 0.0)
    assert set(judge.last) == {("H00", "H01"), ("H01", "H00")}
    assert set(judge.pair_bias) == {("H00", "H01")}  # one bias per unordered pair, drawn once
    biases = [Judge("memory", 0.3, davidson, np.random.default_rng(s)) for s in range(300)]
    for j in biases:
        j("H00", "H01", 0.0)
    drawn = np.asarray([j.pair_bias[("H00", "H01")] for j in biases])
    assert drawn.mean() == pytest.approx(0.3, abs=0.08) and drawn.std() == pytest.approx(0.5, abs=0.08)


def test_an_unknown_judge_model_is_refused() -> None:
    with pytest.raises(ValueError, match="independent, memory"):
        Judge("forgetful", 0.0, logistic, np.random.default_rng(0))


def test_the_recall_table_ends_with_the_ratio_to_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    cfg, opts = ranking_sim.VARIANTS["session"]
    rows = [("session", cfg, opts, 0.3, "independent"), ("session", cfg, opts, 0.3, "memory")]
    results = [{12: (0.6, 0.6, 480, 0, float("nan"))}, {12: (0.8, 0.8, 480, 0, float("nan"))}] * 2
    ranking_sim.bound_rows(rows, results, range(2), (12,))
    out = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [r[1] for r in out] == ["independent", "memory"]
    for r in out:
        session, bound, ratio = map(float, r[3:6])
        assert session == pytest.approx(0.7) and ratio == pytest.approx(session / bound, abs=1e-3)
