"""The large-pool solver of the Bradley–Terry posterior mode: Newton steps on a Cholesky factor (design.md#scale).

:func:`cosci.tournament.bt.fit_bt` finds each posterior mode with scipy's ``trust-exact``, which factorises the
dense ``(p, p)`` Hessian several times per iteration (its trust-region subproblem): at 1,000 hypotheses about
35 ms a factorisation and 7 per mode. For a convex objective (no judge labels: θ and log ν, optionally β) a
damped Newton step needs one Cholesky factorisation per iteration and a warm start converges in 2-4 iterations;
:func:`newton_mode` is selected for pools of at least :data:`LARGE_N` hypotheses. It falls back to the caller's
solver when a factorisation fails (the Hessian is not positive definite: a non-convex objective).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError, cho_factor, cho_solve

LARGE_N = 200
"""Pools from this many hypotheses use :func:`newton_mode` (design.md#scale); smaller ones keep ``trust-exact``."""

Terms = Callable[[NDArray[np.float64]], tuple[float, NDArray[np.float64], NDArray[np.float64]]]
"""``x -> (f, gradient (p,), Hessian (p, p))`` of the negative log-posterior."""


def newton_mode(terms: Terms, x0: NDArray[np.float64], gtol: float = 1e-8, max_iter: int = 100
                ) -> NDArray[np.float64] | None:
    """Minimise a convex ``terms`` from ``x0`` by Newton steps with backtracking (Armijo, halving).

    Args:
        terms: the objective, its gradient and Hessian (:data:`Terms`).
        x0: ``(p,)`` start.
        gtol: stop when the gradient's largest entry is below this (``trust-exact``'s ``gtol`` in
            :func:`cosci.tournament.bt.fit_bt`).
        max_iter: Newton iterations at most.

    Returns:
        The minimiser ``(p,)``, or None when a Hessian is not positive definite or the steps stall (the caller
        then uses its general solver).
    """
    x = np.asarray(x0, np.float64).copy()
    f, g, h = terms(x)
    for _ in range(max_iter):
        if float(np.max(np.abs(g), initial=0.0)) < gtol:
            return x
        try:
            step = -cho_solve(cho_factor(h, lower=True, check_finite=False), g, check_finite=False)
        except LinAlgError:
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
