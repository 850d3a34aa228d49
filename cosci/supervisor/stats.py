"""The session statistics from the Supervisor's in-memory view (units: Elo points, USD, tokens, seconds)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cosci.stats import SessionStats

if TYPE_CHECKING:
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.supervisor.state import PoolState, TaskTally


def from_state(pool: PoolState, tally: TaskTally, budget: TokenBudget, elapsed_seconds: float,
               initial_elo: float) -> SessionStats:
    """The same statistics from the Supervisor's in-memory view (no record reads; design.md#supervisor)."""
    elos = [p.elo for p in pool.players()]
    spend = dict(budget.spent_usd)
    return SessionStats(
        hypotheses=pool.pool_size(),
        reviews=pool.reviews,
        matches=pool.matches,
        top1_elo=elos[0] if elos else initial_elo,
        top5_mean_elo=sum(elos[:5]) / len(elos[:5]) if elos else initial_elo,
        spent_usd=sum(spend.values()),
        tokens=int(budget.spent_tokens),
        elapsed_seconds=elapsed_seconds,
        tasks_done=tally.status.get("done", 0),
        tasks_failed=tally.status.get("failed", 0) + tally.status.get("dead", 0),
        spend_by_agent=spend,
        feedback=pool.feedback,
    )
