"""Session statistics, the read model shared by the Supervisor and its observers (the live progress line, the
MLflow run, the session summary); units: Elo points, USD, tokens, seconds.

It sits below the Supervisor, tracking and the UI (docs/ARCHITECTURE.md "Layers"), so each can read it without
an upward import: the Supervisor builds it from its in-memory view (:func:`cosci.supervisor.stats.from_state`),
the summary from the store (:func:`collect`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from cosci.store import SessionStore


@dataclass(frozen=True)
class SessionStats:
    hypotheses: int
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


def collect(store: SessionStore, elapsed_seconds: float, initial_elo: float) -> SessionStats:
    ranked = store.hypotheses.ranked()
    elos = [h.elo for h in ranked]
    spend = store.logs.spend()
    counts = store.tasks.counts()
    return SessionStats(
        hypotheses=store.hypotheses.count(),
        reviews=len(store.hypotheses.reviews()),
        matches=store.matches.count(),
        top1_elo=elos[0] if elos else initial_elo,
        top5_mean_elo=sum(elos[:5]) / len(elos[:5]) if elos else initial_elo,
        spent_usd=sum(s["usd"] for s in spend.values()),
        tokens=int(sum(s["tokens"] for s in spend.values())),
        elapsed_seconds=elapsed_seconds,
        tasks_done=counts.get("done", 0),
        tasks_failed=counts.get("failed", 0) + counts.get("dead", 0),
        spend_by_agent={a: s["usd"] for a, s in spend.items()},
        feedback=len(store.logs.feedback(source="meta_review")),
    )
