"""A judge that repeats itself: its rerun consistency, and the information its repeated verdicts carry
(design.md#judge-memory).

A rerun is a verdict on an ordered pair (the same two hypotheses, the same one shown first, the same judge) that
was judged before. An LLM judge asked again mostly repeats itself, so a pair's repeats are not independent
verdicts. The model: a rerun repeats the previous verdict of its order with probability ρ (the *repeat share*),
else it is a fresh draw. Then two consecutive verdicts of an order agree with chance ``ρ + (1 − ρ)·A₀``, ``A₀``
the chance that two fresh draws agree (``P(win)² + P(loss)² + P(tie)²`` at the fitted strengths, position bias
and tie rate), and verdicts ``d`` apart correlate ``ρ^d``.

- :func:`rerun_estimate` — the agreement of consecutive reruns with its Wilson 95 % interval, and ρ read from it:
  ``ρ̂ = (Â − Ā₀)/(1 − Ā₀)`` (``Ā₀`` the reruns' mean ``A₀``), its interval the agreement interval mapped the
  same way, clipped to [0, 1]. An independent judge has ρ = 0.
- :func:`design_effect` — per hypothesis, its verdict count over its *effective* count: a group of ``k`` verdicts
  of one order counts ``k² / (k + 2 Σ_{d<k} (k − d) ρ^d)`` (one verdict's worth when ρ = 1, ``k`` when ρ = 0).
  The Bradley–Terry fit (:func:`cosci.tournament.bt.fit_bt`) widens each interval by the square root of it at
  ρ̂ (:attr:`RerunEstimate.repeat_used`), so three verdicts that are one verdict repeated are not read as three.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

LEVEL = 0.95
WILSON = "95 % Wilson CI"
"""How a share's interval is named where it is shown: by its method (the Wilson score interval,
:func:`wilson_interval`), whose 95 % coverage is nominal, for independent calls; no bench measures it on a
judge's calls (design.md#judge-memory)."""
"""Confidence level of the intervals."""
WILSON_LABEL = f"{WILSON}, nominal for independent calls"
""":data:`WILSON` with what its coverage rests on, where a column heading shows it without a sentence around it
(the report page's per-judge table)."""


