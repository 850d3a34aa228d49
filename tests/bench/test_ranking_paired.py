"""The escalation's share variants (bench/ranking_session.py: session+escalation-0/-1, dual_kind, CoinRecord, the
tally) and the paired driver (bench/ranking_paired.py)."""

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from bench import ranking_paired, ranking_session
from bench.ranking_session import VARIANTS, CoinRecord, dual_kind, run_trial
from cosci.tournament.judging import DualOrderState, wants_dual_order


def test_the_escalation_variants_change_only_the_share() -> None:
    cfg, opts = VARIANTS["session"]
    for name, share in (("session+escalation-0", 0.0), ("session+escalation-1", 1.0)):
        other, other_opts = VARIANTS[name]
        assert other_opts == opts and other == replace(cfg, dual=replace(cfg.dual, biased_share=share))
    assert cfg.dual.biased_share == 0.5


def test_with_share_one_every_close_pair_of_a_biased_judge_is_dual_and_a_far_one_only_by_sample_or_quota() -> None:
    dual = VARIANTS["session+escalation-1"][0].dual
    biased = DualOrderState(matches=100, dual_matches=50, biased=True)  # quota long met
    close = [wants_dual_order("pairwise", 10.0, dual, random.Random(s), state=biased) for s in range(200)]
    far = [wants_dual_order("pairwise", 400.0, dual, random.Random(s), state=biased) for s in range(200)]
    assert all(close)
    assert 0 < sum(far) < 40  # the 10 % sample alone
    unbiased = replace(biased, biased=False)
    assert sum(wants_dual_order("pairwise", 10.0, dual, random.Random(s), state=unbiased) for s in range(200)) < 40


def test_the_coin_record_draws_as_random_random_and_keeps_the_last_draw() -> None:
    a, b = random.Random("3:7"), CoinRecord("3:7")
    for _ in range(50):
        assert a.choice(range(40)) == b.choice(range(40)) and a.randrange(1000) == b.randrange(1000)
        assert a.random() == b.random() == b.last
        w = [float(i % 7) for i in range(30)]
        assert a.choices(range(30), weights=w, k=1) == b.choices(range(30), weights=w, k=1)
        assert a.getrandbits(64) == b.getrandbits(64)
        xs, ys = list(range(20)), list(range(20))
        a.shuffle(xs)
        b.shuffle(ys)
        assert xs == ys


def test_a_dual_match_is_told_by_the_rule_that_made_it() -> None:
    dual = VARIANTS["session"][0].dual  # sample 0.1, share 0.5, policy off
    biased = DualOrderState(100, 50, True)
    assert dual_kind(dual, biased, close=True, coin=0.05) == "sample"
    assert dual_kind(dual, biased, close=True, coin=0.3) == "escalation"
    assert dual_kind(dual, biased, close=True, coin=0.7) == "quota"  # above the share: only the quota makes it dual
    assert dual_kind(dual, replace(biased, biased=False), close=True, coin=0.3) == "quota"
    assert dual_kind(dual, biased, close=False, coin=0.3) == "quota"
    assert dual_kind(replace(dual, policy="all"), biased, close=False, coin=0.05) == "policy"


