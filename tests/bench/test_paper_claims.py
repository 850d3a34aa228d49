"""``bench/paper_claims.py``: the labelled set's right kinds trace and its wrong ones (but the documented limit)
do not, on a short run (the figures in bench/README.md come from the full one)."""

from __future__ import annotations

import random

from bench.paper_claims import KINDS, TRACED, trial
from cosci.investigation.paper_checks import check_claim


def test_a_short_run_of_the_set_gives_the_documented_shape() -> None:
    rng = random.Random(3)
    agree = dict.fromkeys(KINDS, 0)
    for _ in range(40):
        sentences = trial(rng)
        rows = {f"E{i}": text for i, text in enumerate(sentences.pop("rows").splitlines(), 1)}
        assert set(sentences) == set(KINDS)
        for kind, sentence in sentences.items():
            agree[kind] += (check_claim(kind, sentence, rows).status == "traced") == (kind in TRACED)
    assert all(agree[k] == 40 for k in ("exact", "rounded", "seed count", "gain with sign", "no row", "unknown row"))
    assert agree["bound as mean"] == 0 and 25 <= agree["changed digit"] <= 40
