"""Generate the data of the treatment-effect task (run once; the files are committed): ``python make_data.py``.

An observational study with a planted causal effect: ``outcome = 1 + EFFECT * treated + 1.0 * severity +
0.02 * (age - 50) + noise``, where sicker patients are more often treated, so the naive difference in means is
biased upwards. Search data (seed 1000) and ten final replicates (seeds 1001-1010) are drawn independently with
disjoint unit ids; every replicate's truth file holds the planted effect.
"""

import csv
import json
from pathlib import Path

import numpy as np

EFFECT = 0.5
ROWS = 1000
REPLICATES = 10
HERE = Path(__file__).parent


def draw(seed: int, first_id: int) -> list[list[object]]:
    rng = np.random.default_rng(seed)
    age = rng.uniform(20, 80, ROWS)
    severity = rng.normal(0, 1, ROWS)
    p = 1 / (1 + np.exp(-0.8 * severity))
    treated = (rng.uniform(0, 1, ROWS) < p).astype(int)
    outcome = 1 + EFFECT * treated + 1.0 * severity + 0.02 * (age - 50) + rng.normal(0, 1, ROWS)
    return [[first_id + i, round(float(a), 2), round(float(s), 5), int(t), round(float(y), 5)]
            for i, (a, s, t, y) in enumerate(zip(age, severity, treated, outcome, strict=True))]


def write(folder: Path, name: str, rows: list[list[object]], truth: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / name).open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["unit_id", "age", "severity", "treated", "outcome"])
        out.writerows(rows)
    (folder / truth).write_text(json.dumps({"effect": EFFECT}) + "\n", encoding="utf-8")


def main() -> None:
    write(HERE / "data" / "search", "observations.csv", draw(1000, 1), "truth.json")
    for k in range(1, REPLICATES + 1):
        write(HERE / "data" / "final", f"observations_{k}.csv", draw(1000 + k, 100_000 * k), f"truth_{k}.json")


if __name__ == "__main__":
    main()
