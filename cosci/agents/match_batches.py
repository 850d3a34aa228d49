"""The ranking agent's batch pool: low-stakes matches through the provider's message-batch API (design.md#batches).

A match the pairing chose is not played at once but queued (``batched_matches``) when both hypotheses have at
most a ``ranking.batch_top_chance`` chance of belonging to the top ``ranking.top_k`` by the Bradley–Terry fit's
own uncertainty (:func:`cosci.tournament.boundary.top_k_chances`): its verdict cannot move the boundary the
tournament settles. Matches are always pairwise there (a debate's turns cannot be sent together).

The pool enqueues nothing itself: the Scheduler is the only place that enqueues tasks
(:mod:`cosci.supervisor.rules`). It enqueues a gathering ``MatchBatch`` task once ``ranking.batch_size`` matches
are queued, the session's last one (:func:`~cosci.store.task_specs.match_batch_last`, any number of matches) when
the session is otherwise ending, and, on a ``match_batch_pending`` result, the next poll of the same batch. A
gathering task takes every queued match, submits them as one batch through the gateway
(:class:`~cosci.llm.port.types.BatchPort`) and keeps the batch id on its task row; it then polls every
``ranking.batch_poll_seconds``: while the batch runs, each poll is a new ``MatchBatch`` task (poll 1, 2, ...), so
no task outlives its lease and a killed session, once resumed, polls the same batch id and never submits it again.
When the batch has ended, each verdict is applied under its match id (the Elo journal's ``UNIQUE(match_id)``
applies it once); a request that errored or expired is played by a direct call.

Only tiers whose provider has a batch API and ``models.tiers.<tier>.batch`` use it (Anthropic; the scripted fake
in tests); elsewhere every match is played directly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from cosci.config.schema import CosciConfig
from cosci.domain import Hypothesis, Task, TaskResult
from cosci.llm.gateway.routing import Router
from cosci.llm.port.types import BatchPort, BatchRequest, CallSpec, LLMPort, Route, TextBlock
from cosci.store import SessionStore
from cosci.store.batches import BatchedMatch
from cosci.tournament.boundary import top_k_chances
from cosci.tournament.bt import BTFit
from cosci.tournament.elo import EloRule
from cosci.tournament.verdict import parse_verdict, rationale_of


class PoolDeps(Protocol):
    """What the pool uses of :class:`~cosci.agents.base.AgentDeps`: the port, the router, the batch side."""

    llm: LLMPort
    router: Router
    batches: BatchPort | None


class RankingAgent(Protocol):
    """What the pool uses of :class:`cosci.agents.ranking.RankingAgent` (structural: the agent owns the pool,
    so this module does not import it back; a stopped session's settlement, :mod:`cosci.session.settle`, gives
    its own)."""

    name: str
    config: CosciConfig
    store: SessionStore

    @property
    def deps(self) -> PoolDeps: ...

    def _rule(self) -> EloRule: ...


class MatchBatchPool:
    """Queue, submit, poll and settle batched matches for one :class:`~cosci.agents.ranking.RankingAgent`."""

    def __init__(self, agent: RankingAgent) -> None:
        self.agent = agent
        self.store = agent.store
        self.cfg = agent.config.ranking

    @property
    def route(self) -> Route:
        return self.agent.deps.router.route(self.agent.name, "pairwise")

    def takes(self, fit: Callable[[], BTFit], a: Hypothesis, b: Hypothesis) -> bool:
        """Whether the match of ``a`` and ``b`` (the pair the pairing chose) goes to a batch: batching on, the tier
        supports it, and each has at most ``batch_top_chance`` chance of belonging to the top ``top_k`` by the
        Bradley–Terry ``fit`` over the players (called only then; design.md#batches)."""
        port = self.agent.deps.batches
        if not self.cfg.batch or port is None or not port.supports(self.route):
            return False
        chances = top_k_chances(fit(), self.cfg.top_k)
        return max(chances.get(a.id, 1.0), chances.get(b.id, 1.0)) <= self.cfg.batch_top_chance

    def queued(self, task: Task, index: int) -> str | None:
        """The match id a previous attempt of ``task`` queued at ``index``, if any."""
        row = self.store.batches.queued_by(task.id, index)
        return row.match_id if row else None

    def queue(self, task: Task, index: int, mid: str, a: Hypothesis, b: Hypothesis, spec: CallSpec,
              first: str) -> None:
        """Queue one pairwise match (its prompt included, ``first`` the id shown as hypothesis 1); the Scheduler
        gathers it into a batch."""
        request = {"action": spec.action, "mode": spec.route.mode, "messages": spec.messages,
                   "system": [[blk.text, blk.cache] for blk in spec.system], "first": first}
        self.store.batches.queue(mid, task.id, index, a.id, b.id, request)

    def _request(self, m: BatchedMatch) -> BatchRequest:
        r = m.request
        spec = CallSpec(route=self.agent.deps.router.route(self.agent.name, r["mode"]), action=r["action"],
                        system=[TextBlock(text, bool(cache)) for text, cache in r["system"]],
                        messages=r["messages"], task_id=m.task_id)
        return BatchRequest(m.match_id, spec)

    # --- the MatchBatch task ---------------------------------------------------------------------------------
    async def run(self, task: Task) -> TaskResult:
        """One poll of a MatchBatch task: (poll 0) take every queued match and submit, then poll once; settle when
        ended. A gathering task finding fewer than ``batch_size`` queued matches leaves them queued, unless it is the
        session's last batch (``payload.last``)."""
        first = str(task.payload.get("batch_task") or task.id)
        rnd = int(task.payload.get("poll", 0))
        batches = self.store.batches
        port = self.agent.deps.batches
        assert port is not None
        if rnd == 0 and not batches.batch_id_of(first):
            held = [m for m in batches.held_by(first) if m.status == "queued"]
            if not held:
                count, _ = batches.waiting()
                if count < self.cfg.batch_size and not task.payload.get("last"):
                    return TaskResult("nothing_to_do", detail={
                        "reason": f"{count} queued matches, fewer than ranking.batch_size ({self.cfg.batch_size})"})
                held = [m for m in batches.assign(first, max(count, 1)) if m.status == "queued"]
            if not held:
                return TaskResult("nothing_to_do", detail={"reason": "no queued match"})
            batch_id, refused = await port.submit([self._request(m) for m in held])
            for mid in refused:
                batches.mark(mid, "refused")
            if not batch_id:
                return TaskResult("nothing_to_do", detail={"reason": "the budget refused every batched match"})
            batches.submitted(first, batch_id)
            reserved = {m.match_id: port.reserved_usd(m.match_id) for m in held if m.match_id not in refused}
            self.store.logs.event("match_batch_submitted", {"batch_id": batch_id, "task_id": first,
                                                             "matches": len(held) - len(refused),
                                                             "last": bool(task.payload.get("last")),
                                                             "reserved_usd": reserved}, agent=self.agent.name)
        if task.payload.get("final"):
            return await self.collect(first)
        batch_id = batches.batch_id_of(first) or ""
        await asyncio.sleep(self.cfg.batch_poll_seconds)
        if not await port.ended(self.route, batch_id):  # the Scheduler enqueues the next poll (match_batch_poll)
            return TaskResult("match_batch_pending", detail={"batch_id": batch_id, "batch_task": first, "poll": rnd})
        return await self._settle(first, batch_id)

    async def collect(self, first: str) -> TaskResult:
        """One poll of the batch a MatchBatch task submitted, at a stop or after it (docs/design.md#batch-settlement):
        an ended batch is settled (verdicts applied, costs booked; errored or expired requests are left unplayed,
        ``dropped``, since the session has stopped); a running one stays outstanding, its rows ``submitted``."""
        port = self.agent.deps.batches
        assert port is not None
        batch_id = self.store.batches.batch_id_of(first) or ""
        if not batch_id or not await port.ended(self.route, batch_id):
            return TaskResult("match_batch_outstanding", detail={"batch_id": batch_id})
        return await self._settle(first, batch_id, direct=False)

    async def _settle(self, first: str, batch_id: str, *, direct: bool = True) -> TaskResult:
        """Apply the verdicts of an ended batch; play errored or expired requests directly (``direct``), or mark
        them ``dropped``."""
        port = self.agent.deps.batches
        assert port is not None
        held = [m for m in self.store.batches.held_by(first) if m.status == "submitted"]
        requests = {m.match_id: self._request(m) for m in held}
        answers = await port.results(self.route, batch_id, list(requests.values())) if held else {}
        applied, played = [], 0
        for m in held:
            resp = answers.get(m.match_id)
            played_direct = resp is None
            if resp is None and not direct:  # the session has stopped: no new call for it
                self.store.batches.mark(m.match_id, "dropped")
                continue
            if resp is None:  # errored or expired in the batch: a direct call instead
                resp = await self.agent.deps.llm.complete(requests[m.match_id].spec)
                played += 1
            # hypothesis 1 of the prompt is the id shown first (a row queued before it was kept: hyp_a)
            first = str(m.request.get("first") or m.hyp_a)
            second = m.hyp_b if first == m.hyp_a else m.hyp_a
            winner = {1: first, 2: second}.get(parse_verdict(resp.text) or 0)
            row = self.store.matches.apply(m.match_id, m.hyp_a, m.hyp_b, mode="pairwise", winner=winner,
                                            rule=self.agent._rule(), rationale=rationale_of(resp.text)[:6000],
                                            transcript=[{"speaker": "judge", "text": resp.text}], task_id=m.task_id,
                                            first_shown=first, verdicts=[{"first": first, "winner": winner}],
                                            judge=self.route.tier)
            self.store.batches.mark(m.match_id, "direct" if played_direct else "applied")
            applied.append(m.match_id)
            if row:
                self.store.logs.event("match_complete", {"id": m.match_id, "mode": "pairwise", "hyp_a": m.hyp_a,
                                                          "hyp_b": m.hyp_b, "winner": row.winner, "batch_id": batch_id,
                                                          "elo_applied": row.verdict_valid}, agent=self.agent.name)
        return TaskResult("tournament_match_complete", match_ids=applied,
                          detail={"batch_id": batch_id, "direct": played})
