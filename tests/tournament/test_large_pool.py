"""The large-pool paths (design.md#scale): the Newton solver, the candidate pair scores, the O(n) reductions."""

from __future__ import annotations

import random

import numpy as np
import pytest

import cosci.tournament.bt as bt
import cosci.tournament.bt_model as bt_model
from cosci.tournament.boundary import boundary_candidates, candidate_scores, pair_scores
from cosci.tournament.bt import fit_bt
from cosci.tournament.bt_solve import newton_mode
from cosci.tournament.pairing import Player
from cosci.tournament.uncertainty import UncertaintyCfg, select_uncertain


def _verdicts(n: int, m: int, ties: float, seed: int = 0) -> tuple[list[str], list[tuple[str, str, float]]]:
    rng = random.Random(seed)
    ids = [f"H-{i:03d}" for i in range(n)]
    q = [rng.gauss(0, 1.5) for _ in ids]
    out = []
    for _ in range(m):
        a, b = rng.sample(range(n), 2)
        r = rng.random()
        out.append((ids[a], ids[b], 0.5 if r < ties else float(r < 1 / (1 + np.exp(q[b] - q[a])))))
    return ids, out


@pytest.mark.parametrize("ties", [0.0, 0.1])
@pytest.mark.parametrize("method", ["laplace", "eb_is"])
def test_newton_and_trust_exact_find_the_same_fit(monkeypatch: pytest.MonkeyPatch, ties: float, method: str) -> None:
    ids, verdicts = _verdicts(12, 80, ties)
    for module in (bt, bt_model):  # the mode's path (bt_model) and the covariance's inverse (bt)
        monkeypatch.setattr(module, "LARGE_N", 10**9)
    dense = fit_bt(ids, verdicts, method=method)  # type: ignore[arg-type]
    for module in (bt, bt_model):
        monkeypatch.setattr(module, "LARGE_N", 1)
    newton = fit_bt(ids, verdicts, method=method)  # type: ignore[arg-type]
    assert np.allclose(newton.theta, dense.theta, atol=1e-6)
    assert np.allclose(newton.sd, dense.sd, atol=1e-6)
    assert newton.nu == pytest.approx(dense.nu, abs=1e-6)


def test_newton_gives_up_on_a_non_convex_objective() -> None:
    def terms(x: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:  # f = -x², Hessian -2: not convex
        return -float(x @ x), -2 * x, -2 * np.eye(x.size)

    assert newton_mode(terms, np.ones(2)) is None


def test_centred_sd_and_table_as_before() -> None:
    ids, verdicts = _verdicts(9, 40, 0.0)
    fit = fit_bt(ids, verdicts, method="eb_mix")  # eb_is widens the same sd by ci_inflation (test_bt.py)
    proj = np.eye(9) - 1 / 9
    assert np.allclose(fit.ci_sd, np.sqrt(np.clip(np.diag(proj @ fit.cov @ proj), 0, None)))
    assert fit.table() == {h: fit.score(h) for h in ids}


def test_candidate_scores_are_the_full_scores_on_the_candidates() -> None:
    ids, verdicts = _verdicts(30, 200, 0.0)
    fit = fit_bt(ids, verdicts, method="laplace")
    cand = boundary_candidates(fit, 5, 10, np.arange(30))
    assert cand.size == 10
    order = np.argsort(-fit.theta, kind="stable")
    assert {int(order[4]), int(order[5])} <= set(cand.tolist())  # the k-th and (k+1)-th are always candidates
    assert np.allclose(candidate_scores(fit, 5, cand), pair_scores(fit, 5)[np.ix_(cand, cand)])


class _P:
    def __init__(self, hid: str) -> None:
        self.id, self.elo, self.matches_played = hid, 1200.0, 10


def test_large_pool_pairs_come_from_the_candidates_and_respect_the_cap() -> None:
    ids, verdicts = _verdicts(40, 400, 0.0)
    fit = fit_bt(ids, verdicts, method="laplace")
    players: list[Player] = [_P(h) for h in ids]
    cfg = UncertaintyCfg(top_k=5, warmup_matches=4, temperature=30.0, distance_bonus=0.05, pair_candidates=8)
    cand = {fit.ids[i] for i in boundary_candidates(fit, 5, 8, np.arange(40))}
    for seed in range(20):
        pair = select_uncertain(players, fit, random.Random(seed), lambda a, b: 0.0, cfg,
                                sim_block=lambda names: np.zeros((len(names), len(names))))
        assert pair is not None and {pair.a, pair.b} <= cand
    played = {(a, b) for a in cand for b in cand}  # every candidate pair at the cap: the next candidates play
    pair = select_uncertain(players, fit, random.Random(0), lambda a, b: 0.0, cfg,
                            blocked=lambda a, b: (a, b) in played)
    assert pair is not None and not {pair.a, pair.b} <= cand


def test_listed_blocked_pairs_choose_as_a_blocked_function_does() -> None:
    from cosci.tournament.pairing import BlockedPairs

    ids, verdicts = _verdicts(40, 400, 0.0)
    fit = fit_bt(ids, verdicts, method="laplace")
    players = [_P(h) for h in ids]
    cfg = UncertaintyCfg(top_k=5, warmup_matches=0, temperature=3.0, distance_bonus=0.1, pair_candidates=12)
    order = [ids[i] for i in np.argsort(-fit.theta, kind="stable")]
    pairs = frozenset((min(a, b), max(a, b)) for a, b in [(order[4], order[5]), (order[3], order[5]), ("x", "y")])
    listed = BlockedPairs(pairs)
    assert listed(order[5], order[4]) and not listed(order[0], order[1])
    for seed in range(20):
        a = select_uncertain(players, fit, random.Random(seed), lambda x, y: 0.0, cfg, blocked=listed)
        b = select_uncertain(players, fit, random.Random(seed), lambda x, y: 0.0, cfg,
                             blocked=lambda x, y: (min(x, y), max(x, y)) in pairs)
        assert a == b and a is not None and (min(a.a, a.b), max(a.a, a.b)) not in pairs


def test_thompson_draws_replay_with_the_seed_and_stay_near_the_boundary() -> None:
    """``pair_draw: thompson``: the pair is the best at one posterior draw, seeded by the task's RNG (a retry
    replays it); the pairs played are among the hypotheses whose side of the top-5 boundary is uncertain."""
    ids, verdicts = _verdicts(20, 300, 0.0)
    fit = fit_bt(ids, verdicts, method="laplace")
    players: list[Player] = [_P(h) for h in ids]
    cfg = UncertaintyCfg(top_k=5, warmup_matches=4, temperature=30.0, distance_bonus=0.05, pair_draw="thompson")
    pairs = [select_uncertain(players, fit, random.Random(seed), lambda a, b: 0.0, cfg) for seed in range(30)]
    assert pairs == [select_uncertain(players, fit, random.Random(seed), lambda a, b: 0.0, cfg) for seed in range(30)]
    assert len({(p.a, p.b) for p in pairs if p}) > 1  # the draw varies the pair
    order = list(np.asarray(fit.ids)[np.argsort(-fit.theta, kind="stable")])
    ranks = [order.index(h) for p in pairs if p for h in (p.a, p.b)]
    assert np.mean([r < 12 for r in ranks]) > 0.9  # near the boundary (ranks 1-12 of 20), not the bottom
