"""The claims check of ``cosci investigate write`` ("traced" / "untraced", docs/design.md#paper), measured on a
generated labelled set with its adversarial kinds. Figures go to bench/README.md.

    python -m bench.paper_claims [--trials 500] [--seed 0]

Each trial draws evidence rows as :func:`cosci.investigation.report.evidence_rows` writes them (a selected and an
initial mean with their intervals over 5 seeds, a paired gain whose sign is random) and one sentence per kind,
labelled ``traced`` or ``untraced``:

- right: the mean as written; rounded to 1-3 decimals; the seed count; the gain with its sign.
- wrong: a changed last digit at the sentence's precision; the right number citing the other program's row; no
  row cited; a row that does not exist; a negative gain with its sign dropped; the gain stated as a percentage
  (0.39 -> "39 %"); an interval bound stated as the mean (the number is in the row, in another role: the check
  reads numbers, not roles, so this kind measures that limit).

Prints, per kind, how often the check's status equals the label, and the precision and recall of ``traced``.
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict

from cosci.investigation.evidence import Interval
from cosci.investigation.paper_checks import check_claim
from cosci.investigation.report import evidence_rows

KINDS = ("exact", "rounded", "seed count", "gain with sign", "changed digit", "other row", "no row", "unknown row",
         "sign dropped", "as a percentage", "bound as mean")
TRACED = {"exact", "rounded", "seed count", "gain with sign"}


def _interval(rng: random.Random, centre: float, spread: float) -> Interval:
    mean = round(centre + rng.uniform(-spread, spread), 4)
    half = round(rng.uniform(0.001, spread), 4)
    return Interval(mean, round(mean - half, 4), round(mean + half, 4), 5, 0.95)


def _changed(value: float, decimals: int, rng: random.Random) -> str:
    step = 10 ** -decimals * rng.choice((1, 2, 3, -1, -2, -3))
    return f"{value + step:.{decimals}f}"


def trial(rng: random.Random) -> dict[str, str]:
    """``{kind: sentence}`` over one draw of rows (the rows are returned under the key ``rows`` as text)."""
    sel, init = _interval(rng, rng.uniform(0.5, 3.0), 0.3), _interval(rng, rng.uniform(0.5, 3.0), 0.3)
    gain = _interval(rng, rng.choice((-1, 1)) * rng.uniform(0.01, 0.5), 0.05)
    d = rng.choice((1, 2, 3))
    g = gain.mean
    return {
        "exact": f"The selected program reached {sel.mean:.4f} [E1].",
        "rounded": f"The selected program reached about {sel.mean:.{d}f} [E1].",
        "seed count": "Each program ran over 5 seeds [E1].",
        "gain with sign": f"The change moved the score by {g:.4f} [E3].",
        "changed digit": f"The selected program reached {_changed(sel.mean, d, rng)} [E1].",
        "other row": f"The selected program reached {init.mean:.4f} [E1].",
        "no row": f"The selected program reached {sel.mean:.4f}.",
        "unknown row": f"The selected program reached {sel.mean:.4f} [E7].",
        "sign dropped": f"The change moved the score by {abs(g):.4f} [E3]." if g < 0 else
                        f"The change moved the score by {-g:.4f} [E3].",
        "as a percentage": f"The change moved the score by {g * 100:.1f} % [E3].",
        "bound as mean": f"The selected program reached a mean of {sel.low:.4f} [E1].",
        "rows": "\n".join(r.text for r in evidence_rows("score", [("selected", sel), ("initial", init)],
                                                        [("the change", gain)])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    agree: dict[str, int] = defaultdict(int)
    tp = fp = fn = 0
    for _ in range(args.trials):
        sentences = trial(rng)
        rows = {f"E{i}": text for i, text in enumerate(sentences.pop("rows").splitlines(), 1)}
        for kind, sentence in sentences.items():
            traced = check_claim(kind, sentence, rows).status == "traced"
            expected = kind in TRACED
            agree[kind] += traced == expected
            tp += traced and expected
            fp += traced and not expected
            fn += expected and not traced
    print(f"claims check, {args.trials} trials (seed {args.seed}): status equal to the label, per kind")
    for kind in KINDS:
        label = "traced" if kind in TRACED else "untraced"
        print(f"  {kind:<16} ({label:<8}) {agree[kind]:>5}/{args.trials}  {agree[kind] / args.trials:.3f}")
    print(f"traced: precision {tp / max(1, tp + fp):.3f}, recall {tp / max(1, tp + fn):.3f}")


if __name__ == "__main__":
    main()
