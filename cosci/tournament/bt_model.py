"""The Bradley–Terry–Davidson likelihood and posterior behind :func:`cosci.tournament.bt.fit_bt`
(design.md#tournament; the model, its parameters and their priors are described in :mod:`cosci.tournament.bt`).

Owns the verdicts as arrays (:class:`_Data`: indices, outcomes, ties, judges, order shown), the negative
log-posterior with its gradient and Hessian (dense, and sparse for large pools: design.md#scale), the posterior mode,
the weak priors on log ν, β and ρ, the Laplace marginal likelihood and the fitted win probabilities per verdict (the
importance-sampled correction: :mod:`cosci.tournament.bt_draws`). Parameter vector ``x`` = [θ (n), log ν (if ties),
β (if the order is known), ρ_1.. (judges but the first)], logits.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from cosci.tournament.bt_solve import LARGE_N, newton_mode, sparse_step

if TYPE_CHECKING:  # scipy imports where first used: not by a session's start (design.md#startup)
    from scipy import sparse

Verdict = tuple[str, str, float]
"""``(hypothesis a, hypothesis b, score of a)``: 1 a won, 0 b won, 0.5 a tie."""

NU_PRIOR_SD = 3.0
"""sd of the weak N(0, sd²) prior on log ν (the Davidson tie parameter)."""
RHO_PRIOR_SD = 1.0
"""sd of the weak prior on each free judge log-reliability ρ."""
BETA_PRIOR_SD = 1.0
"""sd of the weak prior on the first-position bias β, logits."""


@dataclass(frozen=True)
class _Data:
    n: int
    a: NDArray[np.intp]
    b: NDArray[np.intp]
    c: NDArray[np.float64]  # (1 − t)(2s − 1): +1 a won, −1 b won, 0 tie
    t: NDArray[np.float64]  # 1 for a tie
    g: NDArray[np.intp]  # judge index, 0 = the reference judge
    judges: tuple[str, ...]
    o: NDArray[np.float64]  # +1 a was shown first, −1 b was, 0 unknown
    order_known: bool

    @property
    def lift(self) -> NDArray[np.float64]:
        """``(G, G − 1)`` map from the free parameters z to every judge's log-reliability ρ = A z: judges 1.. are
        free, judge 0 makes the verdict-weighted mean of ρ zero."""
        size = len(self.judges)
        counts = np.bincount(self.g, minlength=size).astype(np.float64)
        lift = np.zeros((size, max(size - 1, 0)))
        if size > 1:
            lift[1:, :] = np.eye(size - 1)
            lift[0, :] = -counts[1:] / counts[0]
        return lift

    @property
    def ties(self) -> bool:
        return bool(self.t.any())

    @property
    def size(self) -> int:
        """Parameters: θ (n), log ν when there are ties, β when the order is known, ρ for judges but the first."""
        return self.n + int(self.ties) + int(self.order_known) + max(len(self.judges) - 1, 0)

    @property
    def off(self) -> int:
        """Index of ρ_1."""
        return self.n + int(self.ties) + int(self.order_known)

    @property
    def beta(self) -> int:
        """Index of β."""
        return self.n + int(self.ties)


def _data(ids: Sequence[str], verdicts: Sequence[Verdict], judges: Sequence[Hashable] | None = None,
          first: Sequence[str | None] | None = None) -> _Data:
    pos = {h: i for i, h in enumerate(ids)}
    for name, seq in (("judges", judges), ("first", first)):
        if seq is not None and len(seq) != len(verdicts):
            raise ValueError(f"{name} has {len(seq)} entries for {len(verdicts)} verdicts")
    labels = list(judges) if judges is not None else [None] * len(verdicts)
    firsts = list(first) if first is not None else [None] * len(verdicts)
    rows = [(pos[a], pos[b], float(s), lab, 1.0 if f == a else -1.0 if f == b else 0.0)
            for (a, b, s), lab, f in zip(verdicts, labels, firsts, strict=True) if a in pos and b in pos and a != b]
    names = sorted({str(lab) for _, _, _, lab, _ in rows if lab is not None})  # by name: not by first appearance
    if not rows:
        z = np.zeros(0)
        return _Data(len(ids), np.zeros(0, np.intp), np.zeros(0, np.intp), z, z, np.zeros(0, np.intp), (), z, False)
    a, b, s, lab, o = zip(*rows, strict=True)
    oa = np.asarray(o, np.float64)
    sa = np.asarray(s, np.float64)
    t = (sa == 0.5).astype(np.float64)
    gi = {name: i for i, name in enumerate(names)}
    g = np.asarray([gi[str(x)] if x is not None else 0 for x in lab], np.intp)
    return _Data(len(ids), np.asarray(a, np.intp), np.asarray(b, np.intp), (1.0 - t) * (2.0 * sa - 1.0), t, g,
                 tuple(names), oa, bool(oa.any()))


def _davidson(
    u: NDArray[np.float64], eta: float, c: NDArray[np.float64]
) -> tuple[NDArray[np.float64], ...]:
    """Per verdict at half-logit ``u`` (shape (m,)), log tie weight ``eta`` and outcome ``c``: log Z, P(win),
    P(loss), the log-likelihood, its derivative in ``u`` and −∂²ll/∂u² (the Davidson model, design.md#tournament)."""
    log_z = np.logaddexp(np.logaddexp(u, -u), eta)
    pw, pl = np.exp(u - log_z), np.exp(-u - log_z)
    ll = c * u - log_z
    ll_u = c - (pw - pl)
    w = (pw + pl) - (pw - pl) ** 2
    return log_z, pw, pl, ll, ll_u, w


def _terms(x: NDArray[np.float64], d: _Data, prec: float) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """Negative log-posterior, its gradient and Hessian at ``x`` = [θ, log ν?, β?, ρ_1..]."""
    n, m, size, off = d.n, d.a.size, d.size, d.off
    theta = x[:n]
    eta = float(x[n]) if d.ties else -np.inf
    multi = len(d.judges) > 1
    lift = d.lift[d.g] if multi else np.zeros((m, 0))  # (m, G − 1): ∂ρ_{g_k}/∂z
    r = np.exp(lift @ x[off:]) if multi else np.ones(m)
    ud = 0.5 * r * (theta[d.a] - theta[d.b])
    u = ud + 0.5 * x[d.beta] * d.o if d.order_known else ud
    log_z, pw, pl, ll, ll_u, w = _davidson(u, eta, d.c)
    hr = 0.5 * r  # ∂u/∂θ_a (−∂u/∂θ_b)
    # extra parameters that u depends on (columns of ``ext``, ``size`` indices ``cols``): β (o/2), ρ_g (ud)
    cols: list[int] = []
    ext_cols: list[NDArray[np.float64]] = []
    if d.order_known:
        cols.append(d.beta)
        ext_cols.append(0.5 * d.o)
    for gi in range(1, len(d.judges)):
        cols.append(off + gi - 1)
        ext_cols.append(ud * lift[:, gi - 1])
    grad = np.zeros(size)
    hess = np.zeros((size, size))
    grad[:n] = np.bincount(d.b, ll_u * hr, n) - np.bincount(d.a, ll_u * hr, n) + prec * theta
    wt = w * hr * hr
    hess[:n, :n] = (np.bincount(d.a * n + d.b, -wt, n * n) + np.bincount(d.b * n + d.a, -wt, n * n)).reshape(n, n)
    diag = np.bincount(d.a, wt, n) + np.bincount(d.b, wt, n) + prec
    hess[np.arange(n), np.arange(n)] += diag
    if cols:
        ext = np.stack(ext_cols, axis=1)
        grad[cols] -= ext.T @ ll_u
        hess[np.ix_(cols, cols)] += (ext.T * w) @ ext
        for ci, col in enumerate(cols):
            v = w * hr * ext[:, ci]
            cross = np.bincount(d.a, v, n) - np.bincount(d.b, v, n)
            hess[:n, col] += cross
            hess[col, :n] += cross
    if multi:  # ll_u · ∇²u: ∂²u/∂θ_a∂z = (r/2)·A_g, ∂²u/∂θ_b∂z = −(r/2)·A_g, ∂²u/∂z∂z = ud·A_g A_gᵀ
        zc = np.arange(off, size)
        for gi in range(1, len(d.judges)):
            v = ll_u * hr * lift[:, gi - 1]
            cross = np.bincount(d.b, v, n) - np.bincount(d.a, v, n)
            hess[:n, off + gi - 1] += cross
            hess[off + gi - 1, :n] += cross
        hess[np.ix_(zc, zc)] -= (lift.T * (ll_u * ud)) @ lift
    f = -float(ll.sum()) + 0.5 * prec * float(theta @ theta)
    if d.ties:
        pt = np.exp(eta - log_z)
        f -= eta * float(d.t.sum())
        grad[n] -= float(np.sum(d.t - pt)) - eta / NU_PRIOR_SD**2
        f += 0.5 * eta**2 / NU_PRIOR_SD**2
        hess[n, n] += float(np.sum(pt * (1.0 - pt))) + 1.0 / NU_PRIOR_SD**2
        lue = (pw - pl) * pt  # ∂²ll/∂u∂log ν
        cross_e = np.zeros(size)
        cross_e[:n] = np.bincount(d.b, lue * hr, n) - np.bincount(d.a, lue * hr, n)
        if cols:
            cross_e[cols] -= ext.T @ lue
        hess[n, :] += cross_e
        hess[:, n] += cross_e
    return f + _priors(x, d, grad, hess), grad, hess


def _terms_sparse(x: NDArray[np.float64], d: _Data, prec: float
                  ) -> tuple[float, NDArray[np.float64], sparse.csr_array]:
    """:func:`_terms` for one judge (no reliabilities), the Hessian as a sparse ``(size, size)`` CSR array: the θ
    block has one off-diagonal entry per played pair and the diagonal, log ν and β a dense border row and column
    each (design.md#scale). The same ``f``, gradient and Hessian entries as :func:`_terms` (tests/tournament)."""
    if len(d.judges) > 1:
        raise ValueError("the sparse Hessian is for one judge; reliabilities need _terms")
    n, size = d.n, d.size
    theta = x[:n]
    eta = float(x[n]) if d.ties else -np.inf
    ud = 0.5 * (theta[d.a] - theta[d.b])
    u = ud + 0.5 * x[d.beta] * d.o if d.order_known else ud
    log_z, pw, pl, ll, ll_u, w = _davidson(u, eta, d.c)
    hr = 0.5  # ∂u/∂θ_a with r = 1
    grad = np.zeros(size)
    grad[:n] = np.bincount(d.b, ll_u * hr, n) - np.bincount(d.a, ll_u * hr, n) + prec * theta
    wt = w * hr * hr
    diag = np.bincount(d.a, wt, n) + np.bincount(d.b, wt, n) + prec
    border = np.zeros((size, size - n))  # columns n.. of the Hessian (log ν, β)
    f = -float(ll.sum()) + 0.5 * prec * float(theta @ theta)
    if d.order_known:
        bj, half_o = d.beta - n, 0.5 * d.o
        border[d.beta, bj] += float((half_o * w) @ half_o) + 1.0 / BETA_PRIOR_SD**2
        border[:n, bj] += np.bincount(d.a, w * hr * half_o, n) - np.bincount(d.b, w * hr * half_o, n)
        bb = float(x[d.beta])
        grad[d.beta] -= float(half_o @ ll_u) - bb / BETA_PRIOR_SD**2
        f += 0.5 * bb**2 / BETA_PRIOR_SD**2
    if d.ties:
        pt = np.exp(eta - log_z)
        f -= eta * float(d.t.sum())
        grad[n] -= float(np.sum(d.t - pt)) - eta / NU_PRIOR_SD**2
        f += 0.5 * eta**2 / NU_PRIOR_SD**2
        border[n, 0] += float(np.sum(pt * (1.0 - pt))) + 1.0 / NU_PRIOR_SD**2
        lue = (pw - pl) * pt  # ∂²ll/∂u∂log ν
        border[:n, 0] += np.bincount(d.b, lue * hr, n) - np.bincount(d.a, lue * hr, n)
        if d.order_known:
            cross = -float((0.5 * d.o) @ lue)
            border[d.beta, 0] += cross
            border[n, d.beta - n] += cross
    # θ block: −w/4 at (a, b) and (b, a) (repeated pairs summed), the diagonal; then the border both ways
    k = size - n
    rows = np.concatenate([d.a, d.b, np.arange(n), np.repeat(np.arange(size), k), np.tile(np.arange(n, size), n)])
    cols = np.concatenate([d.b, d.a, np.arange(n), np.tile(np.arange(n, size), size), np.repeat(np.arange(n), k)])
    vals = np.concatenate([-wt, -wt, diag, border.ravel(), border[:n].ravel()])
    from scipy.sparse import coo_array

    hess = coo_array((vals, (rows, cols)), shape=(size, size)).tocsr()
    return f, grad, hess


def _priors(x: NDArray[np.float64], d: _Data, grad: NDArray[np.float64], hess: NDArray[np.float64]) -> float:
    """Add the weak priors on β and ρ to ``grad`` and ``hess`` in place; return their negative log density."""
    f, off, size, multi = 0.0, d.off, d.size, len(d.judges) > 1
    if d.order_known:
        bb = float(x[d.beta])
        f += 0.5 * bb**2 / BETA_PRIOR_SD**2
        grad[d.beta] += bb / BETA_PRIOR_SD**2
        hess[d.beta, d.beta] += 1.0 / BETA_PRIOR_SD**2
    if multi:
        rr = x[off:]
        f += 0.5 * float(rr @ rr) / RHO_PRIOR_SD**2
        grad[off:] += rr / RHO_PRIOR_SD**2
        hess[np.arange(off, size), np.arange(off, size)] += 1.0 / RHO_PRIOR_SD**2
    return f


def _mode(d: _Data, prec: float, x0: NDArray[np.float64]) -> tuple[NDArray[np.float64], float, NDArray[np.float64]]:
    """The posterior mode for prior precision ``prec``: ``(x, f, Hessian)``."""
    if d.a.size == 0:
        x = np.zeros(d.size)
    else:
        cache: dict[bytes, tuple[float, NDArray[np.float64], NDArray[np.float64]]] = {}

        def terms(v: NDArray[np.float64]) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
            key = v.tobytes()
            if key not in cache:
                cache.clear()
                cache[key] = _terms(v, d, prec)
            return cache[key]

        # a large convex pool: sparse Newton steps (cosci/tournament/bt_solve.py, design.md#scale)
        fast = _sparse_mode(d, prec, x0) if d.n >= LARGE_N and len(d.judges) <= 1 else None
        if fast is not None:
            f, _, hs = _terms_sparse(fast, d, prec)
            return fast, f, hs.toarray()
        from scipy.optimize import minimize

        res = minimize(lambda v: terms(v)[:2], x0, jac=True, method="trust-exact", hess=lambda v: terms(v)[2],
                       options={"gtol": 1e-8})
        x = np.asarray(res.x, np.float64)
    f, _, h = _terms(x, d, prec)
    return x, f, h


def _sparse_mode(d: _Data, prec: float, x0: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """A large convex pool's mode: Newton steps on the sparse Hessian, each solved by conjugate gradients
    (cosci/tournament/bt_solve.py, design.md#scale); None when they fail (the caller's ``trust-exact`` decides)."""
    cache: dict[bytes, tuple[float, NDArray[np.float64], sparse.csr_array]] = {}

    def terms(v: NDArray[np.float64]) -> tuple[float, NDArray[np.float64], sparse.csr_array]:
        key = v.tobytes()
        if key not in cache:
            cache.clear()
            cache[key] = _terms_sparse(v, d, prec)
        return cache[key]

    return newton_mode(terms, x0, step_of=sparse_step)


def _start(d: _Data, start: NDArray[np.float64] | None) -> NDArray[np.float64]:
    x0 = np.zeros(d.size)
    if start is not None:
        x0[: d.n] = start
    if d.ties:
        x0[d.n] = math.log(max(float(d.t.mean()), 0.01) * 2.0)  # ν from the tie share at equal strength
    return x0


def _centred_sd(cov: NDArray[np.float64]) -> NDArray[np.float64]:
    """sd of ``θ_i − mean(θ)``: the diagonal of ``P Σ P`` (``P = I − 11ᵀ/n``), in O(n²) rather than two products."""
    var = np.diag(cov) - 2.0 * cov.mean(axis=1) + cov.mean()
    return np.asarray(np.sqrt(np.clip(var, 0.0, None)), np.float64)


def _beta(d: _Data, x: NDArray[np.float64]) -> float:
    return float(x[d.beta]) if d.order_known else 0.0


def _nu(d: _Data, x: NDArray[np.float64]) -> float:
    return float(math.exp(x[d.n])) if d.ties else 0.0


def _reliability(d: _Data, x: NDArray[np.float64]) -> dict[str, float]:
    if not d.judges:
        return {}
    rho = d.lift @ x[d.off:] if len(d.judges) > 1 else np.zeros(1)
    return {name: float(math.exp(rho[i])) for i, name in enumerate(d.judges)}


def log_marginal(d: _Data, tau: float, x: NDArray[np.float64], f: float, h: NDArray[np.float64]) -> float:
    """Laplace log marginal likelihood of the verdicts given prior sd ``tau`` (up to a constant in ``tau``)."""
    _, logdet = np.linalg.slogdet(h)
    return -f - d.n * math.log(tau) - 0.5 * float(logdet)


def _probabilities(d: _Data, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per verdict the fitted ``(P(a wins), P(b wins))`` at ``x`` (θ, ν, β and the judges' reliabilities)."""
    r = np.exp(d.lift[d.g] @ x[d.off:]) if len(d.judges) > 1 else 1.0
    u = 0.5 * r * (x[: d.n][d.a] - x[: d.n][d.b]) + (0.5 * x[d.beta] * d.o if d.order_known else 0.0)
    _, pw, pl, *_ = _davidson(np.asarray(u, np.float64), float(x[d.n]) if d.ties else -np.inf, d.c)
    return pw, pl
