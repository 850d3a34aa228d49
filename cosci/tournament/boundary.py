"""Steps 2-3 of the uncertainty pairing (:mod:`cosci.tournament.uncertainty`, design.md#tournament): each
hypothesis's rival across the top-k boundary, its weight ``φ(z_i) / v_i^power``, the chance of each hypothesis to be
in the top k, and the score of a candidate pair, the weighted shrinkage of the boundary variances one more verdict
would bring (all pairs, or the candidates nearest the boundary in a large pool: design.md#scale).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from cosci.tournament.bt import BTFit


def _boundary(fit: BTFit, k: int) -> tuple[NDArray[np.float64], NDArray[np.intp], NDArray[np.float64],
                                            NDArray[np.float64]]:
    """``(C, rival, v, z)``: ``C`` (n, n) rows ``e_i − e_rival(i)``, each hypothesis's rival across the top-k
    boundary (index), ``v`` (n,) the Laplace variance of ``θ_i − θ_rival`` (logits²), ``z`` (n,) the gap over its
    standard deviation."""
    n = len(fit.ids)
    order = np.argsort(-fit.theta, kind="stable")
    kk = min(k, n - 1)
    member, outsider = order[kk - 1], order[kk]  # the k-th and the (k+1)-th
    in_top = np.zeros(n, bool)
    in_top[order[:kk]] = True
    rival = np.where(in_top, outsider, member)
    c = np.eye(n)
    c[np.arange(n), rival] -= 1.0
    v = np.einsum("ij,jk,ik->i", c, fit.cov, c)
    gap = fit.theta - fit.theta[rival]
    z = gap / np.sqrt(np.maximum(v, 1e-12))
    return c, rival, v, z


def top_k_chances(fit: BTFit, k: int) -> dict[str, float]:
    """Per hypothesis of the fit, its chance (0-1) of belonging to the top ``k`` by the fit's own uncertainty:
    ``Φ(z_i)``, ``z_i`` the gap to its rival across the boundary over the gap's Laplace standard deviation
    (module docstring, step 2). Above 0.5 for the top k, below for the others; 1.0 for everyone when the fit has
    at most ``k`` hypotheses (all of them are the top k). The batch pool batches a match only when both chances are
    small (design.md#batches)."""
    n = len(fit.ids)
    if n <= k:
        return dict.fromkeys(fit.ids, 1.0)
    from scipy.special import ndtr  # scipy where first used, not by a session's start (design.md#startup)

    _, _, _, z = _boundary(fit, k)
    return {h: float(p) for h, p in zip(fit.ids, ndtr(z), strict=True)}


def boundary_weights(fit: BTFit, k: int, power: float = 1.0) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(C, w)``: ``C`` (n, n) rows ``e_i − e_rival(i)``, ``w`` (n,) weights ``φ(z_i) / v_i^power`` (module
    docstring)."""
    n = len(fit.ids)
    c, rival, v, z = _boundary(fit, k)
    v_safe = np.maximum(v, 1e-12)
    w = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi) / v_safe**power
    w[rival == np.arange(n)] = 0.0  # the boundary members' own rival is themselves only if n is tiny
    return c, w


def pair_scores(fit: BTFit, k: int, power: float = 1.0) -> NDArray[np.float64]:
    """``(n, n)`` symmetric scores: the weighted shrinkage of boundary variances one verdict on (a, b) buys
    (``power``: :attr:`UncertaintyCfg.boundary_power`)."""
    c, w = boundary_weights(fit, k, power)
    m = c @ fit.cov  # row i: c_iᵀΣ
    g = (m.T * w) @ m  # G_ab = Σ_i w_i M_ia M_ib
    dg = np.diag(g)
    num = dg[:, None] + dg[None, :] - 2.0 * g  # Σ_i w_i (c_iᵀΣx)², x = e_a − e_b
    var = np.diag(fit.cov)
    xsx = var[:, None] + var[None, :] - 2.0 * fit.cov
    p = 1.0 / (1.0 + np.exp(-(fit.theta[:, None] - fit.theta[None, :])))
    pq = p * (1.0 - p)
    scores: NDArray[np.float64] = pq * num / (1.0 + pq * xsx)
    np.fill_diagonal(scores, 0.0)
    return scores


def _boundary_gaps(fit: BTFit, k: int) -> tuple[int, int, NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]]:
    """Each hypothesis's rival across the top-k boundary (the k-th for one outside, the (k+1)-th for one inside), the
    Laplace variance ``v`` of its gap to that rival and the gap's z-score: ``(member, outsider, rival, v, z)``,
    from the diagonal and two columns of the covariance (O(n); design.md#scale)."""
    n = len(fit.ids)
    order = np.argsort(-fit.theta, kind="stable")
    kk = min(k, n - 1)
    member, outsider = int(order[kk - 1]), int(order[kk])
    in_top = np.zeros(n, bool)
    in_top[order[:kk]] = True
    rival = np.where(in_top, outsider, member)
    cov = fit.cov
    v = np.maximum(np.diag(cov) + cov[rival, rival] - 2.0 * cov[np.arange(n), rival], 1e-12)
    z = (fit.theta - fit.theta[rival]) / np.sqrt(v)
    return member, outsider, rival, v, z


def boundary_candidates(fit: BTFit, k: int, size: int, among: NDArray[np.intp]) -> NDArray[np.intp]:
    """The ``size`` indices of ``among`` (fit indices) with the largest boundary weights ``φ(z_i) / v_i`` (module
    docstring, step 2), the k-th and (k+1)-th always among them; O(n) (design.md#scale).

    The weights use the same gap and Laplace variance as :func:`boundary_weights`, computed from the diagonal and
    two columns of the covariance instead of the ``(n, n)`` difference matrix."""
    member, outsider, _, v, z = _boundary_gaps(fit, k)
    w = np.exp(-0.5 * z * z) / v
    w[[member, outsider]] = np.inf
    w_among = w[among]
    if among.size <= size:
        return among
    keep = np.argpartition(-w_among, size - 1)[:size]
    return np.asarray(among[np.sort(keep)], np.intp)


def candidate_scores(fit: BTFit, k: int, cand: NDArray[np.intp], power: float = 1.0) -> NDArray[np.float64]:
    """``(L, L)`` :func:`pair_scores` restricted to the fit indices ``cand``, in O(n·L²) instead of O(n³): the sum
    over every hypothesis's boundary variance is kept, only the pairs are fewer (design.md#scale)."""
    _, _, rival, v, z = _boundary_gaps(fit, k)
    idx = np.arange(len(fit.ids))
    cov = fit.cov
    w = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi) / v**power
    w[rival == idx] = 0.0
    m = cov[:, cand] - cov[np.ix_(rival, cand)]  # (n, L): M_ia = (c_iᵀΣ)_a for a in cand (no (n, n) copy)
    g = (m.T * w) @ m
    dg = np.diag(g)
    num = dg[:, None] + dg[None, :] - 2.0 * g
    sub = cov[np.ix_(cand, cand)]
    var = np.diag(sub)
    xsx = var[:, None] + var[None, :] - 2.0 * sub
    th = fit.theta[cand]
    p = 1.0 / (1.0 + np.exp(-(th[:, None] - th[None, :])))
    pq = p * (1.0 - p)
    scores: NDArray[np.float64] = pq * num / (1.0 + pq * xsx)
    np.fill_diagonal(scores, 0.0)
    return scores
