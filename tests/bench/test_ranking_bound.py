"""bench.ranking_bound: the verdict's information, the idealised allocation's ordering of cases, and the judge with
memory as the bound sees it (a scripted judge asked the bound's calls)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import expit

from bench import ranking_bound
from bench.ranking_bound import Memory, trial, verdict_information
from bench.ranking_judges import ORDER_SD, REPEAT, Judge


def test_a_judge_without_noise_carries_the_logistic_quarter_and_noise_lowers_it() -> None:
    assert verdict_information(0.0) == pytest.approx(0.25, abs=1e-6)
    # the simulator's judge: the win chance's slope at 0 by finite differences of a Monte Carlo mean
    eps = np.random.default_rng(0).standard_normal(400_000)
    slope = (expit(0.05 + eps).mean() - expit(-0.05 + eps).mean()) / 0.1
    assert verdict_information(1.0) == pytest.approx(slope**2 / 0.25, rel=0.02)


def test_the_boundary_allocation_beats_uniform_and_more_information_recovers_more() -> None:
    info = verdict_information()

    def mean(share: float, allocation: str) -> float:
        return float(np.mean([trial(seed, 12, share, allocation, info) for seed in range(60)]))

    direct = mean(1.0, "boundary")
    assert mean(1.0, "uniform") < direct < mean(2.0, "boundary")


def test_a_trial_is_a_function_of_its_seed() -> None:
    info = verdict_information()
    assert trial(7, 12, 1.0, "boundary", info) == trial(7, 12, 1.0, "boundary", info)


# The judge with memory (bench/ranking_judges.py) asked the calls each bound makes: a scripted fresh draw counts the
# verdicts the judge draws afresh; every other call returns a copy of that order's last verdict.

def _fresh_share(calls: list[tuple[int, int]], seed: int = 0) -> float:
    drawn = [0]

    def scripted(u: float, rng: np.random.Generator) -> float:
        drawn[0] += 1
        return 1.0 if u > 0 else 0.0

    judge = Judge("memory", 0.3, scripted, np.random.default_rng(seed))
    for first, second in calls:
        judge(f"H{first:02d}", f"H{second:02d}", 0.0)
    return drawn[0] / len(calls)


def test_the_bound_without_memory_asks_the_judge_with_memory_for_copies_it_counts_as_fresh(
        monkeypatch: pytest.MonkeyPatch) -> None:
    info = verdict_information(math.hypot(1.0, ORDER_SD))
    calls: list[tuple[int, int]] = []
    shown: dict[tuple[int, int], int] = {}
    pick = ranking_bound._next_two

    def spy(*args: object) -> list[int]:
        a, b = pick(*args)  # type: ignore[arg-type]
        first, second = (a, b) if shown.get((a, b), 0) <= shown.get((b, a), 0) else (b, a)  # the less-shown order
        shown[(first, second)] = shown.get((first, second), 0) + 1
        calls.append((first, second))
        return [a, b]

    monkeypatch.setattr(ranking_bound, "_next_two", spy)
    trial(3, 24, 1.0, "boundary", info)
    # every call observed at full information, yet the judge draws afresh on well under two thirds of them
    assert _fresh_share(calls) < 0.65


def test_the_bound_with_memory_draws_afresh_as_often_as_the_judge_on_the_same_calls() -> None:
    info = verdict_information(math.hypot(1.0, ORDER_SD))
    shares: list[tuple[float, float]] = []
    for seed in range(3):
        log: list[tuple[int, int, bool]] = []
        trial(seed, 24, 1.0, "boundary", info, memory=Memory(REPEAT, ORDER_SD), log=log)
        asked = [(a, b) for a, b, _ in log]
        assert all(fresh or (a, b) in asked[:k] for k, (a, b, fresh) in enumerate(log))  # a copy: an order asked
        shares.append((float(np.mean([fresh for *_, fresh in log])), _fresh_share(asked, seed)))
    bound, judge = np.mean(shares, axis=0)
    assert bound < 0.95 and bound == pytest.approx(judge, abs=0.03)


def test_a_pairs_order_effect_averages_out_across_its_orders_and_not_within_one() -> None:
    info, memory = 0.16, Memory(REPEAT, 0.5)
    assert memory.information(info, 1, 0) == pytest.approx(info)
    s2 = 1.0 / info - 0.25
    assert memory.information(info, 3, 3) == pytest.approx(6 / s2)  # balanced orders: the effect cancels
    assert memory.information(info, 200, 0) < 1 / 0.25  # one order: never more than the effect's own precision
    assert Memory(0.0, 0.0).information(info, 3, 2) == pytest.approx(5 * info)  # the independent judge: a sum
