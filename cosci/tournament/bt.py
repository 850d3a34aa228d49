"""Bradley–Terry–Davidson strengths with 95 % empirical-Bayes intervals, fitted beside Elo (design.md#tournament).

Model. Hypothesis ``i`` meets ``j``; with ``u = r_g·(θ_i − θ_j)/2`` (``θ`` log-strengths in logits, ``r_g`` the
reliability of the judge ``g`` that gave the verdict, 1 for a single judge) and the tie parameter ``ν ≥ 0``
(Davidson, 1970)::

    P(i wins) = e^u / Z,   P(j wins) = e^−u / Z,   P(tie) = ν / Z,   Z = e^u + e^−u + ν.

With ``ν = 0`` this is Bradley & Terry (1952): ``P(i wins) = σ(r_g·(θ_i − θ_j))``, ``σ`` the logistic function; a
BT score of +1 means e ≈ 2.7 times the odds of the average hypothesis. A verdict is ``(a, b, s)`` with ``s`` the
score of ``a``: 1 a won, 0 b won, 0.5 a tie.

- **Ties (Davidson).** A tie (score 0.5: a dual-order match whose two orders disagreed, or a researcher's "equal")
  is its own outcome, likelier the closer the pair: ``ν`` is fitted (maximum likelihood under a weak
  ``log ν ~ N(0, 3²)`` prior) and :attr:`BTFit.tie_rate` = ``ν / (2 + ν)`` is the fitted probability of a tie
  between two equal hypotheses. With no tie among the verdicts ``ν = 0`` exactly and the fit *is* Bradley–Terry.
  Why not half-wins (the earlier rule): a half-win says a draw is as informative about the gap as a win plus a
  loss, so a session whose judge often disagrees with itself across orders looked as certain as one whose judge
  never does; the fitted ``ν`` lets the data say how much a draw means, and reports the rate.
- **Judges.** With ``judges`` (one label per verdict) every judge gets a reliability ``r_g = e^ρ_g``: a judge
  whose verdicts agree less with the consensus gets a smaller ``r_g`` and moves the scores less. The logit scale
  is fixed by making the verdict-weighted mean of ρ zero (the free ρ's have a weak N(0, 1) prior). Pinning one
  judge at 1 instead lets the prior's shrinkage of θ, which the pinned judge cannot absorb, push the other
  judges' ``r`` up (a judge of true reliability 0.5 came out at 1.3 on simulated verdicts).
- **Position.** With ``first`` (the id shown first per verdict) ``u`` gains ``± β/2`` toward the first-shown:
  a judge's first-position bias β is fitted (reported as :attr:`BTFit.position_bias`) instead of blurring the
  strengths; unmodelled, a 0.6-logit bias shrinks a ±4-logit spread by ~8 % and the intervals miss.
- **Prior on θ.** ``θ ~ N(0, τ²)``. ``method="laplace"`` (the earlier rule) fixes ``τ = prior_sd`` and reports
  the Laplace interval. The default ``method="eb_is"`` (design.md#tournament) lets the session's verdicts
  choose ``τ``: on a fixed grid of ``τ`` (10 points, 0.15 to 6 logits) it finds the posterior mode and its
  Laplace approximation, corrects both by importance sampling (:mod:`cosci.tournament.importance`: Student-t
  proposals from the Laplace fit, adapted over up to three stages, scrambled Sobol draws, 256-16,384 a stage by
  the session's size; seeded from the verdicts, so the fit is deterministic; Monte Carlo error under 0.05 logits
  on every bound of 4-10-hypothesis sessions, where the earlier 128 Gaussian draws erred by up to 3 logits:
  tests/tournament/test_bt_monte_carlo.py) into the marginal likelihood of the verdicts
  and the posterior mean and covariance at that ``τ``, weights the grid by marginal likelihood × a hyperprior
  on τ (:data:`cosci.tournament.bt_grid.HYPERPRIOR`: log-normal centred on ``prior_sd``, sd 1 in log τ; points
  below e^-12 of the peak's weight are skipped), and
  reports the mixture's mean and covariance (law of total variance). ``method="eb_mix"`` is the same without
  the importance sampling. Why: a fixed N(0, 1) prior shrinks a decisive judge's ±3-logit spread toward 0 and
  its intervals miss the extremes; a plug-in maximum-marginal-likelihood τ collapses with few verdicts and its
  intervals are too narrow; the Laplace marginal likelihood alone favours too small a τ with few verdicts per
  hypothesis (a known bias of Laplace approximations for binary data), which the importance sampling removes.
  The ``eb_is`` sd is then widened per hypothesis by :func:`ci_inflation` (a log-linear function of the fitted
  τ, the hypothesis's verdict count and the fitted |β|), an empirical correction chosen by
  ``python -m bench.ranking_sim --coverage --choose`` on the coverage bench's tuning trials. Coverage per regime:
  bench/README.md (``python -m bench.ranking_sim --coverage``).
- **Intervals** are for the *centred* strength ``θ_i − mean(θ)`` (what the verdicts identify; θ sums to 0):
  ``θ_i ± 1.96·sd_i`` with ``sd_i`` from the covariance projected onto sum-zero vectors (``method="laplace"``
  keeps the earlier unprojected sd). Readers name it :data:`cosci.domain.BT_INTERVAL_LABEL`: its method and
  what its coverage was measured against. Cost: bench/README.md ("Ranking simulator": ``eb_is`` ms a fit),
  against 4 ms for ``laplace``; cheap beside one judge call, so the session refits after every match.

The likelihood, its derivatives, the priors and the mode are in :mod:`cosci.tournament.bt_model`; this module
holds the fit, its intervals and their widening. The optimiser is :func:`scipy.optimize.minimize` (``trust-exact``,
analytic gradient and Hessian). Without judges the objective is strictly convex in (θ, log ν), so the mode is unique
and a warm start changes nothing but the iterations; with judges it is not convex in ρ, and the start is the
single-judge fit.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from cosci.tournament import bt_grid
from cosci.tournament.bt_draws import verdict_seed
from cosci.tournament.bt_grid import GridPoint, grid_fits
from cosci.tournament.bt_model import (
    Verdict,
    _beta,
    _centred_sd,
    _Data,
    _data,
    _mode,
    _nu,
    _probabilities,
    _reliability,
    _start,
)
from cosci.tournament.bt_solve import LARGE_N, spd_inverse
from cosci.tournament.rerun import RerunEstimate, design_effect, order_groups, rerun_estimate

Z95 = 1.959963984540054
"""Two-sided 95 % normal quantile."""

Method = Literal["laplace", "eb_mix", "eb_is"]
"""Interval methods (module docstring; chosen by ``python -m bench.ranking_sim --coverage``)."""

METHODS: tuple[Method, ...] = ("laplace", "eb_mix", "eb_is")

CI_FAMILY = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.1158, 0.0765, 0.1194)
"""Coefficients ``(a, b, c, d, e, g, h, i, j)`` of the ``eb_is`` widening (:func:`inflation_family`,
:func:`ci_inflation`): ``exp(ρ̂·(h + i·log(n_i/10) + j·log τ̂))``, ρ̂ the judge's repeat share. Chosen by ``python -m
bench.ranking_sim --coverage --choose --records …`` on tuning trials 3000-3049 of both simulated judges (the
independent one and the one with memory, on the schedule with rematches; bench/README.md, eleventh stop;
design.md#judge-memory). On the present importance sampler the interval with the reruns' design effect alone
covers 0.934-0.970 under the independent judge, so the six earlier terms are 0; under the judge with memory the
fitted prior sd τ̂ is inflated by repeated verdicts (a repeat reads as a consistent difference), so with few
verdicts a hypothesis the prior-dominated interval is too wide (0.97-0.99 at 5 verdicts) and with many a little
narrow (0.94 at 30): the repeat-share term narrows the first and widens the second. The earlier family (chosen on
the plain schedule, earlier sampler) was ``(0.0843, 0.0767, -0.0046, -0.0817, 0.0126, 0.009)``."""


@dataclass(frozen=True)
class BTFit:
    """A fitted Bradley–Terry–Davidson model.

    Attributes:
        ids: hypothesis ids, length n, in the order of ``theta``.
        theta: ``(n,)`` float64 log-strengths, logits, summing to 0 (the posterior mean for ``eb_mix``, the mode
            for ``laplace``).
        cov: ``(n, n)`` float64 posterior covariance of θ (Laplace; for ``eb_mix`` the mixture's).
        verdicts: valid verdicts the fit used.
        ci_sd: ``(n,)`` sd behind the 95 % intervals (module docstring: of the centred strength).
        nu: Davidson tie parameter (0 when no verdict is a tie).
        prior_sd: the prior sd τ, logits (fixed, or the mixture's weighted mean of τ).
        reliability: judge label -> reliability ``r`` (verdict-weighted geometric mean 1); empty without judges.
        position_bias: fitted first-position bias β, logits (0 when the order was not given).
        method: the interval method.
        rerun: the judge's reruns of an ordered pair and its repeat share ρ̂ (:mod:`cosci.tournament.rerun`;
            measured only when the order was given); ``eb_is`` widens each interval by their design effect.
    """

    ids: tuple[str, ...]
    theta: NDArray[np.float64]
    cov: NDArray[np.float64]
    verdicts: int
    ci_sd: NDArray[np.float64]
    nu: float
    prior_sd: float
    reliability: dict[str, float] = field(default_factory=dict)
    position_bias: float = 0.0
    method: Method = "eb_is"
    rerun: RerunEstimate = field(default_factory=RerunEstimate.none)

    @property
    def sd(self) -> NDArray[np.float64]:
        """``(n,)`` sd of each score behind its 95 % interval, logits."""
        return self.ci_sd

    @property
    def tie_rate(self) -> float:
        """Fitted probability that two equal hypotheses tie, ``ν / (2 + ν)`` in [0, 1)."""
        return self.nu / (2.0 + self.nu)

    def index(self) -> dict[str, int]:
        return {h: i for i, h in enumerate(self.ids)}

    def score(self, hid: str) -> tuple[float, float, float]:
        """``(bt_score, ci_low, ci_high)`` of one hypothesis, logits; the CI is 95 %."""
        i = self.index()[hid]
        s = float(self.ci_sd[i])
        return float(self.theta[i]), float(self.theta[i] - Z95 * s), float(self.theta[i] + Z95 * s)

    def table(self) -> dict[str, tuple[float, float, float]]:
        """Every hypothesis's ``(bt_score, ci_low, ci_high)`` (as :meth:`score`, in O(n))."""
        half = Z95 * self.ci_sd
        return {h: (float(t), float(t - s), float(t + s)) for h, t, s in zip(self.ids, self.theta, half, strict=True)}

    def order(self) -> list[str]:
        """Ids best first (ties broken by id, so the order is deterministic)."""
        return [h for _, h in sorted(zip(-self.theta, self.ids, strict=True))]

    def top_k_separated(self, k: int) -> bool:
        """True when the k-th's 95 % CI lower bound lies above the (k+1)-th's upper bound (by BT score)."""
        if len(self.ids) <= k or k < 1:
            return False
        ranked = self.order()
        _, low_k, _ = self.score(ranked[k - 1])
        _, _, high_next = self.score(ranked[k])
        return low_k > high_next


def fit_bt(ids: Sequence[str], verdicts: Sequence[Verdict], prior_sd: float = 1.0,
           start: NDArray[np.float64] | None = None, *, judges: Sequence[Hashable] | None = None,
           first: Sequence[str | None] | None = None, method: Method = "eb_is", seed: int | None = None,
           workers: int = 1) -> BTFit:
    """Fit Bradley–Terry–Davidson by penalised maximum likelihood (module docstring: ties, judges, prior, CIs).

    Args:
        ids: the hypotheses to rate (n ≥ 1); verdicts naming other ids are ignored.
        verdicts: ``(a, b, score of a)`` with score 1, 0 or 0.5 (a tie; other values in [0, 1] count as
            fractional wins).
        prior_sd: ``laplace``: sd of the N(0, prior_sd²) prior on θ; ``eb_mix``: the centre of the hyperprior on
            that sd; logits (> 0).
        start: optional ``(n,)`` warm start of θ (the previous fit); the answer does not depend on it.
        judges: optional judge label per verdict (parallel to ``verdicts``); None is one judge.
        first: optional id shown first per verdict (parallel; None where unknown or both orders were judged);
            with it the fit has a first-position bias β (logits, N(0, 1) prior) and reports it.
        method: ``eb_is`` (the default, the calibrated interval; design.md#tournament), ``eb_mix`` (the same
            without importance sampling) or ``laplace`` (fixed prior).
        seed: ``eb_is``: seeds the importance draws (≥ 0); None (the default) seeds them from the verdicts as a set,
            so a fit is deterministic. Another seed moves a bound by its Monte Carlo error only (under 0.05 logits
            in 4-10-hypothesis sessions: tests/tournament/test_bt_monte_carlo.py).
        workers: ``eb_mix`` / ``eb_is``: threads computing the grid's points (1 or 2,
            :func:`~cosci.tournament.bt_grid.grid_fits`); the fit is the same, to the bit, either way.

    Returns:
        The fit; with no verdicts θ = 0 and the covariance is the prior's.

    Raises:
        ValueError: ``prior_sd`` not positive, ``start`` of the wrong shape, ``judges`` not parallel to
            ``verdicts`` (nor ``first``), or an unknown method.
    """
    if prior_sd <= 0:
        raise ValueError(f"prior_sd must be > 0 (got {prior_sd})")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)} (got {method!r})")
    n = len(ids)
    if start is not None and np.shape(start) != (n,):
        raise ValueError(f"start has shape {np.shape(start)}, expected ({n},)")
    d = _data(ids, verdicts, judges, first)
    x0 = _start(d, None if start is None else np.asarray(start, np.float64))
    if method == "laplace":
        x, _, h = _mode(d, 1.0 / prior_sd**2, x0)
        cov = spd_inverse(h) if n >= LARGE_N else np.asarray(np.linalg.inv(h), np.float64)
        theta, tcov = x[:n], cov[:n, :n]
        groups = order_groups(d.a, d.b, d.o, d.g)  # the pairing values a rematch by it (design.md#judge-memory)
        rerun = rerun_estimate(groups, d.c, d.t, d.o, *_probabilities(d, x)) if groups else RerunEstimate.none()
        return BTFit(tuple(ids), theta, tcov, int(d.a.size), np.sqrt(np.clip(np.diag(tcov), 0.0, None)),
                     _nu(d, x), prior_sd, _reliability(d, x), _beta(d, x), "laplace", rerun)
    if n == 0:  # every player removed (refuted, withdrawn): an empty fit, without numpy's empty-mean warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return _eb_mix(ids, d, prior_sd, x0, sampled=method == "eb_is", seed=seed, workers=workers)
    return _eb_mix(ids, d, prior_sd, x0, sampled=method == "eb_is", seed=seed, workers=workers)