def test_the_tally_leaves_the_trial_unchanged_and_counts_each_dual_match_once(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg, opts = VARIANTS["session+escalation-1"]
    tally: dict[int, dict[str, int]] = {}
    out = run_trial(cfg, 2.0, 5, (2, 4), n=12, opts=opts, model="memory", tally=tally)
    monkeypatch.setattr(ranking_session, "CoinRecord", random.Random)  # the plain RNG the simulator used before
    assert out == run_trial(cfg, 2.0, 5, (2, 4), n=12, opts=opts, model="memory")
    monkeypatch.undo()
    for c in (2, 4):  # a dual-order match is two calls, a single-order one one
        assert sum(tally[c][k] for k in ("policy", "sample", "escalation", "quota")) == out[c][2] - tally[c]["matches"]
    assert tally[4]["escalation"] > 0 and tally[4]["policy"] == 0
    assert tally[2]["escalation"] <= tally[4]["escalation"]
    none: dict[int, dict[str, int]] = {}
    run_trial(VARIANTS["session+escalation-0"][0], 2.0, 5, (2, 4), n=12, opts=opts, model="memory", tally=none)
    assert none[4]["escalation"] == 0


def _rec(judge: str, trial: int, recalls: dict[str, tuple[float, float]]) -> dict[str, object]:
    kinds = {"policy": 0, "sample": 4, "escalation": 2, "quota": 1, "capped": 0, "reruns": 3}
    return {"judge": judge, "trial": trial, "bias": 0.3, "cpu_s": 1.0,
            "variants": {v: {"12": {"recall": r12, **kinds}, "24": {"recall": r24, **kinds}}
                         for v, (r12, r24) in recalls.items()}}


def test_the_paired_difference_is_per_trial_and_its_standard_error_over_trials() -> None:
    recs = [_rec("memory", t, {"session": (0.6, 0.8), "x": (0.6 + d, 0.8)}) for t, d in enumerate((0.2, 0.0, 0.1))]
    m, se, n = ranking_paired.paired(recs, "session", "x", 12)
    assert (m, n) == (pytest.approx(0.1), 3) and se == pytest.approx(0.1 / 3**0.5)
    assert ranking_paired.paired(recs, "session", "x", 24)[0] == pytest.approx(0.0)


def test_the_rule_needs_a_gain_at_12_calls_under_both_judges_and_no_loss_beyond_the_margins_at_24() -> None:
    good = {("memory", 12): (0.03, 0.02, 150), ("memory", 24): (-0.005, 0.02, 150),
            ("independent", 12): (0.001, 0.02, 150), ("independent", 24): (-0.015, 0.02, 150)}
    assert ranking_paired.choose(good) == (True, [])
    within_se = good | {("memory", 12): (0.01, 0.02, 150)}
    assert ranking_paired.choose(within_se) == (False, ["memory @12 > 0 by ≥ 1 se"])
    losses = good | {("memory", 24): (-0.02, 0.01, 150), ("independent", 24): (-0.03, 0.01, 150)}
    assert ranking_paired.choose(losses)[1] == ["memory @24 ≥ -0.01", "independent @24 ≥ -0.02"]
    missing = {k: v for k, v in good.items() if k[0] == "memory"}
    assert ranking_paired.choose(missing)[1] == ["independent @12 > 0", "independent @24 ≥ -0.02"]


def test_the_driver_appends_a_record_a_trial_and_a_rerun_skips_those_done(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    ran: list[tuple[str, int]] = []

    def fake(judge: str, trial: int, variants: object, budgets: object = None) -> dict[str, object]:
        ran.append((judge, trial))
        return _rec(judge, trial, {"session": (0.6, 0.8), "session+escalation-0": (0.4, 0.8),
                                   "session+escalation-1": (0.8, 0.8)})

    monkeypatch.setattr(ranking_paired, "one", fake)
    out = tmp_path / "tune.jsonl"
    ranking_paired.main(["--judges", "memory", "independent", "--first-trial", "7", "--trials", "2",
                         "--out", str(out)])
    ranking_paired.main(["--judges", "memory", "independent", "--first-trial", "7", "--trials", "3",
                         "--out", str(out)])
    assert ran == [("memory", 7), ("independent", 7), ("memory", 8), ("independent", 8),
                   ("memory", 9), ("independent", 9)]
    assert [json.loads(x)["trial"] for x in out.read_text().splitlines()] == [7, 7, 8, 8, 9, 9]
    capsys.readouterr()
    ranking_paired.main(["--summary", str(out)])
    text = capsys.readouterr().out
    assert "session+escalation-1" in text and "+0.200 ±" in text and "-0.200 ±" in text
    assert "rule: session+escalation-0 does not: memory @12 > 0 by ≥ 1 se; independent @12 > 0" in text
    # a constant +0.2 has a standard error of 0: > 0 by at least one se
    assert "rule: session+escalation-1 goes on to validation" in text
