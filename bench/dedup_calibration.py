"""Calibrate the dedup threshold of each offline embedding model on the labelled pairs (issue 16).

    python -m bench.dedup_calibration            # prints one row per model; copy the thresholds to
                                                 # vectors.models in conf/config.yaml, the rows to bench/README.md

Pairs: ``tests/data/dedup_pairs.jsonl`` (paraphrase vs distinct hypotheses for the oncology, liver fibrosis and
AMR experiments). Each model gets its own F1-best threshold (:func:`cosci.vectors.calibration.calibrate`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from cosci.llm.embeddings.embedder import hash_embed
from cosci.llm.embeddings.wordllama import WORDLLAMA_MODEL, wordllama_embed
from cosci.vectors.calibration import Calibration, calibrate, load_pairs, pair_cosines

PAIRS = Path(__file__).resolve().parents[1] / "tests" / "data" / "dedup_pairs.jsonl"
EMBEDDERS = {"hash": hash_embed, WORDLLAMA_MODEL: wordllama_embed}


def measure(path: Path = PAIRS) -> list[tuple[Calibration, float, float, float]]:
    """Per model: its calibration, mean paraphrase cosine, mean distinct cosine, texts embedded per second."""
    pairs = load_pairs(path)
    labels = np.array([p.duplicate for p in pairs])
    out = []
    for name, embed in EMBEDDERS.items():
        embed(["warm up"])
        started = time.perf_counter()
        a, b = embed([p.a for p in pairs]), embed([p.b for p in pairs])
        rate = 2 * len(pairs) / (time.perf_counter() - started)
        scores = pair_cosines(a, b)
        out.append((calibrate(name, scores, labels), float(scores[labels].mean()), float(scores[~labels].mean()),
                    rate))
    return out


def main() -> int:
    pairs = load_pairs(PAIRS)
    print(f"{len(pairs)} pairs ({sum(p.duplicate for p in pairs)} paraphrase) from {PAIRS.name}")
    print("| model | F1-best threshold | precision | recall | F1 | mean cosine paraphrase / distinct | texts/s |")
    print("|---|---|---|---|---|---|---|")
    for cal, para, dist, rate in measure():
        print(f"| {cal.model} | {cal.threshold:.3f} | {cal.precision:.2f} | {cal.recall:.2f} | {cal.f1:.2f} "
              f"| {para:.2f} / {dist:.2f} | {rate:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
