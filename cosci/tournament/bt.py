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
  and the posterior mean and covariance at that ``τ``, weights the grid by marginal likelihood × a log-normal
  hyperprior centred on ``prior_sd`` (sd 1 in log τ; points below e^-12 of the peak's weight are skipped), and
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

The optimiser is :func:`scipy.optimize.minimize` (``trust-exact``, analytic gradient and Hessian). Without
judges the objective is strictly convex in (θ, log ν), so the mode is unique and a warm start changes nothing but
the iterations; with judges it is not convex in ρ, and the start is the single-judge fit.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.optimize import minimize

from cosci.tournament.bt_solve import LARGE_N, newton_mode, sparse_step, spd_inverse
from cosci.tournament.importance import posterior_moments
from cosci.tournament.rerun import RerunEstimate, design_effect, order_groups, rerun_estimate

Z95 = 1.959963984540054
"""Two-sided 95 % normal quantile."""

Verdict = tuple[str, str, float]
"""``(hypothesis a, hypothesis b, score of a)``: 1 a won, 0 b won, 0.5 a tie."""

Method = Literal["laplace", "eb_mix", "eb_is"]
"""Interval methods (module docstring; chosen by ``python -m bench.ranking_sim --coverage``)."""

METHODS: tuple[Method, ...] = ("laplace", "eb_mix", "eb_is")

TAU_GRID: NDArray[np.float64] = np.exp(np.linspace(math.log(0.15), math.log(6.0), 10))
"""The ``eb_mix`` grid of prior sds τ, logits."""

HYPER_SD = 1.0
"""sd of the log-normal hyperprior on τ, in log τ (centred on ``prior_sd``)."""

CI_FAMILY = (0.0843, 0.0767, -0.0046, -0.0817, 0.0126, 0.009)
"""Coefficients ``(a, b, c, d, e, g)`` of the ``eb_is`` widening (:func:`inflation_family`, :func:`ci_inflation`),
chosen by ``python -m bench.ranking_sim --coverage --choose --first-trial 1000 --trials 400`` (tuning trials
1000-1399; bench/README.md, design.md#tournament) on the earlier, noisier importance sampler (128 Gaussian draws);
on the present one it over-covers slightly (trials 0-49: 0.950-0.977 against 0.942-0.971 before; bench/README.md,
eighth stop). A family re-chosen on the present sampler (tuning trials 1000-1199: 0.934-0.965) covered 0.917-0.972
on fresh trials 0-29, so it was not adopted: erring wide beats erring narrow."""

NU_PRIOR_SD = 3.0
RHO_PRIOR_SD = 1.0
BETA_PRIOR_SD = 1.0


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
    hess = sparse.coo_array((vals, (rows, cols)), shape=(size, size)).tocsr()
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


def fit_bt(ids: Sequence[str], verdicts: Sequence[Verdict], prior_sd: float = 1.0,
           start: NDArray[np.float64] | None = None, *, judges: Sequence[Hashable] | None = None,
           first: Sequence[str | None] | None = None, method: Method = "eb_is", seed: int | None = None) -> BTFit:
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
        return BTFit(tuple(ids), theta, tcov, int(d.a.size), np.sqrt(np.clip(np.diag(tcov), 0.0, None)),
                     _nu(d, x), prior_sd, _reliability(d, x), _beta(d, x), "laplace")
    return _eb_mix(ids, d, prior_sd, x0, sampled=method == "eb_is", seed=seed)


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


def inflation_family(coef: Sequence[float], tau: float, counts: NDArray[np.float64], beta: float = 0.0
                     ) -> NDArray[np.float64]:
    """``(n,)`` ``exp(a + b·x + c·y + d·x·y + (e + g·x)·|β|·e^(−y/2))`` with ``(a, b, c, d, e, g) = coef``,
    ``x = log τ`` (``tau`` in logits, > 0), ``y = log(n_i / 10)`` (``n_i`` = ``counts`` clipped to [2, 60]) and
    ``β`` the fitted first-position bias, logits: the family :func:`ci_inflation` is one of."""
    a, b, c, d, e, g = coef
    x = math.log(max(tau, 1e-6))
    y = np.log(np.clip(np.asarray(counts, np.float64), 2.0, 60.0) / 10.0)
    k = abs(beta) * np.exp(-0.5 * y)
    return np.asarray(np.exp(a + b * x + c * y + d * x * y + (e + g * x) * k), np.float64)


def ci_inflation(tau: float, counts: NDArray[np.float64], beta: float = 0.0) -> NDArray[np.float64]:
    """``(n,)`` factors on the ``eb_is`` interval's sd from the fitted prior sd ``tau`` (logits), each hypothesis's
    verdict count ``counts`` and the fitted first-position bias ``beta`` (logits): :func:`inflation_family` at
    :data:`CI_FAMILY`. An empirical correction of the importance-sampled posterior, which unwidened covers
    0.91-0.97 depending on the regime (lowest with few verdicts and a large position bias); the family and its
    coefficients are chosen by ``python -m bench.ranking_sim --coverage --choose`` on the coverage bench's tuning
    trials (bench/README.md, design.md#tournament)."""
    return inflation_family(CI_FAMILY, tau, counts, beta)


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


def _nlp_batch(xs: NDArray[np.float64], d: _Data, prec: float) -> NDArray[np.float64]:
    """``(S,)`` negative log-posterior of each row of ``xs`` (S, size), as :func:`_terms`'s ``f``."""
    n, off = d.n, d.off
    theta = xs[:, :n]
    diff = theta[:, d.a] - theta[:, d.b]
    r = np.exp(xs[:, off:] @ d.lift[d.g].T) if len(d.judges) > 1 else 1.0
    u = 0.5 * r * diff
    if d.order_known:
        u = u + 0.5 * xs[:, [d.beta]] * d.o
    eta = xs[:, [n]] if d.ties else np.zeros((xs.shape[0], 1))
    a = np.abs(u)
    e = np.exp(-a)
    # log Z = log(e^u + e^−u + ν) = |u| + log1p(e^−2|u| + ν e^−|u|): one exp and one log per verdict, not two
    log_z = a + np.log1p(e * (e + np.exp(np.minimum(eta, 700.0)))) if d.ties else a + np.log1p(e * e)
    f = -(u @ d.c - log_z.sum(axis=1)) + 0.5 * prec * np.sum(theta**2, axis=1)
    if d.ties:
        f -= eta[:, 0] * float(d.t.sum()) - 0.5 * eta[:, 0] ** 2 / NU_PRIOR_SD**2
    if d.order_known:
        f += 0.5 * xs[:, d.beta] ** 2 / BETA_PRIOR_SD**2
    if len(d.judges) > 1:
        f += 0.5 * np.sum(xs[:, off:] ** 2, axis=1) / RHO_PRIOR_SD**2
    return np.asarray(f, np.float64)


def _seed(d: _Data) -> int:
    """A seed from the verdicts as a set (their order, and the order judges first appear in, change nothing)."""
    names = np.asarray([zlib.crc32(name.encode()) for name in d.judges] or [0], np.float64)
    rows = np.column_stack([d.a, d.b, d.c, d.t, d.o, names[d.g] if d.judges else np.zeros(d.a.size)]
                           ).astype(np.float64)
    return zlib.crc32(rows[np.lexsort(rows.T[::-1])].tobytes())


def _is_moments(d: _Data, tau: float, x: NDArray[np.float64], f: float, h: NDArray[np.float64], seed: int
                ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """Importance-sampled ``(log marginal, mean, covariance)`` of the full parameter at prior sd ``tau``
    (:func:`cosci.tournament.importance.posterior_moments`: adaptive t proposals from the Laplace fit, scrambled
    Sobol draws seeded from the verdicts, so deterministic). The log marginal has :func:`log_marginal`'s
    constants."""
    m = posterior_moments(lambda xs: -_nlp_batch(xs, d, 1.0 / tau**2), x, h, verdicts=int(d.a.size),
                          seed=seed)
    return m.log_z - d.n * math.log(tau) - 0.5 * x.size * math.log(2.0 * math.pi), m.mean, m.cov


def _eb_mix(ids: Sequence[str], d: _Data, prior_sd: float, x0: NDArray[np.float64], sampled: bool = False,
            seed: int | None = None) -> BTFit:
    n, size = d.n, len(TAU_GRID)
    seed = (_seed(d) if seed is None else seed) if sampled else 0
    done: dict[int, tuple[float, NDArray[np.float64], NDArray[np.float64], float]] = {}

    def at(k: int, x: NDArray[np.float64]) -> float:
        if k not in done:
            tau = float(TAU_GRID[k])
            xk, f, h = _mode(d, 1.0 / tau**2, x)
            hyper = -0.5 * (math.log(tau / prior_sd) / HYPER_SD) ** 2
            if sampled and d.a.size:
                lml, mk, ck = _is_moments(d, tau, xk, f, h, seed + k)
                done[k] = (tau, mk, ck, lml + hyper)
            else:
                done[k] = (tau, xk, np.asarray(np.linalg.inv(h), np.float64),
                           log_marginal(d, tau, xk, f, h) + hyper)
        return done[k][3]

    # climb the grid from the point nearest prior_sd to the peak of marginal likelihood × hyperprior, then
    # widen on both sides until a point's weight is below e^-12 of the peak's (the rest add nothing)
    k = int(np.argmin(np.abs(np.log(TAU_GRID / prior_sd))))
    at(k, x0)
    while True:
        nbrs = [j for j in (k - 1, k + 1) if 0 <= j < size]
        j = max(nbrs, key=lambda j: at(j, done[k][1]))
        if done[j][3] <= done[k][3]:
            break
        k = j
    top = done[k][3]
    for step in (-1, 1):
        j = k
        while 0 <= j + step < size and done[j][3] > top - 12.0:
            at(j + step, done[j][1])
            j += step
    fits = [done[j] for j in sorted(done)]
    logw = np.asarray([lw for *_, lw in fits])
    w = np.exp(logw - logw.max())
    w /= w.sum()
    mean = sum(wk * xk for wk, (_, xk, _, _) in zip(w, fits, strict=True))
    theta = np.asarray(mean[:n], np.float64)
    second = sum(wk * (ck[:n, :n] + np.outer(xk[:n], xk[:n])) for wk, (_, xk, ck, _) in zip(w, fits, strict=True))
    cov = np.asarray(second - np.outer(theta, theta), np.float64)
    theta = theta - theta.mean()  # importance draws do not sum to exactly 0; the intervals are for centred θ
    tau_mean = float(sum(wk * tk for wk, (tk, *_) in zip(w, fits, strict=True)))
    best = fits[int(np.argmax(w))][1]
    counts = (np.bincount(d.a, minlength=n) + np.bincount(d.b, minlength=n)).astype(np.float64)
    groups = order_groups(d.a, d.b, d.o, d.g)
    rerun = rerun_estimate(groups, d.c, d.t, d.o, *_probabilities(d, best)) if groups else RerunEstimate.none()
    ci_sd = _centred_sd(cov)
    if sampled:  # the calibrated widening, then the reruns' design effect (design.md#judge-memory)
        ci_sd = ci_sd * ci_inflation(tau_mean, counts, _beta(d, best)) * np.sqrt(
            design_effect(n, d.a, d.b, groups, rerun.repeat_used))
    return BTFit(tuple(ids), theta, cov, int(d.a.size), ci_sd, _nu(d, best), tau_mean,
                 _reliability(d, best), _beta(d, best), "eb_is" if sampled else "eb_mix", rerun)


def _probabilities(d: _Data, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per verdict the fitted ``(P(a wins), P(b wins))`` at ``x`` (θ, ν, β and the judges' reliabilities)."""
    r = np.exp(d.lift[d.g] @ x[d.off:]) if len(d.judges) > 1 else 1.0
    u = 0.5 * r * (x[: d.n][d.a] - x[: d.n][d.b]) + (0.5 * x[d.beta] * d.o if d.order_known else 0.0)
    _, pw, pl, *_ = _davidson(np.asarray(u, np.float64), float(x[d.n]) if d.ties else -np.inf, d.c)
    return pw, pl
