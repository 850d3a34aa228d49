"""Ranking (seed 000 §4): AddToTournament, RunTournamentRound with pairwise or debate comparisons, the stored
presentation order as hypothesis 1 (issue 13), invalid verdicts recorded with Elo unchanged, and Elo applied once
per match."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.session.runtime import SessionRuntime
from cosci.tournament.bt import BTFit
from cosci.tournament.elo import expected_score

STATEMENTS = ["Metformin inhibits complex I to deplete leukemic stem cells",
              "Itraconazole blocks SMO to sensitise relapsed blasts to cytarabine",
              "Disulfiram inhibits ALDH1A1 in NPM1-mutant AML stem cells",
              "Atorvastatin starves FLT3-ITD blasts of geranylgeranyl lipids"]


def quoted_ids(prompt: str) -> list[str]:
    """Hypothesis ids in the order their ``<hypothesis_text>`` blocks appear."""
    return re.findall(r'<hypothesis_text id="(H-[0-9a-f]{12})"', prompt)


def elo_matches(runtime: SessionRuntime, hid: str) -> tuple[float, int]:
    h = runtime.store.hypotheses.get(hid)
    assert h is not None
    return h.elo, h.matches_played


async def test_add_to_tournament_needs_no_model(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                add_player) -> None:
    hid = add_player(STATEMENTS[0], state="reviewed")
    _, result = await run_task("ranking", "AddToTournament", "add", target_id=hid)
    assert result.kind == "added_to_tournament" and result.hypothesis_ids == [hid]
    h = planned.store.hypotheses.get(hid)
    assert h is not None and (h.state, h.elo) == ("in_tournament", 1200.0)
    assert fake.calls_for("ranking") == []
    draft = add_player(STATEMENTS[1], state="draft")
    await run_task("ranking", "AddToTournament", "add-draft", target_id=draft)
    assert planned.store.hypotheses.get(draft).state == "draft"  # not reviewed yet


async def test_fewer_than_two_players_is_nothing_to_do(planned: SessionRuntime, run_task, add_player) -> None:
    add_player(STATEMENTS[0])
    _, result = await run_task("ranking", "RunTournamentRound", "b0")
    assert result.kind == "nothing_to_do" and planned.store.matches.count() == 0


@pytest.mark.overrides("ranking.dual_order_sample=0")
async def test_debate_for_new_players_with_the_stored_first_shown_as_hypothesis_1(planned: SessionRuntime,
                                                                                   fake: FakeBackend, run_task,
                                                                                   add_player) -> None:
    a, b = sorted(add_player(s) for s in STATEMENTS[:2])
    fake.script(FakeReply(text="Expert 1: what concentration is reachable? better idea: 2"),  # too early
                agent="ranking", action="RunTournamentRound/match0/turn1")
    fake.script(FakeReply(text="Hypothesis 1 has the cleaner experiment.\nbetter idea: 1"),
                agent="ranking", action="RunTournamentRound/match0/turn2")
    _, result = await run_task("ranking", "RunTournamentRound", "b0", payload={"focus_id": b})

    assert result.kind == "tournament_match_complete"
    first = result.detail["matches"][0]
    shown = first["first"]
    other = b if shown == a else a
    assert (first["mode"], first["bucket"], first["winner"], first["valid"]) == ("debate", "warmup", shown, True)
    calls = [c for c in fake.calls_for("ranking", "debate") if "/match0/" in (c.action or "")]
    assert [c.action for c in calls] == ["RunTournamentRound/match0/turn1", "RunTournamentRound/match0/turn2"]
    for call in calls:
        assert quoted_ids(call.prompt)[:2] == [shown, other]  # the drawn order, not the ids' order
        assert call.model == "cosci-fake/cheap" and call.tools == []
    assert "what concentration is reachable" in calls[1].prompt  # the transcript so far, quoted
    assert '<untrusted_source id="debate-turn-1"' in calls[1].prompt

    (match, *_) = planned.store.matches.all()
    assert (match.hyp_a, match.hyp_b, match.winner, match.mode, match.first_shown) == (a, b, shown, "debate", shown)
    assert match.verdicts == ({"first": shown, "winner": shown},) and not match.dual_order
    assert (match.elo_a_before, match.elo_a_after, match.elo_b_after) == (
        (1200.0, 1216.0, 1184.0) if shown == a else (1200.0, 1184.0, 1216.0))
    speakers = [t["speaker"] for t in planned.store.matches.transcript(match.id)]
    assert speakers == ["Panel turn 1", "Panel turn 2"]
    assert match.rationale.endswith("better idea: 1")


@pytest.mark.overrides("ranking.dual_order_sample=0")
async def test_pairwise_for_experienced_distant_players(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                        add_player) -> None:
    low, high = sorted([add_player(STATEMENTS[0], elo=1300.0, matches=6),
                        add_player(STATEMENTS[1], elo=1200.0, matches=6)])
    elo = {low: elo_matches(planned, low)[0], high: elo_matches(planned, high)[0]}
    fake.script(FakeReply(text="Hypothesis 2 is more specific.\nbetter idea: 2"), agent="ranking",
                mode="pairwise")
    _, result = await run_task("ranking", "RunTournamentRound", "b0")

    assert result.detail["matches"][0]["mode"] == "pairwise"
    (call, *_) = fake.calls_for("ranking", "pairwise")
    (match, *_) = planned.store.matches.all()
    second = high if match.first_shown == low else low
    assert call.action == "RunTournamentRound/match0" and quoted_ids(call.prompt)[:2] == [match.first_shown, second]
    # K = 16 (both have 6 matches); hypothesis 2 (the second shown) won: delta_low = 16 * (S_low - E(low, high))
    delta = 16 * (float(second == low) - expected_score(elo[low], elo[high]))
    assert match.winner == second
    assert match.elo_a_after == pytest.approx(elo[low] + delta)
    assert match.elo_b_after == pytest.approx(elo[high] - delta)
    assert planned.store.db.scalar("SELECT k_factor FROM tournament_matches WHERE id=?", (match.id,)) == 16.0


@pytest.mark.overrides("ranking.dual_order_sample=0", "ranking.dual_order_biased_share=0",
                       "ranking.max_matches_per_pair=8")
async def test_a_rematch_is_shown_in_the_order_judged_fewer_times(planned: SessionRuntime, fake: FakeBackend,
                                                                  run_task, add_player) -> None:
    """A judge asked the same prompt again mostly repeats itself (design.md#judge-memory), so the second match of a
    pair shows it the other way round; the stored first-shown ids are what the agent counts."""
    low, high = sorted([add_player(STATEMENTS[0], elo=1500.0, matches=6),
                        add_player(STATEMENTS[1], elo=1200.0, matches=6)])
    fake.script(FakeReply(text="Hypothesis 2 is more specific.\nbetter idea: 2"), agent="ranking", times=8)
    for k in range(8):
        await run_task("ranking", "RunTournamentRound", f"b{k}")
    orders = [tuple(quoted_ids(c.prompt)[:2]) for c in fake.calls_for("ranking")]
    assert len(orders) == 8 and set(orders[0]) == {low, high}
    assert all(orders[k + 1] == orders[k][::-1] for k in (0, 2, 4, 6))  # never the same order twice in a row
    assert planned.store.matches.shown_counts() == {(low, high): 4, (high, low): 4}
    assert [m.first_shown for m in planned.store.matches.all()] == [o[0] for o in orders]


@pytest.mark.overrides("ranking.matches_per_round=1", "ranking.dual_order_sample=0")
async def test_an_invalid_verdict_is_recorded_with_elo_unchanged(planned: SessionRuntime, fake: FakeBackend,
                                                                 run_task, add_player) -> None:
    a, b = add_player(STATEMENTS[0]), add_player(STATEMENTS[1])
    max_turns = planned.config.debate.max_turns
    fake.script(FakeReply(text="Both are interesting; I would not choose."), agent="ranking", times=max_turns)
    _, result = await run_task("ranking", "RunTournamentRound", "b0", payload={"focus_id": a})

    (played,) = result.detail["matches"]
    assert result.kind == "tournament_match_complete"
    assert played["valid"] is False and played["winner"] is None
    assert len(fake.calls_for("ranking", "debate")) == max_turns  # the panel was given every turn to decide
    (match,) = planned.store.matches.all()
    assert not match.verdict_valid and match.winner is None
    assert match.rationale == "Both are interesting; I would not choose."
    assert (match.elo_a_before, match.elo_b_before, match.elo_a_after, match.elo_b_after) == (1200,) * 4
    assert elo_matches(planned, a) == elo_matches(planned, b) == (1200.0, 0)
    assert planned.store.matches.count(valid_only=True) == 0
    assert planned.store.db.scalar("SELECT COUNT(*) FROM elo_journal") == 0
    assert planned.store.logs.events("match_complete")[0]["payload"]["elo_applied"] is False


async def test_the_same_match_task_twice_applies_elo_once(planned: SessionRuntime, run_task,
                                                          add_player) -> None:
    ids = [add_player(s) for s in STATEMENTS[:3]]
    task, first = await run_task("ranking", "RunTournamentRound", "b0")
    after_first = {h: elo_matches(planned, h) for h in ids}
    again = await planned.execute(task)  # e.g. the process died before the task was marked done

    assert again.match_ids == first.match_ids
    assert again.detail["matches"] == []  # nothing new was played
    assert {h: elo_matches(planned, h) for h in ids} == after_first
    n = planned.config.ranking.matches_per_round
    assert planned.store.matches.count() == n
    assert planned.store.db.scalar("SELECT COUNT(*) FROM elo_journal") == n
    sums = planned.store.matches.journal_sums()
    for h in ids:
        assert elo_matches(planned, h)[0] == pytest.approx(1200.0 + sums.get(h, 0.0))


async def test_a_batch_plays_matches_per_batch_and_keeps_elo_zero_sum(planned: SessionRuntime, run_task,
                                                                      add_player) -> None:
    ids = [add_player(s) for s in STATEMENTS]
    for k in range(4):
        _, result = await run_task("ranking", "RunTournamentRound", f"b{k}")
        assert len(result.match_ids) == planned.config.ranking.matches_per_round
    hyps = planned.store.hypotheses.ranked()
    assert sum(h.elo for h in hyps) == pytest.approx(1200.0 * len(ids))
    assert planned.store.matches.count() == 4 * planned.config.ranking.matches_per_round
    assert len(planned.store.logs.events("match_complete")) == planned.store.matches.count()


async def test_unknown_action_is_refused(planned: SessionRuntime, run_task) -> None:
    with pytest.raises(ValueError, match="no action"):
        await run_task("ranking", "Shuffle", "x")


@pytest.mark.parametrize("max_turns", [pytest.param(n, marks=pytest.mark.overrides(
    "ranking.matches_per_round=1", "ranking.dual_order_sample=0", "debate.min_turns=1", f"debate.max_turns={n}"))
    for n in (2, 10)])
async def test_debate_max_turns_alone_bounds_a_ranking_debate(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                              add_player, max_turns: int) -> None:
    a, _ = add_player(STATEMENTS[0]), add_player(STATEMENTS[1])
    fake.script(FakeReply(text="Both are interesting; I would not choose."), agent="ranking", times=max_turns)
    await run_task("ranking", "RunTournamentRound", "b0", payload={"focus_id": a})
    assert len(fake.calls_for("ranking", "debate")) == max_turns


def _fit(n: int, gap: float) -> BTFit:
    """A BT fit of ``n`` players, θ spaced ``gap`` logits apart, every interval ±1.96 × 0.1 logits."""
    theta = np.linspace(gap * (n - 1) / 2, -gap * (n - 1) / 2, n)
    return BTFit(ids=tuple(f"H{i:04d}" for i in range(n)), theta=theta, cov=np.eye(n) * 0.01, verdicts=10 * n,
                 ci_sd=np.full(n, 0.1), nu=0.0, prior_sd=1.0)


async def test_the_leaderboard_refit_waits_for_the_verdicts_to_grow_above_the_stride(planned: SessionRuntime) -> None:
    """design.md#scale: both fits refit after every verdict up to ranking.bt_refit_stride (100) players; above it
    the pairing every ⌈n / 100⌉ verdicts, the leaderboard (eb_is) once the verdicts grew by 5 %, but at the
    pairing's cadence while its top k is CI-separated (bt_stable may stop the session then)."""
    agent = planned.agents["ranking"]
    vague, separated = _fit(1000, 0.0), _fit(1000, 1.0)
    assert not vague.top_k_separated(5) and separated.top_k_separated(5)
    assert agent.stride(40, "eb_is", vague, 400) == agent.stride(40, "laplace", vague, 400) == 1  # type: ignore[attr-defined]
    assert agent.stride(100, "eb_is", vague, 100_000) == 1  # type: ignore[attr-defined]
    assert agent.stride(1000, "laplace", vague, 10_000) == 10  # type: ignore[attr-defined]
    assert agent.stride(1000, "eb_is", vague, 10_000) == 500  # type: ignore[attr-defined]
    assert agent.stride(1000, "eb_is", vague, 100) == 10  # type: ignore[attr-defined]  # never below the pairing's
    assert agent.stride(1000, "eb_is", separated, 10_000) == 10  # type: ignore[attr-defined]
    assert agent.stride(1000, "eb_is", None, 0) == 10  # type: ignore[attr-defined]  # no fit yet: refit at once


@pytest.mark.overrides("ranking.bt_leaderboard_growth=0")
async def test_no_leaderboard_growth_refits_at_the_pairing_cadence(planned: SessionRuntime) -> None:
    """A session frozen before the key resumes with 0 (cosci/config/renames.py): the pairing's cadence, as it ran."""
    assert planned.agents["ranking"].stride(1000, "eb_is", _fit(1000, 0.0), 10_000) == 10  # type: ignore[attr-defined]


def test_the_session_s_stored_fit_is_the_fit_every_later_refit_computes(planned: SessionRuntime,
                                                                         add_player) -> None:
    """Fresh-user trial: a score (which does not enter the fit) after the session shifted every BT score and
    interval, as the after-session refit fitted the players in Elo order and the session in id order (the fit's
    draws follow the order). The session's refits (the second warm-started from the first) and the later refit
    over the same verdicts store the same numbers, exactly (design.md#researcher-ratings)."""
    from cosci.agents.ranking import RankingAgent
    from cosci.agents.session_fit import refit_bt, refit_if_stale

    cfg = planned.config.ranking
    ids = [add_player(s, elo=1200.0 + 40 * i, matches=2) for i, s in enumerate(STATEMENTS)]
    assert [h.id for h in planned.store.hypotheses.ranked()] != sorted(ids)  # Elo order is not id order
    agent = planned.agents["ranking"]
    assert isinstance(agent, RankingAgent)
    for i, (a, b) in enumerate([(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3), (2, 0)]):
        planned.store.matches.apply(f"M-{i}", ids[a], ids[b], mode="pairwise", winner=ids[a], rule=agent._rule(),
                                     rationale="sharper", transcript=[], task_id=None)
        agent.refit()
    in_session = planned.store.matches.bt()
    assert not refit_if_stale(planned.store, cfg.researcher_weight, cfg.bt_prior_sd)
    refit_bt(planned.store, cfg.researcher_weight, cfg.bt_prior_sd)
    assert planned.store.matches.bt() == in_session
