"""Search evaluator of circle packing: checks the packing with floating-point geometry (numpy), tolerance 1e-9.

Usage: python evaluate_search.py ANSWER.json --seed S --data DIR
Prints {"metrics": {"sum_of_radii": ..., "n_circles": ..., "worst_violation": ...}, "correct": bool}.
"""

import argparse
import json

import numpy as np

N = 26
TOLERANCE = 1e-9


def check(centers, radii):
    if centers.shape != (N, 2) or radii.shape != (N,):
        return False, float("inf")
    if not (np.isfinite(centers).all() and np.isfinite(radii).all()) or (radii < 0).any():
        return False, float("inf")
    walls = np.concatenate([radii - centers[:, 0], radii - centers[:, 1],
                            centers[:, 0] + radii - 1, centers[:, 1] + radii - 1])
    gaps = [radii[i] + radii[j] - np.linalg.norm(centers[i] - centers[j]) for i in range(N) for j in range(i + 1, N)]
    worst = float(max(walls.max(), max(gaps)))
    return worst <= TOLERANCE, worst


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("answer")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=None)
    args = parser.parse_args()
    with open(args.answer, encoding="utf-8") as fh:
        answer = json.load(fh)
    try:
        centers = np.asarray(answer["centers"], dtype=float)
        radii = np.asarray(answer["radii"], dtype=float)
    except (KeyError, TypeError, ValueError):
        print(json.dumps({"metrics": {"sum_of_radii": 0.0, "n_circles": 0}, "correct": False}))
        return
    ok, worst = check(centers, radii)
    total = float(radii.sum()) if ok else 0.0
    worst_out = worst if np.isfinite(worst) else 1e9
    print(json.dumps({"metrics": {"sum_of_radii": total, "n_circles": int(radii.size), "worst_violation": worst_out},
                      "correct": bool(ok)}))


if __name__ == "__main__":
    main()
