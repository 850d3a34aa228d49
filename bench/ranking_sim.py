"""Ranking simulator: how much of the true top 5 does the tournament recover? (design.md#tournament)

``python -m bench.ranking_sim``: the ``session`` variant at bias 0.3 under both simulated judges
(:mod:`bench.ranking_judges`: ``independent`` and ``memory``; ``--judge`` for one), then per judge and budget the
session's recall beside :mod:`bench.ranking_bound`'s idealised allocation on the same trials and their ``ratio to
bound`` (design.md#judge-memory). Under the judge with memory a rerun of an ordered pair mostly repeats itself
and the order effect varies by pair; the description below is the independent judge's.

Scheme: N = 40 hypotheses with latent quality q ~ N(0, 1); a simulated judge whose log-odds of
picking the hypothesis shown first is ``(q_first − q_second) + ε + bias``, ε ~ N(0, 1) drawn per call and
``bias`` ∈ {0, 0.3, 0.6} logits toward the first-shown; 30 trials; recall of the true top 5 after 12 and 24
LLM calls per hypothesis. A budget of ``c`` calls per hypothesis is ``c·N`` judge calls in all (``--per 2``:
``c·N/2``); one call involves two hypotheses, so each takes part in ``2c`` verdicts on average; a dual-order match
costs two calls. :mod:`bench.ranking_bound` asks what an idealised allocation of the same calls recovers.

It drives cosci's real tournament code with the simulated judge in place of the LLM: the plan of each match
(:func:`cosci.tournament.engine.plan_match`: pair selection by ``ranking.pairing``, mode, presentation order,
dual-order rule), :func:`~cosci.tournament.judging.resolve` (agreement wins, disagreement draws), the store's Elo
rule (:class:`~cosci.tournament.elo.EloRule`, the same call ``Matches.apply`` makes) and the Bradley–Terry refit
after every round of one match (:func:`~cosci.tournament.bt.fit_bt`). Recall is measured on the leaderboard a
scientist reads: Elo for the ``elo_buckets`` variant, BT score for the others; both are printed. ``default`` is
the shipped ``conf/ranking/default.yaml`` (read at start); ``elo_buckets`` is the same with ``pairing=elo_buckets``.
Variants ``*+sample-0.1`` judge a 10 % sample of matches in both orders (``ranking.dual_order_sample: 0.1``);
:class:`SimOpts` says how they feed the fit (``old``: the earlier half-win, N(0, 1), Laplace fit; ``order``: with
the first-shown ids; ``calls``: a verdict per call; ``2judges``: every other call by a judge of noise sd 2,
``+labels`` telling the fit which). The pairing reads a ``laplace`` fit after every match, as the session does
(:data:`cosci.tournament.uncertainty.PAIRING_FIT`; 4 ms); the leaderboard is the ``eb_is`` fit, read at each
budget. ``default`` passes the first-shown ids (``first=``) to both, as the session does; ``noorder`` does not;
``before`` pairs on ``eb_is`` without them (the session at the previous stop; ~50 ms a refit, slow).
``session+cap`` also applies the rematch cap (``ranking.max_matches_per_pair``), as a session does; the other
variants do not, so theirs are upper bounds.
``--pair-scores``: how closely the pair scores on each fit method track the half-win fit's.

``python -m bench.ranking_sim --coverage``: the coverage of the fit's 95 % intervals per regime
(:mod:`bench.ranking_coverage`; 200 trials a regime unless ``--trials``); ``--coverage --choose --first-trial 1000
--trials 400``: how the interval's widening was chosen on those trials (:mod:`bench.ranking_calibration`);
``--coverage --judge J --record PATH`` / ``--coverage [--choose] --records PATH…``: the same fits kept as records, the
widening chosen on tuning records of both judges and the shipped interval's coverage read from fresh ones.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np
from numpy.typing import NDArray

from bench.ranking_calibration import choose as choose_widening
from bench.ranking_coverage import ALL_METHODS, JUDGE_METHODS, old_fit, one_thread
from bench.ranking_coverage import main as coverage_main
from bench.ranking_judges import JUDGES
from bench.ranking_session import VARIANTS, SimOpts, run_trial, shipped_ranking
from cosci.tournament.bt import BTFit, Verdict, fit_bt
from cosci.tournament.engine import TournamentCfg

__all__ = ["VARIANTS", "main", "run_trial"]
"""The simulated session (:func:`run_trial`, :data:`VARIANTS`) lives in :mod:`bench.ranking_session`."""


RECALL_TRIALS = 30
"""Default trials of a recall row (``--trials``)."""
COVERAGE_TRIALS = 200
"""Default trials per regime of ``--coverage``: a trial's 40 intervals share its fitted τ̂ and β̂, so a trial counts
as about one observation: one regime's coverage over 30 trials has a standard error of 0.010-0.015 (measured on
1,000 tuning trials), too coarse for a 0.93-0.97 band; over 200 it is 0.004-0.006 (bench/README.md,
design.md#tournament)."""


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=None,
                    help=f"trials per row (default {RECALL_TRIALS}; --coverage: {COVERAGE_TRIALS} per regime)")
    ap.add_argument("--bias", type=float, nargs="+", default=[0.3])
    ap.add_argument("--variants", nargs="+", default=["session"], choices=list(VARIANTS))
    ap.add_argument("--all", action="store_true", help="run the variants at every bias")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                    help="ranking.* overrides for 'default' (e.g. warmup_matches=3), for tuning")
    ap.add_argument("--cap", type=int, default=None, metavar="N",
                    help="the rematch cap of the *+cap variants (default: the shipped ranking.max_matches_per_pair)")
    ap.add_argument("--budgets", type=int, nargs="+", default=[12, 24])
    ap.add_argument("--first-trial", type=int, default=0, help="tune on other trials than the reported ones")
    ap.add_argument("--per", type=int, default=1, help="c calls per hypothesis means c*N/per calls in all")
    ap.add_argument("--workers", type=int, default=2, help="processes (the table is printed at the end)")
    ap.add_argument("--coverage", action="store_true",
                    help="coverage of the BT 95 %% intervals per regime (bench/ranking_coverage.py)")
    ap.add_argument("--methods", nargs="+", default=None, choices=list(ALL_METHODS),
                    help="--coverage: interval methods to compare (default: all; with --judge the shipped "
                    "interval and the same without the design effect, no bootstrap)")
    ap.add_argument("--boot", type=int, default=100, help="--coverage: bootstrap resamples")
    ap.add_argument("--judges2", action="store_true",
                    help="--coverage: half the verdicts from a second judge of reliability 0.5")
    ap.add_argument("--choose", action="store_true",
                    help="--coverage: choose the eb_is widening on these (tuning) trials "
                    "(bench/ranking_calibration.py)")
    ap.add_argument("--band", type=float, nargs=2, default=None, metavar=("LO", "HI"),
                    help="--coverage --choose --records: also refit the widening by the cells' distance outside "
                    "LO-HI (bench/ranking_calibration.py, band_loss; e.g. 0.935 0.965), with and without a "
                    "few-verdict term")
    ap.add_argument("--judge", choices=JUDGES, default=None,
                    help="the simulated judge (bench/ranking_judges.py); --coverage: on a schedule with rematches")
    ap.add_argument("--record", metavar="PATH", default=None,
                    help="--coverage: write the shipped fit's records of these trials (--judge's schedule) to PATH")
    ap.add_argument("--records", metavar="PATH", nargs="+", default=None,
                    help="--coverage: read records (--record) instead of fitting: the shipped interval's coverage "
                    "per judge; with --choose, choose the widening on them (pooled over their judges)")
    ap.add_argument("--pair-scores", action="store_true",
                    help="agreement of the pairing's scores on each fit method with the half-win fit's")
    args = ap.parse_args(argv)
    args.trials = args.trials or (COVERAGE_TRIALS if args.coverage else RECALL_TRIALS)
    if args.pair_scores:
        pair_agreement(args.first_trial, args.trials)
        return
    if args.coverage and (args.record or args.records):
        _records(args)
        return
    if args.coverage and args.choose:
        choose_widening(args.first_trial, args.trials, args.workers)
        return
    if args.coverage:
        methods = args.methods or list(ALL_METHODS if args.judge is None else JUDGE_METHODS)
        coverage_main(args.trials, args.first_trial, methods, args.workers, args.boot, args.judges2, args.judge)
        return
    budgets = tuple(args.budgets)
    started = time.monotonic()
    rows = recall_rows(args)
    trials = range(args.first_trial, args.first_trial + args.trials)
    jobs = [(cfg, bias, t, budgets, 40, args.per, opts, model) for _, cfg, opts, bias, model in rows for t in trials]
    with ProcessPoolExecutor(args.workers, initializer=one_thread) as pool:
        results = []
        for done, one in enumerate(pool.map(_trial, jobs, chunksize=1), 1):
            results.append(one)
            print(f"# {done}/{len(jobs)} {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    print(f"{'variant':24} {'judge':>11} {'bias':>4} {'calls/h':>7} {'recall (leaderboard)':>21} {'by Elo':>6} "
          f"{'by BT':>6} {'LLM calls':>9} {'draws':>6} {'r2':>5}")
    for n, (name, cfg, _, bias, model) in enumerate(rows):
        res = results[n * len(trials):(n + 1) * len(trials)]
        for c in budgets:
            elo = [r[c][0] for r in res]
            bt = [r[c][1] for r in res]
            board = elo if cfg.pairing == "elo_buckets" else bt
            print(f"{name:24} {model:>11} {bias:4.1f} {c:7d} {statistics.mean(board):14.3f} ± {_sd(board):.3f}"
                  f" {statistics.mean(elo):6.3f} {statistics.mean(bt):6.3f}"
                  f" {statistics.mean(r[c][2] for r in res):9.0f} {statistics.mean(r[c][3] for r in res):6.1f}"
                  f" {statistics.mean(r[c][4] for r in res):5.2f}")
    if args.per == 1:
        bound_rows(rows, results, trials, budgets)
    print(f"# trials {args.first_trial}-{args.first_trial + args.trials - 1}, N=40, budget c calls per hypothesis = "
          f"c*40/{args.per} LLM calls, "
          f"{time.monotonic() - started:.0f} s")


