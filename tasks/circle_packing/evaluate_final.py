"""Final evaluator of circle packing, independent of the search one: exact rational arithmetic (fractions), no
tolerance, no numpy. A circle must lie inside the closed unit square and no two circles may overlap, exactly.

Usage: python evaluate_final.py ANSWER.json --seed S --data DIR
Prints {"metrics": {"sum_of_radii": ..., "n_circles": ..., "violations": ...}, "correct": bool}.
"""

import argparse
import json
import math
from fractions import Fraction

N = 26


def violations(centers, radii):
    bad = 0
    for (x, y), r in zip(centers, radii, strict=True):
        if r < 0 or x - r < 0 or y - r < 0 or x + r > 1 or y + r > 1:
            bad += 1
    for i in range(len(radii)):
        for j in range(i + 1, len(radii)):
            dx, dy = centers[i][0] - centers[j][0], centers[i][1] - centers[j][1]
            if (radii[i] + radii[j]) ** 2 > dx * dx + dy * dy:
                bad += 1
    return bad


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("answer")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=None)
    args = parser.parse_args()
    with open(args.answer, encoding="utf-8") as fh:
        answer = json.load(fh)
    try:
        raw_c, raw_r = answer["centers"], answer["radii"]
        ok_shape = len(raw_c) == N and len(raw_r) == N and all(len(c) == 2 for c in raw_c)
        finite = ok_shape and all(math.isfinite(v) for c in raw_c for v in c) and all(math.isfinite(r) for r in raw_r)
        centers = [(Fraction(c[0]), Fraction(c[1])) for c in raw_c] if finite else []
        radii = [Fraction(r) for r in raw_r] if finite else []
    except (KeyError, TypeError, ValueError):
        finite = False
    if not finite:
        print(json.dumps({"metrics": {"sum_of_radii": 0.0, "n_circles": 0, "violations": -1}, "correct": False}))
        return
    bad = violations(centers, radii)
    total = float(sum(radii)) if bad == 0 else 0.0
    print(json.dumps({"metrics": {"sum_of_radii": total, "n_circles": N, "violations": bad}, "correct": bad == 0}))


if __name__ == "__main__":
    main()
