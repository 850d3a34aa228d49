"""Coverage records of the ``eb_is`` fit under several hyperpriors on τ from one set of fits
(``python -m bench.ranking_hyper``; design.md#judge-memory, bench/README.md, seventeenth stop).

The grid's points (:func:`cosci.tournament.bt_grid.grid_fits`: the posterior's moments, marginal likelihood and
information on log τ at each τ) do not depend on the hyperprior, only its weights do; so each trial's grid is climbed
once with none (:func:`~cosci.tournament.bt_grid.flat`, keeping every point within e^-12 of the marginal
likelihood's peak) and mixed under every hyperprior of :data:`CANDIDATES`. Each candidate's records are written as
``--record`` writes them (:mod:`bench.ranking_calibration`), to ``PREFIX-NAME.pkl``, so ``python -m bench.ranking_sim
--coverage [--choose] --records …`` reads them. Under ``lognormal(1)`` (main's) a record equals the shipped fit's
to the digit (a point skipped by main's climb weighs under e^-10 of the peak).
"""

from __future__ import annotations

import argparse
import pickle
import time

import numpy as np

from bench.ranking_calibration import Record
from bench.ranking_coverage import N_HYP, REGIMES, _design_effect, _verdicts, one_thread
from cosci.tournament import bt, bt_draws, bt_grid, bt_model

CANDIDATES: dict[str, bt_grid.Hyperprior] = {
    "sd1": bt_grid.lognormal(1.0), "sd1.5": bt_grid.lognormal(1.5), "sd2": bt_grid.lognormal(2.0),
    "sd3": bt_grid.lognormal(3.0), "flat": bt_grid.flat, "scaled": bt_grid.scaled(1.0), "jeffreys": bt_grid.jeffreys,
}
"""The hyperpriors recorded (``(τ, prior_sd, info) -> log density in log τ``): main's log-normal (sd 1 in log τ),
wider ones, none, the data-scaled one and Jeffreys' (:mod:`cosci.tournament.bt_grid`)."""


def record_variants(job: tuple[float, int, float, int, str]) -> dict[str, Record]:
    """One coverage trial (the draws of :func:`bench.ranking_calibration.record_trial`) fitted once, its record under
    every candidate hyperprior."""
    spread, per_h, bias, trial, model = job
    rng = np.random.default_rng([7, trial, int(spread * 10), per_h, int(bias * 10)])
    theta = rng.normal(0.0, spread / 2, N_HYP)
    ids = [f"H{i:02d}" for i in range(N_HYP)]
    verdicts, _ = _verdicts(theta, per_h, bias, rng, None, model)
    d = bt_model._data(ids, verdicts, None, [v[0] for v in verdicts])
    points = bt_grid.grid_fits(d, 1.0, bt_model._start(d, None), True, bt_draws.verdict_seed(d), bt_grid.flat)
    counts = bt.verdict_counts(ids, verdicts)
    out: dict[str, Record] = {}
    for name, prior in CANDIDATES.items():
        logw = np.asarray([p.lml + prior(p.tau, 1.0, p.info) for p in points], np.float64)
        f = bt._mixture(ids, d, points, logw, True)
        raw = bt_model._centred_sd(f.cov)
        z = np.abs(f.theta - (theta - theta.mean())) / np.maximum(raw, 1e-12)
        out[name] = (z, counts, f.prior_sd, f.position_bias, _design_effect(ids, verdicts, f), f.rerun.repeat_used)
    return out


def save_variants(prefix: str, first_trial: int, trials: int, model: str) -> None:
    """Records of trials ``first_trial`` onward in every regime, one file a candidate (``PREFIX-NAME.pkl``)."""
    started = time.monotonic()
    one_thread()
    jobs = [(s, v, b, t, model) for s, v, b in REGIMES for t in range(first_trial, first_trial + trials)]
    flat = [record_variants(job) for job in jobs]
    for name in CANDIDATES:
        records = [[rec[name] for rec in flat[r * trials:(r + 1) * trials]] for r in range(len(REGIMES))]
        with open(f"{prefix}-{name}.pkl", "wb") as fh:
            pickle.dump({"model": model, "first": first_trial, "trials": trials, "records": records}, fh)
    print(f"# {len(jobs)} trials of judge {model}, {first_trial}-{first_trial + trials - 1}, "
          f"{len(CANDIDATES)} hyperpriors to {prefix}-*.pkl, {time.monotonic() - started:.0f} s")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--judge", choices=("memory", "independent"), required=True)
    ap.add_argument("--prefix", required=True, help="records to PREFIX-NAME.pkl, one a hyperprior")
    ap.add_argument("--trials", type=int, default=25)
    ap.add_argument("--first-trial", type=int, required=True)
    args = ap.parse_args(argv)
    save_variants(args.prefix, args.first_trial, args.trials, args.judge)


if __name__ == "__main__":
    main()
