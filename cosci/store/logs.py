"""Append-only logs of the record: LLM call transcripts, events, system feedback."""

from __future__ import annotations

import hashlib
import statistics
import time
from dataclasses import dataclass
from typing import Any

from cosci.domain import Call
from cosci.ids import digest
from cosci.store.db import Database, dumps, loads, row_to


@dataclass(frozen=True)
class Feedback:
    id: str
    source: str
    kind: str
    text: str
    payload: dict[str, Any]
    target_id: str | None
    created_at: float


class Logs:
    def __init__(self, db: Database, session_id: str) -> None:
        self.db, self.session_id = db, session_id

    # --- transcripts -----------------------------------------------------------------------------------
    def add_call(self, rec: Call) -> None:
        """Append one call attempt; its system message (if given) is stored once per distinct text."""
        system_text = dumps(rec.system) if rec.system is not None else None
        system_sha = hashlib.sha256(system_text.encode()).hexdigest() if system_text is not None else None
        with self.db.tx() as c:
            if system_text is not None:
                c.execute("INSERT OR IGNORE INTO system_prompts (sha256, session_id, content, created_at)"
                          " VALUES (?,?,?,?)", (system_sha, self.session_id, system_text, time.time()))
            c.execute(
                "INSERT INTO transcripts (session_id, task_id, agent, action, mode, model, attempt, outcome,"
                " input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, latency_seconds,"
                " request, response, error, created_at, system_sha256, first_token_seconds, output_tokens_per_second)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    self.session_id,
                    rec.task_id,
                    rec.agent,
                    rec.action,
                    rec.mode,
                    rec.model,
                    rec.attempt,
                    rec.outcome,
                    rec.input_tokens,
                    rec.output_tokens,
                    rec.cache_read_tokens,
                    rec.cache_write_tokens,
                    rec.cost_usd,
                    rec.latency_seconds,
                    dumps(rec.request) if rec.request is not None else None,
                    dumps(rec.response) if rec.response is not None else None,
                    rec.error,
                    time.time(),
                    system_sha,
                    rec.first_token_seconds,
                    rec.output_tokens_per_second,
                ),
            )

    def system_prompt(self, sha256: str) -> Any:
        """The system message content stored under ``sha256`` (as sent: a list of text blocks), or None."""
        rows = self.db.query("SELECT content FROM system_prompts WHERE sha256=?", (sha256,))
        return loads(rows[0]["content"]) if rows else None

    def spend(self) -> dict[str, dict[str, float]]:
        """USD and tokens spent per agent so far: ``{agent: {"usd": .., "tokens": ..}}``."""
        rows = self.db.query(
            "SELECT agent, SUM(cost_usd) usd, SUM(input_tokens+output_tokens) tok FROM transcripts"
            " WHERE session_id=? GROUP BY agent",
            (self.session_id,),
        )
        return {r["agent"]: {"usd": float(r["usd"] or 0), "tokens": float(r["tok"] or 0)} for r in rows}

    def batched_calls(self, agent: str) -> list[dict[str, Any]]:
        """The answered calls of ``agent`` that went through a provider batch (``request.batch_id`` set): per call
        ``model`` and Anthropic-style ``usage`` (uncached ``input_tokens``, ``output_tokens``,
        ``cache_read_input_tokens``, ``cache_creation_input_tokens``) and ``cost_usd`` (USD, at the batch price)."""
        rows = self.db.query(
            "SELECT model, input_tokens i, output_tokens o, cache_read_tokens r, cache_write_tokens w, cost_usd c"
            " FROM transcripts WHERE session_id=? AND agent=? AND outcome='ok'"
            " AND CASE WHEN json_valid(request) THEN json_extract(request, '$.batch_id') END IS NOT NULL",
            (self.session_id, agent))
        return [{"model": r["model"], "cost_usd": float(r["c"] or 0),
                 "usage": {"input_tokens": max(int(r["i"]) - int(r["r"]) - int(r["w"]), 0),
                           "output_tokens": int(r["o"]), "cache_read_input_tokens": int(r["r"]),
                           "cache_creation_input_tokens": int(r["w"])}} for r in rows]

    def output_lengths(self) -> list[tuple[str, int]]:
        """``(agent.mode, output_tokens)`` of every answered call, oldest first (admission sizing on resume)."""
        rows = self.db.query(
            "SELECT agent, mode, output_tokens FROM transcripts WHERE session_id=? AND outcome='ok' ORDER BY seq",
            (self.session_id,),
        )
        return [(f"{r['agent']}.{r['mode']}", int(r["output_tokens"])) for r in rows]
    def call_speeds(self) -> dict[str, tuple[int, float | None, float | None]]:
        """Per model, over its answered calls: ``(calls, median output tokens/s, median first-token seconds of the
        streamed ones)`` (docs/design.md#long-calls: the configured speeds checked against what a session saw)."""
        rows = self.db.query("SELECT model, output_tokens_per_second v, first_token_seconds f FROM transcripts"
                             " WHERE session_id=? AND outcome='ok' AND output_tokens_per_second IS NOT NULL",
                             (self.session_id,))
        out: dict[str, tuple[int, float | None, float | None]] = {}
        for model in sorted({r["model"] for r in rows}):
            speeds = [float(r["v"]) for r in rows if r["model"] == model]
            firsts = [float(r["f"]) for r in rows if r["model"] == model and r["f"] is not None]
            out[model] = (len(speeds), statistics.median(speeds), statistics.median(firsts) if firsts else None)
        return out

    def cache_read_shares(self) -> dict[str, float]:
        """Share of input tokens read from the provider's prompt cache, per agent and ``"total"`` (design.md#caching).

        ``cache_read_tokens / input_tokens`` over successful calls (input tokens include the cached ones, as
        LiteLLM counts them); agents with no input tokens are left out.
        """
        rows = self.db.query(
            "SELECT agent, SUM(cache_read_tokens) rd, SUM(input_tokens) inp FROM transcripts"
            " WHERE session_id=? AND outcome='ok' GROUP BY agent",
            (self.session_id,),
        )
        shares = {r["agent"]: float(r["rd"] or 0) / r["inp"] for r in rows if r["inp"]}
        total_in = sum(r["inp"] or 0 for r in rows)
        if total_in:
            shares["total"] = sum(float(r["rd"] or 0) for r in rows) / total_in
        return shares

    def degradations(self) -> list[tuple[str, int]]:
        """The steps down the degradation chain, ``(<model> -> <model>, calls)``, in the order first taken
        (design.md#routing)."""
        rows = self.db.query("SELECT error, COUNT(*) n FROM transcripts WHERE session_id=? AND outcome='degraded'"
                             " GROUP BY error ORDER BY MIN(seq)", (self.session_id,))
        return [(str(r["error"]), int(r["n"])) for r in rows]

    def outcomes(self) -> dict[str, int]:
        rows = self.db.query(
            "SELECT outcome, COUNT(*) n FROM transcripts WHERE session_id=? GROUP BY outcome", (self.session_id,)
        )
        return {r["outcome"]: r["n"] for r in rows}

    # --- events ----------------------------------------------------------------------------------------
    def event(self, event: str, payload: dict[str, Any] | None = None, agent: str | None = None) -> None:
        """Append an event (design.md#store: session_started, task_completed, match_complete, ...)."""
        with self.db.tx() as c:
            c.execute(
                "INSERT INTO events (session_id, agent, event, payload, created_at) VALUES (?,?,?,?,?)",
                (self.session_id, agent, event, dumps(payload or {}), time.time()),
            )

    def events(self, event: str | None = None) -> list[dict[str, Any]]:
        sql, params = "SELECT * FROM events WHERE session_id=?", [self.session_id]
        if event:
            sql, params = sql + " AND event=?", [*params, event]
        return [
            {
                "event": r["event"],
                "agent": r["agent"],
                "payload": loads(r["payload"], {}),
                "created_at": r["created_at"],
            }
            for r in self.db.query(sql + " ORDER BY seq", tuple(params))
        ]

    def events_after(self, seq: int, limit: int = 200) -> list[dict[str, Any]]:
        """The events appended after sequence number ``seq`` (oldest first, at most ``limit``), each with its
        ``seq``: what the web UI's event stream sends a browser (docs/web.md)."""
        rows = self.db.query("SELECT * FROM events WHERE session_id=? AND seq>? ORDER BY seq LIMIT ?",
                             (self.session_id, seq, limit))
        return [{"seq": r["seq"], "event": r["event"], "agent": r["agent"], "payload": loads(r["payload"], {}),
                 "created_at": r["created_at"]} for r in rows]

    def last_event_seq(self, event: str | None = None) -> int:
        """The sequence number of the newest event (of kind ``event``, if given; 0 before any)."""
        sql, params = "SELECT MAX(seq) n FROM events WHERE session_id=?", (self.session_id,)
        rows = self.db.query(sql + " AND event=?", (*params, event)) if event else self.db.query(sql, params)
        return int(rows[0]["n"] or 0) if rows else 0

    # --- system feedback -------------------------------------------------------------------------------
    def add_feedback(
        self,
        source: str,
        kind: str,
        text: str,
        *,
        payload: dict[str, Any] | None = None,
        target_id: str | None = None,
        key: str | None = None,
    ) -> str:
        """Store system feedback (meta-review) or researcher feedback; ``key`` makes the insert idempotent."""
        fid = "F-" + digest(self.session_id, key or f"{time.time_ns()}:{text}")
        with self.db.tx() as c:
            c.execute(
                "INSERT OR IGNORE INTO system_feedback (id, session_id, source, kind, text, payload, target_id,"
                " created_at) VALUES (?,?,?,?,?,?,?,?)",
                (fid, self.session_id, source, kind, text, dumps(payload or {}), target_id, time.time()),
            )
        return fid

    def feedback(self, source: str | None = None, kind: str | None = None) -> list[Feedback]:
        """Feedback rows, oldest first."""
        sql, params = "SELECT * FROM system_feedback WHERE session_id=?", [self.session_id]
        if source:
            sql, params = sql + " AND source=?", [*params, source]
        if kind:
            sql, params = sql + " AND kind=?", [*params, kind]
        return [row_to(Feedback, r, json_columns={"payload": {}})
                for r in self.db.query(sql + " ORDER BY created_at, id", tuple(params))]

    def latest_system_feedback(self) -> Feedback | None:
        """The newest meta-review feedback (design.md#metareview: ``_latest_system_feedback()``)."""
        rows = self.feedback(source="meta_review")
        return rows[-1] if rows else None
