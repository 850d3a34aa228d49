"""Coverage of the Bradley–Terry 95 % intervals (``python -m bench.ranking_sim --coverage``; design.md#tournament).

What is covered: the true *centred* strength ``θ_i − mean(θ)`` of every hypothesis (the fit's θ sums to 0, and
verdicts identify only differences). Coverage of a method in a regime = the share of (trial, hypothesis) pairs
whose reported 95 % interval ``[ci_low, ci_high]`` contains it.

Regime: N = 40 hypotheses (``COVER_N``), true θ_i ~ N(0, (spread/2)²) logits (±spread is the central 95 %),
``per_h`` verdicts per hypothesis on uniformly random pairs (``per_h · N / 2`` verdicts), the hypothesis shown
first drawn by a fair coin, and a
Davidson judge with a first-position bias: with ``u = (θ_first − θ_second + bias) / 2``, P(first wins) ∝ e^u,
P(second wins) ∝ e^−u, P(tie) ∝ ν = 0.3 (13 % ties between equals). The ``+order`` methods are told who was shown first
(``first=``, as the session's fit is: ``Matches.first_shown``); the others are not, so for them the bias is a
misspecification the intervals must absorb.
``--judges2``: half the verdicts come from a second judge with reliability 0.5 (its logit differences halved),
fitted with and without the judge labels; the truth is then on the fit's scale, θ times the verdict-weighted
geometric mean of the two reliabilities (√0.5).

Methods compared (``--methods``):

- ``old`` — the earlier fit: ties as half-wins, N(0, 1) prior, Laplace sd (unprojected);
- ``laplace`` — Davidson ties, N(0, 1) prior, Laplace sd;
- ``eb_ml`` — Davidson, the prior sd τ chosen by maximum (Laplace) marginal likelihood, plug-in Laplace sd of
  the centred strength;
- ``sandwich`` — ``eb_ml``'s mode with the sandwich covariance ``H⁻¹ (J + Λ) H⁻¹`` (J the empirical outer
  product of per-verdict scores, Λ the prior precision);
- ``boot`` — a parametric bootstrap around ``eb_ml`` (``--boot`` resamples of the verdicts' outcomes on the
  same pairs, τ and ν held, basic intervals ``2θ̂ − q``); seeded from the trial;
- ``eb_mix`` — the shipped default: a mixture over a τ grid weighted by marginal likelihood × hyperprior
  (:func:`cosci.tournament.bt.fit_bt`).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize_scalar
from scipy.special import expit
from threadpoolctl import threadpool_limits

from bench.ranking_judges import Judge, davidson
from cosci.tournament import bt, bt_model
from cosci.tournament.bt import Z95, Verdict, fit_bt
from cosci.tournament.rerun import design_effect, order_groups

NU_TRUE = 0.3
TRUTH = "normal"
N_HYP = int(os.environ.get("COVER_N", "40"))
"""Hypotheses per trial (the ranking simulator's N; ``COVER_N=20`` for the smaller pool)."""
BOOT_TRIALS = 30
BAND = (0.93, 0.97)
"""The coverage a nominal 95 % interval must show in every regime (issue 29's acceptance; bench/README.md)."""
REGIMES: list[tuple[float, int, float]] = (
    [(s, v, b) for s in (1.0, 2.0, 3.0, 4.0) for v in (5, 30) for b in (0.0, 0.6)]
    + [(s, 15, 0.3) for s in (1.0, 2.0, 3.0, 4.0)]
)
"""``(spread ±logits, verdicts per hypothesis, first-position bias logits)``: the corners and a middle row."""

ALL_METHODS = ("old", "laplace", "eb_ml", "sandwich", "boot", "eb_mix", "eb_mix+order", "eb_is", "eb_is+order",
               "eb_is-raw", "eb_is+order-raw", "eb_is+order-nodeff")
JUDGE_METHODS = ("eb_is+order", "eb_is+order-nodeff")
"""``--judge``'s default methods: the shipped interval, and the same fit without the reruns' design effect
(``-nodeff``, no second fit: the same intervals divided by the square root of the design effect)."""


def simulate(theta: NDArray[np.float64], per_h: int, bias: float, rng: np.random.Generator,
             rel2: float | None = None) -> tuple[list[Verdict], list[int]]:
    """Verdicts ``(a, b, score of a)`` with ``a`` the first-shown, and the judge of each (0, or 1 at ``rel2``)."""
    n = theta.size
    m = per_h * n // 2
    out, judges = [], []
    for k in range(m):
        i, j = rng.choice(n, 2, replace=False)
        g = int(rel2 is not None and k % 2 == 1)
        r = rel2 if g else 1.0
        u = 0.5 * (r * (theta[i] - theta[j]) + bias)
        pw, pl, pt = math.exp(u), math.exp(-u), NU_TRUE
        x = rng.random() * (pw + pl + pt)
        s = 1.0 if x < pw else 0.0 if x < pw + pl else 0.5
        out.append((f"H{i:02d}", f"H{j:02d}", s))
        judges.append(g)
    return out, judges


REMATCH_SHARE = 0.3
"""``--judge``: the share of verdicts that replay a pair already judged (fewer than the rematch cap's 3 times, the
order drawn again), as a session's pairing replays boundary pairs; the rest are new random pairs."""


def simulate_session(theta: NDArray[np.float64], per_h: int, bias: float, rng: np.random.Generator, model: str
                     ) -> list[Verdict]:
    """``--judge``: verdicts ``(first, second, score of first)`` of the ``model`` judge
    (:class:`bench.ranking_judges.Judge`, the coverage Davidson draw, mean bias ``bias``) on a schedule with
    :data:`REMATCH_SHARE` rematches."""
    n = theta.size
    judge = Judge(model, bias, davidson, rng)
    played: dict[tuple[int, int], int] = {}
    open_pairs: list[tuple[int, int]] = []  # the pairs judged fewer than 3 times, in the order first played
    out = []
    for _ in range(per_h * n // 2):
        if open_pairs and rng.random() < REMATCH_SHARE:
            i, j = open_pairs[int(rng.integers(len(open_pairs)))]
        else:
            i, j = sorted(int(x) for x in rng.choice(n, 2, replace=False))
        played[(i, j)] = played.get((i, j), 0) + 1
        if played[(i, j)] == 1:
            open_pairs.append((i, j))
        elif played[(i, j)] == 3:
            open_pairs.remove((i, j))
        if rng.random() < 0.5:
            i, j = j, i
        out.append((f"H{i:02d}", f"H{j:02d}", judge(f"H{i:02d}", f"H{j:02d}", float(theta[i] - theta[j]))))
    return out


def old_fit(ids: Sequence[str], verdicts: Sequence[Verdict]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The earlier fit (ties as half-wins, N(0, 1), Laplace): ``(theta, covariance)``."""
    from scipy.optimize import minimize

    pos = {h: i for i, h in enumerate(ids)}
    a = np.asarray([pos[v[0]] for v in verdicts])
    b = np.asarray([pos[v[1]] for v in verdicts])
    s = np.asarray([v[2] for v in verdicts])
    n = len(ids)

    def hess(t: NDArray[np.float64]) -> NDArray[np.float64]:
        p = expit(t[a] - t[b])
        w = p * (1 - p)
        h = np.zeros((n, n))
        np.add.at(h, (a, a), w)
        np.add.at(h, (b, b), w)
        np.add.at(h, (a, b), -w)
        np.add.at(h, (b, a), -w)
        return h + np.eye(n)

    def obj(t: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        dd = t[a] - t[b]
        r = expit(dd) - s
        g = t.copy()
        np.add.at(g, a, r)
        np.add.at(g, b, -r)
        return float(np.sum(np.logaddexp(0, dd) - s * dd) + 0.5 * t @ t), g

    res = minimize(obj, np.zeros(n), jac=True, method="trust-exact", hess=hess, options={"gtol": 1e-8})
    return np.asarray(res.x, np.float64), np.asarray(np.linalg.inv(hess(res.x)), np.float64)


def eb_ml(d: bt_model._Data) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """Plug-in τ by maximum Laplace marginal likelihood: ``(tau, x, H)``."""
    cache: dict[float, tuple[NDArray[np.float64], NDArray[np.float64]]] = {}

    def neg(lt: float) -> float:
        tau = math.exp(lt)
        x, f, h = bt_model._mode(d, 1.0 / tau**2, bt_model._start(d, None))
        cache[lt] = (x, h)
        return -bt_model.log_marginal(d, tau, x, f, h)

    res = minimize_scalar(neg, bounds=(math.log(0.05), math.log(10.0)), method="bounded",
                          options={"xatol": 1e-3})
    lt = float(res.x)
    if lt not in cache:
        neg(lt)
    x, h = cache[lt]
    return math.exp(lt), x, h


def _sandwich(d: bt_model._Data, x: NDArray[np.float64], tau: float) -> NDArray[np.float64]:
    n = d.n
    _, _, h = bt_model._terms(x, d, 1.0 / tau**2)
    # per-verdict score vectors of the log-likelihood (θ and log ν parts), by finite structure of _terms
    scores = np.zeros((d.a.size, d.size))
    theta = x[:n]
    eta = x[n] if d.ties else -np.inf
    u = 0.5 * (theta[d.a] - theta[d.b])
    log_z = np.logaddexp(np.logaddexp(u, -u), eta)
    pw, pl = np.exp(u - log_z), np.exp(-u - log_z)
    ll_u = d.c - (pw - pl)
    rows = np.arange(d.a.size)
    scores[rows, d.a] += 0.5 * ll_u
    scores[rows, d.b] -= 0.5 * ll_u
    if d.ties:
        scores[:, n] = d.t - np.exp(eta - log_z)
    lam = np.zeros((d.size, d.size))
    lam[np.arange(n), np.arange(n)] = 1.0 / tau**2
    if d.ties:
        lam[n, n] = 1.0 / bt_model.NU_PRIOR_SD**2
    hi = np.linalg.inv(h)
    return np.asarray(hi @ (scores.T @ scores + lam) @ hi, np.float64)[:n, :n]


def _boot(d: bt_model._Data, x: NDArray[np.float64], tau: float, reps: int, seed: int) -> NDArray[np.float64]:
    """Basic bootstrap 95 % intervals ``(n, 2)`` around ``x[:n]``."""
    rng = np.random.default_rng(seed)
    n = d.n
    theta = x[:n]
    nu = math.exp(x[n]) if d.ties else 0.0
    u = 0.5 * (theta[d.a] - theta[d.b])
    pw, pl = np.exp(u), np.exp(-u)
    z = pw + pl + nu
    draws = []
    for _ in range(reps):
        r = rng.random(d.a.size) * z
        t = (r >= pw + pl).astype(np.float64)
        c = np.where(r < pw, 1.0, -1.0) * (1.0 - t)
        if not t.any() and d.ties:
            t[0], c[0] = 1.0, 0.0  # keep the parameter layout (one tie)
        dd = bt_model._Data(n, d.a, d.b, c, t, d.g, d.judges, d.o, d.order_known)
        xb, _, _ = bt_model._mode(dd, 1.0 / tau**2, x.copy())
        draws.append(xb[:n] - xb[:n].mean())
    q = np.quantile(np.asarray(draws), [0.025, 0.975], axis=0)
    centre = theta - theta.mean()
    return np.stack([2 * centre - q[1], 2 * centre - q[0]], axis=1)


def _design_effect(ids: Sequence[str], verdicts: Sequence[Verdict], f: bt.BTFit) -> NDArray[np.float64]:
    """``(n,)`` the reruns' design effect ``f`` widened its interval by (:func:`cosci.tournament.rerun.design_effect`
    at the fit's ρ̂; verdicts ``(first, second, score)``)."""
    d = bt_model._data(ids, verdicts, None, [v[0] for v in verdicts])
    return design_effect(d.n, d.a, d.b, order_groups(d.a, d.b, d.o, d.g), f.rerun.repeat_used)


FITS: dict[str, tuple[bt.Method, bool, bool]] = {
    "laplace": ("laplace", False, False), "eb_mix": ("eb_mix", False, False),
    "eb_mix+order": ("eb_mix", True, False), "eb_is": ("eb_is", False, False),
    "eb_is+order": ("eb_is", True, False), "eb_is+judges": ("eb_is", True, True),
    "eb_is-raw": ("eb_is", False, False), "eb_is+order-raw": ("eb_is", True, False),
    "eb_is+order-nodeff": ("eb_is", True, False),
}
"""``fit_bt`` methods: ``(method, pass the first-shown ids, pass the judge labels)``; ``-raw``: the ``eb_is``
interval without its widening (:func:`cosci.tournament.bt.ci_inflation`), as measured before it."""


def _verdicts(theta: NDArray[np.float64], per_h: int, bias: float, rng: np.random.Generator, rel2: float | None,
              model: str | None) -> tuple[list[Verdict], list[int]]:
    """A trial's verdicts and judge labels: :func:`simulate` (no ``--judge``) or :func:`simulate_session`."""
    if model is None:
        return simulate(theta, per_h, bias, rng, rel2)
    verdicts = simulate_session(theta, per_h, bias, rng, model)
    return verdicts, [0] * len(verdicts)


def _fit_interval(name: str, ids: Sequence[str], verdicts: Sequence[Verdict], judges: Sequence[int],
                  fits: dict[tuple[bt.Method, bool, bool], bt.BTFit]
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The 95 % interval ``(low, high)`` of a :data:`FITS` method; one ``fit_bt`` call per fit, kept in ``fits``
    for the methods that read the same fit (``-raw``, ``-nodeff``)."""
    key = FITS[name]
    if key not in fits:
        method, order, labels = key
        fits[key] = fit_bt(ids, verdicts, first=[v[0] for v in verdicts] if order else None,
                           judges=judges if labels else None, method=method)
    f = fits[key]
    sd = bt_model._centred_sd(f.cov) if name.endswith("-raw") else f.sd
    if name.endswith("-nodeff"):
        sd = sd / np.sqrt(_design_effect(ids, verdicts, f))
    return f.theta - Z95 * sd, f.theta + Z95 * sd


Job = tuple[float, int, float, int, tuple[str, ...], int, float | None, int, str | None]


def coverage_trial(job: Job) -> dict[str, tuple[int, int, float, float]]:
    """One trial: method -> ``(hits, intervals, seconds, mean width)``."""
    spread, per_h, bias, trial, methods, boot_reps, rel2, first_trial, model = job
    rng = np.random.default_rng([7, trial, int(spread * 10), per_h, int(bias * 10)])
    theta = rng.normal(0.0, spread / 2, N_HYP) if TRUTH == "normal" else rng.uniform(-spread, spread, N_HYP)
    ids = [f"H{i:02d}" for i in range(N_HYP)]
    verdicts, judges = _verdicts(theta, per_h, bias, rng, rel2, model)
    # with two judges the logit scale is the verdict-weighted geometric mean of their reliabilities (as the fit's)
    scale = math.exp(float(np.mean([math.log(rel2) if g else 0.0 for g in judges]))) if rel2 else 1.0
    truth = scale * (theta - theta.mean())
    out: dict[str, tuple[int, int, float, float]] = {}

    def record(name: str, lo: NDArray[np.float64], hi: NDArray[np.float64], started: float) -> None:
        hits = int(np.sum((lo <= truth) & (truth <= hi)))
        out[name] = (hits, N_HYP, time.process_time() - started, float(np.mean(hi - lo)))

    d = bt_model._data(ids, verdicts, None)
    fits: dict[tuple[bt.Method, bool, bool], bt.BTFit] = {}
    ml: tuple[float, NDArray[np.float64], NDArray[np.float64]] | None = None
    for name in methods:
        t0 = time.process_time()
        if name == "old":
            th, cov = old_fit(ids, verdicts)
            sd = np.sqrt(np.diag(cov))
            record(name, th - Z95 * sd, th + Z95 * sd, t0)
        elif name in FITS:
            record(name, *_fit_interval(name, ids, verdicts, judges, fits), t0)
        elif name in ("eb_ml", "sandwich", "boot"):
            if ml is None:
                ml = eb_ml(d)
            tau, x, h = ml
            th = x[:N_HYP]
            if name == "eb_ml":
                sd = bt_model._centred_sd(np.asarray(np.linalg.inv(h), np.float64)[:N_HYP, :N_HYP])
                record(name, th - Z95 * sd, th + Z95 * sd, t0)
            elif name == "sandwich":
                sd = bt_model._centred_sd(_sandwich(d, x, tau))
                record(name, th - Z95 * sd, th + Z95 * sd, t0)
            elif trial < first_trial + BOOT_TRIALS:  # the bootstrap is costly: the range's first 30 trials
                ci = _boot(d, x, tau, boot_reps, seed=trial)
                record(name, ci[:, 0], ci[:, 1], t0)
    return out


def one_thread() -> None:
    """A worker's BLAS on one thread: the workers are the parallelism; on the shared 2-core machine an ``eb_is``
    fit took 1.55 s of CPU with numpy's threads and 0.39-0.46 s with one (bench/README.md, tenth stop)."""
    threadpool_limits(1)


def main(trials: int, first_trial: int, methods: Sequence[str], workers: int, boot_reps: int,
         judges2: bool, model: str | None = None) -> None:
    started = time.monotonic()
    regimes = REGIMES if not judges2 else [(s, v, 0.3) for s in (1.0, 2.0, 4.0) for v in (10, 30)]
    methods = tuple(methods) + (("eb_is+judges",) if judges2 else ())
    rel2 = 0.5 if judges2 else None
    jobs: list[Job] = [(s, v, b, t, methods, boot_reps, rel2, first_trial, model) for s, v, b in regimes
            for t in range(first_trial, first_trial + trials)]
    with ProcessPoolExecutor(workers, initializer=one_thread) as pool:
        results = list(pool.map(coverage_trial, jobs, chunksize=8))
    print(f"{'spread':>6} {'v/h':>4} {'bias':>4} " + " ".join(f"{m:>13}" for m in methods))
    totals: dict[str, list[float]] = {m: [0, 0, 0.0, 0] for m in methods}
    worst = {m: 1.0 for m in methods}
    highest = {m: 0.0 for m in methods}
    inside = dict.fromkeys(methods, 0)
    for r, (s, v, b) in enumerate(regimes):
        res = results[r * trials:(r + 1) * trials]
        cells = []
        for m in methods:
            hit = sum(x[m][0] for x in res if m in x)
            cnt = sum(x[m][1] for x in res if m in x)
            totals[m][0] += hit
            totals[m][1] += cnt
            totals[m][2] += sum(x[m][2] for x in res if m in x)
            totals[m][3] += sum(1 for x in res if m in x)
            worst[m] = min(worst[m], hit / cnt if cnt else 1.0)
            highest[m] = max(highest[m], hit / cnt if cnt else 0.0)
            inside[m] += int(cnt > 0 and BAND[0] <= hit / cnt <= BAND[1])
            cells.append(f"{hit / cnt:13.3f}" if cnt else f"{'-':>13}")
        print(f"{s:6.1f} {v:4d} {b:4.1f} " + " ".join(cells))
    print(f"{'worst':>16} " + " ".join(f"{worst[m]:13.3f}" for m in methods))
    print(f"{'highest':>16} " + " ".join(f"{highest[m]:13.3f}" for m in methods))
    print(f"{'inside ' + format(BAND[0], '.2f') + '-' + format(BAND[1], '.2f'):>16} "
          + " ".join(f"{inside[m]:13d}" for m in methods))
    print(f"{'ms / fit':>16} " + " ".join(f"{1000 * totals[m][2] / max(totals[m][3], 1):13.1f}" for m in methods))
    judged = "" if model is None else f"judge {model} ({REMATCH_SHARE:g} rematches), "
    print(f"# coverage of the centred true strength by nominal 95 % intervals; {judged}N={N_HYP}, trials "
          f"{first_trial}-{first_trial + trials - 1} per regime (boot: the first {BOOT_TRIALS}, {boot_reps} "
          f"resamples), "
          f"{time.monotonic() - started:.0f} s")
