"""Final evaluator of the treatment-effect task, independent of the search one: on a fresh replicate of the study
(one per seed, never seen in the search), the relative and absolute error of the estimate and the coverage of its
interval, with the answer's schema checked strictly.

Usage: python evaluate_final.py ANSWER.json --seed S --data DIR   (DIR/truth.json: this replicate's planted effect)
"""

import argparse
import json
import math
from pathlib import Path

KEYS = ("effect", "ci_low", "ci_high")


def finite(x):
    return type(x) in (int, float) and math.isfinite(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("answer")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", default="/data")
    args = parser.parse_args()
    truth = float(json.loads((Path(args.data) / "truth.json").read_text(encoding="utf-8"))["effect"])
    answer = json.loads(Path(args.answer).read_text(encoding="utf-8"))
    if not isinstance(answer, dict) or not all(finite(answer.get(k)) for k in KEYS):
        print(json.dumps({"metrics": {"abs_error": 1e9, "relative_error": 1e9, "covered": 0}, "correct": False}))
        return
    est, low, high = (float(answer[k]) for k in KEYS)
    error = math.fabs(est - truth)
    print(json.dumps({"metrics": {"abs_error": error, "relative_error": error / abs(truth),
                                  "covered": 1 if low <= truth <= high else 0},
                      "correct": bool(low <= est <= high and high - low < 10 * abs(truth))}))


if __name__ == "__main__":
    main()
