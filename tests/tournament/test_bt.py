"""Bradley–Terry–Davidson: recovers known strengths from synthetic verdicts, its 95 % CIs shrink with more
matches, ties are Davidson ties (and without ties the fit is plain Bradley–Terry), the fitted tie rate, position
bias and judge reliabilities come back from simulated verdicts, the calibrated intervals are deterministic, and the
fit does not depend on the warm start (so resume refits the same). Coverage itself is measured by the bench
(``python -m bench.ranking_sim --coverage``); here only a small smoke test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit
from scipy.stats import spearmanr

from cosci.tournament import bt, bt_model
from cosci.tournament.bt import Z95, ci_inflation, fit_bt
from cosci.tournament.rerun import design_effect, order_groups


def synthetic(n: int, matches: int, seed: int) -> tuple[list[str], np.ndarray, list[tuple[str, str, float]]]:
    rng = np.random.default_rng(seed)
    q = np.linspace(-2.0, 2.0, n)  # known strengths, logits
    ids = [f"H-{i:03d}" for i in range(n)]
    verdicts = []
    for _ in range(matches):
        i, j = rng.choice(n, 2, replace=False)
        p = 1.0 / (1.0 + np.exp(-(q[i] - q[j])))
        verdicts.append((ids[i], ids[j], 1.0 if rng.random() < p else 0.0))
    return ids, q, verdicts


def test_recovers_known_strengths() -> None:
    ids, q, verdicts = synthetic(20, 1500, seed=1)
    fit = fit_bt(ids, verdicts)
    rho = spearmanr(fit.theta, q).statistic
    assert rho >= 0.9
    assert fit.order()[0] == ids[-1] or fit.order().index(ids[-1]) < 3
    assert fit.verdicts == 1500


def test_confidence_intervals_shrink_as_matches_grow() -> None:
    ids, _, verdicts = synthetic(10, 2000, seed=2)
    widths = []
    for m in (50, 200, 2000):
        fit = fit_bt(ids, verdicts[:m])
        lo, hi = zip(*[(fit.score(h)[1], fit.score(h)[2]) for h in ids], strict=True)
        widths.append(float(np.mean(np.subtract(hi, lo))))
    assert widths[0] > widths[1] > widths[2]
    assert widths[2] < 0.6 * widths[0]


def test_no_verdicts_gives_the_prior() -> None:
    fit = fit_bt(["a", "b"], [], prior_sd=2.0, method="laplace")
    assert fit.theta.tolist() == [0.0, 0.0]
    assert fit.score("a") == pytest.approx((0.0, -Z95 * 2.0, Z95 * 2.0))
    assert fit.tie_rate == 0.0 and fit.reliability == {} and fit.position_bias == 0.0
    calibrated = fit_bt(["a", "b"], [])
    assert calibrated.theta.tolist() == [0.0, 0.0] and calibrated.method == "eb_is"


def plain_bt(ids: list[str], verdicts: list[tuple[str, str, float]], prior_sd: float) -> np.ndarray:
    """Reference Bradley–Terry MAP (no ties): minimise Σ log(1 + e^−(±d)) + |θ|²/(2 sd²) directly."""
    pos = {h: i for i, h in enumerate(ids)}
    a = np.asarray([pos[v[0]] for v in verdicts])
    b = np.asarray([pos[v[1]] for v in verdicts])
    s = np.asarray([v[2] for v in verdicts])

    def nll(t: np.ndarray) -> float:
        d = t[a] - t[b]
        return float(np.sum(np.logaddexp(0.0, d) - s * d) + 0.5 * t @ t / prior_sd**2)

    return np.asarray(minimize(nll, np.zeros(len(ids)), method="BFGS", options={"gtol": 1e-9}).x)


def test_without_ties_davidson_is_bradley_terry() -> None:
    ids, _, verdicts = synthetic(8, 200, seed=4)
    fit = fit_bt(ids, verdicts, prior_sd=1.5, method="laplace")
    assert fit.nu == 0.0 and fit.tie_rate == 0.0
    assert fit.theta == pytest.approx(plain_bt(ids, verdicts, 1.5), abs=1e-4)
    p = expit(fit.theta[0] - fit.theta[1])  # P(0 beats 1) is the logistic of the gap
    assert 0.0 < p < 1.0


def test_a_tie_is_a_davidson_tie_not_a_half_win() -> None:
    draws = fit_bt(["a", "b"], [("a", "b", 0.5)] * 10, method="laplace")
    assert draws.theta == pytest.approx([0.0, 0.0], abs=1e-8)
    assert draws.tie_rate > 0.5  # ten ties out of ten: ties are likely between these two
    wins = fit_bt(["a", "b"], [("a", "b", 1.0)] * 3 + [("a", "b", 0.5)] * 2, method="laplace")
    assert wins.theta[0] > 0 > wins.theta[1]  # an undefeated player still has a finite score (the prior)
    split = fit_bt(["a", "b"], [("a", "b", 1.0), ("a", "b", 0.0)] * 5, method="laplace")
    assert split.tie_rate == 0.0 and draws.sd[0] != pytest.approx(split.sd[0], abs=1e-6)


def davidson(n: int, m: int, nu: float, bias: float, seed: int, rel: tuple[float, ...] = (1.0,),
             ) -> tuple[list[str], np.ndarray, list[tuple[str, str, float]], list[int]]:
    """Verdicts from a Davidson judge (first-named shown first, bias toward it), judges in rotation."""
    rng = np.random.default_rng(seed)
    q = rng.normal(0.0, 1.0, n)
    ids = [f"H-{i:03d}" for i in range(n)]
    verdicts, judges = [], []
    for k in range(m):
        i, j = rng.choice(n, 2, replace=False)
        g = k % len(rel)
        u = 0.5 * (rel[g] * (q[i] - q[j]) + bias)
        pw, pl = math.exp(u), math.exp(-u)
        x = rng.random() * (pw + pl + nu)
        verdicts.append((ids[i], ids[j], 1.0 if x < pw else 0.0 if x < pw + pl else 0.5))
        judges.append(g)
    return ids, q, verdicts, judges


def test_the_tie_rate_and_the_position_bias_are_recovered() -> None:
    ids, q, verdicts, _ = davidson(12, 1500, nu=0.5, bias=0.6, seed=5)
    fit = fit_bt(ids, verdicts, first=[a for a, _, _ in verdicts], method="laplace")
    assert fit.tie_rate == pytest.approx(0.5 / 2.5, abs=0.04)
    assert fit.position_bias == pytest.approx(0.6, abs=0.15)
    assert spearmanr(fit.theta, q).statistic >= 0.9
    blind = fit_bt(ids, verdicts, method="laplace")  # without the order there is no bias term
    assert blind.position_bias == 0.0


def test_a_noisy_judge_gets_a_lower_reliability() -> None:
    ids, _, verdicts, judges = davidson(12, 800, nu=0.2, bias=0.0, seed=6, rel=(1.0, 0.4))
    labels = ["sharp" if g == 0 else "noisy" for g in judges]
    fit = fit_bt(ids, verdicts, judges=labels)
    assert set(fit.reliability) == {"sharp", "noisy"}
    assert fit.reliability["noisy"] < 0.7 * fit.reliability["sharp"]
    single = fit_bt(ids, verdicts)
    assert single.reliability == {}


def test_the_calibrated_fit_is_deterministic_and_independent_of_the_start() -> None:
    ids, _, verdicts, _ = davidson(10, 120, nu=0.3, bias=0.3, seed=7)
    first = [a for a, _, _ in verdicts]
    one = fit_bt(ids, verdicts, first=first)
    two = fit_bt(ids, verdicts, first=first, start=np.random.default_rng(1).normal(size=10))
    assert one.method == "eb_is"
    assert np.asarray(list(one.table().values())) == pytest.approx(np.asarray(list(two.table().values())), abs=1e-6)
    assert one.prior_sd > 0 and one.sd.shape == (10,)
    assert abs(float(one.theta.sum())) < 1e-6  # centred: the intervals are for θ_i − mean(θ)


def test_the_calibrated_fit_depends_on_the_verdicts_not_their_order() -> None:
    """A resumed session reads its verdicts back in another order; the importance draws are seeded by the set."""
    ids, _, verdicts, _ = davidson(10, 120, nu=0.3, bias=0.3, seed=8)
    judges = ["cheap" if k % 3 else "mini" for k in range(len(verdicts))]
    one = fit_bt(ids, verdicts, judges=judges)
    two = fit_bt(ids, verdicts[::-1], judges=judges[::-1])
    assert np.asarray(list(one.table().values())) == pytest.approx(np.asarray(list(two.table().values())), abs=1e-6)


def test_the_eb_is_interval_is_widened_by_the_fitted_family() -> None:
    """The empirical widening (bench/README.md, ``--coverage --choose``): ``exp(a + b·x + c·y + d·x·y +
    (e + g·x)·|β|·e^(−y/2) + (h + i·y + j·x)·ρ)`` per hypothesis, x = log τ̂, y = log(n_i/10) with n_i clipped to
    [2, 60], ρ the judge's repeat share (design.md#judge-memory)."""
    a, b, c, d, e, g, h, i, j = bt.CI_FAMILY
    counts = np.asarray([1.0, 10.0, 30.0, 100.0])
    got = ci_inflation(0.5, counts, 0.4, 0.75)
    y = np.log(np.asarray([2.0, 10.0, 30.0, 60.0]) / 10.0)
    x = math.log(0.5)
    assert got == pytest.approx(np.exp(a + b * x + c * y + d * x * y + (e + g * x) * 0.4 * np.exp(-0.5 * y)
                                       + (h + i * y + j * x) * 0.75))
    assert ci_inflation(1.0, np.asarray([10.0])) == pytest.approx([math.exp(a)])
    # a judge that repeats itself: narrower with 5 verdicts and a small τ̂ (τ̂ inflated by repeats), wider with 30
    # and a large one; an independent judge (ρ = 0) is not widened
    few = ci_inflation(0.6, np.asarray([5.0]), 0.0, 0.75) / ci_inflation(0.6, np.asarray([5.0]))
    many = ci_inflation(2.0, np.asarray([30.0]), 0.0, 0.75) / ci_inflation(2.0, np.asarray([30.0]))
    assert few[0] < 1.0 < many[0]
    assert bt.inflation_family(bt.CI_FAMILY[:6], 0.5, counts, 0.4, 0.75) == pytest.approx(
        np.exp(a + b * x + c * y + d * x * y + (e + g * x) * 0.4 * np.exp(-0.5 * y)))  # six: no repeat term
    ids, _, verdicts, _ = davidson(12, 150, nu=0.3, bias=0.3, seed=9)
    fit = fit_bt(ids, verdicts, first=[v[0] for v in verdicts])
    proj = np.eye(12) - 1.0 / 12
    raw = np.sqrt(np.diag(proj @ fit.cov @ proj))
    d = bt_model._data(ids, verdicts, None, [v[0] for v in verdicts])
    reruns = np.sqrt(design_effect(12, d.a, d.b, order_groups(d.a, d.b, d.o, d.g), fit.rerun.repeat_used))
    widening = ci_inflation(fit.prior_sd, bt.verdict_counts(ids, verdicts), fit.position_bias, fit.rerun.repeat_used)
    assert fit.sd == pytest.approx(raw * widening * reruns)  # design.md#judge-memory
    mix = fit_bt(ids, verdicts, method="eb_mix")  # the Laplace mixture is not widened
    assert mix.sd == pytest.approx(np.sqrt(np.diag(proj @ mix.cov @ proj)))


