"""One cosci session as a Prefect flow; every agent action a Prefect task named ``agent/action``.

Caching (design.md#caching): Prefect's default cache policy includes the flow run id, so it would only cache
within one run. Each action instead caches on a key built from the action itself — session, agent, action,
task id (derived from its idempotency key), target, payload, and the model route of the agent's modes — with
JSON results stored under ``<session>/prefect_results``. Re-running a killed session therefore replays the
actions that finished (their follow-ups are re-applied idempotently) without calling a model again.

Retries: provider calls are retried inside the gateway (its docstring). Prefect retries a whole action only
when it failed with :data:`~cosci.llm.errors.RETRYABLE_ACTION_ERRORS` (an invalid record, or a transient error
that outlived the gateway's retries), up to ``lease.max_attempts`` attempts (seed: 3, then dead), waiting 1×, 2×, 4×
``retry.base_delay_seconds`` between them (1 s; the tests' 0 waits for nothing, design.md#retries).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from prefect import flow, task
from prefect.context import TaskRunContext
from prefect.tasks import exponential_backoff

from cosci.config.renames import ADDED
from cosci.config.schema import CosciConfig
from cosci.domain import Task, TaskResult
from cosci.errors import SessionFailed
from cosci.llm.errors import BudgetExceeded, HostUnreachable, PermanentLLMError, repeats
from cosci.llm.local.model import LocalModelProvider
from cosci.session import warm
from cosci.session.runtime import SessionRuntime
from cosci.session.summary import SessionSummary, summarise
from cosci.startup import mark, resume_collector
from cosci.supervisor.loop import Observer, Supervisor
from cosci.supervisor.termination import StopReason
from cosci.text import error_line
from flows.process import EmbedderWarmup, ScreenProcess, on_interrupt, one_blas_thread
from flows.task_policy import hashed_key, retryable
from flows.tracker import BackgroundTracker, final_calls

log = logging.getLogger(__name__)

RUNTIMES_MODULE = "cosci.session.runtime"
"""Where this process's open runtimes live (``OPEN_RUNTIMES``); see :func:`runtimes`."""


def runtimes() -> dict[str, SessionRuntime]:
    """This process's open runtimes by session id (tasks take plain data, never clients or locks).

    Looked up by module name at call time, never held in a global here: a served deployment (``cosci serve``)
    pickles this module *by value* into the flow run (Prefect bundles local modules), so a dict defined here is
    one copy for the flow and another for each task, and every task failed with "no runtime" (design.md#resume).
    """
    return importlib.import_module(RUNTIMES_MODULE).OPEN_RUNTIMES  # type: ignore[no-any-return]


def action_spec(rt: SessionRuntime, t: Task) -> dict[str, Any]:
    """The plain-data identity of an action: what its cache key is built from.

    A task enqueued before the vocabulary renames keeps the identity it had then (``Task.cache_spec``: its old
    agent, action and payload names, and the models of the modes its agent had: not those of a mode added since,
    :data:`~cosci.config.renames.ADDED`), so its cached result is found again on resume (design.md#caching)."""
    modes = [m for m in rt.config.agents[t.agent].modes
             if not (t.cache_spec and f"agents.{t.agent}.modes.{m}" in ADDED)]
    models = sorted({rt.gateway.router.route(t.agent, m).model for m in modes})
    then = t.cache_spec or {"agent": t.agent, "action": t.action, "target_id": t.target_id, "payload": t.payload}
    return {"session": rt.session_id, "agent": then["agent"], "action": then["action"], "task_id": t.id,
            "target_id": then["target_id"], "payload": then["payload"], "models": models}


def action_cache_key(context: TaskRunContext, parameters: dict[str, Any]) -> str:
    """Cache key of an agent action: its ``spec`` parameter hashed (:func:`flows.task_policy.hashed_key`)."""
    return hashed_key("cosci-action-", parameters["spec"])


