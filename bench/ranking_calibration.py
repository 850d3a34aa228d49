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

**Under both simulated judges** (design.md#judge-memory; bench/README.md, eleventh stop): ``--coverage --judge
memory|independent --record PATH`` writes the records of a trial range on the schedule with rematches, adding each
hypothesis's design effect (the shipped interval covers when ``z_i ≤ 1.96·f_i·√deff_i``) and the repeat share ρ̂
the fit used; ``--coverage --choose --records PATH…`` chooses on tuning records pooled over their judges (every
(judge, regime) cell weighs the same), both the six-term family and the repeat-share family
``log f = ρ̂·(h + i·y + j·x)`` (the six terms 0), the shipped choice; ``--coverage --records PATH…`` prints the
shipped interval's coverage per judge and regime, the same figures as ``--coverage --judge …`` on those trials
(the fit's point and unwidened sd do not depend on the widening; equal to the digit on trial 0 of the judge with
memory), without refitting. ``--choose --band LO HI`` adds ``chosen-band``, the nine coefficients refitted by the sum
of the cells' distances outside LO-HI (:func:`band_loss`; bench/README.md, twentieth stop: tried, not adopted), and
``chosen-few``, the same loss on eleven: the family with a τ̂-dependent term below 10 verdicts (twenty-first stop).
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize

from bench.ranking_coverage import N_HYP, REGIMES, _design_effect, _verdicts, one_thread
from cosci.tournament import bt, bt_model
from cosci.tournament.bt import Z95, fit_bt

Record = tuple[NDArray[np.float64], NDArray[np.float64], float, float, NDArray[np.float64], float]
"""One trial: ``(|z| per hypothesis with the unwidened sd, verdict count per hypothesis, fitted τ̂, fitted β̂,
the reruns' design effect per hypothesis, the repeat share ρ̂ the fit used)``; the shipped interval covers
hypothesis ``i`` when ``z_i ≤ 1.96·f_i·√deff_i`` (``f`` the widening)."""


def record_trial(job: tuple[float, int, float, int] | tuple[float, int, float, int, str | None]) -> Record:
    """The shipped fit on one coverage trial (the seeds and verdicts of
    :func:`bench.ranking_coverage.coverage_trial`; a fifth item names the ``--judge`` model, whose schedule has
    rematches; without it the plain schedule)."""
    spread, per_h, bias, trial = job[:4]
    model = job[4] if len(job) > 4 else None
    rng = np.random.default_rng([7, trial, int(spread * 10), per_h, int(bias * 10)])
    theta = rng.normal(0.0, spread / 2, N_HYP)
    ids = [f"H{i:02d}" for i in range(N_HYP)]
    verdicts, _ = _verdicts(theta, per_h, bias, rng, None, model)
    f = fit_bt(ids, verdicts, first=[v[0] for v in verdicts], method="eb_is")
    raw = bt_model._centred_sd(f.cov)
    z = np.abs(f.theta - (theta - theta.mean())) / np.maximum(raw, 1e-12)
    return (z, bt.verdict_counts(ids, verdicts), f.prior_sd, f.position_bias, _design_effect(ids, verdicts, f),
            f.rerun.repeat_used)


def save_records(path: str, first_trial: int, trials: int, workers: int, model: str | None) -> None:
    """``--coverage --record PATH``: the records of trials ``first_trial`` onward in every regime, pickled with
    their range and judge (a trial's draws depend only on its number, so chunks pool; :func:`load_records`)."""
    started = time.monotonic()
    records = collect(first_trial, trials, workers, model)
    with open(path, "wb") as fh:
        pickle.dump({"model": model, "first": first_trial, "trials": trials, "records": records}, fh)
    print(f"# {trials * len(REGIMES)} records of judge {model}, trials {first_trial}-{first_trial + trials - 1},"
          f" to {path}, {time.monotonic() - started:.0f} s")


def load_records(paths: list[str]) -> dict[str | None, tuple[list[list[Record]], list[tuple[int, int]]]]:
    """Per judge model: the pooled records per regime and the trial ranges they came from (each trial once)."""
    out: dict[str | None, tuple[list[list[Record]], list[tuple[int, int]]]] = {}
    for path in paths:
        with open(path, "rb") as fh:
            data = pickle.load(fh)  # the bench's own files
        pooled, ranges = out.setdefault(data["model"], ([[] for _ in REGIMES], []))
        span = (data["first"], data["first"] + data["trials"] - 1)
        if any(lo <= span[1] and span[0] <= hi for lo, hi in ranges):
            raise ValueError(f"{path}: trials {span[0]}-{span[1]} already pooled")
        ranges.append(span)
        for regime, recs in zip(pooled, data["records"], strict=True):
            regime.extend(recs)
    return out


def widening(params: NDArray[np.float64] | tuple[float, ...], tau: float, counts: NDArray[np.float64],
             beta: float) -> NDArray[np.float64]:
    """The family's factor per hypothesis (module docstring; :func:`cosci.tournament.bt.inflation_family`)."""
    return bt.inflation_family(tuple(params), tau, counts, beta)


def previous(tau: float, counts: NDArray[np.float64], beta: float) -> NDArray[np.float64]:
    """The widening of the last stop (×1 at τ̂ ≤ 0.6 rising linearly to ×1.10 at τ̂ ≥ 1.0, whatever ``n_i``)."""
    return np.full(counts.shape, 1.0 + 0.10 * min(max((tau - 0.6) / 0.4, 0.0), 1.0))


def coverages(records: list[list[Record]], factor) -> NDArray[np.float64]:  # type: ignore[no-untyped-def]
    """Coverage per regime (the plain schedule, no design effect) when the unwidened sd is multiplied by
    ``factor(tau, counts, beta)``."""
    return np.asarray([np.mean(np.concatenate([z <= Z95 * factor(tau, n, beta) for z, n, tau, beta, *_ in regime]))
                       for regime in records])


class Stacked:
    """Records of one or more judges as arrays, for a fast coverage of any coefficients: ``cell`` the (judge,
    regime) cell of each trial; ``z``, ``counts``, ``deff`` ``(trials, N)``; ``tau``, ``beta``, ``rho``
    ``(trials,)``."""

    def __init__(self, by_judge: list[list[list[Record]]]) -> None:
        flat = [(j * len(REGIMES) + r, rec) for j, regimes in enumerate(by_judge)
                for r, regime in enumerate(regimes) for rec in regime]
        self.cells = len(by_judge) * len(REGIMES)
        self.cell = np.asarray([c for c, _ in flat])
        self.z = np.stack([rec[0] for _, rec in flat])
        self.y = np.log(np.clip(np.stack([rec[1] for _, rec in flat]), 2.0, 60.0) / 10.0)
        self.x = np.log(np.maximum(np.asarray([rec[2] for _, rec in flat]), 1e-6))[:, None]
        self.k = np.abs(np.asarray([rec[3] for _, rec in flat]))[:, None] * np.exp(-0.5 * self.y)
        self.limit = self.z / np.sqrt(np.stack([rec[4] for _, rec in flat])) / Z95
        self.rho = np.asarray([rec[5] for _, rec in flat])[:, None]
        self.size = np.bincount(self.cell, minlength=self.cells) * self.z.shape[1]

    def coverage(self, coef: tuple[float, ...] | NDArray[np.float64] | None) -> NDArray[np.float64]:
        """Per cell, the share of intervals covering: ``z ≤ 1.96·f·√deff`` with ``f`` :func:`widening` at
        ``coef`` (None: no widening, the design effect alone)."""
        if coef is None:
            hit = self.limit <= 1.0
        else:
            a, b, c, d, e, g, h, i, j, k, m = (*coef, 0.0, 0.0, 0.0, 0.0, 0.0)[:11]
            log_f = (a + b * self.x + c * self.y + d * self.x * self.y + (e + g * self.x) * self.k
                     + (h + i * self.y + j * self.x) * self.rho + (k + m * self.x) * np.minimum(self.y, 0.0))
            hit = np.log(np.maximum(self.limit, 1e-300)) <= log_f
        return np.bincount(self.cell, weights=hit.sum(axis=1), minlength=self.cells) / np.maximum(self.size, 1)


def stacked_loss(coverage: NDArray[np.float64]) -> float:
    """The choice's loss: the worst cell's |coverage − 0.95| plus a tenth of the mean (:func:`fit_stacked`)."""
    dev = np.abs(coverage - 0.95)
    return float(dev.max() + 0.1 * dev.mean())


BAND = (0.935, 0.965)
"""``--band``'s default margin band: 0.005 inside the acceptance's 0.93-0.97, about 1.5 standard errors of a cell
on 350 tuning trials (bench/README.md, twentieth stop)."""


def band_loss(coverage: NDArray[np.float64], band: tuple[float, float] = BAND) -> float:
    """``--choose --band``'s loss: the sum over (judge, regime) cells of each cell's distance outside ``band`` (0
    inside), so every cell outside counts and no single noisy cell fixes the choice as the minimax loss's worst
    cell did (bench/README.md, fourteenth stop), plus a hundredth of the mean |coverage − 0.95| (a slope inside
    the band for the simplex)."""
    lo, hi = band
    outside = np.maximum(lo - coverage, 0.0) + np.maximum(coverage - hi, 0.0)
    return float(outside.sum() + 0.01 * np.abs(coverage - 0.95).mean())


def fit_stacked(data: Stacked, starts: list[tuple[float, ...]], free: tuple[int, ...] = tuple(range(9)),
                loss_of: Callable[[NDArray[np.float64]], float] = stacked_loss) -> tuple[float, ...]:
    """The nine coefficients (eleven when ``free`` holds 9 or 10: the few-verdict term; those at ``free`` positions
    fitted, the rest 0) minimising ``loss_of`` of the cells' coverage (default: the worst cell's |coverage − 0.95|
    plus a tenth of the mean); ``starts`` give the free ones."""

    def full(q: NDArray[np.float64]) -> NDArray[np.float64]:
        p = np.zeros(max(9, max(free) + 1))
        p[list(free)] = q
        return p

    def loss(q: NDArray[np.float64]) -> float:
        return loss_of(data.coverage(full(q)))

    best = None
    for start in starts:
        res = minimize(loss, np.asarray(start, np.float64), method="Nelder-Mead",
                       options={"xatol": 1e-4, "fatol": 1e-6, "maxiter": 4000})
        if best is None or res.fun < best.fun:
            best = res
    assert best is not None
    return tuple(round(float(x), 4) for x in full(best.x))


BEFORE = (0.0843, 0.0767, -0.0046, -0.0817, 0.0126, 0.009)
"""``bt.CI_FAMILY`` before the eleventh stop (bench/README.md): chosen on the plain schedule, earlier sampler."""
FEW_STARTS = ((0.0, 0.0), (-0.05, 0.05), (-0.05, -0.05), (0.05, 0.05))
"""Starts of the few-verdict term ``(k, l)`` (``--band``'s ``chosen-few``; non-zero ones, since Nelder–Mead's first
simplex around a zero coordinate is 0.00025 wide, too narrow for a coverage that moves in steps)."""
REPEAT_STARTS = ((0.0, 0.0, 0.0), (-0.03, 0.11, 0.0), (-0.05, 0.1, 0.05), (-0.05, 0.1, 0.1), (-0.1, 0.1, 0.1))
"""Nelder–Mead starts of the repeat-share family ``(h, i, j)`` (the other six 0; deterministic)."""


def _table(cols: dict[str, NDArray[np.float64]], judges: list[str | None]) -> None:
    print(f"{'judge':>11} {'spread':>6} {'v/h':>4} {'bias':>4} " + " ".join(f"{k:>10}" for k in cols))
    for j, model in enumerate(judges):
        for r, (s, v, b) in enumerate(REGIMES):
            cell = j * len(REGIMES) + r
            print(f"{model!s:>11} {s:6.1f} {v:4d} {b:4.1f} " + " ".join(f"{c[cell]:10.3f}" for c in cols.values()))
        part = {k: c[j * len(REGIMES):(j + 1) * len(REGIMES)] for k, c in cols.items()}
        print(f"{model!s:>11} {'lowest':>16} " + " ".join(f"{c.min():10.3f}" for c in part.values()))
        print(f"{model!s:>11} {'highest':>16} " + " ".join(f"{c.max():10.3f}" for c in part.values()))
        inside = [int(np.sum((c >= 0.93) & (c <= 0.97))) for c in part.values()]
        print(f"{model!s:>11} {'inside 0.93-0.97':>16} " + " ".join(f"{k:10d}" for k in inside))


def _ranges(loaded: dict[str | None, tuple[list[list[Record]], list[tuple[int, int]]]]) -> str:
    return "; ".join(f"{m}: trials " + ", ".join(f"{lo}-{hi}" for lo, hi in sorted(r)) + f" ({len(recs[0])} a regime)"
                     for m, (recs, r) in loaded.items())


def choose_on(paths: list[str], band: tuple[float, float] | None = None) -> None:
    """``--coverage --choose --records PATH…``: the widening chosen on tuning records pooled over their judges
    (every (judge, regime) cell weighs the same), beside the shipped one and none (the design effect alone);
    ``--band LO HI`` adds ``chosen-band``, the nine coefficients refitted by :func:`band_loss` (started from the
    other columns), and ``chosen-few``, eleven (the few-verdict term too) by the same loss."""
    started = time.monotonic()
    loaded = load_records(paths)
    judges = list(loaded)
    data = Stacked([loaded[m][0] for m in judges])
    six = fit_stacked(data, [tuple(s) for s in STARTS], free=tuple(range(6)))
    params = fit_stacked(data, list(REPEAT_STARTS), free=(6, 7, 8))
    nine = fit_stacked(data, [six, params, tuple(bt.CI_FAMILY), (*six[:6], *params[6:])])
    cols = {"deff only": data.coverage(None), "before": data.coverage(BEFORE), "shipped": data.coverage(bt.CI_FAMILY),
            "chosen-6": data.coverage(six), "chosen-rho": data.coverage(params), "chosen-9": data.coverage(nine)}
    if band is not None:
        fitted = fit_stacked(data, [nine, tuple(bt.CI_FAMILY), six, params, (0.0,) * 9],
                             loss_of=lambda c: band_loss(c, band))
        cols["chosen-band"] = data.coverage(fitted)
        few = fit_stacked(data, [(*fitted, *kl) for kl in FEW_STARTS] + [(*bt.CI_FAMILY, *kl) for kl in FEW_STARTS],
                          free=tuple(range(11)), loss_of=lambda c: band_loss(c, band))
        cols["chosen-few"] = data.coverage(few)
    _table(cols, judges)
    print(f"# chosen-6 (a, b, c, d, e, g) = {six[:6]}")
    print(f"# chosen-rho (a, …, g, h, i, j) = {params}")
    print(f"# chosen-9 (a, …, j) = {nine}  (bt.CI_FAMILY; bt.inflation_family)")
    print("# loss (worst |coverage − 0.95| + a tenth of the mean): " + ", ".join(
        f"{k} {stacked_loss(c):.4f}" for k, c in cols.items()))
    if band is not None:
        print(f"# chosen-band (a, …, j) = {fitted}  (loss: distance outside {band[0]}-{band[1]} summed over cells)")
        print(f"# chosen-few (a, …, j, k, l) = {few}  (the same loss; + (k + l·log τ̂)·min(log(n_i/10), 0))")
        print("# band loss: " + ", ".join(f"{k} {band_loss(c, band):.4f}" for k, c in cols.items()))
    print(f"# tuning records {_ranges(loaded)}, N={N_HYP}, {time.monotonic() - started:.0f} s")


def coverage_table(paths: list[str]) -> None:
    """``--coverage --records PATH…``: the shipped interval's coverage (``bt.CI_FAMILY`` and the design effect) per
    judge and regime on the records' trials; the same figures as ``--coverage --judge …`` on those trials, without
    refitting (the fit's point and unwidened sd do not depend on the widening)."""
    loaded = load_records(paths)
    judges = list(loaded)
    data = Stacked([loaded[m][0] for m in judges])
    _table({"eb_is+order": data.coverage(bt.CI_FAMILY)}, judges)
    print(f"# coverage of the shipped interval, bt.CI_FAMILY = {bt.CI_FAMILY}; records {_ranges(loaded)}, "
          f"N={N_HYP}")


STARTS = ([0.036, 0.0625, 0.0, 0.0, 0.054, 0.0], [0.0, 0.05, 0.0, 0.0, 0.0, 0.1], [0.03, 0.05, 0.0, 0.0, 0.05, 0.1],
          [0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.05, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.05, 0.02, 0.0, 0.05, 0.0],
          [0.0438, 0.0531, -0.0021, -0.0016, 0.0678, 0.0986], [0.0614, 0.0452, -0.0047, -0.0945, 0.012, -0.0267])
"""Nelder–Mead starts (deterministic: the same records give the same choice). The last two: the widening chosen on
trials 1000-1099 at the third stop, and the best point an exploratory search found on trials 1000-1399 (the
simplex is path-dependent, so a start near it is kept)."""


def collect(first_trial: int, trials: int, workers: int, model: str | None = None) -> list[list[Record]]:
    """Records per regime (:data:`bench.ranking_coverage.REGIMES` order) on trials ``first_trial`` onward, under
    the ``model`` judge's schedule (None: the plain one)."""
    jobs = [(s, v, b, t, model) for s, v, b in REGIMES for t in range(first_trial, first_trial + trials)]
    if workers == 1:  # in this process: no worker to start and import cosci again (the same records)
        one_thread()
        flat = [record_trial(job) for job in jobs]
    else:
        with ProcessPoolExecutor(workers, initializer=one_thread) as pool:
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