def wilson_interval(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The Wilson score interval (no continuity correction) of ``k`` successes in ``n > 0`` trials at ``level``:
    the closed form :func:`scipy.stats.binomtest`'s ``proportion_ci(method="wilson")`` computes (equal to 1e-15,
    tests/tournament/test_rerun.py), without importing ``scipy.stats`` (about half a second of CPU, which every
    ``cosci status`` and ``cosci report`` paid for these intervals: design.md#startup).

    Raises:
        ZeroDivisionError: ``n`` is 0.
    """
    z = NormalDist().inv_cdf(0.5 + level / 2)
    p, z2 = k / n, z * z
    centre, half = (p + z2 / (2 * n)) / (1 + z2 / n), z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


SIMULATED_REPEAT = 0.75
"""The repeat share the ranking simulator's judge with memory assumes (``bench/ranking_judges.py``: a rerun flip
rate of 0.125-0.15 at an even pair, about the 13.6 % measured for LLM judges; design.md#judge-memory); its
independent judge assumes 0. Printed beside a session's own estimate."""
SIMULATED_ORDER = (0.3, 0.5)
"""The simulator's first-position bias: mean and sd across pairs, logits (design.md#judge-memory); a mean of 0.3
is a first-shown win rate of about 57 % at an even pair."""
SIMULATED_TIES = (0.0, 0.3)
"""The Davidson tie parameters ν of the simulator's draws: none in the recall rows, 0.3 in the coverage bench
(design.md#judge-memory)."""


def even_pair_agreement(repeat: float, nu: float) -> float:
    """The chance two consecutive verdicts of an ordered even pair agree, for a judge that repeats the last
    verdict with probability ``repeat`` and else draws a Davidson verdict with tie parameter ``nu``:
    ``repeat + (1 − repeat)·(2 + ν²)/(2 + ν)²`` (0.875 at 0.75 without ties, 0.849 with ν = 0.3)."""
    return repeat + (1.0 - repeat) * (2.0 + nu * nu) / (2.0 + nu) ** 2


def simulated_first_shown(bias: float) -> float:
    """The first-shown win rate of an even pair at a first-position bias of ``bias`` logits, no ties."""
    return 1.0 / (1.0 + math.exp(-bias))


def _span(values: list[float]) -> str:
    low, high = round(100 * min(values)), round(100 * max(values))
    return f"{low} %" if low == high else f"{low}–{high} %"


def simulated_assumptions() -> tuple[str, str]:
    """What the ranking simulator assumes of its judges, in the units a session measures its own: ``(rerun,
    order)`` phrases for the lines of ``cosci status`` and the report (design.md#judge-memory)."""
    memory = _span([even_pair_agreement(SIMULATED_REPEAT, nu) for nu in SIMULATED_TIES])
    fresh = _span([even_pair_agreement(0.0, nu) for nu in SIMULATED_TIES])
    mean, sd = SIMULATED_ORDER
    rerun = (f"the ranking simulator assumes {SIMULATED_REPEAT:g} (judge with memory: reruns of an even pair agree "
             f"{memory}) and 0 (independent judge: {fresh})")
    order = (f"the ranking simulator assumes {mean:g} logits on average (first-shown wins "
             f"{_span([simulated_first_shown(mean)])} of even pairs), sd {sd:g} across pairs "
             f"({_span([simulated_first_shown(mean - 2 * sd), simulated_first_shown(mean + 2 * sd)])} at ±2 sd)")
    return rerun, order


@dataclass(frozen=True)
class RerunEstimate:
    """Reruns of the session's judge (module docstring); NaN throughout when there were none.

    Attributes:
        reruns: consecutive same-order verdict pairs compared.
        agreed: of those, how many gave the same verdict.
        agreement, agreement_low, agreement_high: ``agreed / reruns`` and its Wilson 95 % interval.
        expected: ``Ā₀``, the agreement two fresh draws would show on the same pairs (fitted model).
        repeat, repeat_low, repeat_high: ρ̂ and its 95 % interval, in [0, 1].
    """

    reruns: int
    agreed: int
    agreement: float
    agreement_low: float
    agreement_high: float
    expected: float
    repeat: float
    repeat_low: float
    repeat_high: float

    @classmethod
    def none(cls) -> RerunEstimate:
        nan = math.nan
        return cls(0, 0, nan, nan, nan, nan, nan, nan, nan)

    def line(self) -> str:
        """The ``cosci status`` / report line: the session's reruns beside the simulator's assumptions."""
        assumed = simulated_assumptions()[0]
        if self.reruns == 0:
            return f"judge: no rerun of an ordered pair yet, so its repeat share is not measured ({assumed})"
        return (f"judge: reruns of an ordered pair agree {100 * self.agreement:.0f} % ({WILSON} "
                f"{100 * self.agreement_low:.0f}–{100 * self.agreement_high:.0f} %; {self.agreed} of {self.reruns};"
                f" two fresh verdicts would agree {100 * self.expected:.0f} %): repeat share {self.repeat:.2f} "
                f"(95 % CI {self.repeat_low:.2f}–{self.repeat_high:.2f}, read from the agreement's; {assumed})")

    @property
    def repeat_used(self) -> float:
        """The ρ the fit widens by: ρ read from the agreement by Laplace's rule of succession, ``(agreed + 1) /
        (reruns + 2)``, so three agreeing reruns of pairs that agree by chance 0.87 read ρ = 0, not 1 (0 with no
        reruns)."""
        if self.reruns == 0:
            return 0.0
        smoothed = (self.agreed + 1) / (self.reruns + 2)
        return float(min(max((smoothed - self.expected) / max(1.0 - self.expected, 1e-9), 0.0), 1.0))


def order_groups(a: NDArray[np.intp], b: NDArray[np.intp], o: NDArray[np.float64], g: NDArray[np.intp]
                 ) -> list[NDArray[np.intp]]:
    """Indices (in verdict order) of each ordered pair's verdicts: ``a``/``b`` hypothesis indices, ``o`` +1 when
    ``a`` was shown first, −1 when ``b`` was, 0 unknown (left out: a dual-order match, a researcher's preference);
    ``g`` the judge index. Only groups of two or more are returned."""
    groups: dict[tuple[int, int, int], list[int]] = {}
    for k in np.flatnonzero(o != 0):
        first, second = (a[k], b[k]) if o[k] > 0 else (b[k], a[k])
        groups.setdefault((int(first), int(second), int(g[k])), []).append(int(k))
    return [np.asarray(v, np.intp) for v in groups.values() if len(v) > 1]


def rerun_estimate(groups: list[NDArray[np.intp]], c: NDArray[np.float64], t: NDArray[np.float64],
                   o: NDArray[np.float64], pw: NDArray[np.float64], pl: NDArray[np.float64]) -> RerunEstimate:
    """The judge's rerun agreement and repeat share (module docstring).

    Args:
        groups: :func:`order_groups`.
        c, t, o: per verdict the outcome (+1 a won, −1 b won, 0 a tie), the tie flag and who was shown first
            (+1 a, −1 b): outcomes are compared as the first-shown's.
        pw, pl: per verdict the fitted P(a wins), P(b wins) (a tie takes the rest).
    """
    agree, fresh = [], []
    for idx in groups:
        for prev, k in itertools.pairwise(idx):
            agree.append(bool(c[prev] * o[prev] == c[k] * o[k] and t[prev] == t[k]))
            pt = max(1.0 - pw[k] - pl[k], 0.0)
            fresh.append(float(pw[k] ** 2 + pl[k] ** 2 + pt**2))
    if not agree:
        return RerunEstimate.none()
    n, k = len(agree), int(sum(agree))
    ci = wilson_interval(k, n)
    base = round(float(np.mean(fresh)), 12)  # the same figure whatever order the matches come in

    def rho(x: float) -> float:
        return float(min(max((x - base) / max(1.0 - base, 1e-9), 0.0), 1.0))

    low, high = ci
    return RerunEstimate(n, k, k / n, low, high, base, rho(k / n), rho(low), rho(high))


def effective_count(k: int, rho: float) -> float:
    """The information of ``k`` verdicts of one order whose lags ``d`` correlate ``rho^d``, in verdicts."""
    if k <= 1 or rho <= 0.0:
        return float(k)
    lags = np.arange(1, k)
    return float(k * k / (k + 2.0 * np.sum((k - lags) * rho**lags)))


def design_effect(n: int, a: NDArray[np.intp], b: NDArray[np.intp], groups: list[NDArray[np.intp]], rho: float
                  ) -> NDArray[np.float64]:
    """``(n,)`` verdict count over effective verdict count per hypothesis (≥ 1; 1 when ``rho`` is 0 or a
    hypothesis has no repeated order). ``a``, ``b``: every verdict's hypothesis indices."""
    counts = (np.bincount(a, minlength=n) + np.bincount(b, minlength=n)).astype(np.float64)
    if rho <= 0.0 or not groups:
        return np.ones(n)
    effective = counts.copy()
    for idx in groups:
        lost = len(idx) - effective_count(len(idx), rho)
        effective[a[idx[0]]] -= lost
        effective[b[idx[0]]] -= lost
    return np.asarray(np.where(counts > 0, counts / np.maximum(effective, 1e-9), 1.0), np.float64)