@task(name="agent-action", persist_result=True, result_serializer="json", log_prints=False)
async def agent_action(session_id: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Execute one queued task on its agent; returns the TaskResult as plain data."""
    mark("task")
    rt = runtimes().get(session_id)
    if rt is None:  # never silently: a task that cannot reach its session fails the session (design.md#resume)
        raise SessionFailed(f"session {session_id} is not open in process {os.getpid()} running this task")
    t = rt.store.tasks.get(spec["task_id"])
    if t is None:
        raise KeyError(f"no task {spec['task_id']} in session {session_id}")
    try:
        result = await rt.execute(t)
    except Exception as exc:
        rt.store.tasks.note_error(t.id, f"{type(exc).__name__}: {exc}")
        raise
    return json.loads(result.to_json())


FATAL_ACTIONS = frozenset({"ParseGoal", "ScreenGoal"})
"""Actions whose failure ends the session ``failed``: every later task depends on the research plan
(design.md#caching)."""

FATAL_ERRORS = (PermanentLLMError,)
"""Errors that end the session ``failed`` whichever action meets them, when every later call of the mode would meet
them too (:func:`~cosci.llm.errors.repeats`): an invalid request form (400), a rejected key (401/403), a model the
provider does not serve after the degradation chain is exhausted (404), a request too large for the account's limit.
Left running, such a session ended ``idle`` with an empty overview and exit 0 (design.md#permanent-errors)."""


def make_runner(rt: SessionRuntime):
    results = rt.home.results_dir.resolve()
    results.mkdir(parents=True, exist_ok=True)
    max_attempts = rt.config.lease.max_attempts
    backoff = exponential_backoff(backoff_factor=rt.config.retry.base_delay_seconds)

    async def run(t: Task) -> TaskResult:
        retries = max(0, max_attempts - t.attempts - 1)
        action = agent_action.with_options(
            name=f"{t.agent}/{t.action}",
            task_run_name=f"{t.agent}/{t.action} {t.target_id or t.id}",
            cache_key_fn=action_cache_key,
            result_storage=results,
            result_serializer="json",
            persist_result=True,
            retries=retries,
            retry_delay_seconds=backoff,
            retry_jitter_factor=0.5,
            retry_condition_fn=retryable,
        )
        try:
            return TaskResult.from_dict(await action(rt.session_id, action_spec(rt, t)))
        except BudgetExceeded:
            raise
        except Exception as exc:
            if isinstance(exc, HostUnreachable):  # the host and its fix first (design.md#unreachable-hosts)
                raise SessionFailed(exc.session_line(rt.session_id)) from exc
            if t.action in FATAL_ACTIONS or (isinstance(exc, FATAL_ERRORS) and repeats(exc)):  # nothing can follow
                raise SessionFailed(f"{t.agent}/{t.action} failed: {type(exc).__name__}: {exc}") from exc
            raise

    return run


def _announce(rt: SessionRuntime, resumed: bool) -> None:
    """Which session runs, where, how to stop it, and (resumed) continue it: a new one's goal is not screened yet, and
    a refused goal's session does not run again (an interrupted one's summary says `cosci resume`)."""
    more = f", continue with `cosci resume {rt.session_id}`" if resumed else ""
    print(f"{'resuming' if resumed else 'session'}   {rt.session_id} ({rt.folder}); stop with Ctrl-C{more}",
          file=sys.stderr, flush=True)


def _live_progress(config: CosciConfig, session_id: str) -> Any:
    """The live progress line on a researcher's terminal (a TTY), else None."""
    if not sys.stderr.isatty():
        return None
    from cosci.ui.progress import LiveProgress

    return LiveProgress(config, session_id)


def _held_estimate(estimate: str | None, screened: Callable[[], bool], progress: Any = None) -> Any:
    """The estimate line held until ``screened()`` (goal parsing scheduled: the goal screen passed), else None;
    printed through the live ``progress`` line's console when there is one (the screen passes while it is shown)."""
    if not estimate:
        return None
    from cosci.ui.progress import HeldLine

    return HeldLine(estimate, screened, progress.console if progress else None)


async def _paused(pending: BackgroundTracker | None, rt: SessionRuntime, reason: StopReason) -> dict[str, Any]:
    """An interrupted session: ``paused`` until ``cosci resume``, its MLflow run KILLED; the summary as plain data."""
    rt.store.sessions.update(status="paused", stop_reason=str(reason))
    tracker = await pending.ready() if pending else None
    if tracker and pending:
        await pending.call(tracker.interrupted)
    return summarise(rt, reason, rt.folder / "final" / "overview.md", tracker.run_id if tracker else None).to_dict()


def _failed(rt: SessionRuntime, exc: BaseException, tracker: Any, pending: BackgroundTracker | None) -> None:
    """A session that ended by an exception: an error (not an interrupt) marks it failed, never left running;
    its MLflow run (if it started) is marked FAILED."""
    if isinstance(exc, Exception):
        rt.store.sessions.update(status="failed", stop_reason="error")
        rt.store.logs.event("session_failed", {"error": f"{type(exc).__name__}: {exc}"[:2000]})
    if pending is not None and (tracker := tracker or pending.started()):
        with contextlib.suppress(Exception):  # the original error matters more
            pending.call_now(tracker.fail)


def _raise_unwritable(rt: SessionRuntime, exc: BaseException) -> None:
    """A folder the session can no longer write (an OSError naming a file) as one line, not Hydra's block and a
    traceback; a network OSError (a connection refused or timed out) is not a folder's and is raised as it is.

    Raises:
        SessionFailed: naming the file, the record's state and the resume, when ``exc`` is such an OSError.
    """
    if isinstance(exc, OSError) and exc.filename and not isinstance(exc, ConnectionError | TimeoutError):
        raise SessionFailed(f"could not write {exc.filename}: {exc.strerror or exc}; the "
                            f"session is recorded as failed: make its folder writable, then `cosci resume "
                            f"{rt.session_id}`") from exc


def _say_failed(rt: SessionRuntime) -> None:
    """A failed session's summary on stdout, as a finished one's (session id, stop reason, cost, store; no overview:
    none was written), so ``> summary.txt`` holds it too; the error's own line follows on stderr. Not for an
    unreachable host: its line names the session, and a summary of nothing buried it."""
    with contextlib.suppress(Exception):  # the session's error matters more than its summary
        summary = summarise(rt, "error", rt.home.store_path, None)
        for line in summary.lines():
            print(line, flush=True)


def _check_some_call_succeeded(rt: SessionRuntime, reason: StopReason) -> None:
    """A session that ran out of work without one model call succeeding failed: its provider never answered
    (fresh-user report: ``models=ollama`` with no Ollama server ended ``idle``, exit 0, with an empty overview).

    Raises:
        SessionFailed: naming the last call's error.
    """
    if reason in (StopReason.INTERRUPTED, StopReason.BUDGET, StopReason.REFUSED):
        return  # paused, or a stop with its own reason (a budget too small for any call says so itself)
    outcomes = rt.store.logs.outcomes()
    if outcomes.get("ok", 0) or not any(k.startswith("error") and k != "error:budget" for k in outcomes):
        return
    rows = rt.store.db.query("SELECT error FROM transcripts WHERE session_id=? AND outcome LIKE 'error%'"
                              " AND outcome != 'error:budget' ORDER BY seq DESC LIMIT 1", (rt.session_id,))
    last = " ".join(str(rows[0]["error"] or "").split())[:300] if rows else "unknown"
    raise SessionFailed(f"no model call succeeded ({sum(outcomes.values())} attempts); the last error: {last}")


def _check_some_hypothesis_made(rt: SessionRuntime, reason: StopReason) -> None:
    """A session that ran out of work (idle, stalled) without one hypothesis while its actions failed did not run
    to its end: it failed (fresh-user report: a server answering text to every tool call ended ``done``, exit 0,
    with an empty fallback overview, and could not be resumed once the model was fixed).

    Raises:
        SessionFailed: naming how many actions failed and the last one's error.
    """
    if reason not in (StopReason.IDLE, StopReason.STALLED) or rt.store.hypotheses.count(exclude=()):
        return
    rows = rt.store.db.query("SELECT agent, action, last_error FROM tasks WHERE session_id=? AND status IN "
                             "('failed', 'dead') ORDER BY updated_at DESC", (rt.session_id,))
    if not rows:
        return
    last = " ".join(str(rows[0]["last_error"] or "no error recorded").split())[:300]
    raise SessionFailed(f"no hypothesis was made ({len(rows)} actions failed); the last, "
                        f"{rows[0]['agent']}/{rows[0]['action']}: {last}")


def _close_run(tracker: Any, rt: SessionRuntime, summary: SessionSummary) -> None:
    """Log the results on the session's MLflow run (if tracked) and close it. A failure is a warning: the
    session has ended ``done`` and its record, overview and report are written (tracking never undoes that)."""
    if tracker is None:
        return
    try:
        tracker.log_safety(rt.store)  # design.md#safety
        tracker.finish(rt.store, summary.to_dict(), elo_initial=rt.config.ranking.elo_initial,
                       report=rt.folder / "final" / "report.html")
    except Exception as exc:
        log.warning("the MLflow run %s was not completed: %s", tracker.run_id, error_line(exc))


@flow(name="cosci-session", persist_result=False, log_prints=False, validate_parameters=False)
async def session_flow(
    config_data: dict[str, Any],
    overrides: list[str],
    models_choice: str,
    resume_id: str | None = None,
    ui: bool = False,
    estimate: str | None = None,
) -> dict[str, Any]:
    """Run (or resume) one session to its end; returns the :class:`SessionSummary` as plain data.

    ``ui``: a researcher's terminal run: announce the session id and folder, and show live progress on a TTY.
    ``estimate``: the pre-flight estimate line, printed on stderr once the goal screen has passed (goal parsing
    is scheduled), never for a refused goal (design.md#safety).
    """
    mark("flow run")
    warm.wait()  # the first task's imports, started while the server booted (cosci.session.warm)
    config = CosciConfig.model_validate(config_data)
    rt = await SessionRuntime.open(config, session_id=resume_id, overrides=overrides, models_choice=models_choice)
    runtimes()[rt.session_id] = rt
    one_blas_thread()
    resume_collector()  # paused by the entry point over the imports (cosci.startup)
    mark("store")
    if ui:
        _announce(rt, resumed=resume_id is not None)
    tracker = None
    pending: BackgroundTracker | None = None
    warmup = EmbedderWarmup(rt)
    screens = ScreenProcess(rt)
    handled: list[signal.Signals] = []
    try:
        if config.tracking.enabled:  # MLflow (import and store) starts beside the first tasks (design.md#tracking)
            pending = BackgroundTracker(config, rt, overrides, models_choice)
        progress = _live_progress(config, rt.session_id) if ui else None
        held = _held_estimate(estimate, lambda: sup.tally.count("goal_parsing", "ParseGoal") > 0, progress)
        observers: list[Observer] = list(filter(None, (held, pending, progress)))
        sup = Supervisor(config, rt.store, rt.budget, make_runner(rt), [*observers, warmup, screens])
        handled = on_interrupt(sup) if ui else []
        try:
            if progress:
                progress.start()
            reason = await sup.run()
            _check_some_call_succeeded(rt, reason)
            _check_some_hypothesis_made(rt, reason)
            if reason == StopReason.INTERRUPTED:  # not an end: paused until `cosci resume`
                return await _paused(pending, rt, reason)
            overview = await final_calls(sup, reason, pending)  # its calls overlap the MLflow start, if still under way
            LocalModelProvider.unload()  # the session's last model call is made: report and tracking need none
            tracker = await pending.ready() if pending else None
        finally:
            if progress:
                progress.stop()
        path = rt.write_overview(overview)
        summary = summarise(rt, reason, path, tracker.run_id if tracker else None, sup.stop_detail)
        if pending:
            await pending.call(_close_run, tracker, rt, summary)
        return summary.to_dict()
    except BaseException as exc:
        _failed(rt, exc, tracker, pending)
        if ui and isinstance(exc, Exception) and not isinstance(exc.__cause__, HostUnreachable):  # it: one line
            _say_failed(rt)
        _raise_unwritable(rt, exc)
        raise
    finally:  # Ctrl-C stays the session's until its record, overview and MLflow run agree (not a KeyboardInterrupt
        for sig in handled:  # between a `done` record and its report: the run was left FAILED, fresh-user trial)
            asyncio.get_running_loop().remove_signal_handler(sig)
        await asyncio.to_thread(warmup.join)
        await screens.close()
        await _release(rt, pending)


async def _release(rt: SessionRuntime, pending: BackgroundTracker | None) -> None:
    """Stop the tracker's worker (it reads the record), then close the session's runtime."""
    if pending:
        pending.close()
    runtimes().pop(rt.session_id, None)
    await rt.close()


__all__ = ["SessionSummary", "StopReason", "session_flow"]