def verdict_counts(ids: Sequence[str], verdicts: Sequence[Verdict]) -> NDArray[np.float64]:
    """``(n,)`` verdicts (ties included) each hypothesis of ``ids`` took part in; verdicts naming other ids are
    ignored."""
    pos = {h: i for i, h in enumerate(ids)}
    out = np.zeros(len(ids))
    for a, b, _ in verdicts:
        if a in pos and b in pos and a != b:
            out[pos[a]] += 1.0
            out[pos[b]] += 1.0
    return out


def inflation_family(coef: Sequence[float], tau: float, counts: NDArray[np.float64], beta: float = 0.0,
                     repeat: float = 0.0) -> NDArray[np.float64]:
    """``(n,)`` ``exp(a + b·x + c·y + d·x·y + (e + g·x)·|β|·e^(−y/2) + (h + i·y + j·x)·ρ + (k + l·x)·min(y, 0))``
    with ``(a, b, c, d, e, g[, h, i, j[, k, l]]) = coef`` (six coefficients: ``h = i = j = k = l = 0``; nine: ``k =
    l = 0``), ``x = log τ`` (``tau`` in logits, > 0), ``y = log(n_i / 10)`` (``n_i`` = ``counts`` clipped to [2,
    60]), ``β`` the fitted first-position bias, logits, and ``ρ`` the judge's repeat share the fit used
    (:attr:`cosci.tournament.rerun.RerunEstimate.repeat_used`, in [0, 1]): the family :func:`ci_inflation` is one
    of. The last term acts below 10 verdicts a hypothesis only (a τ̂-dependent term at few verdicts; bench/README.md,
    twenty-first stop)."""
    a, b, c, d, e, g = coef[:6]
    h, i, j = (coef[6], coef[7], coef[8]) if len(coef) > 6 else (0.0, 0.0, 0.0)
    k_, l_ = (coef[9], coef[10]) if len(coef) > 9 else (0.0, 0.0)
    x = math.log(max(tau, 1e-6))
    y = np.log(np.clip(np.asarray(counts, np.float64), 2.0, 60.0) / 10.0)
    k = abs(beta) * np.exp(-0.5 * y)
    return np.asarray(np.exp(a + b * x + c * y + d * x * y + (e + g * x) * k + (h + i * y + j * x) * repeat
                             + (k_ + l_ * x) * np.minimum(y, 0.0)), np.float64)


