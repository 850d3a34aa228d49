"""bench.ranking_bound: the verdict's information and the idealised allocation's ordering of cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from bench.ranking_bound import trial, verdict_information


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
