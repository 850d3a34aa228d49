"""A first-position bias that varies by pair: its variance, read from the pairs judged in both orders, and the
share of a pair's information it leaves (design.md#judge-memory).

The Bradley–Terry fit (:mod:`cosci.tournament.bt_model`) has one first-position bias β. A real judge's bias varies
by pair (bench/ranking_judges.py: ``β_pair ~ N(β, σ²)``); the part ``γ_p = β_pair − β`` shifts every verdict of pair
``p`` shown with ``a`` first by ``+γ_p`` logits and with ``b`` first by ``−γ_p``, and is shared by all of them. It is
not in the fit, so a pair judged more often in one order than the other carries a noise the fit reads as
information. Rather than a random effect per pair in the posterior (one more dimension a pair for the importance
sampler), its variance goes into the verdicts' weights:

- :func:`order_variance` — ``σ̂²`` by the method of moments over the unordered pairs judged in both orders: at
  the fitted mode, the first-shown's mean outcome residual in each order is ``½·w̄·γ_p`` plus noise of variance
  ``w̄ / k_eff`` (``w`` the Davidson variance of a verdict's outcome, ``k_eff`` the order group's effective count at
  the repeat share ρ̂), so the average of the two orders' residuals ``S_p`` has
  ``E[S_p²] = ¼·w̄²·σ² + ¼·(w̄₁/k₁ + w̄₂/k₂)``; ``σ̂² = Σ_p (S_p² − ¼(…)) / Σ_p ¼ w̄²``, clipped to [0, :data:`CAP`].
- :func:`order_weights` — pair ``p``'s estimate of ``θ_a − θ_b`` has variance ``1/I_p`` from its verdicts (``I_p =
  Σ_k v_k w_k / 4``, ``v_k`` the verdict's weight before this term) and, from ``γ_p``, ``σ² f_p²`` more, ``f_p =
  Σ_k v_k w_k s_k / Σ_k v_k w_k`` the pair's order imbalance (``s_k`` +1 when the pair's lower index was shown
  first, −1 when the other was; 0 for a pair judged equally in both orders, ±1 for
  one order only); its verdicts then weigh ``λ_p = 1 / (1 + I_p σ² f_p²)`` of what they did, so the pair's
  information is that of its estimate with the order noise in it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from cosci.tournament.rerun import effective_count

CAP = 1.0
"""Upper clip of ``σ̂²``, logits²: a per-pair order-effect sd of 1 logit, above the sd the studies behind the
simulator's judge suggest (bench/ranking_judges.py, 0.5); a few pairs judged in both orders can read far more by
chance."""


def _pairs(a: NDArray[np.intp], b: NDArray[np.intp], g: NDArray[np.intp]) -> NDArray[np.intp]:
    """``(m,)`` an id of each verdict's unordered pair and judge."""
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keys = np.stack([lo, hi, g], axis=1)
    _, inverse = np.unique(keys, axis=0, return_inverse=True)
    return np.asarray(inverse.ravel(), np.intp)


def order_variance(a: NDArray[np.intp], b: NDArray[np.intp], g: NDArray[np.intp], o: NDArray[np.float64],
                   c: NDArray[np.float64], pw: NDArray[np.float64], pl: NDArray[np.float64], repeat: float
                   ) -> float:
    """``σ̂²`` (module docstring), logits², in [0, :data:`CAP`]; 0 when no pair was judged in both orders.

    Args:
        a, b, g: per verdict the hypothesis indices and the judge index.
        o: +1 ``a`` was shown first, −1 ``b`` was, 0 unknown (left out).
        c: the outcome for ``a`` (+1 won, −1 lost, 0 a tie).
        pw, pl: the fitted P(a wins), P(b wins) at the mode.
        repeat: the judge's repeat share ρ̂ (:attr:`cosci.tournament.rerun.RerunEstimate.repeat_used`).
    """
    known = np.flatnonzero(o != 0)
    if known.size == 0:
        return 0.0
    pair = _pairs(a[known], b[known], g[known])
    w = (pw + pl - (pw - pl) ** 2)[known]
    resid = (o * (c - (pw - pl)))[known]  # the first-shown's outcome minus its fitted mean
    lo = np.minimum(a[known], b[known])
    first_lo = (np.where(o[known] > 0, a[known], b[known]) == lo).astype(np.intp)  # which order: 1 lower id first
    num = den = 0.0
    for p in np.unique(pair):
        sel = pair == p
        sides = [sel & (first_lo == s) for s in (0, 1)]
        if not all(s.any() for s in sides):
            continue
        means = [float(resid[s].mean()) for s in sides]
        ws = [float(w[s].mean()) for s in sides]
        noise = sum(wj / effective_count(int(s.sum()), repeat) for wj, s in zip(ws, sides, strict=True))
        s_p = 0.5 * (means[0] + means[1])
        wbar = 0.5 * (ws[0] + ws[1])
        num += s_p * s_p - 0.25 * noise
        den += 0.25 * wbar * wbar
    if den <= 0.0:
        return 0.0
    return float(min(max(num / den, 0.0), CAP))


def order_weights(a: NDArray[np.intp], b: NDArray[np.intp], g: NDArray[np.intp], o: NDArray[np.float64],
                  w: NDArray[np.float64], v: NDArray[np.float64], sigma2: float) -> NDArray[np.float64]:
    """``(m,)`` each verdict's factor ``λ_p`` (module docstring; 1 where the order is unknown or ``sigma2`` is 0).

    Args:
        a, b, g, o: as :func:`order_variance`.
        w: per verdict the Davidson variance of its outcome at the mode (``P(win) + P(loss) − (P(win) − P(loss))²``).
        v: per verdict its weight before this term (:func:`cosci.tournament.rerun.verdict_weights`, or 1s).
        sigma2: ``σ̂²``, logits².
    """
    out = np.ones(a.size)
    if sigma2 <= 0.0 or a.size == 0:
        return out
    pair = _pairs(a, b, g)
    vw = v * w
    side = np.where(np.where(o > 0, a, b) == np.minimum(a, b), 1.0, -1.0) * (o != 0)  # +1 the lower id first
    info = np.bincount(pair, vw) / 4.0
    signed = np.bincount(pair, vw * side)
    imbalance = np.where(info > 0, signed / np.maximum(4.0 * info, 1e-300), 0.0)
    lam = 1.0 / (1.0 + info * sigma2 * imbalance**2)
    return np.asarray(np.where(o != 0, lam[pair], 1.0), np.float64)
