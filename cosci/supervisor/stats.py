"""Session statistics for progress display and step metrics (units: Elo points, USD, tokens, seconds)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from cosci.store import SessionRecord

if TYPE_CHECKING:
    from cosci.llm.budget import TokenBudget
    from cosci.supervisor.state import PoolState, TaskTally


@dataclass(frozen=True)
class SessionStats:
    hypotheses: int
    in_tournament: int
    reviews: int
    matches: int
    top1_elo: float
    top5_mean_elo: float
    spent_usd: float
    tokens: int
    elapsed_seconds: float
    tasks_done: int
    tasks_failed: int
    spend_by_agent: dict[str, float] = field(default_factory=dict)
    feedback: int = 0

    def metrics(self) -> dict[str, float]:
        """Flat numeric metrics for tracking (MLflow step metrics)."""
        out = {
            "top1_elo": self.top1_elo,
            "top5_mean_elo": self.top5_mean_elo,
            "hypotheses": self.hypotheses,
            "matches": self.matches,
            "reviews": self.reviews,
            "spent_usd": self.spent_usd,
            "tokens": self.tokens,
            "tasks_done": self.tasks_done,
            "tasks_failed": self.tasks_failed,
            "system_feedback": self.feedback,
            "elapsed_seconds": self.elapsed_seconds,
        }
        out.update({f"spent_usd_{agent}": usd for agent, usd in self.spend_by_agent.items()})
        return {k: float(v) for k, v in out.items()}


def collect(record: SessionRecord, elapsed_seconds: float, initial_elo: float) -> SessionStats:
    ranked = record.hypotheses.ranked()
    elos = [h.elo for h in ranked]
    spend = record.logs.spend()
    counts = record.tasks.counts()
    return SessionStats(
        hypotheses=record.hypotheses.count(),
        in_tournament=len(ranked),
        reviews=len(record.hypotheses.reviews()),
        matches=record.matches.count(),
        top1_elo=elos[0] if elos else initial_elo,
        top5_mean_elo=sum(elos[:5]) / len(elos[:5]) if elos else initial_elo,
        spent_usd=sum(s["usd"] for s in spend.values()),
        tokens=int(sum(s["tokens"] for s in spend.values())),
        elapsed_seconds=elapsed_seconds,
        tasks_done=counts.get("done", 0),
        tasks_failed=counts.get("failed", 0) + counts.get("dead", 0),
        spend_by_agent={a: s["usd"] for a, s in spend.items()},
        feedback=len(record.logs.feedback(source="meta_review")),
    )


def from_state(pool: PoolState, tally: TaskTally, budget: TokenBudget, elapsed_seconds: float,
               initial_elo: float) -> SessionStats:
    """The same statistics from the Supervisor's in-memory view (no record reads; issue 11)."""
    elos = [p.elo for p in pool.players()]
    spend = dict(budget.spent_usd)
    return SessionStats(
        hypotheses=pool.pool_size(),
        in_tournament=len(elos),
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
