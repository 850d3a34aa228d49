"""A judge that repeats itself (cosci/tournament/rerun.py, design.md#judge-memory): its rerun agreement, its repeat
share ρ̂ and the widening of the Bradley–Terry interval by the reruns' design effect."""

import math
from dataclasses import replace

import numpy as np
import pytest

from bench.ranking_judges import Judge, davidson
from cosci.tournament import bt, bt_model, bt_sample
from cosci.tournament.rerun import (
    RerunEstimate,
    design_effect,
    effective_count,
    order_groups,
    verdict_weights,
)


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
    monkeypatch.setattr(bt, "verdict_weights", lambda *args: None)
    plain = bt.fit_bt(ids, verdicts, first=first)
    played = np.asarray([any(h in v[:2] for v in verdicts) for h in ids])
    # ρ̂ ≈ 0.75 on ~17 verdicts an ordered pair: every interval wider, most by the data's part (the prior's part,
    # large for a hypothesis the verdicts place far out, is not widened)
    ratio = widened.sd[played] / plain.sd[played]
    assert np.all(ratio > 1.2) and float(np.median(ratio)) > 1.35
    # the weights keep the order and shrink the estimate toward 0 (fewer effective verdicts, more prior)
    assert np.corrcoef(widened.theta, plain.theta)[0, 1] > 0.95
    assert float(np.abs(widened.theta).sum()) < float(np.abs(plain.theta).sum())


def test_an_independent_judge_barely_widens(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = [f"H{i:02d}" for i in range(12)]
    verdicts, first = _verdicts("independent", 3)
    widened = bt.fit_bt(ids, verdicts, first=first)
    monkeypatch.setattr(bt, "verdict_weights", lambda *args: None)
    plain = bt.fit_bt(ids, verdicts, first=first)
    assert float(np.max(widened.sd / plain.sd)) < 1.15


def test_a_group_weighs_its_effective_count_and_a_weight_is_a_fraction_of_a_verdict() -> None:
    """A group of k verdicts of one order weighs effective_count(k, ρ)/k each (1 at ρ = 0), so a hypothesis's
    weights sum to its effective count; and in the likelihood, three verdicts at weight 1/3 are one verdict:
    the same objective, gradient and Hessian as the single verdict (design.md#judge-memory)."""
    groups = [np.asarray([0, 2, 3]), np.asarray([4, 5])]
    assert verdict_weights(6, groups, 0.0) is None
    w = verdict_weights(6, groups, 0.75)
    assert w is not None
    np.testing.assert_allclose(w, [effective_count(3, 0.75) / 3, 1.0, effective_count(3, 0.75) / 3,
                                   effective_count(3, 0.75) / 3, effective_count(2, 0.75) / 2,
                                   effective_count(2, 0.75) / 2])
    ids = ["A", "B", "C"]
    one = [("A", "B", 1.0), ("B", "C", 0.5), ("C", "A", 0.0)]
    tripled = [one[0]] * 3 + one[1:]
    d1 = bt_model._data(ids, one, None, ["A", "B", "C"])
    d3 = replace(bt_model._data(ids, tripled, None, ["A"] * 3 + ["B", "C"]), w=np.asarray([1 / 3] * 3 + [1.0, 1.0]))
    x = np.asarray([0.3, -0.1, -0.2, math.log(0.4), 0.2])
    for (f1, g1, h1), (f3, g3, h3) in [(bt_model._terms(x, d1, 1.0), bt_model._terms(x, d3, 1.0))]:
        assert f3 == pytest.approx(f1) and g3 == pytest.approx(g1) and h3 == pytest.approx(h1)
    f_sparse, g_sparse, h_sparse = bt_model._terms_sparse(x, d3, 1.0)
    assert f_sparse == pytest.approx(f1) and g_sparse == pytest.approx(g1)
    assert h_sparse.toarray() == pytest.approx(h1)
    assert bt_sample._nlp_batch(x[None, :], d3, 1.0) == pytest.approx([f1])


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
