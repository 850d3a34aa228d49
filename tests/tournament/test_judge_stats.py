"""The judge statistics on scripted verdicts: the Wilson interval of the first-shown win rate, when a position bias
is significant, and agreement with the Bradley–Terry order on held-out verdicts (a noisy judge's falls, an
in-sample figure would not), per judge tier (design.md#position-bias, design.md#judges)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

import pytest

from cosci.tournament import judge_fits as jf
from cosci.tournament import judge_stats as js
from cosci.tournament.judge_stats import Share, judge_stats, position_bias


@dataclass(frozen=True)
class M:
    """A match row as the statistics read it."""

    id: str
    hyp_a: str
    hyp_b: str
    winner: str | None
    verdict_valid: bool
    draw: bool
    verdicts: tuple[dict[str, Any], ...]
    judge: str | None = None


def single(mid: str, first: str, second: str, winner: str | None, judge: str | None = None) -> M:
    a, b = sorted((first, second))
    return M(mid, a, b, winner, winner is not None, False, ({"first": first, "winner": winner},), judge)


def tournament(n_hyp: int, n_matches: int, noise: float, seed: int, judge: str | None = None,
               prefix: str = "M") -> list[M]:
    """Matches between random pairs of ``H00 > H01 > ...``; the judge picks the truly better one, except with
    probability ``noise`` it picks at random."""
    rng = random.Random(seed)
    out = []
    for k in range(n_matches):
        i, j = rng.sample(range(n_hyp), 2)
        first, second = f"H{i:02d}", f"H{j:02d}"
        winner = (first if i < j else second) if rng.random() >= noise else rng.choice((first, second))
        out.append(single(f"{prefix}{k}", first, second, winner, judge))
    return out


def test_the_wilson_interval_is_scipys() -> None:
    s = Share.of(8, 10)
    assert s.rate == 0.8
    assert (s.low, s.high) == pytest.approx((0.4902, 0.9433), abs=1e-4)  # the Wilson score interval of 8/10
    nothing = Share.of(0, 0)
    assert math.isnan(nothing.rate) and math.isnan(nothing.low) and not nothing.excludes_half


@pytest.mark.parametrize(("wins", "calls", "biased"), [
    (70, 100, True), (30, 100, True), (55, 100, False), (4, 4, True), (3, 3, False), (0, 0, False)])
def test_a_bias_is_significant_when_the_interval_excludes_one_half(wins: int, calls: int, biased: bool) -> None:
    assert position_bias(wins, calls) is biased


def test_a_biased_judge_gets_a_warning_and_a_large_unsure_one_a_note() -> None:
    biased = [single(f"M{k}", "a", "b", "a" if k % 10 < 7 else "b") for k in range(100)]  # 70 % first-shown
    stats = judge_stats(biased, 1.0)
    assert stats.position_bias and stats.first_shown.low > 0.5
    warning = [line for line in stats.lines(0.15, 0.5) if line.startswith("WARNING")]
    assert warning and "excludes 50 %" in warning[0] and "share 0.5" in warning[0]
    assert stats.metrics()["judge_position_bias"] == 1.0
    unsure = judge_stats([single(f"M{k}", "a", "b", "a" if k < 4 else "b") for k in range(5)], 1.0)  # 4 of 5
    assert not unsure.position_bias and unsure.flagged(0.15)
    assert not any(line.startswith("WARNING") for line in unsure.lines(0.15))
    assert any(line.startswith("note:") and "not significant" in line for line in unsure.lines(0.15))


def test_held_out_agreement_falls_for_a_noisy_judge() -> None:
    sharp = judge_stats(tournament(12, 160, noise=0.1, seed=1), 1.0)
    noisy = judge_stats(tournament(12, 160, noise=1.0, seed=1), 1.0)  # verdicts are coin flips
    assert sharp.bt_agreement > 0.85 and sharp.bt_agreement_n == 160
    assert noisy.bt_agreement < 0.6
    # the in-sample figure fits the verdict it scores: it flatters the noisy judge
    assert noisy.bt_agreement_in_sample > noisy.bt_agreement + 0.05
    assert sharp.metrics()["judge_bt_agreement"] == pytest.approx(sharp.bt_agreement)


def test_held_out_agreement_predicts_with_the_fitted_position_bias() -> None:
    """The held-out prediction of a call is ``θ_first − θ_second + β``: a judge that picks the truly better of two
    far-apart hypotheses, and otherwise (a close pair) always the first-shown, is predicted on both kinds of call;
    a prediction by θ alone would miss about half of the close pairs' calls."""
    rng = random.Random(7)
    rows = []
    for k in range(200):
        i, j = rng.sample(range(12), 2)
        first, second = f"H{i:02d}", f"H{j:02d}"
        close = i // 4 == j // 4  # three tiers of four equal hypotheses: H00-H03 > H04-H07 > H08-H11
        winner = first if close else (first if i < j else second)
        rows.append(single(f"M{k}", first, second, winner))
    stats = judge_stats(rows, 1.0)
    close_calls = sum(int(m.hyp_a[1:]) // 4 == int(m.hyp_b[1:]) // 4 for m in rows)
    assert 30 < close_calls < 100
    assert stats.bt_agreement > 0.95
    # the same fits' θ alone (the earlier prediction) miss the close pairs' calls about half of the time
    ids = sorted({h for m in rows for h in (m.hyp_a, m.hyp_b)})
    naive = []
    for k in range(js.FOLDS):
        train = [m for m in rows if jf.fold(m.id) != k]
        fit = jf.fit(ids, [((m.hyp_a, m.hyp_b, jf.score_a(m)), jf.label(m), jf.first_shown(m)) for m in train], 1.0)
        pos = fit.index()
        for m in rows:
            if jf.fold(m.id) == k:
                loser = m.hyp_b if m.winner == m.hyp_a else m.hyp_a
                naive.append(float(fit.theta[pos[m.winner]] > fit.theta[pos[loser]]))
    assert sum(naive) / len(naive) < stats.bt_agreement - 0.1


def test_folds_are_fixed_by_the_match_id() -> None:
    matches = tournament(8, 60, noise=0.3, seed=2)
    assert judge_stats(matches, 1.0) == judge_stats(list(reversed(matches)), 1.0)
    assert {jf.fold(m.id) for m in matches} == set(range(js.FOLDS))


def test_per_judge_agreement_and_bias() -> None:
    cheap = tournament(12, 120, noise=0.05, seed=3, judge="cheap", prefix="C")
    mini = tournament(12, 120, noise=1.0, seed=4, judge="mini", prefix="N")
    stats = judge_stats(cheap + mini, 1.0)
    assert set(stats.judges) == {"cheap", "mini"}
    assert stats.judges["cheap"].matches == 120 and stats.judges["cheap"].agreement_n == 120
    assert stats.judges["cheap"].agreement > stats.judges["mini"].agreement + 0.2
    assert stats.judges["mini"].first_shown.n == 120
    metrics = stats.metrics()
    assert {"judge_by_cheap_bt_agreement", "judge_by_mini_first_position_win_rate",
            "judge_by_mini_first_position_ci_low"} <= set(metrics)
    assert sum(line.startswith("judge cheap:") or line.startswith("judge mini:") for line in stats.lines(0.15)) == 2
    assert stats.to_dict()["judges"]["mini"]["matches"] == 120


def test_judge_labels_reach_the_fit_only_where_it_takes_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """``fit_bt(judges=...)`` is passed the labels, and the fit's per-judge ``reliability`` is shown: the one the
    fit reports, scripted here, then the real fit's."""
    from cosci.tournament.bt import fit_bt

    seen: list[list[str]] = []

    def fit_with_judges(ids, verdicts, prior_sd=1.0, start=None, judges=None, first=None,  # type: ignore[no-untyped-def]
                        method="eb_is"):
        seen.append(list(judges or []))
        assert method == jf.POINT_METHOD  # agreement reads the order only: no importance draws
        fit = fit_bt(ids, verdicts, prior_sd, first=first, method=method)
        object.__setattr__(fit, "reliability", {"cheap": 1.0, "mini": 0.4})
        return fit

    matches = tournament(6, 20, 0.1, 5, judge="cheap", prefix="C") + tournament(6, 20, 0.9, 6, judge="mini",
                                                                                prefix="N")
    monkeypatch.setattr(jf, "fit_bt", fit_with_judges)
    stats = judge_stats(matches, 1.0)
    assert seen and all(set(labels) == {"cheap", "mini"} for labels in seen)
    assert stats.judges["mini"].reliability == 0.4 and "reliability 0.40" in " ".join(stats.lines(0.15))
    monkeypatch.undo()
    real = judge_stats(matches, 1.0).judges
    assert isinstance(real["mini"].reliability, float) and isinstance(real["cheap"].reliability, float)


def test_flip_rate_counts_dual_order_matches_with_two_valid_verdicts() -> None:
    flipped = M("D1", "a", "b", None, True, True, ({"first": "a", "winner": "a"}, {"first": "b", "winner": "b"}))
    kept = M("D2", "a", "c", "a", True, False, ({"first": "a", "winner": "a"}, {"first": "c", "winner": "a"}))
    half = M("D3", "b", "c", "b", True, False, ({"first": "b", "winner": "b"}, {"first": "c", "winner": None}))
    stats = judge_stats([flipped, kept, half], 1.0)
    assert (stats.flips.k, stats.flips.n, stats.flip_rate) == (1, 2, 0.5)
    assert 0.0 < stats.flips.low < 0.5 < stats.flips.high < 1.0
    assert stats.calls == 6 and stats.invalid_rate == pytest.approx(1 / 6)
    assert "flip rate 50 %" in stats.lines(0.15)[0]


def _reruns(repeats: bool, seed: int) -> list[M]:
    """Four even pairs (H00-H03, no true gap) rerun 15 times each in both orders; the judge's verdicts are fair
    coins, each rerun of an order repeating that order's last verdict when ``repeats`` (a judge with memory)."""
    rng = random.Random(seed)
    last: dict[tuple[str, str], str] = {}
    out = []
    for k in range(120):
        i, j = rng.sample(range(4), 2)
        first, second = f"H{i:02d}", f"H{j:02d}"
        fresh = rng.choice((first, second))
        winner = last.get((first, second), fresh) if repeats else fresh
        last[(first, second)] = winner
        out.append(single(f"R{k}", first, second, winner))
    return out


def test_the_judges_repeat_share_is_estimated_with_an_interval_beside_the_simulators() -> None:
    copying = judge_stats(_reruns(True, 5), 1.0)
    fresh = judge_stats(_reruns(False, 5), 1.0)
    assert copying.rerun.reruns > 100 and copying.rerun.agreement == 1.0 and copying.rerun.repeat_low > 0.8
    assert fresh.rerun.repeat_low == 0.0 and fresh.rerun.repeat < 0.3
    line = next(x for x in copying.lines(0.15) if "reruns of an ordered pair" in x)
    assert "repeat share 1.00 (95 % CI" in line and "assumes 0.75 (judge with memory: reruns of an even pair" in line
    assert "agree 100 % (95 % Wilson CI" in line and "read from the agreement's" in line  # each named by its method
    first = copying.lines(0.15)[0]
    assert "(95 % Wilson CI" in first and "nominal for independent calls" in first
    order = next(x for x in copying.lines(0.15) if x.startswith("judge: order effect"))
    assert "first-shown wins" in order and "assumes 0.3 logits" in order
    assert copying.flat()["reruns"] == copying.rerun.reruns


def test_no_rerun_says_the_repeat_share_is_not_measured() -> None:
    stats = judge_stats([single("M0", "H00", "H01", "H00"), single("M1", "H01", "H00", "H01")], 1.0)
    assert stats.rerun.reruns == 0
    assert any("no rerun of an ordered pair yet" in x for x in stats.lines(0.15))
