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

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cosci.config.schema import CosciConfig
from cosci.store import SessionStore
from cosci.tournament.stability import BTStabilityTracker

if TYPE_CHECKING:  # the fit (scipy) is imported by its first use, not by the session's start (design.md#startup)
    from cosci.agents.session_fit import Made
    from cosci.tournament.bt import BTFit, Verdict

log = logging.getLogger(__name__)


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
    read_at: float
    """When the verdicts were read (Unix seconds, taken before the read)."""
    fit: BTFit | None = None
    fit_read_at: float = 0.0
    """When ``fit``'s own verdicts were read (an earlier snapshot's, when reused): its time when stored."""


@dataclass
class Job:
    """The fits one snapshot needs (:meth:`LeaderboardFits.plan`): ``recent``, the last ``bt_stability_n``
    snapshots, pushed to the rule's tracker when ``guarded`` (its guards hold at the newest); ``todo``, the snapshots
    to fit, oldest first; ``known``, the snapshots whose fits a later one may reuse (``recent`` and the newest
    fitted before them)."""

    recent: list[Inputs]
    todo: list[Inputs]
    guarded: bool
    known: list[Inputs]

    @property
    def pending(self) -> bool:
        """Whether a snapshot in ``todo`` has no fit yet (a fit, or the reuse of one, is still to be decided)."""
        return any(inputs.fit is None for inputs in self.todo)


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
        BT rule's tracker as of it: pushed the last ``bt_stability_n`` fits when its guards hold, else empty. The
        three steps in one call; the Supervisor runs :meth:`fit` in a worker thread (:class:`Job`)."""
        self.take(pool, matches)
        job = self.plan()
        self.fit(job)
        return self.settle(job)

    def take(self, pool: int, matches: int) -> Inputs:
        """Read a snapshot's fit inputs from the store (on the event loop: the store is read, nothing is fitted)."""
        from cosci.agents.session_fit import session_verdicts

        store, weight = self.store, self.config.ranking.researcher_weight
        read_at = time.time()
        verdicts, first = session_verdicts(store, weight)
        self._index += 1
        now = Inputs(self._index, tuple(sorted(store.hypotheses.player_ids())), verdicts, first,
                     store.matches.valid_count(), store.researcher.preference_changes(), pool, matches, read_at)
        self._recent.append(now)
        return now

    def plan(self) -> Job:
        """The fits the BT rule needs at the newest snapshot taken (``now``): the last ``bt_stability_n`` when its
        guards hold, else ``now``'s when the stored fit is due (:meth:`_due`), else none."""
        rule = BTStabilityTracker.from_config(self.config.termination)
        recent = list(self._recent)
        now = recent[-1]
        guarded = now.pool >= rule.min_hypotheses and now.matches >= rule.min_matches
        todo = recent if guarded else [now] if self._due(now) else []
        return Job(recent, todo, guarded, [*recent, *([self._last] if self._last else [])])

    def fit(self, job: Job, stop: threading.Event | None = None) -> None:
        """Make ``job``'s fits (pure computation on the snapshots' inputs: safe in a worker thread while the loop
        takes further snapshots; one job at a time). Once ``stop`` is set no further fit of the job starts (the one
        under way runs to its end: a thread cannot be interrupted)."""
        for inputs in job.todo:
            if stop is not None and stop.is_set():
                return
            self._fit(inputs, job.known)

    def settle(self, job: Job) -> BTStabilityTracker:
        """After :meth:`fit` (on the event loop): store the newest fit made and return the rule's tracker."""
        for inputs in job.todo:
            if inputs.fit is not None and (self._last is None or inputs.index > self._last.index):
                self._last = inputs
        tracker = BTStabilityTracker.from_config(self.config.termination)
        if job.guarded:
            for inputs in job.recent:
                assert inputs.fit is not None  # fitted by the job
                tracker.push(inputs.fit.table(), inputs.pool, inputs.matches)
        if self._last is not None:
            self._store(self._last)
        return tracker

    def _due(self, now: Inputs) -> bool:
        """Whether the stored fit is due before the rule reads one: none yet, the valid verdicts doubled since it,
        or a preference was rated or withdrawn since."""
        stored = self._stored
        return stored is None or now.valid >= 2 * max(stored.valid, 1) or now.rated != stored.rated

    def _fit(self, inputs: Inputs, known: list[Inputs]) -> BTFit:
        """``inputs``' fit: the one of the newest ``known`` snapshot before it reused while within
        :func:`refit_stride` of it, else a new fit."""
        from cosci.agents.session_fit import fit_session_on, refit_stride

        if inputs.fit is not None:
            return inputs.fit
        before = max((s for s in known if s.fit is not None and s.index < inputs.index),
                     key=lambda s: s.index, default=None)
        r = self.config.ranking
        if (before is not None and before.fit is not None and before.ids == inputs.ids
                and before.rated == inputs.rated and 0 <= inputs.valid - before.valid < refit_stride(
                    r, self.config.termination.elo_stability_k, len(inputs.ids), "eb_is", before.fit, before.valid)):
            inputs.fit, inputs.fit_read_at = before.fit, before.fit_read_at
        else:
            inputs.fit = fit_session_on(inputs.ids, inputs.verdicts, inputs.first, r.bt_prior_sd)
            inputs.fit_read_at = inputs.read_at
        return inputs.fit

    def _store(self, inputs: Inputs) -> None:
        from cosci.agents.session_fit import save_fit

        if inputs.fit is not None and (self._stored is None or self._stored.fit is not inputs.fit):
            save_fit(self.store, inputs.fit, self.config.termination.elo_stability_k, inputs.fit_read_at)
            self._stored = inputs  # a reused fit stays the one stored, with the verdicts it was made on