def test_coverage_smoke() -> None:
    """Nominal 95 % intervals cover the centred truth in a middle regime (the bench measures the regimes)."""
    hits = total = 0
    for seed in range(8):
        ids, q, verdicts, _ = davidson(20, 150, nu=0.3, bias=0.3, seed=100 + seed)
        fit = fit_bt(ids, verdicts, first=[a for a, _, _ in verdicts])
        truth = q - q.mean()
        lo, hi = fit.theta - Z95 * fit.sd, fit.theta + Z95 * fit.sd
        hits += int(np.sum((lo <= truth) & (truth <= hi)))
        total += len(ids)
    assert 0.88 <= hits / total <= 0.995


def test_the_fit_does_not_depend_on_the_warm_start() -> None:
    ids, _, verdicts = synthetic(12, 300, seed=3)
    cold = fit_bt(ids, verdicts, method="laplace")
    warm = fit_bt(ids, verdicts, start=np.random.default_rng(0).normal(size=12), method="laplace")
    assert warm.theta == pytest.approx(cold.theta, abs=1e-6)
    assert warm.cov == pytest.approx(cold.cov, abs=1e-6)


def test_top_k_separation_needs_the_cis_apart() -> None:
    ids = ["a", "b", "c"]
    assert not fit_bt(ids, [("a", "b", 1.0), ("b", "c", 1.0)]).top_k_separated(1)
    strong = fit_bt(ids, [("a", "b", 1.0)] * 200 + [("a", "c", 1.0)] * 200 + [("b", "c", 0.5)] * 50)
    assert strong.order()[0] == "a" and strong.top_k_separated(1)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="prior_sd"):
        fit_bt(["a"], [], prior_sd=0.0)
    with pytest.raises(ValueError, match="shape"):
        fit_bt(["a", "b"], [], start=np.zeros(3))
    with pytest.raises(ValueError, match="judges"):
        fit_bt(["a", "b"], [("a", "b", 1.0)], judges=["x", "y"])
    with pytest.raises(ValueError, match="method"):
        fit_bt(["a", "b"], [], method="bootstrap")  # type: ignore[arg-type]


def test_a_fit_over_no_players_is_empty_and_warns_nothing() -> None:
    """`cosci result` refuting the last ranked hypothesis refits over no players: numpy's empty-mean warnings
    reached the researcher's terminal (a fresh user's trial)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = fit_bt([], [("H-a", "H-b", 1.0)], first=[None])
    assert fit.table() == {} and fit.verdicts == 0
