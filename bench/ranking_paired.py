"""Variants of the simulated session paired on the same trials: the escalation's share (issue 52; bench/README.md,
twenty-third stop; design.md#position-bias).

``python -m bench.ranking_paired --judges memory --first-trial 5400 --trials 150 --out PATH`` runs ``--variants``
(default ``session``, ``session+escalation-0``, ``session+escalation-1`` of :data:`bench.ranking_session.VARIANTS`;
the first is the baseline) back to back on each trial, at bias 0.3 and both budgets (12 and 24 calls a hypothesis),
in this one process: per trial and judge it prints one line and appends one JSON record to ``PATH`` before the next
trial starts, so a killed run loses at most the trial under way, and a rerun with the same ``PATH`` skips the
(judge, trial) records already there. With several ``--judges`` each trial is run under each before the next trial.

``python -m bench.ranking_paired --summary PATH…``: per judge, budget and variant, the mean paired difference of
the leaderboard's top-5 recall (Bradley–Terry) from the baseline ± its standard error over the trials, and per
trial the mean dual-order matches of the sample and the escalation (:func:`bench.ranking_session.dual_kind`), then
:func:`choose`'s rule for each variant.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bench.ranking_coverage import one_thread
from bench.ranking_judges import JUDGES
from bench.ranking_session import DUAL_KINDS, VARIANTS, run_trial

ARMS = ("session", "session+escalation-0", "session+escalation-1")
"""The default variants: the shipped escalation share (0.5), none (0) and every close pair (1)."""
BUDGETS = (12, 24)
BIAS = 0.3
Record = dict[str, Any]
"""``{"judge", "trial", "bias", "cpu_s", "variants": {name: {budget: {"recall", "elo", "calls", "draws", *kinds,
"capped", "reruns"}}}}`` (budgets as strings, JSON's keys)."""


def one(judge: str, trial: int, variants: Iterable[str], budgets: tuple[int, ...] = BUDGETS) -> Record:
    """The record of one trial under ``judge``: every variant on the same trial's qualities and judge seed."""
    started = time.process_time()
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name in variants:
        cfg, opts = VARIANTS[name]
        tally: dict[int, dict[str, int]] = {}
        res = run_trial(cfg, BIAS, trial, budgets, 40, 1, opts, judge, tally=tally)
        out[name] = {str(c): {"recall": res[c][1], "elo": res[c][0], "calls": res[c][2], "draws": res[c][3],
                              **tally[c]} for c in budgets}
    return {"judge": judge, "trial": trial, "bias": BIAS, "cpu_s": round(time.process_time() - started, 1),
            "variants": out}


def line(rec: Record) -> str:
    """One printed line of a record: per budget, each variant's recall and its dual-order matches
    (sample/escalation/quota)."""
    parts = [f"{rec['judge']:>11} {rec['trial']:5d}"]
    for c in next(iter(rec["variants"].values())):
        cells = [f"{v['recall']:.1f} {v['sample']}/{v['escalation']}/{v['quota']}"
                 for v in (per[c] for per in rec["variants"].values())]
        parts.append(f"@{c}: " + "  ".join(cells))
    return " | ".join(parts) + f" | {rec['cpu_s']:.0f} s CPU"


def load(paths: Iterable[str]) -> list[Record]:
    """The records of ``paths`` (JSON lines; a missing file holds none), the last of a repeated (judge, trial)."""
    by: dict[tuple[str, int], Record] = {}
    for path in paths:
        p = Path(path)
        for text in p.read_text(encoding="utf-8").splitlines() if p.exists() else []:
            if text.strip():
                rec = json.loads(text)
                by[(rec["judge"], rec["trial"])] = rec
    return list(by.values())


def paired(records: list[Record], base: str, variant: str, budget: int) -> tuple[float, float, int]:
    """``(mean, standard error, trials)`` of ``variant``'s recall minus ``base``'s on the same trial at ``budget``
    (NaN standard error below two trials)."""
    d = [r["variants"][variant][str(budget)]["recall"] - r["variants"][base][str(budget)]["recall"]
         for r in records if variant in r["variants"] and base in r["variants"]]
    if not d:
        return math.nan, math.nan, 0
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else math.nan
    return statistics.mean(d), se, len(d)


def choose(diff: dict[tuple[str, int], tuple[float, float, int]]) -> tuple[bool, list[str]]:
    """The rule committed before any result was read (bench/README.md, twenty-third stop): a share goes on to
    validation iff under ``memory`` the mean paired difference at 12 calls is > 0 by at least one standard error
    and at 24 calls ≥ −0.01, and under ``independent`` > 0 at 12 calls and ≥ −0.02 at 24. ``diff``: per (judge,
    budget) :func:`paired`'s triple. Returns (passes, the failed conditions)."""
    tests = {
        "memory @12 > 0 by ≥ 1 se": lambda m, se: m > 0 and m >= se,
        "memory @24 ≥ -0.01": lambda m, se: m >= -0.01,
        "independent @12 > 0": lambda m, se: m > 0,
        "independent @24 ≥ -0.02": lambda m, se: m >= -0.02,
    }
    keys = [("memory", 12), ("memory", 24), ("independent", 12), ("independent", 24)]
    failed = [name for (name, test), key in zip(tests.items(), keys, strict=True)
              if key not in diff or diff[key][2] == 0 or not test(diff[key][0], diff[key][1])]
    return not failed, failed


def summary(paths: list[str], variants: tuple[str, ...] = ARMS) -> None:
    """``--summary``: the paired table and the rule (module docstring)."""
    records = load(paths)
    base = variants[0]
    print(f"{'judge':>11} {'calls/h':>7} {'variant':24} {'trials':>6} {'recall':>6} {'minus ' + base:>16} "
          f"{'sample':>6} {'escal.':>6} {'quota':>6} {'capped':>6} {'reruns':>6}")
    diffs: dict[str, dict[tuple[str, int], tuple[float, float, int]]] = {v: {} for v in variants[1:]}
    for judge in JUDGES:
        mine = [r for r in records if r["judge"] == judge and all(v in r["variants"] for v in variants)]
        if not mine:
            continue
        for c in BUDGETS:
            for v in variants:
                cells = [r["variants"][v][str(c)] for r in mine]
                mean_of = {k: statistics.mean(x[k] for x in cells) for k in ("recall", *DUAL_KINDS, "capped",
                                                                            "reruns")}
                if v == base:
                    shown = f"{'':>16}"
                else:
                    m, se, _ = diffs[v].setdefault((judge, c), paired(mine, base, v, c))
                    shown = f"{m:+8.3f} ± {se:5.3f}"
                print(f"{judge:>11} {c:7d} {v:24} {len(mine):6d} {mean_of['recall']:6.3f} {shown}"
                      f" {mean_of['sample']:6.1f} {mean_of['escalation']:6.1f} {mean_of['quota']:6.1f}"
                      f" {mean_of['capped']:6.1f} {mean_of['reruns']:6.1f}")
        trials = sorted(r["trial"] for r in mine)
        print(f"# {judge}: trials {trials[0]}-{trials[-1]} ({len(trials)}), "
              f"{sum(r['cpu_s'] for r in mine):.0f} s CPU")
    for v, diff in diffs.items():
        ok, failed = choose(diff)
        print(f"rule: {v} {'goes on to validation' if ok else 'does not: ' + '; '.join(failed)}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judges", nargs="+", choices=JUDGES, default=["memory"])
    ap.add_argument("--first-trial", type=int, default=5400)
    ap.add_argument("--trials", type=int, default=150)
    ap.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(ARMS),
                    help="the first is the baseline of the paired differences")
    ap.add_argument("--out", metavar="PATH", help="JSON lines, appended a trial at a time (a rerun resumes)")
    ap.add_argument("--summary", metavar="PATH", nargs="+", help="read records and print the paired table")
    args = ap.parse_args(argv)
    if args.summary:
        summary(args.summary, tuple(args.variants))
        return
    if not args.out:
        ap.error("--out PATH is required to run trials")
    one_thread()
    done = {(r["judge"], r["trial"]) for r in load([args.out])}
    started = time.monotonic()
    for trial in range(args.first_trial, args.first_trial + args.trials):
        for judge in args.judges:
            if (judge, trial) in done:
                continue
            rec = one(judge, trial, args.variants)
            with open(args.out, "a", encoding="utf-8") as f:
                f.write(json.dumps(rec) + "\n")
            print(line(rec) + f" | {time.monotonic() - started:.0f} s wall", flush=True)
    print(f"# trials {args.first_trial}-{args.first_trial + args.trials - 1}, judges {' '.join(args.judges)}, "
          f"{time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