def ci_inflation(tau: float, counts: NDArray[np.float64], beta: float = 0.0, repeat: float = 0.0
                 ) -> NDArray[np.float64]:
    """``(n,)`` factors on the ``eb_is`` interval's sd from the fitted prior sd ``tau`` (logits), each hypothesis's
    verdict count ``counts``, the fitted first-position bias ``beta`` (logits) and the judge's repeat share
    ``repeat`` (in [0, 1]): :func:`inflation_family` at :data:`CI_FAMILY`. An empirical correction of the
    importance-sampled posterior, which unwidened covers 0.91-0.97 depending on the regime (lowest with few verdicts
    and a large position bias); the family and its coefficients are chosen by ``python -m bench.ranking_sim
    --coverage --choose`` on the coverage bench's tuning trials of both simulated judges (bench/README.md,
    design.md#tournament, design.md#judge-memory)."""
    return inflation_family(CI_FAMILY, tau, counts, beta, repeat)


def _eb_mix(ids: Sequence[str], d: _Data, prior_sd: float, x0: NDArray[np.float64], sampled: bool = False,
            seed: int | None = None, workers: int = 1) -> BTFit:
    seed = (verdict_seed(d) if seed is None else seed) if sampled else 0
    points = grid_fits(d, prior_sd, x0, sampled, seed, bt_grid.HYPERPRIOR, workers)
    logw = [p.lml + bt_grid.HYPERPRIOR(p.tau, prior_sd, p.info) for p in points]
    return _mixture(ids, d, points, np.asarray(logw, np.float64), sampled)


