"""Settling the provider batches of a session no process runs (docs/design.md#batch-settlement).

A session that stops while a Message Batch is at the provider (budget, wall clock, a full pool) polls it once at
its stop; a batch still running then stays outstanding: its matches ``submitted``, the USD held for them shown as
a separate figure by the summary and ``cosci status``. ``cosci status`` and ``cosci resume`` of a stopped session
call :func:`settle_batches`: each outstanding batch is polled once more and, once ended, settled as the session
would have: verdicts through the Elo journal (each applied once), costs booked at the batch price with one
transcript row per result. Errored or expired requests are not played any more (``dropped``): the session has
stopped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from cosci.config.schema import CosciConfig
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.gateway.routing import Router
from cosci.llm.port.types import BatchPort, LLMPort
from cosci.session.folder import SessionFolder
from cosci.store import SessionStore
from cosci.text import error_line, plural
from cosci.tournament.elo import EloRule


@dataclass
class _Deps:
    llm: LLMPort
    router: Router
    batches: BatchPort | None


@dataclass
class _Ranker:
    """The ranking side the batch pool needs, without the session's tools, embedder or vectors."""

    config: CosciConfig
    store: SessionStore
    deps: _Deps
    name: str = "ranking"

    def _rule(self) -> EloRule:
        return EloRule.from_config(self.config.ranking)


def settle_batches(folder: SessionFolder, overrides: Sequence[str] = ()) -> list[str]:
    """Poll every outstanding batch of the session in ``folder`` once; settle those that ended.

    Args:
        overrides: ``key=value`` on the frozen config (as ``cosci resume`` takes them).

    Returns:
        One line per outstanding batch (settled, still running, or the error that stopped its poll); none when
        nothing is outstanding.

    Raises:
        SessionBusy: a process runs the session (it polls its own batches).
    """
    with folder.store() as store:
        if not store.batches.outstanding():
            return []
    config = folder.frozen_config(overrides)
    folder.lock()
    try:
        with folder.store() as store:
            return asyncio.run(_settle(config, store))
    finally:
        folder.unlock()


async def _settle(config: CosciConfig, store: SessionStore) -> list[str]:
    # imported only with a batch outstanding: LiteLLM and the batch pool's fit are seconds of every `cosci status`
    from cosci.agents.match_batches import MatchBatchPool
    from cosci.llm.batches.batch_gateway import BatchGateway
    from cosci.llm.gateway.adapter import Gateway

    budget = TokenBudget(cap_usd=config.run.budget_usd, shares={a: c.budget_share for a, c in config.agents.items()},
                         reserve_share=config.budget.reserve_share, cap_tokens=config.run.budget_tokens)
    budget.restore(store.logs.spend())
    gateway = Gateway(config, budget, store.logs.add_call)
    pool = MatchBatchPool(_Ranker(config, store, _Deps(gateway, gateway.router, BatchGateway(gateway))))
    lines = []
    for batch in store.batches.outstanding():
        before = budget.total_spent_usd
        try:
            result = await pool.collect(batch.batch_task_id)
        except Exception as exc:  # a missing key, a provider error: said in one line, the batch stays outstanding
            lines.append(f"batch {batch.batch_id}: not settled, {error_line(exc)}")
            continue
        if result.kind == "match_batch_outstanding":
            lines.append(f"batch {batch.batch_id}: still running at the provider ({batch.matches} "
                         f"{plural(batch.matches, 'match', 'matches')}, "
                         f"${batch.reserved_usd:.4f} at most)")
            continue
        cost = budget.total_spent_usd - before
        lines.append(f"batch {batch.batch_id}: settled, {len(result.match_ids)} of {batch.matches} "
                     f"{plural(batch.matches, 'match', 'matches')} applied,"
                     f" ${cost:.4f}")
        store.logs.event("match_batch_settled", {"batch_id": batch.batch_id, "matches": result.match_ids,
                                                  "usd": cost, "after_stop": True}, agent="ranking")
    return lines
