"""Adaptive importance sampling of a posterior's normaliser, mean and covariance (design.md#tournament).

The ``eb_is`` Bradley–Terry fit (:mod:`cosci.tournament.bt`) needs, at each prior sd τ of its grid, the marginal
likelihood of the verdicts and the posterior mean and covariance of the strengths. :func:`posterior_moments`
estimates the three by importance sampling:

- **Proposal.** A multivariate Student t with :data:`DF` degrees of freedom, first centred on the posterior mode
  with the Laplace covariance, then (each later stage) on the previous stage's importance-weighted mean and
  covariance: an adaptive importance sampler (Cappé et al., 2004, population Monte Carlo). The t's polynomial tails
  keep the weights bounded where the posterior's tails are wider than the Laplace Gaussian's: with few verdicts and
  a large τ a hypothesis that won every match has a posterior as wide as the prior on one side, and a Gaussian
  proposal's weights there have (nearly) infinite variance. That was the old sampler's error: 128 Gaussian draws
  at the Laplace fit gave bounds whose sd across seeds reached 3 logits in 4-10-hypothesis sessions.
- **Draws.** Randomised quasi-Monte Carlo: the Sobol sequence (:class:`scipy.stats.qmc.Sobol`) under a random
  digital shift per stage, mapped to normal deviates, in antithetic pairs; the t's chi-square comes from
  :data:`DF` more normal coordinates (exact: no approximate quantile function).
- **How many.** Each stage has :func:`draws_for` draws (a work cap of :data:`WORK` draws × (verdicts +
  parameters), within 256-16,384): a 4-10-hypothesis session gets 16,384 a stage, 40 hypotheses with 200-400
  verdicts 4,096-2,048, a pool of 1,000 the minimum. The proposal is adapted (three stages) only when a stage has
  :data:`ADAPT_DRAWS` draws per parameter; from fewer, the weighted covariance is worse than the Laplace one.
- **Measured** (tests/tournament/test_bt_monte_carlo.py; bench/README.md, "Ranking simulator"): the sd of a bound
  across seeds stays under 0.05 logits in 4-10-hypothesis sessions (worst 0.043 over 36 random sessions; the
  earlier 128 Gaussian draws: up to 3 logits), and 0.05-0.11 logits at 40-60 hypotheses (earlier 0.25-0.89).

Everything is seeded by the caller (the fit seeds it from the verdicts): the estimate is deterministic.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

DF = 8
"""Degrees of freedom of the t proposal (heavy enough tails for bounded weights; 4 and 20 measured alike)."""

FIRST_DRAWS = 256
"""Draws of a stage at least."""

MAX_DRAWS = 16384
"""Draws of one stage at most."""

WORK = 2**20
"""Draws × (verdicts + parameters) of one stage at most: the cap that keeps a large pool's fit within a second."""

STAGES = 3
"""Stages at most: the Laplace-centred one and two adapted ones."""

ADAPT_DRAWS = 64
"""Later stages adapt the proposal only when a stage has at least this many draws per parameter (a 4-10-hypothesis
session, not 40 hypotheses at 512 draws): from fewer, the weighted covariance is worse than the Laplace one (at 40
hypotheses and 200 verdicts adapting from 1,024 draws tripled the error). The rule reads the sizes, never the draws,
so a seed cannot switch it."""

ADAPT_PRIOR = 10.0
"""The adapted proposal is ``λ``·(the stage's weighted moments) + ``(1 − λ)``·(the last proposal's), ``λ = ESS /
(ESS + ADAPT_PRIOR·p)``: a smooth guard against a stage with few effective draws."""

BITS = 30
"""Bits of the Sobol points (scipy's default)."""

LogDensity = Callable[[NDArray[np.float64]], NDArray[np.float64]]
"""``(S, p) -> (S,)`` unnormalised log posterior density of each row."""


@dataclass(frozen=True)
class Moments:
    """An importance-sampled posterior.

    Attributes:
        log_z: log of the integral of ``exp(log_density)`` over the parameters (the marginal likelihood, up to the
            caller's constants).
        mean: ``(p,)`` posterior mean.
        cov: ``(p, p)`` posterior covariance.
        draws: draws of each stage.
        stages: stages run (1 when the first was too degenerate to adapt from).
        ess: the last stage's effective sample size (Kish).
    """

    log_z: float
    mean: NDArray[np.float64]
    cov: NDArray[np.float64]
    draws: int
    stages: int
    ess: float


@functools.lru_cache(maxsize=64)
def _sobol_bits(dim: int, points: int) -> NDArray[np.uint32]:
    """``(points, dim)`` the first points of the unscrambled Sobol sequence as 30-bit integers (cached: scrambling
    an engine costs milliseconds; a digital shift per replicate costs nothing)."""
    from scipy.stats import qmc  # scipy where first used, not by a session's start (design.md#startup)

    base = qmc.Sobol(dim, scramble=False, bits=BITS).random(points)
    out = np.asarray(np.rint(base * 2.0**BITS), np.uint32)
    out.setflags(write=False)
    return out


