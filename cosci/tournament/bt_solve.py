"""The large-pool solver of the Bradley–Terry posterior mode: Newton steps on a sparse Hessian (design.md#scale).

:func:`cosci.tournament.bt.fit_bt` finds each posterior mode with scipy's ``trust-exact``, which factorises the
dense ``(p, p)`` Hessian several times per iteration (its trust-region subproblem): at 1,000 hypotheses about
35 ms a factorisation and 7 per mode. For a convex objective (no judge labels: θ and log ν, optionally β) a
damped Newton step needs one Cholesky factorisation per iteration and a warm start converges in 2-4 iterations;
:func:`newton_mode` is selected for pools of at least :data:`LARGE_N` hypotheses. It falls back to the caller's
solver when a factorisation fails (the Hessian is not positive definite: a non-convex objective).

The Hessian of a tournament is sparse: the θ block has one off-diagonal entry per played pair (10,000 verdicts among
1,000 hypotheses: ~20,000 of the 1,000,000 entries), plus a dense border row per extra parameter (log ν, β). Large
pools pass it as a :mod:`scipy.sparse` matrix and :func:`sparse_step` solves each Newton step by preconditioned
conjugate gradients (:func:`scipy.sparse.linalg.cg`, Jacobi preconditioner): the matrix is a weighted graph
Laplacian plus the prior's precision, well conditioned (its eigenvalues lie between the prior precision and about
twice the largest weighted degree plus it), so CG converges in tens of sparse products, against a dense
``O(n³)`` factorisation per step. A sparse *Cholesky* would not help: a random tournament graph is an expander,
and its factor fills in to nearly dense.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # scipy imports where first used: not by a session's start (design.md#startup)
    from scipy import sparse

LARGE_N = 200
"""Pools from this many hypotheses use :func:`newton_mode` (design.md#scale); smaller ones keep ``trust-exact``."""

CG_RTOL = 1e-10
"""Relative residual at which :func:`sparse_step`'s conjugate gradients stop: far below what the Newton iteration's
``gtol`` (1e-8 on the gradient) needs, so the steps are as good as a factorisation's."""

Terms = Callable[[NDArray[np.float64]], tuple[float, NDArray[np.float64], Any]]
"""``x -> (f, gradient (p,), Hessian (p, p))`` of the negative log-posterior; the Hessian a dense array, or a
:mod:`scipy.sparse` matrix for :func:`sparse_step`."""

Step = Callable[[Any, NDArray[np.float64]], "NDArray[np.float64] | None"]
"""``(Hessian, gradient) -> Newton step −H⁻¹g``, or None when the Hessian is not positive definite."""


def cholesky_step(h: NDArray[np.float64], g: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """The Newton step ``−h⁻¹g`` from a dense Cholesky factorisation; None when ``h`` is not positive definite."""
    from scipy.linalg import LinAlgError, cho_factor, cho_solve

    try:
        return np.asarray(-cho_solve(cho_factor(h, lower=True, check_finite=False), g, check_finite=False),
                          np.float64)
    except LinAlgError:
        return None


def sparse_step(h: sparse.sparray | sparse.spmatrix, g: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """The Newton step ``−h⁻¹g`` for a sparse symmetric ``h`` (p, p) by Jacobi-preconditioned conjugate gradients
    to :data:`CG_RTOL` (module docstring); when they do not converge (h not positive definite, or ill conditioned)
    the dense :func:`cholesky_step` decides."""
    from scipy.sparse import diags_array
    from scipy.sparse.linalg import cg

    diag = h.diagonal()
    if np.all(diag > 0):
        precond = diags_array(1.0 / diag)
        step, info = cg(h, -g, rtol=CG_RTOL, atol=0.0, maxiter=10 * g.size, M=precond)
        if info == 0 and float(g @ step) < 0:
            return np.asarray(step, np.float64)
    return cholesky_step(h.toarray(), g)


def spd_inverse(h: NDArray[np.float64]) -> NDArray[np.float64]:
    """The inverse of a symmetric positive definite ``h`` (p, p) from its Cholesky factor (LAPACK ``potrf`` and
    ``potri``: about a third of the work of :func:`numpy.linalg.inv`'s LU); falls back to ``numpy.linalg.inv``
    when ``h`` is not positive definite."""
    from scipy.linalg.lapack import dpotrf, dpotri

    factor, info = dpotrf(h, lower=1, clean=1)
    if info == 0:
        inv, info = dpotri(factor, lower=1)  # the lower triangle; the upper keeps the clean factor's zeros
        if info == 0:
            full = inv + inv.T
            full[np.diag_indices_from(full)] *= 0.5
            return np.asarray(full, np.float64)
    return np.asarray(np.linalg.inv(h), np.float64)


def newton_mode(terms: Terms, x0: NDArray[np.float64], gtol: float = 1e-8, max_iter: int = 100,
                step_of: Step = cholesky_step) -> NDArray[np.float64] | None:
    """Minimise a convex ``terms`` from ``x0`` by Newton steps with backtracking (Armijo, halving).

    Args:
        terms: the objective, its gradient and Hessian (:data:`Terms`).
        x0: ``(p,)`` start.
        gtol: stop when the gradient's largest entry is below this (``trust-exact``'s ``gtol`` in
            :func:`cosci.tournament.bt.fit_bt`).
        max_iter: Newton iterations at most.
        step_of: the solve of each Newton step: :func:`cholesky_step` (a dense Hessian) or :func:`sparse_step`.

    Returns:
        The minimiser ``(p,)``, or None when a Hessian is not positive definite or the steps stall (the caller
        then uses its general solver).
    """
    x = np.asarray(x0, np.float64).copy()
    f, g, h = terms(x)
    for _ in range(max_iter):
        if float(np.max(np.abs(g), initial=0.0)) < gtol:
            return x
        step = step_of(h, g)
        if step is None:
            return None
        slope = float(g @ step)
        if -slope < 1e-20:  # the Newton decrement is at rounding level: as converged as f can tell
            return x
        t, slack = 1.0, 1e-12 * max(1.0, abs(f))  # f's rounding error: a step that only rounds may pass
        while True:
            xn = x + t * step
            fn, gn, hn = terms(xn)
            if fn <= f + 1e-4 * t * slope + slack or t < 1e-10:
                break
            t *= 0.5
        if t < 1e-10:
            return None
        x, f, g, h = xn, fn, gn, hn
    return None
