"""The leaderboard fit is made when it is read (design.md#supervisor): the BT rule decides on the fits it would have
been pushed at every snapshot, while fewer fits run; a researcher's preference is stored at the next snapshot."""

from __future__ import annotations

from collections.abc import Callable
from itertools import cycle

import pytest

import cosci.agents.session_fit as ranking
from cosci.agents.session_fit import fit_session
from cosci.session.runtime import SessionRuntime
from cosci.supervisor.leaderboard import LeaderboardFits
from cosci.tournament.stability import BTStabilityTracker

GUARDS = ("termination.min_hypotheses_before_stable=4", "termination.min_matches_before_stable=8",
          "termination.bt_stability_n=2", "termination.elo_stability_k=2")


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the leaderboard fits the Supervisor makes."""
    made, fit = [], ranking.fit_session_on

    def counted(*args, **kw):  # type: ignore[no-untyped-def]
        made.append(1)
        return fit(*args, **kw)

    monkeypatch.setattr(ranking, "fit_session_on", counted)
    return made


@pytest.mark.overrides(*GUARDS)
def test_the_bt_rule_reads_the_fits_of_every_snapshot_but_fewer_run(
        runtime: SessionRuntime, add_player: Callable[..., str], play: Callable[[str, str, int], None],
        monkeypatch: pytest.MonkeyPatch) -> None:
    cfg, store = runtime.config, runtime.store
    ids = [add_player() for _ in range(4)]
    made = _counted(monkeypatch)
    lazy, eager = LeaderboardFits(cfg, store), BTStabilityTracker.from_config(cfg.termination)
    lazy_fits = 0
    winners = cycle([(ids[0], ids[2]), (ids[1], ids[3]), (ids[0], ids[3]), (ids[1], ids[2]), (ids[2], ids[3])])
    for matches in range(1, 13):
        play(*next(winners), 1)
        fit = fit_session(store, ids, cfg.ranking.researcher_weight, cfg.ranking.bt_prior_sd)
        eager.push(fit.table(), 4, matches)  # the rule as it ran: a stored fit pushed at every snapshot
        before = len(made)
        tracker = lazy.snapshot(4, matches)
        lazy_fits += len(made) - before
        assert tracker.is_stable() == eager.is_stable()
        if matches >= 8:  # the guards hold: the same fits, in the same order
            assert list(tracker._history) == list(eager._history)
            assert tracker._separated == eager._separated
            assert store.matches.bt() == fit.table()  # and the newest one is stored
    assert len(eager._history) == 2 and len(set(eager._history)) == 1  # a settled top 2: not a trivial comparison
    # before the guards: a fit when none was stored and when the verdicts doubled (1, 2, 4); then the snapshot
    # before the guards (7) and each one after (8-12)
    assert lazy_fits == 3 + 1 + 5


def test_a_preference_rated_is_stored_at_the_next_snapshot(runtime: SessionRuntime, add_player: Callable[..., str],
                                                           play: Callable[[str, str, int], None]) -> None:
    store = runtime.store
    a, b, c = (add_player() for _ in range(3))
    lazy = LeaderboardFits(runtime.config, store)
    play(a, b, 2)
    play(b, c, 1)
    lazy.snapshot(3, 3)
    before = store.matches.bt()
    lazy.snapshot(3, 3)
    assert len(store.logs.events("bt_refit")) == 1  # nothing new: nothing refitted
    store.researcher.rate_pair(c, a, "a", "the assay favours it")
    lazy.snapshot(3, 3)
    assert len(store.logs.events("bt_refit")) == 2
    assert store.matches.bt()[c][0] > before[c][0]
