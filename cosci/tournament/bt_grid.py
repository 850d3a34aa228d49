"""The ``eb_mix`` / ``eb_is`` grid of prior sds τ and the hyperprior that weighs it (design.md#judge-memory).

:func:`grid_fits` climbs the fixed grid :data:`TAU_GRID` to the peak of marginal likelihood × hyperprior and keeps
every point within e^-12 of it; :func:`cosci.tournament.bt._mixture` mixes the points. A hyperprior is a function
``(τ, prior_sd, info) -> log density in log τ`` (up to a constant), ``info`` the verdicts' Fisher information on
log τ at that point (:func:`tau_information`), so a hyperprior may depend on how much the data say about τ.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

import numpy as np
from numpy.typing import NDArray

from cosci.tournament.bt_draws import is_moments
from cosci.tournament.bt_model import _Data, _mode, log_marginal

TAU_GRID: NDArray[np.float64] = np.exp(np.linspace(math.log(0.15), math.log(6.0), 10))
"""The ``eb_mix`` grid of prior sds τ, logits."""

HYPER_SD = 1.0
"""sd of the log-normal hyperprior on τ, in log τ (centred on ``prior_sd``)."""

Hyperprior = Callable[[float, float, float], float]
"""``(τ, prior_sd, info) -> log density in log τ`` (up to a constant); ``info`` from :func:`tau_information`."""


def lognormal(sd: float) -> Hyperprior:
    """log τ ~ N(log prior_sd, sd²) (``sd`` in log τ, > 0): main's hyperprior at ``sd`` = :data:`HYPER_SD`."""
    return lambda tau, prior_sd, info: -0.5 * (math.log(tau / prior_sd) / sd) ** 2


def flat(tau: float, prior_sd: float, info: float) -> float:
    """Uniform in log τ over the grid (no hyperprior; the bench's records climb with it)."""
    return 0.0


def scaled(sd: float) -> Hyperprior:
    """:func:`lognormal` with its log density times ``info / (info + 1/sd²)``: the hyperprior carries at most half
    the information on log τ where the verdicts say little about τ, and all of it where they say much."""
    def prior(tau: float, prior_sd: float, info: float) -> float:
        return lognormal(sd)(tau, prior_sd, info) * info / (info + sd**-2)
    return prior


def jeffreys(tau: float, prior_sd: float, info: float) -> float:
    """Jeffreys' prior on log τ of the normal approximation, ``½·log info``: vanishes as τ → 0 where the estimates'
    noise hides τ, flat where τ dominates it; no centre (``prior_sd`` unused)."""
    return 0.5 * math.log(max(info, 1e-300))


HYPERPRIOR: Hyperprior = lognormal(HYPER_SD)
"""The shipped hyperprior (design.md#judge-memory)."""


def tau_information(tau: float, h: NDArray[np.float64], n: int) -> float:
    """Fisher information on log τ of the normal approximation ``θ̂_i ~ N(0, τ² + s_i²)``, ``2·Σ_i (τ²/(τ² +
    s_i²))²``, with ``s_i² = 1/(H_ii − 1/τ²)`` from the mode's Hessian ``h`` (``(size, size)``, θ first, prior
    precision 1/τ² on its θ diagonal); a hypothesis with no verdict adds 0. ≥ 0, in 1/(log τ)²."""
    data = np.clip(np.diag(h)[:n] - 1.0 / tau**2, 0.0, None)  # 1/s_i², the verdicts' information on θ_i
    share = tau**2 * data / (1.0 + tau**2 * data)  # τ²/(τ² + s_i²)
    return float(2.0 * np.sum(share**2))


@dataclass(frozen=True)
class GridPoint:
    """One τ of the grid: the posterior's mean ``(size,)`` and covariance ``(size, size)`` at that prior sd, the
    log marginal likelihood ``lml`` (:func:`cosci.tournament.bt_model.log_marginal`'s constants) and the Fisher
    information ``info`` on log τ (:func:`tau_information`)."""

    tau: float
    mean: NDArray[np.float64]
    cov: NDArray[np.float64]
    lml: float
    info: float


def grid_fits(d: _Data, prior_sd: float, x0: NDArray[np.float64], sampled: bool, seed: int,
              prior: Hyperprior, workers: int = 1) -> list[GridPoint]:
    """The grid points within e^-12 of the peak of marginal likelihood × ``prior``, by τ: climbed from the point
    nearest ``prior_sd``, then widened on both sides until a point's weight is below e^-12 of the peak's (the rest add
    nothing). ``sampled``: importance-sampled moments and marginal likelihood (seed ``seed + k`` at point k).

    ``workers`` (1 or 2): with 2, the points the climb and the widening compute independently (a point's two
    neighbours; the widening's two sides) are computed in two threads at once (numpy and BLAS release the GIL).
    Each point is computed from the same start and seed either way, so the points are the same, to the bit
    (tests/tournament/test_bt_grid_workers.py): finalisation's fit uses it, made with every call slot empty
    (design.md#supervisor, "The session's end")."""
    size = len(TAU_GRID)
    done: dict[int, tuple[GridPoint, float]] = {}

    def at(k: int, x: NDArray[np.float64]) -> float:
        if k not in done:
            done[k] = _point(d, k, x, sampled, seed, prior, prior_sd)
        return done[k][1]

    def side(k: int, step: int, top: float) -> None:
        j = k
        while 0 <= j + step < size and done[j][1] > top - 12.0:
            at(j + step, done[j][0].mean)
            j += step

    with _Pair(workers) as both:
        k = int(np.argmin(np.abs(np.log(TAU_GRID / prior_sd))))
        at(k, x0)
        while True:
            nbrs, start = [j for j in (k - 1, k + 1) if 0 <= j < size], done[k][0].mean
            both(*(partial(at, j, start) for j in nbrs))
            j = max(nbrs, key=lambda j: done[j][1])
            if done[j][1] <= done[k][1]:
                break
            k = j
        top = done[k][1]
        both(partial(side, k, -1, top), partial(side, k, 1, top))
    return [done[j][0] for j in sorted(done)]


def _point(d: _Data, k: int, x: NDArray[np.float64], sampled: bool, seed: int, prior: Hyperprior,
           prior_sd: float) -> tuple[GridPoint, float]:
    """Grid point ``k`` (its mode found from ``x``) and its log weight, marginal likelihood × ``prior``."""
    tau = float(TAU_GRID[k])
    xk, f, h = _mode(d, 1.0 / tau**2, x)
    info = tau_information(tau, h, d.n)
    if sampled and d.a.size:
        lml, mk, ck = is_moments(d, tau, xk, f, h, seed + k)
        point = GridPoint(tau, mk, ck, lml, info)
    else:
        point = GridPoint(tau, xk, np.asarray(np.linalg.inv(h), np.float64), log_marginal(d, tau, xk, f, h), info)
    return point, point.lml + prior(tau, prior_sd, info)


class _Pair:
    """Runs up to two calls on disjoint grid points: one after the other with one worker, at once (a second thread)
    with two. A context manager: the thread ends with it."""

    def __init__(self, workers: int) -> None:
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="cosci-bt-grid") if workers > 1 else None

    def __enter__(self) -> _Pair:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def __call__(self, *calls: Callable[[], object]) -> None:
        later = self.pool.submit(calls[-1]) if self.pool is not None and len(calls) == 2 else None
        for call in calls[:-1] if later is not None else calls:
            call()
        if later is not None:
            later.result()
