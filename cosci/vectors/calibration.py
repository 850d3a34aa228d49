"""Calibrating the dedup threshold of an embedding model on labelled hypothesis pairs (design.md#routing).

A static model's cosine scale differs from a hosted one's (and from the ``hash`` embedder's), so the hosted models'
single dedup threshold (0.92, design.md#routing) cannot serve every model. :func:`calibrate` picks, for one model, the
cosine threshold that maximises F1 of "duplicate" on a labelled set of paraphrase (duplicate) and distinct
pairs; ``bench/dedup_calibration.py`` runs it on ``tests/data/dedup_pairs.jsonl`` (three experiment domains)
and the chosen values go to ``vectors.models`` in ``conf/config.yaml``. Precision and recall come from
scikit-learn's ``precision_recall_curve``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.metrics import precision_recall_curve

from cosci.imports import scikit_learn_ready


@dataclass(frozen=True)
class Pair:
    domain: str
    a: str
    b: str
    duplicate: bool


@dataclass(frozen=True)
class Calibration:
    """The F1-best threshold of one model: cosine in [-1, 1] and precision / recall / F1 there, in [0, 1]."""

    model: str
    threshold: float
    precision: float
    recall: float
    f1: float


def load_pairs(path: Path) -> list[Pair]:
    """Pairs from a JSONL file of ``{"domain", "a", "b", "label": "paraphrase" | "distinct"}``.

    Raises:
        ValueError: an unknown label.
    """
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row["label"] not in ("paraphrase", "distinct"):
            raise ValueError(f"{path}: unknown label {row['label']!r}")
        pairs.append(Pair(row["domain"], row["a"], row["b"], row["label"] == "paraphrase"))
    return pairs


def pair_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine of two ``(n, dim)`` arrays of L2-normalised vectors: ``(n,)`` float."""
    return np.einsum("ij,ij->i", a, b).astype(float)


def calibrate(model: str, scores: np.ndarray, duplicate: np.ndarray) -> Calibration:
    """The threshold with the best F1 when ``score >= threshold`` means duplicate.

    Among equally good thresholds, the midpoint between the chosen score and the next lower one is returned,
    so a new pair scoring slightly under the lowest accepted paraphrase is still judged alike.

    Args:
        scores: ``(n,)`` cosine similarities. duplicate: ``(n,)`` bool labels.
    """
    scikit_learn_ready()
    precision, recall, thresholds = precision_recall_curve(duplicate.astype(int), scores)
    f1 = 2 * precision * recall / np.maximum(precision + recall, 1e-12)
    best = int(np.argmax(f1[:-1]))  # the last point (recall 0) has no threshold
    chosen = float(thresholds[best])
    below = scores[scores < chosen]
    threshold = (chosen + float(below.max())) / 2 if below.size else chosen
    return Calibration(model, round(threshold, 3), float(precision[best]), float(recall[best]), float(f1[best]))
