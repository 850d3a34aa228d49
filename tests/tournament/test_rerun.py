"""A judge that repeats itself (cosci/tournament/rerun.py, design.md#judge-memory): its rerun agreement, its repeat
share ρ̂ and the widening of the Bradley–Terry interval by the reruns' design effect."""

import math

import numpy as np
import pytest

from bench.ranking_judges import Judge, davidson
from cosci.tournament import bt
from cosci.tournament.rerun import RerunEstimate, design_effect, effective_count, order_groups


def _verdicts(model: str, seed: int, n: int = 12, m: int = 400) -> tuple[list[bt.Verdict], list[str | None]]:
    """``m`` verdicts on few pairs (many reruns) from the bench's judge ``model``; the first-shown of each."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 0.5, n)
    judge = Judge(model, 0.3, davidson, rng)
    pairs = [(i, j) for i in range(n) for j in range(n) if i < j][:30]
    out: list[bt.Verdict] = []
    first: list[str | None] = []
    for _ in range(m):
        i, j = pairs[int(rng.integers(len(pairs)))]
        if rng.random() < 0.5:
            i, j = j, i
        a, b = f"H{i:02d}", f"H{j:02d}"
        out.append((a, b, judge(a, b, float(theta[i] - theta[j]))))
        first.append(a)
    return out, first


def test_effective_count_runs_from_one_verdict_to_k() -> None:
    assert effective_count(3, 0.0) == 3.0
    assert effective_count(3, 1.0) == pytest.approx(1.0)
    assert 1.0 < effective_count(3, 0.75) < effective_count(3, 0.3) < 3.0
    assert effective_count(1, 0.9) == 1.0


def test_groups_are_ordered_pairs_of_one_judge_and_skip_unknown_order() -> None:
    a = np.asarray([0, 0, 0, 1, 0])
    b = np.asarray([1, 1, 1, 2, 1])
    o = np.asarray([1.0, -1.0, 1.0, 1.0, 0.0])  # 0 and 2 share an order; 1 is the swapped order; 4 is dual
    groups = order_groups(a, b, o, np.zeros(5, np.intp))
    assert [g.tolist() for g in groups] == [[0, 2]]


def test_a_judge_with_memory_reads_a_high_repeat_share_and_an_independent_one_none() -> None:
    ids = [f"H{i:02d}" for i in range(12)]
    v, f = _verdicts("memory", 1)
    mem = bt.fit_bt(ids, v, first=f)
    v, f = _verdicts("independent", 1)
    ind = bt.fit_bt(ids, v, first=f)
    assert mem.rerun.reruns > 200 and ind.rerun.reruns > 200
    assert mem.rerun.repeat_low <= 0.75 <= mem.rerun.repeat_high and mem.rerun.repeat_low > 0.5
    assert ind.rerun.repeat_low == 0.0 and ind.rerun.repeat_high < 0.3
    assert mem.rerun.agreement > ind.rerun.agreement


def test_the_interval_widens_by_the_reruns_design_effect(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [f"H{i:02d}" for i in range(12)]
    verdicts, first = _verdicts("memory", 2)
    widened = bt.fit_bt(ids, verdicts, first=first)
    monkeypatch.setattr(bt, "design_effect", lambda n, *rest: np.ones(n))
    plain = bt.fit_bt(ids, verdicts, first=first)
    played = np.asarray([any(h in v[:2] for v in verdicts) for h in ids])
    assert np.all(widened.sd[played] > 1.3 * plain.sd[played])  # ρ̂ ≈ 0.75 on ~17 verdicts an ordered pair
    np.testing.assert_allclose(widened.theta, plain.theta)  # the estimate is the same; only its interval widens


def test_an_independent_judge_barely_widens(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [f"H{i:02d}" for i in range(12)]
    verdicts, first = _verdicts("independent", 3)
    widened = bt.fit_bt(ids, verdicts, first=first)
    monkeypatch.setattr(bt, "design_effect", lambda n, *rest: np.ones(n))
    plain = bt.fit_bt(ids, verdicts, first=first)
    assert float(np.max(widened.sd / plain.sd)) < 1.15


def test_few_agreeing_reruns_do_not_read_as_a_judge_that_always_repeats() -> None:
    est = RerunEstimate(3, 3, 1.0, 0.44, 1.0, 0.87, 1.0, 0.0, 1.0)
    assert est.repeat_used == 0.0  # Laplace's rule: 4/5 agreement is below the 0.87 chance agreement
    assert RerunEstimate.none().repeat_used == 0.0 and math.isnan(RerunEstimate.none().repeat)


def test_design_effect_is_one_without_repeats_or_memory() -> None:
    a, b = np.asarray([0, 0, 1]), np.asarray([1, 1, 2])
    groups = order_groups(a, b, np.asarray([1.0, 1.0, 1.0]), np.zeros(3, np.intp))
    np.testing.assert_allclose(design_effect(3, a, b, groups, 0.0), 1.0)
    deff = design_effect(3, a, b, groups, 1.0)
    assert deff[0] == pytest.approx(2.0) and deff[1] == pytest.approx(1.5) and deff[2] == 1.0


def test_the_wilson_interval_is_scipys_without_importing_it() -> None:
    """design.md#startup: the closed form gives scipy's ``binomtest(...).proportion_ci(method="wilson")`` for every
    k of n up to 120 and at another level, so the shown intervals do not move."""
    from scipy.stats import binomtest

    from cosci.tournament.rerun import wilson_interval

    for n in range(1, 121):
        for k in range(n + 1):
            ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
            low, high = wilson_interval(k, n)
            assert abs(low - ci.low) < 1e-12 and abs(high - ci.high) < 1e-12, (k, n)
    ci = binomtest(3, 7).proportion_ci(confidence_level=0.8, method="wilson")
    assert wilson_interval(3, 7, 0.8) == pytest.approx((ci.low, ci.high), abs=1e-12)
