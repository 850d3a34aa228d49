"""Search evaluator of the treatment-effect task: compares the estimate with the planted effect of the search data.

Usage: python evaluate_search.py ANSWER.json --seed S --data DIR   (DIR/truth.json holds the planted effect)
Prints {"metrics": {"abs_error", "covered", "ci_width"}, "correct": bool}; correct: a finite estimate inside its
own finite interval.
"""

import argparse
import json
import math
import os


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("answer")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default="/data")
    args = parser.parse_args()
    with open(os.path.join(args.data, "truth.json"), encoding="utf-8") as fh:
        truth = json.load(fh)["effect"]
    with open(args.answer, encoding="utf-8") as fh:
        answer = json.load(fh)
    values = [answer.get(k) for k in ("effect", "ci_low", "ci_high")]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        print(json.dumps({"metrics": {"abs_error": 1e9, "covered": 0, "ci_width": 0.0}, "correct": False}))
        return
    effect, low, high = (float(v) for v in values)
    print(json.dumps({"metrics": {"abs_error": abs(effect - truth), "covered": int(low <= truth <= high),
                                  "ci_width": high - low},
                      "correct": low <= effect <= high}))


if __name__ == "__main__":
    main()
