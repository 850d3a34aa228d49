"""The Supervisor's in-memory view of a session: leaderboard, counts and task tally (design.md#supervisor).

After every task the Supervisor used to reload the whole ranking and every review from the store (each
hypothesis row decoded from JSON again), so its own cost per task grew with the pool. :class:`PoolState` is
loaded from the store once (at start or resume) and then updated from each task's result, reading back only
the rows that task touched (a new hypothesis, the two players of a match). Task counts are kept the same way
by :class:`TaskTally`.

Other processes may change the store while a session runs (``cosci feedback --kind rejection`` rejects a
hypothesis): both views reload in full every ``FULL_RELOAD_EVERY_TASKS`` tasks, so such a change is seen within
that many tasks (the ranking agent reads the store itself and never plays a rejected or retired hypothesis).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from cosci.domain import Task, TaskResult
from cosci.store import SessionStore
from cosci.tournament.rematch import capped_pairs, pair_key, reached
from cosci.tournament.rematch import open_pairs as count_open

FULL_RELOAD_EVERY_TASKS = 100
"""Tasks between full reloads of the in-memory views from the store (catches changes made by other
processes; cosci)."""
PLAYER_STATES = ("in_tournament", "pinned")
"""Hypothesis states that play in the tournament (design.md#states)."""
OUT_OF_POOL = ("rejected", "retired", "quarantined")
"""States that do not count towards ``run.max_hypotheses`` (design.md#defaults)."""
OPEN = ("pending", "leased", "in_progress")


@dataclass
class Standing:
    """One hypothesis as the Supervisor sees it: Elo rating (Elo points), matches played, state, cluster."""

    id: str
    elo: float
    matches_played: int
    state: str
    dedup_cluster: int | None


@dataclass
class PoolState:
    """Leaderboard and counts of one session, kept current from task results."""

    store: SessionStore
    standings: dict[str, Standing] = field(default_factory=dict)
    pair_counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    reviews: int = 0
    matches: int = 0
    valid_matches: int = 0
    feedback: int = 0
    duplicate_streak: int = 0
    """Pool-growth tasks in a row (generation or evolution) that added nothing: only duplicates or no record."""
    _seen_matches: set[str] = field(default_factory=set)
    _capped: dict[int, set[tuple[str, str]]] = field(default_factory=dict)
    """Pairs at each rematch cap asked for so far, kept current as matches are played."""
    _memo: dict[object, object] = field(default_factory=dict)
    """Reads computed since the view last changed (one decision asks for the same ones several times)."""

    def load(self) -> None:
        """Read everything from the store (start, resume, and every ``FULL_RELOAD_EVERY_TASKS`` tasks)."""
        store = self.store
        self.standings = {r[0]: Standing(*r) for r in store.hypotheses.standings()}
        self.pair_counts = Counter(store.matches.pair_counts())
        self.reviews = store.hypotheses.count_reviews()
        self.matches = store.matches.count()
        self.valid_matches = store.matches.count(valid_only=True)
        self.feedback = len(store.logs.feedback(source="meta_review"))
        self._seen_matches = set(store.matches.ids())
        self._capped.clear()
        self._memo.clear()

    def _refresh(self, ids: list[str]) -> None:
        self._memo.clear()
        for row in self.store.hypotheses.standings(sorted(set(ids))):
            self.standings[row[0]] = Standing(*row)

    def apply(self, task: Task, result: TaskResult) -> None:
        """Update the view from one finished task, reading back only the rows it touched."""
        kind = result.kind
        if kind == "hypothesis_created":
            self._refresh(result.hypothesis_ids)
            self.duplicate_streak = 0
        elif task.agent in ("generation", "evolution") and kind in ("hypothesis_duplicate", "nothing_to_do"):
            self.duplicate_streak += 1
        elif kind == "review_completed":
            self.reviews += 1
            self._refresh(result.hypothesis_ids)
        elif kind == "added_to_tournament":
            self._refresh(result.hypothesis_ids)
        elif kind == "tournament_match_complete":
            self._count_matches(result.match_ids)
        elif kind == "proximity_updated":
            self.standings = {r[0]: Standing(*r) for r in self.store.hypotheses.standings()}
            self._memo.clear()
        elif kind == "system_feedback_generated":
            self.feedback += 1
        elif result.hypothesis_ids:  # any other result naming hypotheses (a safety screen) may change their state
            self._refresh(result.hypothesis_ids)

    def _count_matches(self, match_ids: list[str]) -> None:
        """Count the matches not seen yet (pair counts, rematch caps, valid verdicts); refresh their players."""
        new = [m for m in match_ids if m not in self._seen_matches]
        played = self.store.matches.pairs_of(new)
        # a match queued for a provider batch has no row yet: it is counted when its batch applies it
        self._seen_matches.update(self.store.matches.existing(new))
        for a, b, valid in played:
            pair = pair_key(a, b)
            self.pair_counts[pair] += 1
            for cap, capped in self._capped.items():
                if reached(self.pair_counts[pair], cap):
                    capped.add(pair)
            self.matches += 1
            self.valid_matches += int(valid)
        self._refresh([h for a, b, _ in played for h in (a, b)])

    # --- reads ------------------------------------------------------------------------------------------
    def players(self) -> list[Standing]:
        """Tournament players by Elo, best first; ties by id (as :meth:`Hypotheses.ranked`)."""
        if "players" not in self._memo:
            self._memo["players"] = sorted((s for s in self.standings.values() if s.state in PLAYER_STATES),
                                           key=lambda s: (-s.elo, s.id))
        return self._memo["players"]  # type: ignore[return-value]

    def pool_size(self) -> int:
        """Hypotheses counting towards ``run.max_hypotheses``."""
        if "pool" not in self._memo:
            self._memo["pool"] = sum(1 for s in self.standings.values() if s.state not in OUT_OF_POOL)
        return self._memo["pool"]  # type: ignore[return-value]

    def unranked(self, mature_matches: int) -> int:
        """Hypotheses not yet ranked enough: drafts, reviewed ones waiting to enter, immature players."""
        return sum(1 for s in self.standings.values() if s.state in ("draft", "reviewed")
                   or (s.state in PLAYER_STATES and s.matches_played < mature_matches))

    def waiting(self) -> int:
        """Hypotheses still on their way into the tournament (draft or reviewed)."""
        return sum(1 for s in self.standings.values() if s.state in ("draft", "reviewed"))

    def unclustered(self) -> int:
        return sum(1 for s in self.standings.values() if s.dedup_cluster is None and s.state not in OUT_OF_POOL)

    def open_pairs(self, cap: int) -> int:
        """Player pairs below the rematch cap (``ranking.max_matches_per_pair``), by the rule the ranking agent
        applies (:mod:`cosci.tournament.rematch`: a match waiting in a provider batch counts as played)."""
        key = ("open_pairs", cap)
        if key not in self._memo:
            if cap not in self._capped:
                self._capped[cap] = set(capped_pairs(self.pair_counts, (), cap))
            full = capped_pairs(self.pair_counts, self.store.batches.pending_pairs(), cap, known=self._capped[cap])
            self._memo[key] = count_open({s.id for s in self.players()}, full)
        return self._memo[key]  # type: ignore[return-value]


@dataclass
class TaskTally:
    """Tasks per ``(agent, action, mode)`` — enqueued ever, and open now — kept in memory by the Scheduler.

    ``mode`` is the payload's ``mode`` (the agent mode the task runs in: a reflection task's review mode, a
    generation or evolution task's mode), else ``""``.
    """

    store: SessionStore
    total: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    open: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    status: Counter[str] = field(default_factory=Counter)

    def load(self) -> None:
        self.total, self.open, self.status = Counter(), Counter(), Counter()
        for agent, action, mode, status, n in self.store.tasks.tally():
            self.total[(agent, action, mode)] += n
            self.status[status] += n
            if status in OPEN:
                self.open[(agent, action, mode)] += n

    def enqueued(self, agent: str, action: str, mode: str = "") -> None:
        self.total[(agent, action, mode)] += 1
        self.open[(agent, action, mode)] += 1
        self.status["pending"] += 1

    def ended(self, task: Task, status: str) -> None:
        """A task left the open states (``done``, ``failed``, ``dead``)."""
        key = (task.agent, task.action, str(task.payload.get("mode", "")))
        self.open[key] = max(self.open[key] - 1, 0)
        self.status["pending"] = max(self.status["pending"] - 1, 0)
        self.status[status] += 1

    def count(self, agent: str, action: str | None = None, mode: str | None = None, *, open_only: bool = False
              ) -> int:
        source = self.open if open_only else self.total
        return sum(n for (a, act, k), n in source.items()
                   if a == agent and (action is None or act == action) and (mode is None or k == mode))


__all__ = ["FULL_RELOAD_EVERY_TASKS", "PoolState", "Standing", "TaskTally"]
