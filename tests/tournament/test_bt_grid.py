"""The τ grid and its hyperprior (``cosci.tournament.bt_grid``; design.md#judge-memory): the information on log τ
that a data-scaled hyperprior reads, the hyperpriors' shapes, and the mixture the fit and the bench's records build
from the same grid points, on verdicts scripted here."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from bench.ranking_hyper import CANDIDATES, record_variants
from cosci.tournament import bt, bt_grid, bt_model

IDS = [f"h{i}" for i in range(6)]


def split_verdicts() -> list[tuple[str, str, float]]:
    """Every pair of six hypotheses judged twice, once each way and each winning once: nothing says the strengths
    differ, so the marginal likelihood falls as τ grows."""
    out = []
    for i, a in enumerate(IDS):
        for b in IDS[i + 1:]:
            out += [(a, b, 1.0), (b, a, 1.0)]
    return out


def ladder_verdicts() -> list[tuple[str, str, float]]:
    """The better of each pair (lower index) wins three of four: the strengths clearly differ."""
    out = []
    for i, a in enumerate(IDS):
        for b in IDS[i + 1:]:
            out += [(a, b, 1.0), (a, b, 1.0), (b, a, 0.0), (b, a, 1.0)]
    return out


def test_tau_information_is_the_normal_approximations() -> None:
    """``2·Σ (τ²/(τ² + s_i²))²`` with ``1/s_i²`` the Hessian's θ diagonal less the prior precision; a hypothesis no
    verdict touched (diagonal = 1/τ²) adds 0."""
    tau = 0.5
    h = np.diag([1.0 / tau**2 + 4.0, 1.0 / tau**2 + 1.0, 1.0 / tau**2, 7.0])  # θ_0, θ_1, θ_2 (no verdict), β
    share = [tau**2 * 4.0 / (1.0 + tau**2 * 4.0), tau**2 / (1.0 + tau**2)]
    assert bt_grid.tau_information(tau, h, 3) == pytest.approx(2.0 * sum(s * s for s in share))
    assert bt_grid.tau_information(tau, np.diag([1.0 / tau**2] * 3), 3) == 0.0


def test_information_grows_with_tau_toward_twice_the_hypotheses() -> None:
    """On scripted verdicts the information on log τ rises with τ (the estimates' noise hides a small τ) and stays
    under 2n, its limit when τ dominates every estimate's noise."""
    d = bt_model._data(IDS, ladder_verdicts())
    points = bt_grid.grid_fits(d, 1.0, bt_model._start(d, None), False, 0, bt_grid.flat)
    info = [p.info for p in points]
    assert len(points) == len(bt_grid.TAU_GRID)
    assert all(b > a for a, b in itertools.pairwise(info))
    assert info[0] > 0.0
    assert info[-1] < 2 * len(IDS)


def test_hyperprior_shapes() -> None:
    """The log-normal is main's (0 at prior_sd, −½ one sd away in log τ); the scaled one keeps half of it where the
    information equals its precision and none without information; Jeffreys' is ½·log info."""
    ln1, ln2 = bt_grid.lognormal(1.0), bt_grid.lognormal(2.0)
    assert ln1(1.0, 1.0, 3.0) == 0.0
    assert ln1(math.e, 1.0, 3.0) == pytest.approx(-0.5)
    assert ln2(math.e**2, 1.0, 3.0) == pytest.approx(-0.5)
    sc = bt_grid.scaled(1.0)
    assert sc(0.5, 1.0, 1.0) == pytest.approx(0.5 * ln1(0.5, 1.0, 1.0))
    assert sc(0.5, 1.0, 0.0) == 0.0
    assert sc(0.5, 1.0, 1e9) == pytest.approx(ln1(0.5, 1.0, 1e9))
    assert bt_grid.jeffreys(0.5, 1.0, 4.0) == pytest.approx(math.log(2.0))
    assert bt_grid.flat(0.5, 1.0, 4.0) == 0.0


def test_a_weaker_hyperprior_lets_a_flat_likelihood_pull_tau_down() -> None:
    """Split verdicts (no difference shown): the marginal likelihood falls with τ, so the fitted τ̂ (the mixture's
    mean τ) is largest under main's hyperprior centred on 1 logit, smaller under wider ones and none."""
    d = bt_model._data(IDS, split_verdicts())
    points = bt_grid.grid_fits(d, 1.0, bt_model._start(d, None), False, 0, bt_grid.flat)
    lml = [p.lml for p in points]
    assert lml[0] > lml[-1]

    def tau_hat(prior: bt_grid.Hyperprior) -> float:
        logw = np.asarray([p.lml + prior(p.tau, 1.0, p.info) for p in points])
        return bt._mixture(IDS, d, points, logw, False).prior_sd

    taus = [tau_hat(p) for p in (bt_grid.lognormal(1.0), bt_grid.lognormal(2.0), bt_grid.flat)]
    assert taus[0] > taus[1] > taus[2]


@pytest.mark.parametrize("verdicts", [split_verdicts, ladder_verdicts])
def test_the_shipped_fit_is_the_mixture_under_the_shipped_hyperprior(verdicts) -> None:  # type: ignore[no-untyped-def]
    """``fit_bt`` (eb_mix) equals the mixture of the grid climbed with no hyperprior and weighted by the shipped one:
    what the bench's records assume (a point main's climb skips weighs under e^-10 of the peak)."""
    vs = verdicts()
    f = bt.fit_bt(IDS, vs, method="eb_mix")
    d = bt_model._data(IDS, vs)
    points = bt_grid.grid_fits(d, 1.0, bt_model._start(d, None), False, 0, bt_grid.flat)
    logw = np.asarray([p.lml + bt_grid.HYPERPRIOR(p.tau, 1.0, p.info) for p in points])
    g = bt._mixture(IDS, d, points, logw, False)
    np.testing.assert_allclose(g.theta, f.theta, atol=1e-6)
    np.testing.assert_allclose(g.ci_sd, f.ci_sd, atol=1e-6)
    assert g.prior_sd == pytest.approx(f.prior_sd, abs=1e-6)


def test_a_record_under_the_shipped_hyperprior_is_the_shipped_record() -> None:
    """``bench.ranking_hyper``'s record under the shipped hyperprior equals ``record_trial``'s (one coverage trial of
    the judge with memory, few verdicts, where the climbs differ most)."""
    from bench.ranking_calibration import record_trial

    job = (1.0, 5, 0.0, 24990, "memory")
    name = next(k for k, p in CANDIDATES.items() if p(0.37, 1.0, 2.0) == bt_grid.HYPERPRIOR(0.37, 1.0, 2.0)
                and p(3.1, 1.0, 9.0) == bt_grid.HYPERPRIOR(3.1, 1.0, 9.0))
    mine, shipped = record_variants(job)[name], record_trial(job)
    np.testing.assert_allclose(mine[0], shipped[0], atol=1e-6)
    assert mine[2] == pytest.approx(shipped[2], abs=1e-6)
    assert mine[5] == pytest.approx(shipped[5], abs=1e-6)
