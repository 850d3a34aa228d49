"""The leaderboard's Bradley–Terry fit, fitted when something reads it (design.md#supervisor, "Leaderboard fit").

The leaderboard fit (``eb_is``: importance-sampled intervals, :mod:`cosci.tournament.importance`) is the costliest
step of a match: 0.4-0.8 s of CPU at 40-60 hypotheses and 100-400 verdicts on one BLAS thread (bench/README.md,
"The Supervisor's scheduling"). A round used to refit and store it after every match; nothing in the loop reads it
then. Its readers are the BT stop rule (``bt_stable``, at each Elo snapshot), the final overview and summary (after
:func:`~cosci.agents.session_fit.refit_if_stale` at finalisation) and, from other processes, ``cosci status`` and
``cosci report`` on a running session (the stored fit). So :class:`LeaderboardFits`, driven by the Supervisor's
snapshots:

- keeps the fit's inputs (players, verdicts, first-shown ids) of the last ``termination.bt_stability_n``
  snapshots, and fits them only when the BT rule's guards hold at the newest one (``min_hypotheses_before_stable``,
  ``min_matches_before_stable``): before that the rule answers "not stable" whatever the fits say. The tracker it
  returns has then been pushed the same fits, in the same order, as one pushed at every snapshot, so ``bt_stable``
  is decided on the same numbers;
- refits at the cadence of :func:`~cosci.agents.session_fit.refit_stride` (a fit is reused while fewer new verdicts
  than the stride are in; every verdict up to 100 players), as the round did;
- stores the newest fit it made, and otherwise a new one once the valid verdicts doubled since the stored fit or
  a researcher's preference changed (``cosci rate`` on a running session), so a reader outside the loop sees a fit
  on at least half of the verdicts before the rule's guards hold and one at most a snapshot old after.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cosci.config.schema import CosciConfig
from cosci.store import SessionStore
from cosci.tournament.stability import BTStabilityTracker

if TYPE_CHECKING:  # the fit (scipy) is imported by its first use, not by the session's start (design.md#startup)
    from cosci.tournament.bt import BTFit, Verdict


@dataclass
class Inputs:
    """One snapshot's fit inputs: sorted player ids, the verdicts and first-shown ids (:func:`session_verdicts`),
    the valid judge verdicts and when the preferences last changed (the cadence's test), and its fit once made."""

    index: int
    ids: tuple[str, ...]
    verdicts: list[Verdict]
    first: list[str | None]
    valid: int
    rated: float | None
    pool: int
    matches: int
    fit: BTFit | None = None


class LeaderboardFits:
    """The leaderboard fit of one session's loop (module docstring)."""

    def __init__(self, config: CosciConfig, store: SessionStore) -> None:
        self.config, self.store = config, store
        self._recent: deque[Inputs] = deque(maxlen=config.termination.bt_stability_n)
        self._last: Inputs | None = None  # the newest snapshot fitted
        self._stored: Inputs | None = None  # the snapshot whose fit is stored (this process)
        self._index = 0

    def snapshot(self, pool: int, matches: int) -> BTStabilityTracker:
        """Take a snapshot (``pool`` hypotheses counting towards the cap, ``matches`` valid matches) and return the
        BT rule's tracker as of it: pushed the last ``bt_stability_n`` fits when its guards hold, else empty."""
        from cosci.agents.session_fit import session_verdicts

        store, weight = self.store, self.config.ranking.researcher_weight
        verdicts, first = session_verdicts(store, weight)
        self._index += 1
        now = Inputs(self._index, tuple(sorted(store.hypotheses.player_ids())), verdicts, first,
                     store.matches.valid_count(), store.researcher.preference_changes(), pool, matches)
        self._recent.append(now)
        tracker = BTStabilityTracker.from_config(self.config.termination)
        if pool >= tracker.min_hypotheses and matches >= tracker.min_matches:
            for inputs in self._recent:
                tracker.push(self._fit(inputs).table(), inputs.pool, inputs.matches)
        elif self._due(now):
            self._fit(now)
        if self._last is not None:
            self._store(self._last)
        return tracker

    def _due(self, now: Inputs) -> bool:
        """Whether the stored fit is due before the rule reads one: none yet, the valid verdicts doubled since it,
        or a preference was rated or withdrawn since."""
        stored = self._stored
        return stored is None or now.valid >= 2 * max(stored.valid, 1) or now.rated != stored.rated

    def _fit(self, inputs: Inputs) -> BTFit:
        """``inputs``' fit: the one before it reused while within :func:`refit_stride` of it, else a new fit."""
        from cosci.agents.session_fit import fit_session_on, refit_stride

        if inputs.fit is not None:
            return inputs.fit
        before = max((s for s in (*self._recent, self._last) if s is not None and s.fit is not None
                      and s.index < inputs.index), key=lambda s: s.index, default=None)
        r = self.config.ranking
        if (before is not None and before.fit is not None and before.ids == inputs.ids
                and before.rated == inputs.rated and 0 <= inputs.valid - before.valid < refit_stride(
                    r, self.config.termination.elo_stability_k, len(inputs.ids), "eb_is", before.fit, before.valid)):
            inputs.fit = before.fit
        else:
            inputs.fit = fit_session_on(inputs.ids, inputs.verdicts, inputs.first, r.bt_prior_sd)
        if self._last is None or inputs.index > self._last.index:
            self._last = inputs
        return inputs.fit

    def _store(self, inputs: Inputs) -> None:
        from cosci.agents.session_fit import save_fit

        if inputs.fit is not None and (self._stored is None or self._stored.fit is not inputs.fit):
            save_fit(self.store, inputs.fit, self.config.termination.elo_stability_k)
            self._stored = inputs  # a reused fit stays the one stored, with the verdicts it was made on


__all__ = ["LeaderboardFits"]