class BackgroundFits:
    """The leaderboard's fits off the event loop (design.md#supervisor, "Leaderboard fit, off the event loop"): each
    snapshot's inputs are read on the loop (:meth:`LeaderboardFits.take`), its fits made in a worker thread, one job
    at a time, and stored on the loop when they land. A snapshot taken while a job runs is planned when it lands
    (the snapshots in between keep their inputs, so the rule is still pushed the last ``bt_stability_n``).

    ``tracker`` is the BT rule as of the newest job landed: the stop rule reads it, a job's length (0.4-3 s of CPU
    at 40-60 hypotheses) after the snapshot it was planned at, while the session's calls go on. Run inline, the fit
    held every slot's next call: 46 % of the session process's busy samples on the concurrency bench, and its wall
    / ideal at 1 s latency 1.8-2.0x under load (bench/README.md, "The loop").
    """

    def __init__(self, fits: LeaderboardFits) -> None:
        self.fits = fits
        self.tracker = BTStabilityTracker.from_config(fits.config.termination)
        self.running: asyncio.Task[None] | None = None
        """The job in the worker thread; after it failed, the failed task (its error is the session's)."""
        self.closed = False
        self._again = False
        self._stop = threading.Event()
        """Set by :meth:`close`: an abandoned job starts none of its remaining fits."""

    def snapshot(self, pool: int, matches: int) -> None:
        """Take a snapshot and start its fits (none once :meth:`close` was called: finalisation refits)."""
        if self.closed:
            return
        self.fits.take(pool, matches)
        self._start()

    def _start(self) -> None:
        if self.running is not None:
            self._again = True
            return
        job = self.fits.plan()
        if not job.pending:  # every fit already made: nothing to wait for
            self.tracker = self.fits.settle(job)
            return
        self.running = asyncio.get_running_loop().create_task(self._run(job), name="leaderboard fit")

    async def _run(self, job: Job) -> None:
        await asyncio.to_thread(self.fits.fit, job, self._stop)
        if self.closed:  # abandoned by close(): finalisation refits on every verdict
            return
        self.running = None
        self.tracker = self.fits.settle(job)
        if self._again:
            self._again = False
            self._start()

    def close(self) -> BaseException | None:
        """Start no new job; a running one is abandoned (its fit is neither stored nor read: its inputs miss the
        verdicts still to come, and finalisation refits on all of them, ``refit_if_stale``), so the session's end
        waits for no fit it would redo, and it starts none of its remaining fits: a job planned at the snapshot
        where the BT rule's guards first hold fits the last ``bt_stability_n`` snapshots (about a second of CPU
        each at 60 hypotheses), and run on in its thread it took the CPU the drain and finalisation's own refit
        needed (design.md#supervisor, "The session's end").

        Returns:
            The error a job failed with, if one did (the caller raises it unless it is already raising another).
        """
        self.closed = True
        self._stop.set()
        task = self.running
        if task is None or not task.done() or task.cancelled():
            return None
        return task.exception()