def _records(args: argparse.Namespace) -> None:
    """``--coverage --record`` / ``--records`` (:mod:`bench.ranking_calibration`)."""
    from bench import ranking_calibration as rc

    if args.record:
        rc.save_records(args.record, args.first_trial, args.trials, args.workers, args.judge)
    elif args.choose:
        rc.choose_on(args.records, tuple(args.band) if args.band else None)
    else:
        rc.coverage_table(args.records)


Row = tuple[str, TournamentCfg, SimOpts, float, str]


def recall_rows(args: argparse.Namespace) -> list[Row]:
    """``(variant, plan settings, options, bias, judge)`` per row of the recall table, from the arguments."""
    rows = []
    for name in args.variants:
        cfg, opts = VARIANTS[name]
        if args.cap is not None:
            opts = replace(opts, cap_value=args.cap)
        if args.set:
            cfg = replace(TournamentCfg.from_config(shipped_ranking(dict(kv.split("=", 1) for kv in args.set))),
                          dual=cfg.dual, pairing=cfg.pairing)
        rows += [(name, cfg, opts, bias) for bias in args.bias if "+" not in name or bias == 0.3 or args.all]
    models = [args.judge] if args.judge else list(JUDGES)
    return [(*row, model) for model in models for row in rows]


def qualities(trial: int, n: int = 40) -> NDArray[np.float64]:
    """The ``(n,)`` true qualities of a trial (:func:`run_trial`'s draw)."""
    return np.asarray(np.random.default_rng(1000 + trial).normal(size=n), np.float64)


