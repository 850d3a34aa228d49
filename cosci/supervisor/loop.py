"""The Supervisor main loop (design.md#supervisor).

Check external stop -> check termination -> claim tasks (``run.concurrency`` call slots: slots.py) -> run each
through the runner -> apply follow-up rules -> complete the task -> snapshot Elo -> when nothing is pending, idle
refinement; when it finds nothing either, ``IDLE``. Paused sessions hold (active time is not counted) until
resumed or aborted. On exit, in-flight actions drain (cancelled after a grace period); finalisation then
cancels pending work, runs a last system feedback if none exists, and the final overview.

A task's follow-ups are enqueued *before* it is marked done, so a crash in between replays the (cached)
action and re-applies idempotent follow-ups rather than losing them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from cosci.config.schema import CosciConfig
from cosci.domain import Task, TaskResult
from cosci.errors import SessionFailed
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.errors import RETRYABLE_ACTION_ERRORS, BudgetBusy, BudgetExceeded
from cosci.safety.classifier import screening_on
from cosci.stats import SessionStats
from cosci.store import SessionStore
from cosci.store import task_specs as specs
from cosci.store.task_specs import TaskSpec
from cosci.supervisor.leaderboard import BackgroundFits, FinalFit, LeaderboardFits
from cosci.supervisor.rules import PRIORITIES, Scheduler
from cosci.supervisor.slots import Slots, no_call_actions, rounds_out
from cosci.supervisor.state import FULL_RELOAD_EVERY_TASKS, PoolState, TaskTally
from cosci.supervisor.stats import from_state
from cosci.supervisor.termination import StopReason, stability_stop
from cosci.tournament.stability import BTStabilityTracker, StabilityTracker

log = logging.getLogger(__name__)
Runner = Callable[[Task], Awaitable[TaskResult]]
DRAIN_GRACE_SECONDS = 120.0


class Observer(Protocol):
    def on_progress(self, stats: SessionStats, step: int) -> None: ...


class Supervisor:
    """Runs one session's loop.

    Args:
        runner: executes one task (the flow binds it to a cached, retried Prefect task).
        observers: receive :class:`SessionStats` after every finished task (step = tasks finished).
    """

    def __init__(
        self,
        config: CosciConfig,
        store: SessionStore,
        budget: TokenBudget,
        runner: Runner,
        observers: list[Observer] | None = None,
        owner: str = "supervisor",
    ) -> None:
        self.config, self.store, self.budget, self.runner = config, store, budget, runner
        self.pool, self.tally = PoolState(store), TaskTally(store)
        self.pool.load()
        self.tally.load()
        self.scheduler = Scheduler(config, store, self.pool, self.tally)
        self.observers = observers or []
        self.owner = owner
        self.tracker = StabilityTracker.from_config(config.termination)
        # beside the Elo rule (design.md#tournament); its fits are made when it reads them (design.md#supervisor)
        self.leaderboard = LeaderboardFits(config, store)
        self.fits = BackgroundFits(self.leaderboard)  # off the event loop
        self.final_fit = FinalFit(config, store)  # finalisation's, beside the drain
        self._budget_hit = ""  # the admission's line once a call did not fit the session cap (BudgetExceeded.stop_line)
        self.stop_detail = ""
        """One line on why the session stopped (which agent's share ended it, for ``budget``)."""
        self._interrupted = False
        self.finalising = False
        """Set once the session has stopped and finalisation runs (a Ctrl-C then lets it finish: flows/process.py)."""
        self._ending = False  # the session's last batch went out because nothing else was left: end once it is in
        self._stopping: StopReason | None = None  # a stop decided while its last batch is out (design.md#batches)
        self._settling = False  # the pool reads complete while tournament rounds are out: the stop waits for them
        self._inflight: set[asyncio.Task[None]] = set()
        self.slots = Slots(config.run.concurrency, no_call_actions(config))
        self._snapshot_at = 0
        self._steps = self.tally.status["done"]
        """Tasks done in the session, across resumes: the step of progress reports (MLflow step metrics keep
        counting after a resume, so the latest values are the last step's; fresh-user report)."""
        self._paused_seconds = 0.0
        self._started = time.monotonic()
        self._prior_elapsed = store.sessions.get().elapsed_seconds

    @property
    def bt_tracker(self) -> BTStabilityTracker:
        """The BT stop rule as of the newest leaderboard fit landed (:class:`BackgroundFits`)."""
        return self.fits.tracker

    # --- time ------------------------------------------------------------------------------------------
    def elapsed(self) -> float:
        """Active seconds across resumes (pauses excluded)."""
        return self._prior_elapsed + time.monotonic() - self._started - self._paused_seconds

    def _save_elapsed(self) -> None:
        self.store.sessions.update(elapsed_seconds=self.elapsed())

    # --- termination -----------------------------------------------------------------------------------
    def should_stop(self) -> StopReason | None:
        if (spent := self.budget.working_budget_spent()) or self._budget_hit:
            self.stop_detail = "the session's budget is spent" if spent else self._budget_hit
            return StopReason.BUDGET
        if self.elapsed() >= self.config.run.wall_clock_seconds:
            return StopReason.WALL_CLOCK
        reason = stability_stop(self.config.termination.stability_rule, self.tracker.is_stable(),
                                self.bt_tracker.is_stable())
        self._settling = False
        if reason is None and self.scheduler.pool_complete():
            reason = StopReason.MAX_HYPOTHESES
            if rounds_out(self._inflight):  # one may retire a parent (design.md#retired): count once they land
                self._settling, reason = True, None
        if self._stopping is not None:  # decided before its last batch went out: the batch's verdicts do not undo it
            reason = self._stopping
        if reason is not None and self._batches_first():
            self._stopping = reason
            return None
        return reason

    def _batches_first(self) -> bool:
        """Whether a stop on stability or a full pool waits for provider batches (design.md#batches): the matches
        still queued go out now as the session's last batch, however few, and the stop waits while any MatchBatch
        task is open. Counted by the tally: the Scheduler enqueues every MatchBatch task, polls included."""
        self.scheduler.last_batch()
        return bool(self.tally.count("ranking", specs.MATCH_BATCH, open_only=True))

    def _snapshot(self) -> None:
        matches = self.pool.valid_matches
        if matches - self._snapshot_at >= self.config.termination.snapshot_every_matches:
            self._snapshot_at = matches
            ratings = {h.id: h.elo for h in self.pool.players()}
            self.tracker.push(ratings, self.pool.pool_size(), matches)
            if stability_stop(self.config.termination.stability_rule, self.tracker.is_stable(), False) is None:
                self.fits.snapshot(self.pool.pool_size(), matches)  # else the Elo rule stops the session: no BT fit
            self.store.logs.event("elo_snapshot", {"matches": matches, "top": sorted(ratings.values())[-5:],
                                                    "elo_stable": self.tracker.is_stable(),
                                                    "bt_stable": self.bt_tracker.is_stable()})

    # --- one task --------------------------------------------------------------------------------------
    async def _run_one(self, task: Task) -> None:
        self.store.logs.event(
            "task_started",
            {"task_id": task.id, "agent": task.agent, "action": task.action, "target": task.target_id},
            agent=task.agent,
        )
        try:
            result = await self.runner(task)
        except asyncio.CancelledError:  # interrupted: back to pending, so a resumed session runs it again
            self.store.tasks.release(task.id, "interrupted before it finished")
            raise
        except BudgetBusy as exc:  # fits once calls in flight settle: back to the queue, attempt refunded
            self.store.tasks.defer(task.id, f"waiting for budget: {exc}")
            self.store.logs.event("task_deferred", {"task_id": task.id, "err": str(exc)}, agent=task.agent)
            return
        except BudgetExceeded as exc:
            self.store.tasks.fail(task.id, f"budget: {exc}", dead=False)
            self.tally.ended(task, "failed")
            if exc.scope == "session":
                self._budget_hit = exc.stop_line()
            else:
                self.scheduler.exhausted.add(exc.agent)
            self.store.logs.event("task_failed", {"task_id": task.id, "err": str(exc)}, agent=task.agent)
            return
        except SessionFailed as exc:  # the session cannot go on: recorded, then raised out of the loop
            self.store.tasks.fail(task.id, f"{type(exc).__name__}: {exc}", dead=True)
            raise
        except Exception as exc:  # recorded on the task row; the session goes on
            retryable = isinstance(exc, RETRYABLE_ACTION_ERRORS)
            self.store.tasks.fail(task.id, f"{type(exc).__name__}: {exc}", dead=retryable)
            self.tally.ended(task, "dead" if retryable else "failed")
            self.store.logs.event(
                "task_failed", {"task_id": task.id, "err": f"{type(exc).__name__}: {exc}"}, agent=task.agent
            )
            log.warning("task %s %s/%s failed: %s", task.id, task.agent, task.action, exc)
            return
        self.pool.apply(task, result)
        self.scheduler.follow_ups(task, result)
        self.store.tasks.complete(task.id, result)
        self.tally.ended(task, "done")
        self.store.logs.event(
            "task_completed",
            {"task_id": task.id, "kind": result.kind, "follow_hypothesis_ids": result.hypothesis_ids},
            agent=task.agent,
        )
        if result.kind == "tournament_match_complete":
            self._snapshot()
        self._steps += 1
        if self._steps % FULL_RELOAD_EVERY_TASKS == 0:
            self.reload()
        self._save_elapsed()
        self.notify()

    def reload(self) -> None:
        """Reload the in-memory views from the store (start, resume, and every few tasks)."""
        self.pool.load()
        self.tally.load()

    def notify(self) -> SessionStats:
        stats = from_state(self.pool, self.tally, self.budget, self.elapsed(), self.config.ranking.elo_initial)
        for obs in self.observers:
            try:
                obs.on_progress(stats, self._steps)
            except Exception as exc:  # tracking must never stop the science
                log.warning("observer %s failed: %s", type(obs).__name__, exc)
        return stats

    # --- the loop --------------------------------------------------------------------------------------
    async def run(self) -> StopReason:
        """Run until a stop reason and return it. A paused session holds here until resumed or aborted."""
        tasks = self.store.tasks
        tasks.reclaim()  # a resume: the leases of a dead process are void
        self.reload()
        if not tasks.counts():
            self.scheduler.bootstrap()
        else:
            self.scheduler.reconcile()
        inflight = self._inflight
        reason: StopReason | None = None
        try:
            while reason is None:
                reason, status = self._requested_stop()
                if reason:
                    break
                if status == "paused":
                    await self._hold(inflight)
                    continue
                self._pause_told = False
                reason = self.should_stop()
                if reason:
                    break
                if self._settling:  # the pool reads complete: nothing new starts while its rounds land
                    await self._wait_one(inflight)
                    continue
                self.slots.fill(inflight, tasks, self.owner, self._start)
                reason, added = self._refine(inflight)
                if reason:
                    break
                if added:
                    continue
                await self._wait_one(inflight)
        finally:
            fit_error = await self._wind_down(inflight, reason)
        if fit_error is not None:
            raise fit_error
        return self._ended(reason)

    def _start(self, task: Task) -> asyncio.Task[None]:
        return asyncio.create_task(self._run_one(task), name=f"{task.agent}/{task.action}")

    async def _wind_down(self, inflight: set[asyncio.Task[None]], reason: StopReason | None) -> BaseException | None:
        """The loop's end: no leaderboard fit of the loop starts or lands now; finalisation's fit (on the drained
        tasks' verdicts) starts beside the drain when the session ends (``reason``) on anything but an interrupt
        or a refused goal; drain the actions in flight, save the active time. Returns the error a leaderboard fit
        failed with, if any."""
        fit_error = self.fits.close()
        if fit_error is None and reason not in (None, StopReason.INTERRUPTED, StopReason.REFUSED):
            self.final_fit.start(inflight)
        await self._drain(inflight)
        if self._interrupted:  # claimed tasks cancelled before they started ran no handler of their own
            self.store.tasks.release_owned(self.owner, "interrupted")
        self._save_elapsed()
        return fit_error

    def _ended(self, reason: StopReason) -> StopReason:
        """The loop's stop ``reason``; an interrupted (paused) session first stores a current leaderboard fit, which
        `cosci status` reads (finalisation stores one for every other stop; design.md#supervisor)."""
        if reason == StopReason.INTERRUPTED:
            self._refit_if_stale()
        return reason

    def _refit_if_stale(self) -> None:
        from cosci.agents.session_fit import refit_if_stale  # a verdict or preference after the stored fit

        refit_if_stale(self.store, self.config.ranking.researcher_weight, self.config.ranking.bt_prior_sd,
                       self.config.termination.elo_stability_k)

    def _requested_stop(self) -> tuple[StopReason | None, str]:
        """A stop asked from outside the loop (Ctrl-C, ``cosci abort``, a refused goal), and the session status."""
        if self._interrupted:
            return StopReason.INTERRUPTED, ""
        status = self.store.sessions.status()
        if status == "aborting":
            return StopReason.EXTERNAL, status
        if status == "refused":  # safety screening blocked the goal (design.md#safety)
            return StopReason.REFUSED, status
        return None, status

    def _refine(self, inflight: set[asyncio.Task[None]]) -> tuple[StopReason | None, int]:
        """Idle refinement (design.md#supervisor) when a slot is free and nothing is pending: (the stop reason when
        there is nothing left to do and nothing running, else None; the number of tasks enqueued)."""
        if self.slots.used(inflight) >= self.slots.actions:
            return None, 0
        if self._stopping is not None:  # a stop waits for its last batch: no new work meanwhile
            return None, 0
        if self._ending:  # the last batch is out: no new work, the session ends once it is in (design.md#batches)
            if inflight or self.tally.count("ranking", specs.MATCH_BATCH, open_only=True):
                return None, 0
            added = self.scheduler.last_batch()  # matches a round still running queued meanwhile
            return (None if added else self._idle_reason()), added
        added = self.scheduler.decide_next_steps()
        if added == 0 and not inflight:  # nothing else to do: the queued matches go out as the last batch
            added = self.scheduler.last_batch()
            self._ending = added > 0
        if added == 0 and not inflight:
            return self._idle_reason(), 0
        return None, added

    async def _wait_one(self, inflight: set[asyncio.Task[None]]) -> None:
        """Wait for the first of the running tasks to finish (at most ``run.idle_poll_seconds``, s), or a leaderboard
        fit to land (the stop rule reads it)."""
        if not inflight:
            return
        fitting = {self.fits.running} if self.fits.running else set()
        done, _ = await asyncio.wait(inflight | fitting, timeout=self.config.run.idle_poll_seconds,
                                     return_when=asyncio.FIRST_COMPLETED)
        inflight -= done
        errors = [t.exception() for t in done if not t.cancelled()]
        if first := next((e for e in errors if e is not None), None):
            raise first  # surface a failed session or a programming error instead of losing it

    def _idle_reason(self) -> StopReason:
        """Why a session with nothing to do ends: an agent's share ran out, it stalled, or plain idle."""
        if self.scheduler.exhausted:
            agents = ", ".join(sorted(self.scheduler.exhausted))
            self.stop_detail = f"budget share spent: {agents}"
            return StopReason.BUDGET
        if self.scheduler.stalled():
            self.stop_detail = ("the pool cannot grow (growth attempts used or duplicates only) and every pair of"
                                f" players has played {self.config.ranking.max_matches_per_pair} times")
            return StopReason.STALLED
        return StopReason.IDLE

    async def _hold(self, inflight: set[asyncio.Task[None]]) -> None:
        if not getattr(self, "_pause_told", False):  # say it once per pause (design.md#resume)
            sid = self.store.session_id
            log.warning("session %s is paused; this process waits: continue with `cosci resume %s`, stop with "
                        "`cosci abort %s`",
                        sid, sid, sid)
            self._pause_told = True
        await self._drain(inflight)
        t0 = time.monotonic()
        await asyncio.sleep(1.0)
        self._paused_seconds += time.monotonic() - t0

    def interrupt(self) -> None:
        """Stop at once (Ctrl-C): cancel in-flight actions, which go back to the queue for `cosci resume`."""
        self._interrupted = True
        for t in list(self._inflight):
            t.cancel()

    async def _drain(self, inflight: set[asyncio.Task[None]]) -> None:
        """Let in-flight actions finish (up to a grace period), then cancel what is left."""
        if not inflight:
            return
        done, pending = await asyncio.wait(inflight, timeout=0 if self._interrupted else DRAIN_GRACE_SECONDS)
        for t in pending:
            t.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        for t in done:  # the loop is already ending (its own error, if any, is on its way out): log the others
            exc = t.exception() if not t.cancelled() else None
            if exc is not None and not isinstance(exc, SessionFailed):  # a second fatal error: on its task row
                log.warning("task %s ended with %s: %s", t.get_name(), type(exc).__name__, exc)
        inflight.clear()

    # --- finalisation ----------------------------------------------------------------------------------
    async def finalize(self, reason: StopReason) -> str:
        """Cancel pending work, mark the batched matches still queued ``unsent`` (a stopped session spends nothing
        new: design.md#batches), poll every submitted provider batch once more (an ended one is settled, a running
        one stays outstanding: docs/design.md#batch-settlement), write a last system feedback if none exists, then
        the final overview.

        Returns:
            The overview Markdown (also stored on the session row).
        """
        tasks, sched = self.store.tasks, self.scheduler
        # nothing runs after a refused goal; the refusal notice stays (design.md#safety)
        if reason == StopReason.REFUSED:
            self.notify()
            return self.store.sessions.get().final_overview or ""
        self.finalising = True
        tasks.cancel_pending()
        sched.exhausted.clear()
        if unsent := self.store.batches.unsent():  # queued, never sent: a stopped session spends nothing new
            self.store.logs.event("match_batch_unsent", {"matches": unsent}, agent="ranking")
        for batch in self.store.batches.outstanding():  # a paid-for batch: settled now, or left outstanding
            n = tasks.count("ranking", specs.MATCH_BATCH)
            await self._run_final(specs.match_batch_stop(batch.batch_task_id, n), PRIORITIES["final"])
        await self.final_fit.refit_if_stale()  # made beside the drain, if its inputs are still the current ones
        if not self.store.logs.feedback(source="meta_review") and self.store.hypotheses.reviews(limit=1):
            await self._run_final(specs.final_system_feedback(), PRIORITIES["metareview"])
        await self._run_final(specs.final_overview(), PRIORITIES["final"])
        if screening_on(self.config):  # the overview is screened before it leaves the session (design.md#safety)
            await self._run_final(specs.overview_screen(), PRIORITIES["final"])
        overview = self.store.sessions.get().final_overview or ""
        self.store.sessions.update(status="done", stop_reason=reason.value)
        self.store.logs.event("session_done", {"stop_reason": reason.value, "detail": self.stop_detail})
        self.notify()
        return overview

    async def _run_final(self, spec: TaskSpec, priority: int) -> None:
        """Enqueue (idempotently, through the Scheduler) and run a finalisation task unless an earlier attempt
        finished it."""
        task = self.scheduler.enqueue_final(spec, priority)
        if task is not None and task.status != "done":
            await self._run_one(task)
