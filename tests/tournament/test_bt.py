"""Bradley–Terry (issue 13): recovers known strengths from synthetic verdicts, its 95 % CIs shrink with more
matches, ties count as half-wins, and the fit does not depend on the warm start (so resume refits the same)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from cosci.tournament.bt import Z95, fit_bt


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
    fit = fit_bt(["a", "b"], [], prior_sd=2.0)
    assert fit.theta.tolist() == [0.0, 0.0]
    assert fit.score("a") == pytest.approx((0.0, -Z95 * 2.0, Z95 * 2.0))


def test_a_draw_is_half_a_win_each_way() -> None:
    draws = fit_bt(["a", "b"], [("a", "b", 0.5)] * 10)
    assert draws.theta[0] == pytest.approx(0.0, abs=1e-8) and draws.theta[1] == pytest.approx(0.0, abs=1e-8)
    split = fit_bt(["a", "b"], [("a", "b", 1.0), ("a", "b", 0.0)] * 5)
    assert draws.theta == pytest.approx(split.theta, abs=1e-8)
    wins = fit_bt(["a", "b"], [("a", "b", 1.0)] * 3 + [("a", "b", 0.5)] * 2)
    assert wins.theta[0] > 0 > wins.theta[1]  # an undefeated player still has a finite score (the prior)


def test_the_fit_does_not_depend_on_the_warm_start() -> None:
    ids, _, verdicts = synthetic(12, 300, seed=3)
    cold = fit_bt(ids, verdicts)
    warm = fit_bt(ids, verdicts, start=np.random.default_rng(0).normal(size=12))
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