def bound_recall(model: str, calls: int, trial: int) -> float:
    """:mod:`bench.ranking_bound`'s ``direct boundary`` recall on ``trial``'s qualities at ``calls`` a hypothesis,
    under the ``model`` judge: a verdict carries the information of a draw whose noise also holds the pair's order
    effect (sd :data:`bench.ranking_judges.ORDER_SD`), and under the judge with memory a call on a pair is answered
    as that judge answers it (:class:`bench.ranking_bound.Memory`: a replayed order copies its last verdict with
    probability :data:`~bench.ranking_judges.REPEAT`, the order effect is the pair's own; bench/README.md, nineteenth
    stop)."""
    from bench import ranking_bound as rb
    from bench.ranking_judges import ORDER_SD, REPEAT

    if model == "independent":
        return rb.trial(10**6 + trial, calls, 1.0, "boundary", rb.verdict_information(), quality=qualities(trial))
    return rb.trial(10**6 + trial, calls, 1.0, "boundary", rb.verdict_information(math.hypot(1.0, ORDER_SD)),
                    quality=qualities(trial), memory=rb.Memory(REPEAT, ORDER_SD))


def bound_rows(rows: list[Row],
               results: list[dict[int, tuple[float, float, int, int, float]]], trials: range,
               budgets: tuple[int, ...]) -> None:
    """P1 as a ratio: per variant, judge and budget, the session's recall, the bound's (:func:`bound_recall`) on the
    same trials, and the ratio of the means."""
    cache: dict[tuple[str, int, int], float] = {}
    print(f"{'variant':24} {'judge':>11} {'calls/h':>7} {'session':>8} {'bound':>8} {'ratio to bound':>15}")
    for n, (name, cfg, _, _, model) in enumerate(rows):
        res = results[n * len(trials):(n + 1) * len(trials)]
        for c in budgets:
            for t in trials:
                if (model, c, t) not in cache:
                    cache[(model, c, t)] = bound_recall(model, c, t)
            mine = statistics.mean(r[c][1] if cfg.pairing != "elo_buckets" else r[c][0] for r in res)
            bound = statistics.mean(cache[(model, c, t)] for t in trials)
            print(f"{name:24} {model:>11} {c:7d} {mine:8.3f} {bound:8.3f} {mine / bound:15.3f}")


