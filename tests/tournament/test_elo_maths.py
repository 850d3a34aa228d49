"""Elo maths against hand-computed values (seed 000 "Elo Update": K = 32 while the less experienced player has
fewer than 5 matches, else 16; zero-sum)."""

from __future__ import annotations

import random

import pytest

from cosci.tournament.elo import EloRule, expected_score
from tests.tournament.shipped import ELO

RULE = ELO  # the shipped ranking config: 32 / 16 / 5


def test_expected_scores_by_hand() -> None:
    assert expected_score(1200, 1200) == 0.5
    # 1 / (1 + 10 ** (-200 / 400)) = 1 / (1 + 0.316228) = 0.759747
    assert expected_score(1400, 1200) == pytest.approx(0.759747, abs=1e-6)
    assert expected_score(1200, 1400) == pytest.approx(0.240253, abs=1e-6)
    # 400 points apart: 1 / (1 + 10 ** -1) = 10 / 11
    assert expected_score(1600, 1200) == pytest.approx(10 / 11, abs=1e-12)


def test_equal_ratings_move_sixteen_points_with_k32() -> None:
    assert RULE(1200, 0, 1200, 0, True) == (16.0, 32.0)   # 32 * (1 - 0.5): A 1216, B 1184
    assert RULE(1200, 0, 1200, 0, False) == (-16.0, 32.0)  # A 1184, B 1216


def test_favourite_and_upset_by_hand() -> None:
    delta, k = RULE(1400, 0, 1200, 0, True)  # 32 * (1 - 0.759747) = 7.688
    assert (delta, k) == (pytest.approx(7.68809, abs=1e-4), 32.0)
    delta, _ = RULE(1400, 0, 1200, 0, False)  # 32 * (0 - 0.759747) = -24.312
    assert delta == pytest.approx(-24.31191, abs=1e-4)
    delta, k = RULE(1400, 10, 1200, 10, True)  # warm: 16 * 0.240253 = 3.844
    assert (delta, k) == (pytest.approx(3.84404, abs=1e-4), 16.0)


@pytest.mark.parametrize(("matches_a", "matches_b", "k"), [
    (0, 0, 32.0), (4, 4, 32.0), (4, 100, 32.0), (100, 4, 32.0),  # the LESS experienced player decides
    (5, 5, 16.0), (5, 100, 16.0), (100, 5, 16.0),
])
def test_k_boundary_at_five_matches_of_the_less_experienced_player(matches_a: int, matches_b: int,
                                                                    k: float) -> None:
    assert RULE.k_factor(matches_a, matches_b) == k
    assert RULE(1200, matches_a, 1200, matches_b, True) == (k / 2, k)


def test_rule_is_configurable() -> None:
    rule = EloRule(k_new=40, k_warm=10, new_threshold=3)
    assert rule.k_factor(2, 9) == 40 and rule.k_factor(3, 9) == 10


def test_zero_sum_across_many_random_matches() -> None:
    """Each player's change is what the rule returns from that player's side (B: the same match with the sides
    swapped and the score mirrored), so the sum holds only if the rule itself is zero-sum."""
    rng = random.Random(12)
    elo = {i: 1200.0 for i in range(10)}
    played = dict.fromkeys(elo, 0)
    for _ in range(2000):
        a, b = rng.sample(list(elo), 2)
        score = rng.choice((1.0, 0.5, 0.0)) if rng.random() < 0.2 else float(
            rng.random() < expected_score(elo[a], elo[b]))
        delta_a, k_a = RULE(elo[a], played[a], elo[b], played[b], score)
        delta_b, k_b = RULE(elo[b], played[b], elo[a], played[a], 1.0 - score)
        assert k_a == k_b and -32.0 < delta_a < 32.0
        elo[a] += delta_a
        elo[b] += delta_b
        played[a] += 1
        played[b] += 1
    assert sum(elo.values()) == pytest.approx(12000.0, abs=1e-6)
    assert max(elo.values()) > 1200.0 > min(elo.values())