def _mixture(ids: Sequence[str], d: _Data, points: Sequence[GridPoint], logw: NDArray[np.float64],
             sampled: bool) -> BTFit:
    """The fit from grid points weighted by ``exp(logw)`` (marginal likelihood × hyperprior): the mixture's mean and
    covariance (law of total variance), τ̂ its weighted mean, ν, β, ρ and the reruns at the heaviest point; ``eb_is``
    widens the sd (:func:`ci_inflation`, then the reruns' design effect)."""
    n = d.n
    w = np.exp(logw - logw.max())
    w /= w.sum()
    theta = np.asarray(sum(wk * p.mean[:n] for wk, p in zip(w, points, strict=True)), np.float64)
    second = sum(wk * (p.cov[:n, :n] + np.outer(p.mean[:n], p.mean[:n])) for wk, p in zip(w, points, strict=True))
    cov = np.asarray(second - np.outer(theta, theta), np.float64)
    theta = theta - theta.mean()  # importance draws do not sum to exactly 0; the intervals are for centred θ
    tau_mean = float(sum(wk * p.tau for wk, p in zip(w, points, strict=True)))
    best = points[int(np.argmax(w))].mean
    counts = (np.bincount(d.a, minlength=n) + np.bincount(d.b, minlength=n)).astype(np.float64)
    groups = order_groups(d.a, d.b, d.o, d.g)
    rerun = rerun_estimate(groups, d.c, d.t, d.o, *_probabilities(d, best)) if groups else RerunEstimate.none()
    ci_sd = _centred_sd(cov)
    if sampled:  # the calibrated widening, then the reruns' design effect (design.md#judge-memory)
        ci_sd = ci_sd * ci_inflation(tau_mean, counts, _beta(d, best), rerun.repeat_used) * np.sqrt(
            design_effect(n, d.a, d.b, groups, rerun.repeat_used))
    return BTFit(tuple(ids), theta, cov, int(d.a.size), ci_sd, _nu(d, best), tau_mean,
                 _reliability(d, best), _beta(d, best), "eb_is" if sampled else "eb_mix", rerun)