def _sd(values: list[float]) -> float:
    """The sample standard deviation; NaN for one trial (``--trials 1``: a quick look, no spread)."""
    return statistics.stdev(values) if len(values) > 1 else math.nan


def pair_agreement(first_trial: int, trials: int, n: int = 40, m: int = 400) -> None:
    """``--pair-scores``: how closely the pairing's scores on each fit method track those on the earlier half-win
    fit (:func:`bench.ranking_coverage.old_fit`): Pearson correlation over all pairs, and how often the best pair
    is the same. Verdicts: ``m`` on random pairs of ``n`` hypotheses, q ~ N(0, 1), 5 % ties."""
    from cosci.tournament.boundary import pair_scores

    corr: dict[str, list[float]] = {"laplace": [], "eb_mix": [], "eb_is": []}
    same = dict.fromkeys(corr, 0)
    for trial in range(first_trial, first_trial + trials):
        rng = np.random.default_rng(trial)
        q = rng.normal(size=n)
        ids = [f"H{i:02d}" for i in range(n)]
        verdicts: list[Verdict] = []
        for _ in range(m):
            a, b = rng.choice(n, 2, replace=False)
            s = 1.0 if rng.random() < 1.0 / (1.0 + math.exp(-(q[a] - q[b]))) else 0.0
            verdicts.append((ids[a], ids[b], 0.5 if rng.random() < 0.05 else s))
        theta, cov = old_fit(ids, verdicts)
        iu = np.triu_indices(n, 1)
        ref = pair_scores(BTFit(tuple(ids), theta, cov, m, np.sqrt(np.diag(cov)), 0.0, 1.0), 5)[iu]
        for method in corr:
            got = pair_scores(fit_bt(ids, verdicts, method=method), 5)[iu]  # type: ignore[arg-type]
            corr[method].append(float(np.corrcoef(ref, got)[0, 1]))
            same[method] += int(np.argmax(ref) == np.argmax(got))
    for method, values in corr.items():
        print(f"{method:8} pair-score correlation with the half-win fit: mean {statistics.mean(values):.4f}, "
              f"min {min(values):.4f}; same best pair {same[method]}/{trials}")
    print(f"# trials {first_trial}-{first_trial + trials - 1}, N={n}, {m} verdicts")


Job = tuple[TournamentCfg, float, int, tuple[int, ...], int, int, SimOpts, str]


def _trial(job: Job) -> dict[int, tuple[float, float, int, int, float]]:
    cfg, bias, trial, budgets, n, per, opts, model = job
    return run_trial(cfg, bias, trial, budgets, n, per, opts, model)


if __name__ == "__main__":
    main()
