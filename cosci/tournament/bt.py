"""Bradley–Terry strengths with 95 % confidence intervals, fitted beside Elo (design.md#tournament).

Model (Bradley & Terry, 1952): hypothesis ``i`` beats ``j`` with probability ``σ(θ_i − θ_j)``, ``σ`` the logistic
function; ``θ`` is a log-strength in logits (a BT score of +1 means e ≈ 2.7 times the odds of the average
hypothesis). Every valid verdict counts, with the score ``s`` of the first-named hypothesis in {1, 0.5, 0}.

- **Ties as half-wins.** A draw (the two presentation orders disagreed) contributes ``0.5·log σ(d) +
  0.5·log σ(−d)``: half a win each way. A Davidson model would add a tie parameter; our draws are not a judge
  saying "equal" but two verdicts cancelling out, which is exactly two half-observations, and the half-win keeps
  the same Fisher weight ``p(1 − p)`` per verdict as a decisive one. It also matches Elo's 0.5 score.
- **Prior.** A Gaussian prior ``θ ~ N(0, prior_sd²)`` (``prior_sd`` = 1 logit, the issue's measured scheme) makes
  this penalised maximum likelihood (the posterior mode). Plain maximum likelihood has no finite answer for an
  undefeated or winless hypothesis, which is the normal state early in a tournament.
- **Confidence intervals** from the observed Fisher information (the Laplace approximation): the covariance is
  the inverse Hessian of the negative log-posterior at the mode, and the 95 % interval is ``θ_i ± 1.96·sd_i``.
  No bootstrap: it is deterministic (so a resumed session reproduces the same fit) and one fit costs one
  Hessian inverse.

The optimiser is :func:`scipy.optimize.minimize` (``trust-exact``, analytic gradient and Hessian; the
objective is strictly convex, so the mode is unique and a warm start changes nothing but the iterations).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit

Z95 = 1.959963984540054
"""Two-sided 95 % normal quantile."""

Verdict = tuple[str, str, float]
"""``(hypothesis a, hypothesis b, score of a)``: 1 a won, 0 b won, 0.5 a draw."""


@dataclass(frozen=True)
class BTFit:
    """A fitted Bradley–Terry model.

    Attributes:
        ids: hypothesis ids, length n, in the order of ``theta``.
        theta: ``(n,)`` float64 log-strengths, logits, centred by the prior.
        cov: ``(n, n)`` float64 Laplace covariance (inverse observed Fisher information plus prior precision).
        verdicts: valid verdicts the fit used.
    """

    ids: tuple[str, ...]
    theta: NDArray[np.float64]
    cov: NDArray[np.float64]
    verdicts: int

    @property
    def sd(self) -> NDArray[np.float64]:
        return np.sqrt(np.clip(np.diag(self.cov), 0.0, None))

    def index(self) -> dict[str, int]:
        return {h: i for i, h in enumerate(self.ids)}

    def score(self, hid: str) -> tuple[float, float, float]:
        """``(bt_score, ci_low, ci_high)`` of one hypothesis, logits; the CI is 95 %."""
        i = self.index()[hid]
        s = float(self.sd[i])
        return float(self.theta[i]), float(self.theta[i] - Z95 * s), float(self.theta[i] + Z95 * s)

    def table(self) -> dict[str, tuple[float, float, float]]:
        """Every hypothesis's ``(bt_score, ci_low, ci_high)``."""
        return {h: self.score(h) for h in self.ids}

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


def _arrays(ids: Sequence[str], verdicts: Sequence[Verdict]) -> tuple[NDArray[np.intp], NDArray[np.intp],
                                                                      NDArray[np.float64]]:
    pos = {h: i for i, h in enumerate(ids)}
    rows = [(pos[a], pos[b], float(s)) for a, b, s in verdicts if a in pos and b in pos and a != b]
    if not rows:
        return np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0)
    a, b, s = zip(*rows, strict=True)
    return np.asarray(a, np.intp), np.asarray(b, np.intp), np.asarray(s, np.float64)


def _hessian(theta: NDArray[np.float64], a: NDArray[np.intp], b: NDArray[np.intp], prior_prec: float,
             ) -> NDArray[np.float64]:
    n = theta.size
    p = expit(theta[a] - theta[b])
    w = p * (1.0 - p)
    h = np.zeros((n, n))
    np.add.at(h, (a, a), w)
    np.add.at(h, (b, b), w)
    np.add.at(h, (a, b), -w)
    np.add.at(h, (b, a), -w)
    h[np.diag_indices(n)] += prior_prec
    return h


def fit_bt(ids: Sequence[str], verdicts: Sequence[Verdict], prior_sd: float = 1.0,
           start: NDArray[np.float64] | None = None) -> BTFit:
    """Fit Bradley–Terry by penalised maximum likelihood (module docstring: ties, prior, CIs).

    Args:
        ids: the hypotheses to rate (n ≥ 1); verdicts naming other ids are ignored.
        verdicts: ``(a, b, score of a)`` with score in [0, 1].
        prior_sd: sd of the Gaussian prior on θ, logits (> 0).
        start: optional ``(n,)`` warm start (the previous fit); the answer does not depend on it.

    Returns:
        The fit; with no verdicts θ = 0 and the covariance is the prior's.

    Raises:
        ValueError: ``prior_sd`` not positive, or ``start`` of the wrong shape.
    """
    if prior_sd <= 0:
        raise ValueError(f"prior_sd must be > 0 (got {prior_sd})")
    n = len(ids)
    a, b, s = _arrays(ids, verdicts)
    prec = 1.0 / prior_sd**2
    x0 = np.zeros(n) if start is None else np.asarray(start, np.float64)
    if x0.shape != (n,):
        raise ValueError(f"start has shape {x0.shape}, expected ({n},)")

    def objective(theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        d = theta[a] - theta[b]
        # -[s log σ(d) + (1-s) log σ(-d)] = log(1 + e^d) - s d
        nll = float(np.sum(np.logaddexp(0.0, d) - s * d)) + 0.5 * prec * float(theta @ theta)
        r = expit(d) - s
        grad = prec * theta
        np.add.at(grad, a, r)
        np.add.at(grad, b, -r)
        return nll, grad

    theta = x0
    if a.size:
        res = minimize(objective, x0, jac=True, method="trust-exact",
                       hess=lambda t: _hessian(t, a, b, prec), options={"gtol": 1e-8})
        theta = np.asarray(res.x, np.float64)
    cov = np.asarray(np.linalg.inv(_hessian(theta, a, b, prec)), np.float64)
    return BTFit(tuple(ids), theta, cov, int(a.size))
