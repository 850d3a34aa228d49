"""The uncertainty pairing values a rematch by the information its next verdict adds (design.md#judge-memory)."""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np
import pytest

from cosci.tournament.boundary import _boundary, boundary_weights, pair_scores
from cosci.tournament.bt import BTFit, fit_bt
from cosci.tournament.engine import plan_match
from cosci.tournament.rerun import RerunEstimate
from cosci.tournament.uncertainty import rematch_information, select_uncertain
from tests.tournament.shipped import TOURNAMENT, UNCERTAINTY


@dataclass
class P:
    id: str
    elo: float = 1200.0
    matches_played: int = 10


def _repeating_fit() -> BTFit:
    """Six hypotheses, H-0 strongest; every ordered pair judged three times by a judge that copies its first
    verdict of that order (the scripted reruns all agree, whatever the first verdict was)."""
    ids = [f"H-{i}" for i in range(6)]
    rng = random.Random(7)
    verdicts, first = [], []
    for i in range(6):
        for j in range(6):
            if i != j:
                s = 1.0 if rng.random() < 1.0 / (1.0 + math.exp(-0.4 * (j - i))) else 0.0
                verdicts += [(ids[i], ids[j], s)] * 3
                first += [ids[i]] * 3
    return fit_bt(ids, verdicts, first=first, method="laplace")


def test_the_next_verdict_of_an_order_adds_its_share_of_information() -> None:
    names = ["a", "b", "c"]
    iu = np.triu_indices(3, 1)  # pairs (a, b), (a, c), (b, c)
    shown = {("a", "b"): 1, ("b", "a"): 1, ("a", "c"): 2}
    got = rematch_information(names, iu, shown, 0.75)
    # (a, b): the next is a same-order replay: eff(2) - eff(1) = 4 / (2 + 2 * 0.75) - 1; (a, c): (c, a) never judged
    assert got == pytest.approx([4 / 3.5 - 1, 1.0, 1.0])
    assert rematch_information(names, iu, shown, 0.0) == pytest.approx([1.0, 1.0, 1.0])  # an independent judge
    assert rematch_information(names, iu, None, 0.75) == pytest.approx([1.0, 1.0, 1.0])


def test_the_pairing_fit_reads_the_judges_repeat_share() -> None:
    assert _repeating_fit().rerun.repeat_used > 0.5


def test_a_same_order_replay_is_chosen_less_under_a_judge_that_repeats_itself() -> None:
    fit = _repeating_fit()
    players = [P(h) for h in fit.ids]
    cfg = replace(UNCERTAINTY, top_k=2, rematch_information=True)
    scores = pair_scores(fit, 2, cfg.boundary_power)
    a, b = (fit.ids[i] for i in divmod(int(scores.argmax()), len(fit.ids)))
    shown = {(a, b): 1, (b, a): 1}  # judged once in each order: its next match replays one

    def picks(f: BTFit, c: object) -> Counter[frozenset[str]]:
        got = (select_uncertain(players, f, random.Random(s), lambda x, y: 0.0, c, shown=shown)  # type: ignore[arg-type]
               for s in range(200))
        return Counter(frozenset((p.a, p.b)) for p in got if p)

    independent = replace(fit, rerun=RerunEstimate.none())
    replays = picks(fit, cfg)[frozenset((a, b))]
    assert replays < 0.5 * picks(independent, cfg)[frozenset((a, b))]
    # an independent judge (no reruns measured, ρ̂ = 0): the same draws as without the rule
    assert picks(independent, cfg) == picks(independent, replace(cfg, rematch_information=False))


def test_the_boundary_weight_is_phi_of_z_over_the_gap_variance_to_the_power() -> None:
    """``ranking.boundary_power`` (design.md#tournament): ``φ(z)/v^power``; at 1.5 a verdict removing ``Δv ∝ v²``
    scores ``φ(z)·√v``, the bound's rule, so a better-known hypothesis at the same ``z`` weighs relatively more."""
    fit = _repeating_fit()
    _, w1 = boundary_weights(fit, 2, 1.0)
    _, w15 = boundary_weights(fit, 2, 1.5)
    _, _, v, z = _boundary(fit, 2)
    live = w1 > 0
    assert np.allclose(w15[live], np.exp(-0.5 * z[live] ** 2) / math.sqrt(2 * math.pi) / v[live] ** 1.5)
    assert np.allclose(w15[live] / w1[live], v[live] ** -0.5)
    assert UNCERTAINTY.boundary_power == 1.5  # the shipped value (conf/ranking/default.yaml)
    assert not np.allclose(pair_scores(fit, 2, 1.5), pair_scores(fit, 2, 1.0))


def test_a_session_plan_passes_its_shown_counts_to_the_pairing() -> None:
    """``engine.plan_match`` (the agent's and the simulator's call) hands ``shown`` to the uncertainty pairing."""
    fit = _repeating_fit()
    players = [P(h) for h in fit.ids]
    cfg = replace(TOURNAMENT, pairing="uncertainty", uncertainty=replace(TOURNAMENT.uncertainty, top_k=2,
                                                                         rematch_information=True))
    a, b = (fit.ids[i] for i in divmod(int(pair_scores(fit, 2, 1.5).argmax()), len(fit.ids)))
    shown = {(a, b): 1, (b, a): 1}

    def replays(f: BTFit) -> int:
        plans = (plan_match(players, random.Random(s), lambda x, y: 0.0, cfg, f, shown=shown) for s in range(200))
        return sum(1 for p in plans if p and {p.first, p.second} == {a, b})

    assert replays(fit) < 0.5 * replays(replace(fit, rerun=RerunEstimate.none()))
