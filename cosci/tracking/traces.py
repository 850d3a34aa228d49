"""LLM calls as MLflow traces (design.md#report): one trace per task, one ``CHAT_MODEL`` span per call attempt.

The source is the record's ``transcripts`` table, which the gateway fills through its recorder hook for every
call attempt (answered, retried, failed, or refused by the budget). So the spans of a session are exactly its
transcript rows, the gateway never imports MLflow, and a resumed session continues where the last flush
stopped. Each trace is named ``agent/action``, carries the task id, session id and run id as tags, and is
linked to the session's run (``mlflow.sourceRun``), so the run's Traces tab lists the session's calls grouped
by task. A span has the agent, mode, model, attempt, outcome, latency (seconds), tokens (input, output, cache
read/write; MLflow's ``mlflow.chat.tokenUsage``) and cost (USD; ``mlflow.llm.cost``), with the request
messages as inputs and the answer as outputs (each capped at :data:`MAX_TEXT` characters).

Why not ``mlflow.litellm.autolog()``: it hooks LiteLLM's process-global callbacks and records into MLflow's
global active experiment and run, whereas cosci keeps one explicit client per session (concurrent sessions in
one process), and a budget refusal never reaches LiteLLM but is a transcript row. The trace *export* still
follows MLflow's global tracking URI (MLflow sets its exporter up from it), so :func:`_route_to` points it at the
session's store before a flush; a flush is serialised by a lock.

A quarantined hypothesis's text never reaches a span (design.md#safety): the calls of a task that made a hypothesis
safety screening has not judged yet wait (:data:`UNSCREENED`), and every text of a quarantined hypothesis is
replaced by the placeholder title in a span's inputs and outputs (:class:`Withholder`: the generation call that wrote
it, the screening call that read it).

When: a task's trace is written once the task is finished (done, failed, dead or cancelled), at every step
metrics flush and at the end of the session (then every remaining call, whatever its task's state). Export is
synchronous in the calling thread (:data:`SYNC_EXPORT_ENV`; the session calls from its tracker's worker thread);
if the user turns MLflow's async export on, the final flush waits for its threads.
"""

from __future__ import annotations

import json
import os
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import mlflow
from mlflow.entities import SpanStatusCode, SpanType
from mlflow.tracking import MlflowClient

from cosci.store import SessionStore
from cosci.store.standing import QUARANTINED

FINISHED = ("done", "failed", "dead", "cancelled")
"""Task states after which a task makes no more calls (design.md#store)."""
MAX_TEXT = 20_000
"""Characters of a call's request or answer kept on its span."""
PROGRESS_TAG = "cosci.traces_progress"
"""Run tag: the highest transcript seq below which every call is traced, and the traced seqs above it."""

_LOCK = threading.Lock()
_ROUTED: list[str] = []


SYNC_EXPORT_ENV = "MLFLOW_ENABLE_ASYNC_TRACE_LOGGING"
"""Set to ``false`` unless the user set it: traces are written from the session tracker's own worker thread
(``flows.tracker.BackgroundTracker``), so MLflow's ten export threads add only GIL contention. Measured on the
fake demo (design.md#store, 2 cores): the whole wall 12.1 s with async export, 11.0 s without."""


def _route_to(uri: str) -> None:
    """Point MLflow's trace exporter at ``uri`` (it is built from the global tracking URI)."""
    os.environ.setdefault(SYNC_EXPORT_ENV, "false")
    if [uri] != _ROUTED or mlflow.get_tracking_uri() != uri:
        mlflow.flush_trace_async_logging()  # traces still queued for the previous store go there first
        mlflow.set_tracking_uri(uri)
        mlflow.tracing.reset()
        _ROUTED[:] = [uri]


def _text(value: Any) -> Any:
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " …[truncated]"


UNSCREENED = ("SELECT DISTINCT created_by_task FROM hypotheses h WHERE h.session_id=? AND h.state='draft'"
              " AND h.created_by_task IS NOT NULL AND NOT EXISTS (SELECT 1 FROM safety_verdicts v"
              " WHERE v.subject='hypothesis' AND v.subject_id=h.id)")
"""Tasks that made a hypothesis safety screening has not judged yet: their calls wait (its text may be quarantined)."""
TEXT_FIELDS = ("title", "statement", "mechanism", "anticipated_outcomes", "novelty_argument", "decisive_experiment",
               "predicted_result", "refuting_result")
"""A quarantined hypothesis's texts that are withheld from spans (design.md#safety)."""
MIN_WITHHELD = 12
"""Characters: a shorter text (a two-word title) is not withheld, lest the goal's own words vanish from spans."""


class Withholder:
    """Replaces every text of the session's quarantined hypotheses in a span's inputs or outputs by
    :data:`cosci.store.standing.QUARANTINED` (as written, and JSON-escaped inside a tool call's arguments)."""

    def __init__(self, store: SessionStore) -> None:
        cols = ", ".join(TEXT_FIELDS)
        texts = {str(t) for r in store.db.query(f"SELECT {cols} FROM hypotheses WHERE session_id=? AND "
                                                 "state='quarantined'", (store.session_id,)) for t in r
                 if t and len(str(t)) >= MIN_WITHHELD}
        forms = {f for t in texts for f in (t, json.dumps(t)[1:-1], json.dumps(t, ensure_ascii=False)[1:-1])}
        self.forms = sorted(forms, key=len, reverse=True)  # the longest first: a title inside a statement

    def __call__(self, value: Any) -> Any:
        if not self.forms or value is None:
            return value
        if isinstance(value, str):
            for form in self.forms:
                value = value.replace(form, QUARANTINED)
            return value
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v) for v in value]
        return value


