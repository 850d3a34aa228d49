"""Presentation order, the dual-order rule, resolving per-order verdicts, Elo draws, uncertainty selection and
the judge statistics (issue 13)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace

import pytest

from cosci.tournament.boundary import pair_scores
from cosci.tournament.bt import fit_bt
from cosci.tournament.elo import expected_score
from cosci.tournament.engine import plan_match
from cosci.tournament.judge_stats import judge_stats
from cosci.tournament.judging import DRAW, presentation_order, resolve, score_of, wants_dual_order
from cosci.tournament.uncertainty import select_uncertain
from tests.tournament.shipped import DUAL, ELO, TOURNAMENT, UNCERTAINTY


@dataclass
class P:
    id: str
    elo: float = 1200.0
    matches_played: int = 0


def test_order_is_a_coin_from_the_rng_not_the_ids() -> None:
    firsts = [presentation_order("H-a", "H-b", random.Random(i))[0] for i in range(400)]
    assert 150 < firsts.count("H-b") < 250  # the higher id is shown first about half of the time
    assert presentation_order("H-a", "H-b", random.Random("t:1")) == presentation_order("H-a", "H-b",
                                                                                          random.Random("t:1"))


def test_a_rematch_is_shown_in_the_order_judged_fewer_times() -> None:
    """A judge that repeats itself (design.md#judge-memory): asked the same prompt again it returns its earlier
    verdict; only a prompt in the other order is answered afresh. Scripted here: its verdicts per order are fixed
    in advance (the first-shown wins in one order, loses in the other, so a repeated order is visible), and the
    rematches of one pair must reach both orders: an order judged more often is never asked again before the other
    catches up (once both are even, the coin)."""
    players = [P("H-a", matches_played=6), P("H-b", matches_played=6)]
    script = {("H-a", "H-b"): "H-a", ("H-b", "H-a"): "H-b"}  # the first-shown wins: a repeat shows as one winner
    cfg = replace(TOURNAMENT, dual=replace(TOURNAMENT.dual, policy="off", sample=0.0))
    asked: list[tuple[str, str]] = []
    answers: dict[tuple[str, str], str] = {}

    def judge(first: str, second: str) -> str:
        asked.append((first, second))
        if (first, second) not in answers:  # fresh only the first time this order is asked
            answers[(first, second)] = script[(first, second)]
        return answers[(first, second)]

    for seed in range(40):
        asked.clear()
        answers.clear()
        shown: dict[tuple[str, str], int] = {}
        verdicts = []
        for step in range(4):
            plan = plan_match(players, random.Random(f"{seed}:{step}"), lambda a, b: 0.0, cfg, None, shown=shown)
            assert plan is not None and not plan.dual
            verdicts.append(judge(plan.first, plan.second))
            shown[(plan.first, plan.second)] = shown.get((plan.first, plan.second), 0) + 1
        assert asked[1] == asked[0][::-1] and asked[3] == asked[2][::-1]  # the other order after an unbalanced one
        assert abs(shown.get(("H-a", "H-b"), 0) - shown.get(("H-b", "H-a"), 0)) == 0
        assert set(verdicts[:2]) == {"H-a", "H-b"}  # two fresh verdicts, not one verdict twice
    unbalanced = {("H-a", "H-b"): 2, ("H-b", "H-a"): 1}
    assert presentation_order("H-a", "H-b", random.Random(0), unbalanced) == ("H-b", "H-a")
    assert presentation_order("H-b", "H-a", random.Random(1), unbalanced) == ("H-b", "H-a")
    even = {("H-a", "H-b"): 1, ("H-b", "H-a"): 1}  # balanced: the coin, the same draw as without counts
    assert [presentation_order("H-a", "H-b", random.Random(i), even) for i in range(20)] == [
        presentation_order("H-a", "H-b", random.Random(i)) for i in range(20)]


@pytest.mark.parametrize(("policy", "mode", "gap", "want"), [
    ("all", "pairwise", 500.0, True), ("off", "debate", 0.0, False), ("close", "debate", 400.0, True),
    ("close", "pairwise", 20.0, True), ("close", "pairwise", -49.0, True), ("close", "pairwise", 80.0, False)])
def test_dual_order_policy(policy: str, mode: str, gap: float, want: bool) -> None:
    cfg = replace(DUAL, policy=policy, elo_gap=50.0, sample=0.0)  # type: ignore[arg-type]
    assert wants_dual_order(mode, gap, cfg, random.Random(0)) is want


def test_dual_order_sample_share() -> None:
    cfg = replace(DUAL, policy="off", sample=0.25)
    share = sum(wants_dual_order("pairwise", 300.0, cfg, random.Random(i)) for i in range(2000)) / 2000
    assert share == pytest.approx(0.25, abs=0.04)


def test_resolve_agreement_disagreement_and_invalid() -> None:
    assert resolve(["a", "a"]) == "a" and resolve(["a"]) == "a"
    assert resolve(["a", "b"]) == DRAW
    assert resolve([None, "b"]) == "b" and resolve([None, None]) is None and resolve([]) is None
    assert (score_of("a", "a"), score_of("a", "b"), score_of("a", DRAW), score_of("a", None)) == (1.0, 0.0, 0.5, None)


def test_a_draw_moves_elo_toward_the_weaker() -> None:
    delta, k = ELO(1300.0, 10, 1200.0, 10, 0.5)
    assert k == 16.0 and delta == pytest.approx(16 * (0.5 - expected_score(1300.0, 1200.0)))
    assert delta < 0
    assert ELO(1200.0, 0, 1200.0, 0, 0.5) == (0.0, 32.0)


def test_uncertainty_warms_up_then_targets_the_boundary() -> None:
    players = [P(f"H-{i:02d}") for i in range(10)]
    pick = select_uncertain(players, fit_bt([p.id for p in players], []), random.Random(0), lambda a, b: 0.0,
                            UNCERTAINTY)
    assert pick is not None and pick.bucket == "warmup"
    for p in players:
        p.matches_played = 8
    # a clear order H-00 > H-01 > ... from many verdicts; top_k=2: the boundary is between H-01 and H-02
    verdicts = [(f"H-{i:02d}", f"H-{j:02d}", 1.0) for i in range(10) for j in range(i + 1, 10) for _ in range(3)]
    fit = fit_bt([p.id for p in players], verdicts)
    scores = pair_scores(fit, 2)
    best = divmod(int(scores.argmax()), 10)
    assert set(best) & {1, 2}  # the most informative pair touches the boundary
    assert scores[8, 9] < scores[best]
    pick = select_uncertain(players, fit, random.Random(0), lambda a, b: 0.0, replace(UNCERTAINTY, top_k=2))
    assert pick is not None and pick.bucket == "uncertainty"


@pytest.mark.parametrize("pairing", ["elo_buckets", "uncertainty"])
def test_plans_never_use_excluded_hypotheses(pairing: str) -> None:
    players = [P(f"H-{i:02d}", elo=1200.0 + 10 * i, matches_played=6) for i in range(6)]
    fit = fit_bt([p.id for p in players], [])
    busy = {"H-00", "H-03", "H-05"}
    for seed in range(50):
        plan = plan_match(players, random.Random(seed), lambda a, b: 0.0, replace(TOURNAMENT, pairing=pairing), fit,
                          focus_id="H-03", exclude=busy)
        assert plan is not None and not {plan.first, plan.second} & busy
    assert plan_match(players, random.Random(0), lambda a, b: 0.0, replace(TOURNAMENT, pairing=pairing), fit,
                      exclude={p.id for p in players[1:]}) is None


@dataclass
class M:
    id: str
    hyp_a: str
    hyp_b: str
    winner: str | None
    verdict_valid: bool
    draw: bool
    verdicts: tuple[dict[str, str | None], ...]


def test_a_judge_that_always_picks_the_first_shown() -> None:
    matches = [M("m1", "a", "b", None, True, True, ({"first": "a", "winner": "a"}, {"first": "b", "winner": "b"})),
               M("m2", "a", "c", None, True, True, ({"first": "c", "winner": "c"}, {"first": "a", "winner": "a"})),
               M("m3", "b", "c", "b", True, False, ({"first": "b", "winner": "b"},))]
    stats = judge_stats(matches, 1.0)
    assert (stats.first_position_win_rate, stats.flip_rate, stats.invalid_rate) == (1.0, 1.0, 0.0)
    assert stats.draw_rate == pytest.approx(2 / 3) and stats.dual_order_matches == 2 and stats.calls == 5
    assert stats.bt_agreement_n == 5 and 0.0 <= stats.bt_agreement <= 1.0
    assert stats.flagged(0.15) and "WARNING" in " ".join(stats.lines(0.15))


def test_nothing_measured_is_nan_not_zero() -> None:
    stats = judge_stats([M("m1", "a", "b", None, False, False, ({"first": "a", "winner": None},))], 1.0)
    assert stats.invalid_rate == 1.0 and math.isnan(stats.first_position_win_rate)
    assert "judge_first_position_win_rate" not in stats.metrics() and stats.to_dict()["flip_rate"] is None
    assert not stats.flagged(0.15)
