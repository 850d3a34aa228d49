"""What the default dual-order sample measures and what the position-bias test costs (design.md#position-bias).

``python -m bench.position_bias`` runs the session's own rules (:func:`cosci.tournament.judging.wants_dual_order`
with the shipped ``ranking`` config, :func:`cosci.tournament.judge_stats.position_bias`, the Wilson interval of
:class:`cosci.tournament.judge_stats.Share`) on simulated sequences, one per trial (``--first-trial``, ``--trials``):

1. dual-order matches after ``n`` matches (the hashed 10 % sample topped up by the quota), and the 95 % interval a
   flip rate of 0.2 gets from that many matches;
2. an unbiased judge (first-shown wins with probability 0.5) tested before every match, as a session does: the
   share of sequences flagged at some point, the share of tests flagged (what the escalation costs) and the share
   flagged at the end (the session's final warning);
3. a biased judge: judging calls until its interval first excludes one half.

No judge model is called: judging calls are Bernoulli draws, one per match (a dual-order match adds one more).
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics

from cosci.config.load import compose, validate
from cosci.tournament.judge_stats import Share, position_bias
from cosci.tournament.judging import DualOrderCfg, DualOrderState, wants_dual_order

FAR = 300.0
"""|ΔElo| of a pair that is not close: only the sample and the quota decide."""


def dual_counts(cfg: DualOrderCfg, trials: range, checkpoints: tuple[int, ...]) -> dict[int, list[int]]:
    """Dual-order matches after each checkpoint, one list entry per trial."""
    out: dict[int, list[int]] = {n: [] for n in checkpoints}
    for t in trials:
        dual = 0
        for k in range(max(checkpoints)):
            dual += wants_dual_order("pairwise", FAR, cfg, random.Random(0), DualOrderState(k, dual, False),
                                     key=f"{t}:T-{k}:match0")
            if k + 1 in out:
                out[k + 1].append(dual)
    return out


@functools.cache
def _biased(wins: int, calls: int) -> bool:
    return position_bias(wins, calls)


def unbiased(trials: range, calls: int) -> tuple[float, float, float]:
    """``(flagged at some point, share of tests flagged, flagged at the end)`` for a fair judge."""
    ever = tests = final = 0
    for t in trials:
        rng, wins, hit = random.Random(f"fair:{t}"), 0, False
        for n in range(1, calls + 1):
            wins += rng.random() < 0.5
            flagged = _biased(wins, n)
            tests += flagged
            hit |= flagged
        ever += hit
        final += _biased(wins, calls)
    k = len(trials)
    return ever / k, tests / (k * calls), final / k


def calls_to_detect(trials: range, p: float, cap: int = 1000) -> list[int]:
    """Judging calls until a judge whose first-shown wins have probability ``p`` is flagged (``cap`` if never)."""
    out = []
    for t in trials:
        rng, wins = random.Random(f"biased:{p}:{t}"), 0
        for n in range(1, cap + 1):
            wins += rng.random() < p
            if _biased(wins, n):
                break
        out.append(n)
    return out


def _q(xs: list[int], q: float) -> int:
    s = sorted(xs)
    return s[min(int(q * len(s)), len(s) - 1)]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--first-trial", type=int, default=0)
    ap.add_argument("--trials", type=int, default=1000)
    args = ap.parse_args(argv)
    trials = range(args.first_trial, args.first_trial + args.trials)
    ranking = validate(compose([])).ranking
    cfg = DualOrderCfg.from_config(ranking)
    print(f"trials {trials.start}-{trials.stop - 1}; ranking.dual_order={cfg.policy}, dual_order_sample={cfg.sample},"
          f" dual_order_biased_share={cfg.biased_share}")
    print("\n| matches | dual-order matches: mean | 5th-95th percentile | min "
          "| 95 % CI of a 0.2 flip rate at the mean |")
    print("|---|---|---|---|---|")
    for n, counts in dual_counts(cfg, trials, (10, 30, 100, 300)).items():
        mean = statistics.mean(counts)
        ci = Share.of(round(0.2 * mean), round(mean))
        print(f"| {n} | {mean:.1f} | {_q(counts, 0.05)}-{_q(counts, 0.95)} | {min(counts)} | "
              f"{ci.low:.2f}-{ci.high:.2f} |")
    print("\n| fair judge, calls | flagged at some point | share of tests flagged | flagged at the end |")
    print("|---|---|---|---|")
    for calls in (50, 110, 300):
        ever, tests, final = unbiased(trials, calls)
        print(f"| {calls} | {ever:.3f} | {tests:.3f} | {final:.3f} |")
    print("\n| first-shown win probability | calls to detect: median | 90th percentile |")
    print("|---|---|---|")
    for p in (0.6, 0.65, 0.7, 0.8):
        det = calls_to_detect(trials, p)
        print(f"| {p} | {_q(det, 0.5)} | {_q(det, 0.9)} |")


if __name__ == "__main__":
    main()
