"""The Elo stability predicate and its guards (seed 000 "Termination Predicates")."""

from __future__ import annotations

from cosci.tournament.stability import StabilityTracker

RATINGS = {"H-a": 1320.0, "H-b": 1290.0, "H-c": 1250.0, "H-d": 1180.0, "H-e": 1100.0}


def tracker(**kw: float) -> StabilityTracker:
    return StabilityTracker(**{"k": 3, "n": 3, "eps": 25.0, "min_hypotheses": 5, "min_matches": 20, **kw})


def push(t: StabilityTracker, ratings: dict[str, float], ideas: int = 5, matches: int = 40) -> None:
    t.push(ratings, ideas, matches)


def test_same_top_k_within_eps_over_n_snapshots_is_stable() -> None:
    t = tracker()
    push(t, RATINGS)
    push(t, {**RATINGS, "H-a": 1330.0})
    assert not t.is_stable()  # fewer than n snapshots
    push(t, {**RATINGS, "H-a": 1340.0, "H-e": 900.0})  # outside the top 3, anything may move
    assert t.is_stable()


def test_drift_at_or_above_eps_is_not_stable() -> None:
    t = tracker()
    for elo in (1320.0, 1330.0, 1345.0):  # H-a moved 25 points across the window
        push(t, {**RATINGS, "H-a": elo})
    assert not t.is_stable()
    push(t, {**RATINGS, "H-a": 1345.0})
    push(t, {**RATINGS, "H-a": 1345.0})  # the window slides: the last 3 snapshots agree
    assert t.is_stable()


def test_a_changed_top_k_set_is_not_stable() -> None:
    t = tracker()
    push(t, RATINGS)
    push(t, RATINGS)
    push(t, {**RATINGS, "H-d": 1260.0})  # H-d overtakes H-c
    assert not t.is_stable()


def test_guards_min_ideas_and_min_matches() -> None:
    few_hypotheses, few_matches = tracker(), tracker()
    for _ in range(3):
        push(few_hypotheses, RATINGS, ideas=4)
        push(few_matches, RATINGS, matches=19)
    assert not few_hypotheses.is_stable() and not few_matches.is_stable()
    push(few_matches, RATINGS, matches=20)  # the guards use the latest counts
    assert few_matches.is_stable()


def test_fewer_players_than_k_waits_for_a_full_top() -> None:
    t = tracker(k=5, min_hypotheses=0, min_matches=0)
    for _ in range(3):
        push(t, {"H-a": 1216.0, "H-b": 1184.0}, ideas=5)
    assert not t.is_stable()  # 5 hypotheses but only 2 players ranked: the top 5 is not filled yet


def bt_table(order: list[str], gap: float, width: float) -> dict[str, tuple[float, float, float]]:
    """BT scores falling by ``gap`` per rank with CIs of half-width ``width``."""
    return {h: (-gap * i, -gap * i - width, -gap * i + width) for i, h in enumerate(order)}


def test_bt_rule_needs_the_same_top_k_n_times_and_separated_cis() -> None:
    from cosci.supervisor.termination import StopReason, stability_stop
    from cosci.tournament.stability import BTStabilityTracker

    ids = [f"H-{i}" for i in range(8)]
    bt = BTStabilityTracker(k=3, n=2, min_hypotheses=5, min_matches=10)
    bt.push(bt_table(ids, 1.0, 0.4), 8, 40)
    assert not bt.is_stable()  # one refit only
    bt.push(bt_table(ids, 1.0, 0.4), 8, 40)
    assert bt.is_stable()
    swapped = [ids[0], ids[1], ids[3], ids[2], *ids[4:]]
    bt.push(bt_table(swapped, 1.0, 0.4), 8, 40)
    assert not bt.is_stable()  # the top-3 set changed
    overlapping = BTStabilityTracker(k=3, n=2, min_hypotheses=5, min_matches=10)
    for _ in range(3):
        overlapping.push(bt_table(ids, 1.0, 0.6), 8, 40)  # k-th low -2.6 < (k+1)-th high -2.4
    assert not overlapping.is_stable()
    guarded = BTStabilityTracker(k=3, n=2, min_hypotheses=5, min_matches=100)
    for _ in range(3):
        guarded.push(bt_table(ids, 1.0, 0.1), 8, 40)
    assert not guarded.is_stable()
    assert stability_stop("either", False, True) is StopReason.BT_STABLE
    assert stability_stop("elo", False, True) is None
    assert stability_stop("bt", True, False) is None and stability_stop("either", True, True) is StopReason.ELO_STABLE


def test_bt_rule_reads_the_calibrated_intervals() -> None:
    """The tracker is pushed the fit's table (RankingAgent.refit stores ``fit.table()``): the default fit's
    intervals are the calibrated ones (design.md#tournament), and separation follows them."""
    import numpy as np

    from cosci.tournament.bt import Z95, fit_bt
    from cosci.tournament.stability import BTStabilityTracker

    ids = [f"H-{i}" for i in range(6)]
    verdicts = [(ids[i], ids[j], 1.0) for i in range(6) for j in range(i + 1, 6) for _ in range(6 - i)]
    fit = fit_bt(ids, verdicts)
    assert fit.method == "eb_is"
    table = fit.table()
    for i, h in enumerate(fit.ids):
        assert table[h] == (float(fit.theta[i]), float(fit.theta[i] - Z95 * fit.sd[i]),
                            float(fit.theta[i] + Z95 * fit.sd[i]))
    old = fit_bt(ids, verdicts, method="laplace")
    assert not np.allclose(old.sd, fit.sd)  # a different interval than the fixed-prior Laplace one
    tracker = BTStabilityTracker(k=1, n=1, min_hypotheses=2, min_matches=1)
    tracker.push(table, 6, len(verdicts))
    assert tracker.is_stable() == fit.top_k_separated(1)