FIT_ACTIONS = ("RunTournamentRound", "MatchBatch", "AddToTournament")
"""The actions whose results change the leaderboard fit's inputs: a match's verdict, a new player."""


FINAL_FIT_WORKERS = 2
"""Threads computing finalisation's fit (:func:`~cosci.tournament.bt_grid.grid_fits`: the grid's independent points
at once; the same fit, to the bit). It is made once the last verdict is in, with every call slot empty and the
overview's first call waiting for it (0.34 s of the quiet 1 s bench's wall with one thread: bench/README.md "Tenth
pass"); the loop's own fits keep one thread (they run beside the session's calls, whose work needs the other core)."""


class FinalFit:
    """Finalisation's leaderboard refit, made while the loop's last actions drain (design.md#supervisor, "The
    session's end: the final refit beside the drain"): once no action in flight can change its inputs
    (:data:`FIT_ACTIONS`), they are read on the loop and fitted in a worker thread while the others (a generation,
    a review) finish their calls. Finalisation stores it (:meth:`refit_if_stale`) only if its inputs are still the
    current ones, else it refits as before; the stored fit is the same either way (deterministic in its inputs).
    Made after the drain, the fit had every slot empty for 0.8-1.7 s of the 1 s concurrency bench's tail."""

    def __init__(self, config: CosciConfig, store: SessionStore) -> None:
        self.config, self.store = config, store
        self.running: asyncio.Task[Made | None] | None = None

    def start(self, inflight: Iterable[asyncio.Task[Any]]) -> None:
        """Start the fit once the actions of ``inflight`` (named ``agent/action``) that change its inputs ended."""
        blocking = {t for t in inflight if t.get_name().partition("/")[2] in FIT_ACTIONS}
        self.running = asyncio.get_running_loop().create_task(self._run(blocking), name="final leaderboard fit")
        self.running.add_done_callback(lambda t: t.cancelled() or t.exception())  # a session that fails before its
        # finalisation never reads it: its error is not "never retrieved"

    async def _run(self, blocking: set[asyncio.Task[Any]]) -> Made | None:
        from cosci.agents.session_fit import Made, leaderboard_fit, refit_inputs, stale

        if blocking:
            await asyncio.wait(blocking)
        if not stale(self.store):  # finalisation would not refit either
            return None
        ids, verdicts, first = refit_inputs(self.store, self.config.ranking.researcher_weight)
        fit = await asyncio.to_thread(leaderboard_fit, ids, verdicts, first, self.config.ranking.bt_prior_sd,
                                      FINAL_FIT_WORKERS)
        return Made(ids, verdicts, first, fit)

    async def refit_if_stale(self) -> None:
        """:func:`~cosci.agents.session_fit.refit_if_stale` with the fit made beside the drain, if it was started
        and succeeded (a failure only means the fit is made here)."""
        from cosci.agents.session_fit import refit_if_stale

        made = None
        if self.running is not None:
            try:
                made = await self.running
            except Exception as exc:  # made again below, on the loop
                log.debug("the final leaderboard fit beside the drain failed: %s", exc)
        r = self.config.ranking
        refit_if_stale(self.store, r.researcher_weight, r.bt_prior_sd, self.config.termination.elo_stability_k, made)


__all__ = ["FINAL_FIT_WORKERS", "FIT_ACTIONS", "BackgroundFits", "FinalFit", "Job", "LeaderboardFits"]
