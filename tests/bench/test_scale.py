"""The scale bench (bench/scale.py) at a tiny size: it seeds, runs the real loop and splits the CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.scale import PARTS, scale_run


@pytest.mark.slow  # a whole fake session runtime: ~5 s of CPU (tests/slow_tests.txt)
def test_a_tiny_scale_run_plays_through_the_loop_and_splits_its_cpu(tmp_path: Path) -> None:
    res = scale_run((12,), loop_matches=3, data=tmp_path)
    (stage,) = res["stages"]
    assert stage["hypotheses"] == 12 and stage["matches_before"] == 120 and stage["played"] >= 3
    assert set(stage["parts_ms_per_match"]) == set(PARTS)
    assert stage["calls"]["BT fit"] >= 1 and stage["calls"]["pair selection"] >= 3
    assert stage["loop_cpu_per_match_ms"] > 0 and res["peak_rss_mb"] > 0