def _uniforms(dim: int, points: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """``(points, dim)`` a digitally shifted Sobol point set (each coordinate's bits XOR one random word, then a
    uniform offset below the last bit): every point uniform on the cube, the set still low-discrepancy."""
    shift = rng.integers(0, 2**BITS, size=dim, dtype=np.uint32)
    u = (_sobol_bits(dim, points) ^ shift) + rng.random((points, dim))
    return np.asarray(u / 2.0**BITS, np.float64)


def _t_draws(loc: NDArray[np.float64], factor: NDArray[np.float64], draws: int, rng: np.random.Generator
             ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``draws`` rows ``loc + (factor @ t)`` with ``t`` a standard multivariate t (:data:`DF`), from one shifted
    Sobol set in antithetic pairs, and their log proposal density."""
    from scipy.special import gammaln, ndtri

    p = loc.size
    z = ndtri(np.clip(_uniforms(p + DF, draws // 2, rng), 1e-12, 1.0 - 1e-12))
    chi2 = np.sum(z[:, p:] ** 2, axis=1)
    eps = z[:, :p] * np.sqrt(DF / chi2)[:, None]
    eps = np.concatenate([eps, -eps])
    xs = loc + eps @ factor.T
    delta = np.sum(eps**2, axis=1)
    log_q = (gammaln((DF + p) / 2) - gammaln(DF / 2) - 0.5 * p * math.log(DF * math.pi)
             - float(np.sum(np.log(np.diag(factor)))) - 0.5 * (DF + p) * np.log1p(delta / DF))
    return np.asarray(xs, np.float64), np.asarray(log_q, np.float64)


def _stage(log_density: LogDensity, loc: NDArray[np.float64], factor: NDArray[np.float64], draws: int,
           rng: np.random.Generator) -> tuple[float, NDArray[np.float64], NDArray[np.float64], float]:
    """One stage's ``(log mean weight, mean, covariance, effective sample size)`` (Kish: ``(Σw)² / Σw²``)."""
    xs, log_q = _t_draws(loc, factor, draws, rng)
    logw = log_density(xs) - log_q
    top = float(logw.max())
    w = np.exp(logw - top)
    log_z = top + math.log(float(w.mean()))
    w /= w.sum()
    ess = 1.0 / float(w @ w)
    mean = w @ xs
    dev = xs - mean
    return log_z, np.asarray(mean, np.float64), np.asarray((dev.T * w) @ dev, np.float64), ess


def _factor(cov: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """The lower Cholesky factor of ``cov``, or None when it is not positive definite."""
    try:
        return np.asarray(np.linalg.cholesky(cov), np.float64)
    except np.linalg.LinAlgError:
        return None


def draws_for(verdicts: int, parameters: int) -> int:
    """Draws per stage: the largest power of two with draws × (verdicts + parameters) ≤ :data:`WORK`, within
    [:data:`FIRST_DRAWS`, :data:`MAX_DRAWS`] (16,384 for a 4-10-hypothesis session, 2,048 at 40 hypotheses and
    400 verdicts, 256 from about 4,000 verdicts on)."""
    room = max(WORK // max(verdicts + parameters, 1), 1)
    return max(FIRST_DRAWS, min(MAX_DRAWS, 2 ** int(math.log2(room))))


def posterior_moments(log_density: LogDensity, mode: NDArray[np.float64], hessian: NDArray[np.float64], *,
                      verdicts: int, seed: int) -> Moments:
    """Importance-sampled normaliser, mean and covariance of ``exp(log_density)`` (module docstring).

    Args:
        log_density: the unnormalised log posterior (:data:`LogDensity`).
        mode: ``(p,)`` its mode; hessian ``(p, p)`` the negative log density's Hessian there (positive definite).
        verdicts: the likelihood's terms (with ``p``, the work per draw: :func:`draws_for`).
        seed: seeds the shifts of every stage.

    Raises:
        numpy.linalg.LinAlgError: ``hessian`` not positive definite.
    """
    from scipy.linalg import solve_triangular

    p = mode.size
    chol_h = np.linalg.cholesky(hessian)
    factor = np.asarray(solve_triangular(chol_h, np.eye(p), lower=True).T, np.float64)  # L_h⁻ᵀ: cov = F Fᵀ
    draws, rng, loc = draws_for(verdicts, p), np.random.default_rng(seed), mode
    stages = STAGES if draws >= ADAPT_DRAWS * p else 1
    for stage in range(stages):
        log_z, mean, cov, ess = _stage(log_density, loc, factor, draws, rng)
        if stage == stages - 1:
            break
        keep = ess / (ess + ADAPT_PRIOR * p)  # few effective draws: stay near the last proposal (smooth in ess)
        nxt = _factor(keep * cov + (1.0 - keep) * (factor @ factor.T))
        if nxt is not None:
            loc, factor = keep * mean + (1.0 - keep) * loc, nxt
    return Moments(log_z, mean, cov, draws, stages, ess)
