"""Dedup thresholds per embedding model, calibrated on labelled hypothesis pairs (issue 16).

``tests/data/dedup_pairs.jsonl``: paraphrase and distinct hypothesis pairs for the three experiment domains
(oncology, liver fibrosis, AMR); distinct pairs include hard ones (same drug or same pathway, another idea).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from cosci.config.load import compose, validate
from cosci.llm.embeddings.embedder import hash_embed
from cosci.llm.embeddings.wordllama import WORDLLAMA_MODEL, wordllama_embed
from cosci.vectors.calibration import Pair, calibrate, load_pairs, pair_cosines

PAIRS = Path(__file__).resolve().parents[1] / "data" / "dedup_pairs.jsonl"


@pytest.fixture(scope="module")
def pairs() -> list[Pair]:
    return load_pairs(PAIRS)


def scores(embed: Callable[[list[str]], np.ndarray], pairs: list[Pair]) -> np.ndarray:
    return pair_cosines(embed([p.a for p in pairs]), embed([p.b for p in pairs]))


def f1_at(threshold: float, s: np.ndarray, labels: np.ndarray) -> float:
    said = s >= threshold
    tp = float((said & labels).sum())
    return 2 * tp / max(float(said.sum()) + float(labels.sum()), 1.0)


def test_the_labelled_set_covers_the_three_domains_in_balance(pairs: list[Pair]) -> None:
    for domain in ("oncology", "liver_fibrosis", "amr"):
        mine = [p for p in pairs if p.domain == domain]
        assert len(mine) >= 20
        assert sum(p.duplicate for p in mine) == len(mine) // 2


def test_the_bundled_model_dedups_better_than_hash_at_each_calibrated_threshold(pairs: list[Pair]) -> None:
    labels = np.array([p.duplicate for p in pairs])
    hashed = calibrate("hash", scores(hash_embed, pairs), labels)
    static = calibrate(WORDLLAMA_MODEL, scores(wordllama_embed, pairs), labels)
    assert static.f1 > hashed.f1 + 0.05, (static, hashed)
    assert static.precision >= 0.9 and static.recall >= 0.9


def test_the_configured_thresholds_are_the_calibrated_ones(pairs: list[Pair]) -> None:
    config = validate(compose(["models=local"]))  # conf/ as shipped (the test configs keep 0.92 for hash)
    labels = np.array([p.duplicate for p in pairs])
    for model, embed in (("hash", hash_embed), (WORDLLAMA_MODEL, wordllama_embed)):
        s = scores(embed, pairs)
        best = calibrate(model, s, labels)
        configured = config.vectors.dedup_threshold(model)
        assert configured == pytest.approx(best.threshold, abs=0.005)
        assert f1_at(configured, s, labels) == pytest.approx(best.f1)
    assert config.vectors.dedup_threshold("text-embedding-3-small") == 0.92  # hosted: the seed's value


def test_calibration_picks_the_f1_best_cut_and_the_midpoint_below_it() -> None:
    s = np.array([0.9, 0.8, 0.7, 0.75, 0.4, 0.3])
    labels = np.array([True, True, True, False, False, False])
    cal = calibrate("m", s, labels)  # cut at 0.7: 3 of 3 paraphrases, 1 false duplicate
    assert (cal.precision, cal.recall, cal.f1) == pytest.approx((0.75, 1.0, 6 / 7))
    assert cal.threshold == pytest.approx(0.55)  # halfway between 0.7 and the next score below, 0.4
