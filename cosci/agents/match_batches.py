"""The ranking agent's batch pool: low-stakes matches through the provider's message-batch API (design.md#batches).

A match whose pair lies in the bottom ``ranking.batch_decile`` of the leaderboard (both
hypotheses) is not played at once but queued (``batched_matches``); matches are always pairwise there (a
debate's turns cannot be sent together). A ranking ``MatchBatch`` task takes the queued matches once
``ranking.batch_size`` have accumulated or the oldest has waited ``ranking.batch_max_wait_s``, submits them as
one batch through the gateway (:class:`~cosci.llm.port.types.BatchPort`) and keeps the batch id on its task row.
It then polls every ``ranking.batch_poll_seconds``: while the batch runs, each poll is a new ``MatchBatch`` task
(poll 1, 2, ...), so no task outlives its lease and a killed session, once resumed, polls the same batch id
and never submits it again. When the batch has ended, each verdict is applied under its match id (the Elo
journal's ``UNIQUE(match_id)`` applies it once); a request that errored or expired is played by a direct call.

Only tiers whose provider has a batch API and ``models.tiers.<tier>.batch`` use it (Anthropic; the scripted fake
in tests); elsewhere every match is played directly.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

from cosci.config.schema import CosciConfig
from cosci.domain import Hypothesis, Task, TaskResult
from cosci.llm.gateway.routing import Router
from cosci.llm.port.types import BatchPort, BatchRequest, CallSpec, LLMPort, Route, TextBlock
from cosci.store import PRIORITY, SessionStore
from cosci.store import task_specs as specs
from cosci.store.batches import BatchedMatch
from cosci.store.task_specs import TaskSpec
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

    def takes(self, players: list[Hypothesis], a: Hypothesis, b: Hypothesis) -> bool:
        """Whether the match of ``a`` and ``b`` goes to a batch: batching on, the tier supports it, and both lie in
        the bottom ``batch_decile`` of the leaderboard (``players`` by Elo)."""
        port = self.agent.deps.batches
        if not self.cfg.batch or port is None or not port.supports(self.route):
            return False
        k = int(len(players) * self.cfg.batch_decile)
        bottom = {h.id for h in sorted(players, key=lambda h: (h.elo, h.id))[:k]}
        return a.id in bottom and b.id in bottom

    def queued(self, task: Task, index: int) -> str | None:
        """The match id a previous attempt of ``task`` queued at ``index``, if any."""
        row = self.store.batches.queued_by(task.id, index)
        return row.match_id if row else None

    def queue(self, task: Task, index: int, mid: str, a: Hypothesis, b: Hypothesis, spec: CallSpec,
              first: str) -> None:
        """Queue one pairwise match (its prompt included, ``first`` the id shown as hypothesis 1) and make sure a
        MatchBatch task will take it."""
        request = {"action": spec.action, "mode": spec.route.mode, "messages": spec.messages,
                   "system": [[blk.text, blk.cache] for blk in spec.system], "first": first}
        self.store.batches.queue(mid, task.id, index, a.id, b.id, request)
        self._ensure_batch_task()

    def _ensure_batch_task(self) -> None:
        rows = self.store.batches.unassigned()
        if rows:  # keyed by the oldest unassigned match: one waiting MatchBatch task at a time
            self._enqueue(specs.match_batch(rows[0].match_id))

    def _enqueue(self, spec: TaskSpec) -> None:
        """Enqueue the pool's own next MatchBatch task (under the agent's name, as the supervisor keys it)."""
        self.store.tasks.enqueue(self.agent.name, spec.action, spec.key, payload=spec.payload,
                                 priority=PRIORITY["ranking"])

    def _request(self, m: BatchedMatch) -> BatchRequest:
        r = m.request
        spec = CallSpec(route=self.agent.deps.router.route(self.agent.name, r["mode"]), action=r["action"],
                        system=[TextBlock(text, bool(cache)) for text, cache in r["system"]],
                        messages=r["messages"], task_id=m.task_id)
        return BatchRequest(m.match_id, spec)

    # --- the MatchBatch task ---------------------------------------------------------------------------------
    async def run(self, task: Task) -> TaskResult:
        """One poll of a MatchBatch task: (poll 0) gather and submit, then poll once; settle when ended."""
        first = str(task.payload.get("batch_task") or task.id)
        rnd = int(task.payload.get("poll", 0))
        batches = self.store.batches
        port = self.agent.deps.batches
        assert port is not None
        if rnd == 0 and not batches.batch_id_of(first):
            held = [m for m in batches.held_by(first) if m.status == "queued"]
            if not held:
                await self._gather()
                held = [m for m in batches.assign(first, self.cfg.batch_size) if m.status == "queued"]
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
                                                             "reserved_usd": reserved}, agent=self.agent.name)
            self._ensure_batch_task()  # matches queued meanwhile wait for the next batch
        if task.payload.get("final"):
            return await self.collect(first)
        batch_id = batches.batch_id_of(first) or ""
        await asyncio.sleep(self.cfg.batch_poll_seconds)
        if not await port.ended(self.route, batch_id):
            self._enqueue(specs.match_batch_poll(first, rnd + 1))
            return TaskResult("match_batch_pending", detail={"batch_id": batch_id, "poll": rnd})
        return await self._settle(first, batch_id)

    async def _gather(self) -> None:
        """Wait until ``batch_size`` matches are queued or the oldest has waited ``batch_max_wait_s``."""
        while True:
            rows = self.store.batches.unassigned()
            waited = time.time() - rows[0].created_at if rows else 0.0
            if not rows or len(rows) >= self.cfg.batch_size or waited >= self.cfg.batch_max_wait_s:
                return
            await asyncio.sleep(min(1.0, self.cfg.batch_max_wait_s - waited))

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
