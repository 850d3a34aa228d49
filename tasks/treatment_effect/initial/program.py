"""Estimate the effect of the treatment on the outcome from /data/observations.csv; prints it as JSON.

The estimate is a stratified difference in means: units are split into strata by quantiles of severity, the
treated-minus-control difference is taken in each stratum and averaged with the stratum sizes as weights; its
95 % interval uses the strata's sampling variances.

Usage: python program.py --seed S   (the data folder is $COSCI_DATA)
"""

import argparse
import csv
import json
import math
import os

N_STRATA = 2       # strata of severity
MIN_ARM = 5        # a stratum needs this many treated and control units to count
Z = 1.96           # normal quantile of the 95 % interval


def load(path):
    with open(path, encoding="utf-8") as fh:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def mean_var(values):
    m = sum(values) / len(values)
    return m, sum((v - m) ** 2 for v in values) / max(1, len(values) - 1)


def estimate(rows, n_strata):
    rows = sorted(rows, key=lambda r: r["severity"])
    size = math.ceil(len(rows) / n_strata)
    total, effect, variance = 0, 0.0, 0.0
    for k in range(n_strata):
        stratum = rows[k * size:(k + 1) * size]
        treated = [r["outcome"] for r in stratum if r["treated"] == 1]
        control = [r["outcome"] for r in stratum if r["treated"] == 0]
        if len(treated) < MIN_ARM or len(control) < MIN_ARM:
            continue
        (mt, vt), (mc, vc) = mean_var(treated), mean_var(control)
        n = len(stratum)
        total += n
        effect += n * (mt - mc)
        variance += n * n * (vt / len(treated) + vc / len(control))
    return effect / total, math.sqrt(variance) / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.parse_args()
    rows = load(os.path.join(os.environ.get("COSCI_DATA", "/data"), "observations.csv"))
    effect, se = estimate(rows, max(1, round(float(N_STRATA))))
    print(json.dumps({"effect": effect, "ci_low": effect - Z * se, "ci_high": effect + Z * se}))


if __name__ == "__main__":
    main()
