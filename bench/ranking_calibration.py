"""How the ``eb_is`` interval's widening is chosen (``python -m bench.ranking_sim --coverage --choose``).

design.md#tournament.

On the coverage bench's regimes (:mod:`bench.ranking_coverage`: N = 40, spread ±1 to ±4 logits, 5 to 30 verdicts
per hypothesis, first-position bias 0 to 0.6, Davidson ties) and on *tuning* trials only (``--first-trial``; the
shipped choice used ``--first-trial 1000 --trials 400``, 1000-1399; the reported coverage table uses other
trials), every hypothesis's z-score
``|θ̂_i − θ_i| / sd_i`` of the shipped fit (``eb_is`` with the first-shown ids) is recorded with the *unwidened*
sd, the fit's τ̂ (:attr:`~cosci.tournament.bt.BTFit.prior_sd`) and the hypothesis's verdict count ``n_i``. A
widening ``f`` covers hypothesis ``i`` when ``|z_i| ≤ 1.96·f``, so the coverage of any candidate widening is
computed from the records without refitting.

The family (:func:`cosci.tournament.bt.ci_inflation`)::

    log f = a + b·x + c·y + d·x·y + (e + g·x)·|β̂|·e^(−y/2),   x = log(τ̂ / 1 logit),   y = log(n_i / 10),

``n_i`` clipped to [2, 60], ``β̂`` the fitted first-position bias (the unwidened interval under-covers most with
few verdicts and a large bias: 0.91-0.92 at 5 verdicts per hypothesis and bias 0.6, 0.93-0.94 at bias 0, and more
so the wider the spread), its six coefficients chosen by Nelder–Mead (several starts) to minimise the worst
regime's distance from 0.95 plus a tenth of the mean distance. The output: the coefficients (copied to
``bt.CI_FAMILY``), and per regime the tuning trials' coverage unwidened, with the previous, the shipped and the
chosen widening.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize

from bench.ranking_coverage import N_HYP, REGIMES, simulate
from cosci.tournament import bt, bt_model
from cosci.tournament.bt import Z95, fit_bt

Record = tuple[NDArray[np.float64], NDArray[np.float64], float, float]
"""One trial: ``(|z| per hypothesis with the unwidened sd, verdict count per hypothesis, fitted τ̂, fitted β̂)``."""


def record_trial(job: tuple[float, int, float, int]) -> Record:
    """The shipped fit on one coverage trial (the seeds and verdicts of
    :func:`bench.ranking_coverage.coverage_trial`)."""
    spread, per_h, bias, trial = job
    rng = np.random.default_rng([7, trial, int(spread * 10), per_h, int(bias * 10)])
    theta = rng.normal(0.0, spread / 2, N_HYP)
    ids = [f"H{i:02d}" for i in range(N_HYP)]
    verdicts, _ = simulate(theta, per_h, bias, rng)
    f = fit_bt(ids, verdicts, first=[v[0] for v in verdicts], method="eb_is")
    raw = bt_model._centred_sd(f.cov)
    z = np.abs(f.theta - (theta - theta.mean())) / np.maximum(raw, 1e-12)
    return z, bt.verdict_counts(ids, verdicts), f.prior_sd, f.position_bias


def widening(params: NDArray[np.float64] | tuple[float, ...], tau: float, counts: NDArray[np.float64],
             beta: float) -> NDArray[np.float64]:
    """The family's factor per hypothesis (module docstring; :func:`cosci.tournament.bt.inflation_family`)."""
    return bt.inflation_family(tuple(params), tau, counts, beta)


def previous(tau: float, counts: NDArray[np.float64], beta: float) -> NDArray[np.float64]:
    """The widening of the last stop (×1 at τ̂ ≤ 0.6 rising linearly to ×1.10 at τ̂ ≥ 1.0, whatever ``n_i``)."""
    return np.full(counts.shape, 1.0 + 0.10 * min(max((tau - 0.6) / 0.4, 0.0), 1.0))


