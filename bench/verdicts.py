"""How often ``cosci investigate`` calls a seeded hypothesis refuted or supported, by the idea's true gain
(docs/design.md#evidence): a simulator of the evidence, run through the shipped rule
(:func:`cosci.investigation.evidence.gain` and :func:`~cosci.investigation.evidence.outcome`).

    python -m bench.verdicts [--trials 2000]

One attempt that passed gate A; its program and the program without the idea are scored on the same ``n`` evidence
seeds: each seed's score is a level (2.2, circle packing's initial program) plus a seed effect both programs share
plus each program's own noise, so the paired difference has spread ``sd`` (in the score's units). For each true
gain (as a fraction of the level) and spread: the share of trials called refuted and supported, and what the rule
before this one said: refuted whenever one search run of the idea did not beat the best (gate B missed), here
one draw of the difference at or below 0. The spreads are assumptions of the simulator, not measurements of a
task. Results: bench/README.md, "Investigation verdicts".
"""

from __future__ import annotations

import argparse

import numpy as np

from cosci.investigation.evidence import gain, outcome

LEVEL = 2.2
GAINS = (0.02, 0.01, 0.005, 0.0, -0.01)
"""True gains as fractions of the level (2 %, 1 % = the margin, 0.5 %, none, 1 % worse)."""
SPREADS = (0.01, 0.03)
"""Spread (sd) of a paired difference per seed, in the score's units (0.45 % and 1.4 % of the level)."""
ATTEMPT = [{"worker": 1, "cycle": 1, "gate_a": True, "gate_b": False}]


def rates(true_gain: float, sd: float, trials: int, n: int, margin: float, seed: int = 0) -> dict[str, float]:
    """``{"refuted", "supported", "old_refuted"}``: shares of ``trials`` (0-1)."""
    rng = np.random.default_rng(seed)
    refuted = supported = old = 0
    for _ in range(trials):
        shared = rng.normal(0.0, 0.05, n)
        without = LEVEL + shared + rng.normal(0.0, sd / np.sqrt(2), n)
        with_idea = LEVEL * (1 + true_gain) + shared + rng.normal(0.0, sd / np.sqrt(2), n)
        g = gain(dict(enumerate(with_idea.tolist())), dict(enumerate(without.tolist())), "maximize", 0.95)
        verdict = outcome(ATTEMPT, {"w1c1": g}, margin)
        refuted += verdict == "refuted"
        supported += verdict == "supported"
        old += LEVEL * true_gain + rng.normal(0.0, sd) <= 0  # one search run that did not beat the best
    return {"refuted": refuted / trials, "supported": supported / trials, "old_refuted": old / trials}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--seeds", type=int, default=5, help="evidence seeds (evidence.seeds)")
    parser.add_argument("--margin", type=float, default=0.01, help="evidence.equivalence_margin")
    args = parser.parse_args()
    print(f"{args.trials} trials, {args.seeds} seeds, margin {args.margin:g} of the level {LEVEL}")
    print(f"{'true gain':>10} {'sd':>6} {'refuted':>8} {'supported':>10} {'old rule: refuted':>18}")
    for sd in SPREADS:
        for g in GAINS:
            r = rates(g, sd, args.trials, args.seeds, args.margin)
            print(f"{g:>+10.1%} {sd:>6.2f} {r['refuted']:>8.1%} {r['supported']:>10.1%} {r['old_refuted']:>18.1%}")


if __name__ == "__main__":
    main()
