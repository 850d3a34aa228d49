"""Pair and mode selection on a seeded RNG (seed 000 "Pair Selection Algorithm", "Mode Selection")."""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, replace

import pytest

from cosci.tournament.pairing import select_mode, select_pair
from tests.tournament.shipped import PAIRING


@dataclass(frozen=True)
class P:
    id: str
    elo: float
    matches_played: int


def no_sim(a: str, b: str) -> float:
    return 0.0


ONLY_NEW = replace(PAIRING, p_new=1.0, p_close=0.0, p_random=0.0)
ONLY_CLOSE = replace(PAIRING, p_new=0.0, p_close=1.0, p_random=0.0)
ONLY_RANDOM = replace(PAIRING, p_new=0.0, p_close=0.0, p_random=1.0)


def test_fewer_than_two_players_give_no_pair() -> None:
    assert select_pair([], random.Random(0), no_sim, PAIRING) is None
    assert select_pair([P("H-a", 1200, 0)], random.Random(0), no_sim, PAIRING, focus_id="H-a") is None


def test_focus_meets_its_nearest_elo_opponent() -> None:
    players = [P("H-a", 1300, 6), P("H-b", 1190, 6), P("H-c", 1210, 6), P("H-new", 1200, 0)]
    for seed in range(20):  # no randomness in the focus bucket
        pair = select_pair(players, random.Random(seed), no_sim, PAIRING, focus_id="H-new")
        assert pair is not None
        assert (pair.a, pair.b, pair.bucket) == ("H-new", "H-b", "focus")  # tie (10 points each): lower id


def test_unknown_focus_falls_back_to_the_buckets() -> None:
    players = [P("H-a", 1200, 6), P("H-b", 1210, 6)]
    pair = select_pair(players, random.Random(0), no_sim, PAIRING, focus_id="H-gone")
    assert pair is not None and pair.bucket != "focus"


def test_new_arrival_meets_the_nearest_warm_player() -> None:
    players = [P("H-new", 1200, 1), P("H-warm-far", 1400, 5), P("H-warm-near", 1250, 3), P("H-new2", 1201, 0)]
    seen = Counter()
    for seed in range(200):
        pair = select_pair(players, random.Random(seed), no_sim, ONLY_NEW)
        assert pair is not None and pair.bucket == "new_arrival"
        seen[(pair.a, pair.b)] += 1
    # each new arrival (< 3 matches) is drawn; its opponent is the nearest *warm* one, never the other new one
    assert set(seen) == {("H-new", "H-warm-near"), ("H-new2", "H-warm-near")}


def test_new_arrival_without_warm_players_meets_the_nearest_player() -> None:
    players = [P("H-a", 1200, 0), P("H-b", 1300, 0), P("H-c", 1210, 0)]
    pair = select_pair(players, random.Random(3), no_sim, ONLY_NEW)
    assert pair is not None and pair.bucket == "new_arrival"
    assert {pair.a, pair.b} in ({"H-a", "H-c"}, {"H-b", "H-c"})


def test_a_bucket_without_candidates_falls_through() -> None:
    warm = [P("H-a", 1200, 5), P("H-b", 1500, 5)]  # no new arrival, gap 300: no close pair
    pair = select_pair(warm, random.Random(0), no_sim, ONLY_NEW)
    assert pair is not None and pair.bucket == "random_top"


def test_close_elo_weights_are_exp_gap_times_one_minus_cosine() -> None:
    """Draw many pairs and compare the frequencies with the weights ``exp(-ΔElo/200) * (1 - cosine)``."""
    players = [P("H-a", 1200, 3), P("H-b", 1250, 4), P("H-c", 1300, 5), P("H-d", 1400, 6),
               P("H-new", 1200, 0)]
    sims = {("H-a", "H-b"): 0.5, ("H-a", "H-c"): 0.0, ("H-b", "H-c"): 0.9, ("H-b", "H-d"): 0.2,
            ("H-c", "H-d"): -0.2}

    def sim(x: str, y: str) -> float:
        return sims.get((min(x, y), max(x, y)), 0.0)

    # warm pairs with |ΔElo| < 200; (H-a, H-d) is 200 apart: excluded; H-new is not warm: excluded
    weights = {
        ("H-a", "H-b"): math.exp(-50 / 200) * 0.5,   # 0.3894
        ("H-a", "H-c"): math.exp(-100 / 200) * 1.0,  # 0.6065
        ("H-b", "H-c"): math.exp(-50 / 200) * 0.1,   # 0.0779
        ("H-b", "H-d"): math.exp(-150 / 200) * 0.8,  # 0.3779
        ("H-c", "H-d"): math.exp(-100 / 200) * 1.2,  # 0.7278
    }
    total = sum(weights.values())
    n = 20000
    rng = random.Random(2024)
    counts = Counter()
    for _ in range(n):
        pair = select_pair(players, rng, sim, ONLY_CLOSE)
        assert pair is not None and pair.bucket == "close_elo"
        counts[(pair.a, pair.b)] += 1
    assert set(counts) == set(weights)
    for key, w in weights.items():
        p = w / total
        sd = math.sqrt(p * (1 - p) / n)
        assert abs(counts[key] / n - p) < 4 * sd, key
    assert counts[("H-c", "H-d")] > counts[("H-a", "H-c")] > counts[("H-a", "H-b")] > counts[("H-b", "H-c")]


def test_random_top_half_draws_only_from_the_top_half() -> None:
    players = [P(f"H-{i}", 1200 + 10 * i, 6) for i in range(7)]  # top half: ceil(7 / 2) = 4 best
    top = {"H-6", "H-5", "H-4", "H-3"}
    rng = random.Random(5)
    seen = set()
    for _ in range(500):
        pair = select_pair(players, rng, no_sim, ONLY_RANDOM)
        assert pair is not None and pair.bucket == "random_top"
        assert {pair.a, pair.b} <= top and pair.a != pair.b
        seen.add(frozenset((pair.a, pair.b)))
    assert len(seen) == 6  # every pair of the four


def test_same_seed_same_pairs_and_default_bucket_mix() -> None:
    players = [P(f"H-{i:02d}", 1150 + 7 * i, i % 6) for i in range(12)]

    def draw(seed: int) -> list[tuple[str, str, str]]:
        rng = random.Random(seed)
        return [(p.a, p.b, p.bucket) for p in (select_pair(players, rng, no_sim, PAIRING) for _ in range(300)) if p]

    assert draw(7) == draw(7)
    assert draw(7) != draw(8)
    buckets = Counter(b for _, _, b in draw(7))
    assert set(buckets) == {"new_arrival", "close_elo", "random_top"}
    assert buckets["random_top"] < buckets["new_arrival"]  # 0.2 vs 0.4 of the rolls


@pytest.mark.parametrize(("a", "b", "mode"), [
    (P("H-a", 1200, 1), P("H-b", 1500, 10), "debate"),    # one side has fewer than 2 matches
    (P("H-a", 1200, 10), P("H-b", 1500, 0), "debate"),
    (P("H-a", 1200, 2), P("H-b", 1249.9, 2), "debate"),   # |ΔElo| < 50
    (P("H-a", 1250, 9), P("H-b", 1200.1, 9), "debate"),
    (P("H-a", 1200, 2), P("H-b", 1250, 2), "pairwise"),   # exactly 50 apart, both with 2 matches
    (P("H-a", 1400, 8), P("H-b", 1200, 3), "pairwise"),
])
def test_select_mode_thresholds(a: P, b: P, mode: str) -> None:
    assert select_mode(a, b, PAIRING) == mode
    assert select_mode(b, a, PAIRING) == mode
