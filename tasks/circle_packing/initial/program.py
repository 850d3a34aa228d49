"""Pack 26 circles in the unit square, maximising the sum of their radii; prints the packing as JSON.

Centres start on a jittered grid; the radii for given centres are the best ones a linear program finds (maximise
the sum of radii subject to r_i + r_j <= |c_i - c_j| and each circle inside the square); a hill climb then moves
one centre at a time and keeps a move when the linear program's optimum grows.

Usage: python program.py --seed S
"""

import argparse
import json

import numpy as np
from scipy.optimize import linprog

N = 26
COLUMNS = 5          # columns of the starting grid
JITTER = 0.02        # random displacement of the starting centres
ITERATIONS = 60      # hill-climbing moves tried
STEP = 0.05          # size of a move, as a fraction of the square
SHRINK = 0.999       # radii are scaled by this to stay strictly feasible


def best_radii(centers):
    n = len(centers)
    rows, bounds = [], []
    for i in range(n):
        for j in range(i + 1, n):
            row = np.zeros(n)
            row[i] = row[j] = 1.0
            rows.append((row, float(np.linalg.norm(centers[i] - centers[j]))))
    for i in range(n):
        x, y = centers[i]
        bounds.append((0.0, max(0.0, min(x, y, 1 - x, 1 - y))))
    a = np.array([r for r, _ in rows])
    b = np.array([d for _, d in rows])
    res = linprog(-np.ones(n), A_ub=a, b_ub=b, bounds=bounds, method="highs")
    return res.x if res.success else np.zeros(n)


def start(rng):
    rows = int(np.ceil(N / COLUMNS))
    xs = (np.arange(COLUMNS) + 0.5) / COLUMNS
    ys = (np.arange(rows) + 0.5) / rows
    grid = np.array([(x, y) for y in ys for x in xs])[:N]
    return np.clip(grid + rng.normal(0.0, JITTER, grid.shape), 0.01, 0.99)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    seed = parser.parse_args().seed
    rng = np.random.default_rng(seed)
    centers = start(rng)
    radii = best_radii(centers)
    total = radii.sum()
    for _ in range(int(ITERATIONS)):
        i = rng.integers(N)
        trial = centers.copy()
        trial[i] = np.clip(trial[i] + rng.normal(0.0, STEP, 2), 0.0, 1.0)
        r = best_radii(trial)
        if r.sum() > total:
            centers, radii, total = trial, r, r.sum()
    radii = radii * SHRINK
    print(json.dumps({"centers": centers.tolist(), "radii": radii.tolist()}))


if __name__ == "__main__":
    main()
