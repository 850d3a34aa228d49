"""The tail reserve of budget admission: how far above its expected cost a call of this session may come
(design.md#tail-reserve).

Admission holds each call at ``min(upper bound, expected x factor)`` against the session cap, where the factor is
measured on this session: the ``QUANTILE`` of the last ``WINDOW`` ratios *actual cost / expected cost* of its settled
calls. Until ``MIN_RATIOS`` calls have settled the factor is unknown and every call is held at its upper bound (the
conservative prior: it costs nothing while the money is plentiful, which it is at a session's start). The amount
held above the expected cost, summed over the calls in flight, is the *tail reserve*.

A call may still cost more than it held (a ratio beyond the quantile); the budget's worst-case rule
(:meth:`cosci.llm.budget.token_budget.TokenBudget.admit`) keeps the cap safe even then.
"""

from __future__ import annotations

import math
import threading
from collections import deque

import numpy as np

QUANTILE = 0.95
"""Quantile of the observed actual/expected ratios a call is held at (design.md#tail-reserve)."""
WINDOW = 200
"""Recent settled calls the quantile is taken over (a session's spread drifts as its prompts grow)."""
MIN_RATIOS = 10
"""Settled calls needed before the measured factor replaces the prior (upper-bound holds)."""


class TailFactor:
    """The session's measured spread of actual over expected cost (thread-safe; callers may hold other locks)."""

    def __init__(self) -> None:
        self._ratios: deque[float] = deque(maxlen=WINDOW)
        self._lock = threading.Lock()

    def observe(self, expected_usd: float, actual_usd: float) -> None:
        """Record one settled call: its expected and actual cost, USD (ignored when nothing was expected)."""
        if expected_usd > 0 and math.isfinite(actual_usd) and actual_usd >= 0:
            with self._lock:
                self._ratios.append(actual_usd / expected_usd)

    @property
    def factor(self) -> float:
        """Held cost / expected cost, >= 1 (``inf`` before ``MIN_RATIOS`` observations: hold the upper bound)."""
        with self._lock:
            if len(self._ratios) < MIN_RATIOS:
                return math.inf
            q = float(np.quantile(np.fromiter(self._ratios, float), QUANTILE, method="higher"))
        return max(1.0, q)

    def hold(self, expected_usd: float, bound_usd: float) -> float:
        """USD to hold against the cap for a call expected at ``expected_usd`` and bounded by ``bound_usd``:
        ``expected x factor``, never above the bound nor below the expectation."""
        factor = self.factor
        if math.isinf(factor):
            return max(bound_usd, expected_usd)
        return max(expected_usd, min(bound_usd, expected_usd * factor))

    def __len__(self) -> int:
        with self._lock:
            return len(self._ratios)