def _ns(seconds: float) -> int:
    return int(seconds * 1e9)


class TraceLogger:
    """Writes the traces of one session's run (see the module docstring).

    Args:
        client: the session's MLflow client; ``uri`` its tracking URI; ``run_id`` the session's run.
    """

    def __init__(self, client: MlflowClient, uri: str, run_id: str) -> None:
        self.client, self.uri, self.run_id = client, uri, run_id
        run = client.get_run(run_id)
        self.experiment_id = run.info.experiment_id
        progress = json.loads(run.data.tags.get(PROGRESS_TAG, "{}") or "{}")
        self.below = int(progress.get("below", 0))
        self.above: set[int] = set(progress.get("above", []))
        self.withhold: Callable[[Any], Any] = lambda value: value  # set per flush: Withholder

    def flush(self, store: SessionStore, final: bool = False) -> int:
        """Trace the calls not traced yet (only of finished tasks unless ``final``); returns the spans written."""
        rows = store.db.query(
            "SELECT t.*, k.status task_status, k.action task_action FROM transcripts t"
            " LEFT JOIN tasks k ON k.id = t.task_id WHERE t.session_id=? AND t.seq>? ORDER BY t.seq",
            (store.session_id, self.below))
        pending = [r for r in rows if r["seq"] not in self.above]
        unscreened = {r[0] for r in store.db.query(UNSCREENED, (store.session_id,))}  # wait for the screen
        ready = [r for r in pending if final or ((r["task_status"] in FINISHED or r["task_status"] is None)
                                                 and r["task_id"] not in unscreened)]
        if not ready:
            if final:  # earlier flushes may still be exporting in MLflow's background threads
                mlflow.flush_trace_async_logging()
            return 0
        groups: dict[str | None, list[Any]] = defaultdict(list)
        for r in ready:
            groups[r["task_id"]].append(r)
        self.withhold = Withholder(store)
        with _LOCK:
            _route_to(self.uri)
            for task_id, calls in groups.items():
                self._trace(store.session_id, task_id, calls)
            if final:  # MLflow exports in background threads; wait for them only when the run ends
                mlflow.flush_trace_async_logging()
        self.above |= {r["seq"] for r in ready}
        held = [r["seq"] for r in pending if r["seq"] not in self.above]
        limit = min(held) - 1 if held else max(r["seq"] for r in rows)
        self.below = max(self.below, limit)
        self.above = {s for s in self.above if s > self.below}
        self.client.set_tag(self.run_id, PROGRESS_TAG,
                            json.dumps({"below": self.below, "above": sorted(self.above)}))
        return len(ready)

    def _trace(self, session_id: str, task_id: str | None, calls: list[Any]) -> None:
        first = calls[0]
        action = first["task_action"] or first["action"]
        start = min(c["created_at"] - c["latency_seconds"] for c in calls)
        end = max(c["created_at"] for c in calls)
        ok = all(c["outcome"] == "ok" for c in calls)
        root = self.client.start_trace(
            f"{first['agent']}/{action}", span_type=SpanType.AGENT,
            inputs={"task_id": task_id, "agent": first["agent"], "action": action},
            attributes={"cosci.session_id": session_id, "cosci.task_id": task_id or ""},
            tags={"cosci.session_id": session_id, "cosci.task_id": task_id or "", "cosci.agent": first["agent"],
                  "cosci.run_id": self.run_id},
            experiment_id=self.experiment_id, start_time_ns=_ns(start), run_id=self.run_id)
        for c in calls:
            self._span(root, c)
        self.client.end_trace(root.trace_id, outputs={"calls": len(calls), "usd": sum(c["cost_usd"] for c in calls)},
                              status=SpanStatusCode.OK if ok else SpanStatusCode.ERROR, end_time_ns=_ns(end))

    def _span(self, root: Any, c: Any) -> None:
        tokens = {"input_tokens": c["input_tokens"], "output_tokens": c["output_tokens"],
                  "total_tokens": c["input_tokens"] + c["output_tokens"],
                  "cache_read_input_tokens": c["cache_read_tokens"],
                  "cache_creation_input_tokens": c["cache_write_tokens"]}
        span = self.client.start_span(
            f"{c['agent']}.{c['mode']}", trace_id=root.trace_id, parent_id=root.span_id,
            span_type=SpanType.CHAT_MODEL,
            inputs=_text(self.withhold(json.loads(c["request"])) if c["request"] else None),
            attributes={"cosci.agent": c["agent"], "cosci.mode": c["mode"], "cosci.action": c["action"],
                        "cosci.attempt": c["attempt"], "cosci.outcome": c["outcome"], "cosci.seq": c["seq"],
                        "cosci.cost_usd": c["cost_usd"], "cosci.latency_seconds": c["latency_seconds"],
                        "mlflow.llm.model": c["model"], "mlflow.chat.tokenUsage": tokens,
                        "mlflow.llm.cost": {"total_cost": c["cost_usd"]}},
            start_time_ns=_ns(c["created_at"] - c["latency_seconds"]))
        outputs = json.loads(c["response"]) if c["response"] else {"error": c["error"]}
        self.client.end_span(root.trace_id, span.span_id, outputs=_text(self.withhold(outputs)),
                             status=SpanStatusCode.OK if c["outcome"] == "ok" else SpanStatusCode.ERROR,
                             end_time_ns=_ns(c["created_at"]))
