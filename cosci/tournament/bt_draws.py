"""The importance-sampled correction of the Bradley–Terry–Davidson posterior (design.md#judge-memory): the
negative log-posterior of a batch of draws computed in cache-sized blocks, the draws' seed taken from the verdicts as
a set, and the posterior moments at a prior sd (:mod:`cosci.tournament.bt_model` owns the model and its mode).
"""

from __future__ import annotations

import math
import zlib

import numpy as np
from numpy.typing import NDArray

from cosci.tournament.bt_model import BETA_PRIOR_SD, NU_PRIOR_SD, RHO_PRIOR_SD, _Data
from cosci.tournament.importance import posterior_moments

BLOCK = 1 << 15
"""Draw × verdict elements of one block of :func:`nlp_batch` (32,768 float64: 256 KiB a work array, so a block's
arrays stay in a core's cache; design.md#judge-memory). The rows of a block are computed as the whole batch's were,
so the result does not depend on it."""


def nlp_batch(xs: NDArray[np.float64], d: _Data, prec: float) -> NDArray[np.float64]:
    """``(S,)`` negative log-posterior of each row of ``xs`` (S, size), as
    :func:`cosci.tournament.bt_model._terms`'s ``f``; the verdicts' part in blocks of :data:`BLOCK` elements, each
    work array reused in place."""
    n, off, m = d.n, d.off, d.a.size
    theta = xs[:, :n]
    eta = xs[:, [n]] if d.ties else np.zeros((xs.shape[0], 1))
    nu = np.exp(np.minimum(eta, 700.0))
    lift = d.lift[d.g].T if len(d.judges) > 1 else None
    ll = np.empty(xs.shape[0])
    rows = max(BLOCK // max(m, 1), 1)
    for lo in range(0, xs.shape[0], rows):
        hi = min(lo + rows, xs.shape[0])
        u = np.take(theta[lo:hi], d.a, axis=1)
        u -= np.take(theta[lo:hi], d.b, axis=1)  # θ_a − θ_b
        if lift is not None:
            u *= 0.5 * np.exp(xs[lo:hi, off:] @ lift)
        else:
            u *= 0.5
        if d.order_known:
            u += 0.5 * xs[lo:hi, [d.beta]] * d.o
        a = np.abs(u)
        e = np.negative(a)
        np.exp(e, out=e)
        # log Z = log(e^u + e^−u + ν) = |u| + log1p(e^−2|u| + ν e^−|u|): one exp and one log per verdict, not two
        t = e + nu[lo:hi] if d.ties else e.copy()
        t *= e
        a += np.log1p(t, out=t)
        ll[lo:hi] = u @ d.c - a.sum(axis=1)
    f = -ll + 0.5 * prec * np.sum(theta**2, axis=1)
    if d.ties:
        f -= eta[:, 0] * float(d.t.sum()) - 0.5 * eta[:, 0] ** 2 / NU_PRIOR_SD**2
    if d.order_known:
        f += 0.5 * xs[:, d.beta] ** 2 / BETA_PRIOR_SD**2
    if len(d.judges) > 1:
        f += 0.5 * np.sum(xs[:, off:] ** 2, axis=1) / RHO_PRIOR_SD**2
    return np.asarray(f, np.float64)


def verdict_seed(d: _Data) -> int:
    """A seed from the verdicts as a set (their order, and the order judges first appear in, change nothing)."""
    names = np.asarray([zlib.crc32(name.encode()) for name in d.judges] or [0], np.float64)
    rows = np.column_stack([d.a, d.b, d.c, d.t, d.o, names[d.g] if d.judges else np.zeros(d.a.size)]
                           ).astype(np.float64)
    return zlib.crc32(rows[np.lexsort(rows.T[::-1])].tobytes())


def is_moments(d: _Data, tau: float, x: NDArray[np.float64], f: float, h: NDArray[np.float64], seed: int
                ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """Importance-sampled ``(log marginal, mean, covariance)`` of the full parameter at prior sd ``tau``
    (:func:`cosci.tournament.importance.posterior_moments`: adaptive t proposals from the Laplace fit, scrambled
    Sobol draws seeded from the verdicts, so deterministic). The log marginal has the constants of
    :func:`cosci.tournament.bt_model.log_marginal`."""
    m = posterior_moments(lambda xs: -nlp_batch(xs, d, 1.0 / tau**2), x, h, verdicts=int(d.a.size),
                          seed=seed)
    return m.log_z - d.n * math.log(tau) - 0.5 * x.size * math.log(2.0 * math.pi), m.mean, m.cov
