"""Objects built from a config section by key (issue 18): each ``ranking.*`` / ``termination.*`` value lands on
the field it names, so searching a key finds the code that uses it."""

from __future__ import annotations

from cosci.config.load import compose, validate
from cosci.tournament.elo import EloRule
from cosci.tournament.engine import TournamentCfg
from cosci.tournament.stability import BTStabilityTracker, StabilityTracker

OVERRIDES = [
    "ranking.k_factor_new=41", "ranking.k_factor_warm=11", "ranking.new_matches_threshold=7",
    "ranking.p_new=0.5", "ranking.p_close=0.3", "ranking.p_random=0.2", "ranking.new_arrival_matches=6",
    "ranking.close_elo_window=123", "ranking.debate_min_matches=9", "ranking.debate_elo_gap=77",
    "ranking.pairing=elo_buckets", "ranking.top_k=4", "ranking.warmup_matches=2", "ranking.temperature=12",
    "ranking.distance_bonus=0.3", "ranking.dual_order=close", "ranking.dual_order_elo_gap=33",
    "ranking.dual_order_sample=0.4", "ranking.boundary_power=2.5", "ranking.rematch_information=true",
    "termination.elo_stability_k=6", "termination.elo_stability_n=4", "termination.elo_stability_eps=9",
    "termination.min_hypotheses_before_stable=13", "termination.min_matches_before_stable=31",
    "termination.bt_stability_n=5",
]


def test_every_key_lands_on_its_field() -> None:
    config = validate(compose(OVERRIDES))
    assert EloRule.from_config(config.ranking) == EloRule(k_new=41, k_warm=11, new_threshold=7)
    t = TournamentCfg.from_config(config.ranking)
    assert t.pairing == "elo_buckets"
    assert (t.buckets.p_new, t.buckets.p_close, t.buckets.p_random) == (0.5, 0.3, 0.2)
    assert (t.buckets.new_arrival_matches, t.buckets.close_elo_window) == (6, 123)
    assert (t.buckets.debate_min_matches, t.buckets.debate_elo_gap) == (9, 77)
    assert (t.uncertainty.top_k, t.uncertainty.warmup_matches) == (4, 2)
    assert (t.uncertainty.temperature, t.uncertainty.distance_bonus) == (12, 0.3)
    assert (t.uncertainty.boundary_power, t.uncertainty.rematch_information) == (2.5, True)
    assert (t.dual.policy, t.dual.elo_gap, t.dual.sample) == ("close", 33, 0.4)
    elo = StabilityTracker.from_config(config.termination)
    assert (elo.k, elo.n, elo.eps, elo.min_hypotheses, elo.min_matches) == (6, 4, 9, 13, 31)
    bt = BTStabilityTracker.from_config(config.termination)
    assert (bt.k, bt.n, bt.min_hypotheses, bt.min_matches) == (6, 5, 13, 31)