def coverages(records: list[list[Record]], factor) -> NDArray[np.float64]:  # type: ignore[no-untyped-def]
    """Coverage per regime when the unwidened sd is multiplied by ``factor(tau, counts, beta)``."""
    return np.asarray([np.mean(np.concatenate([z <= Z95 * factor(tau, n, beta) for z, n, tau, beta in regime]))
                       for regime in records])


STARTS = ([0.036, 0.0625, 0.0, 0.0, 0.054, 0.0], [0.0, 0.05, 0.0, 0.0, 0.0, 0.1], [0.03, 0.05, 0.0, 0.0, 0.05, 0.1],
          [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.05, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.05, 0.02, 0.0, 0.05, 0.0],
          [0.0438, 0.0531, -0.0021, -0.0016, 0.0678, 0.0986], [0.0614, 0.0452, -0.0047, -0.0945, 0.012, -0.0267])
"""Nelder–Mead starts (deterministic: the same records give the same choice). The last two: the widening chosen on
trials 1000-1099 at the third stop, and the best point an exploratory search found on trials 1000-1399 (the
simplex is path-dependent, so a start near it is kept)."""


def collect(first_trial: int, trials: int, workers: int) -> list[list[Record]]:
    """Records per regime (:data:`bench.ranking_coverage.REGIMES` order) on trials ``first_trial`` onward."""
    jobs = [(s, v, b, t) for s, v, b in REGIMES for t in range(first_trial, first_trial + trials)]
    with ProcessPoolExecutor(workers) as pool:
        flat = list(pool.map(record_trial, jobs, chunksize=8))
    return [flat[r * trials:(r + 1) * trials] for r in range(len(REGIMES))]


def fit_family(records: list[list[Record]]) -> tuple[float, ...]:
    """The coefficients minimising the worst regime's |coverage − 0.95| plus a tenth of the mean (module docstring)."""

    def loss(p: NDArray[np.float64]) -> float:
        dev = np.abs(coverages(records, lambda tau, n, beta: widening(p, tau, n, beta)) - 0.95)
        return float(dev.max() + 0.1 * dev.mean())

    best = None
    for start in STARTS:
        res = minimize(loss, np.asarray(start), method="Nelder-Mead",
                       options={"xatol": 1e-4, "fatol": 1e-6, "maxiter": 6000})
        if best is None or res.fun < best.fun:
            best = res
    assert best is not None
    return tuple(round(float(x), 4) for x in best.x)


def choose(first_trial: int, trials: int, workers: int) -> None:
    started = time.monotonic()
    records = collect(first_trial, trials, workers)
    params = fit_family(records)
    raw = coverages(records, lambda tau, n, beta: np.ones_like(n))
    cols = {"unwidened": raw, "previous": coverages(records, previous), "shipped": coverages(records, bt.ci_inflation),
            "chosen": coverages(records, lambda tau, n, beta: widening(params, tau, n, beta))}
    print(f"{'spread':>6} {'v/h':>4} {'bias':>4} " + " ".join(f"{k:>10}" for k in cols))
    for r, (s, v, b) in enumerate(REGIMES):
        print(f"{s:6.1f} {v:4d} {b:4.1f} " + " ".join(f"{c[r]:10.3f}" for c in cols.values()))
    print(f"{'lowest':>16} " + " ".join(f"{c.min():10.3f}" for c in cols.values()))
    print(f"{'highest':>16} " + " ".join(f"{c.max():10.3f}" for c in cols.values()))
    inside = [int(np.sum((c >= 0.93) & (c <= 0.97))) for c in cols.values()]
    print(f"{'inside 0.93-0.97':>16} " + " ".join(f"{k:10d}" for k in inside))
    print(f"# chosen (a, b, c, d, e, g) = {params}  (bt.CI_FAMILY; bt.inflation_family)")
    print(f"# tuning trials {first_trial}-{first_trial + trials - 1} per regime, N={N_HYP}, "
          f"{time.monotonic() - started:.0f} s")
