"""What the pool of hypotheses allows, read from the in-memory view (design.md#supervisor, design.md#termination).

Owns the limits the Scheduler's idle rules and end conditions ask about, none of which enqueues anything: the
generation share of ``run.max_hypotheses`` (:meth:`PoolLimits.generation_cap`), the attempts generation and evolution
have used, which hypotheses are mature, whether the pool is complete or cannot grow, whether the tournament has
settled and whether the session has stalled. :class:`cosci.supervisor.rules.Scheduler` inherits them.
"""

from __future__ import annotations

import math
from typing import Any

from cosci.config.schema import CosciConfig
from cosci.supervisor.state import PoolState, TaskTally

ATTEMPTS_PER_HYPOTHESIS = 3
"""Generation (and evolution) tasks allowed per hypothesis slot of ``run.max_hypotheses``: duplicates and invalid
records use attempts, so the pool may stop short of ``max_hypotheses`` (then the pool "cannot grow"; cosci)."""
GROWTH_TASKS = (("generation", "GenerateHypothesis"), ("generation", "CreateInitialHypotheses"))


class PoolLimits:
    """The pool limits of one session (see module docstring), over ``config``, ``pool`` and ``tally``."""

    config: CosciConfig
    pool: PoolState
    tally: TaskTally

    def growth_attempts(self) -> int:
        return sum(self.tally.count(a, act) for a, act in GROWTH_TASKS)

    def generation_done(self) -> bool:
        """Generation has used its attempts and has nothing in flight."""
        return (self.growth_attempts() >= ATTEMPTS_PER_HYPOTHESIS * self.config.run.max_hypotheses
                and not self.tally.count("generation", open_only=True))

    def _open_growth(self) -> int:
        return self.tally.count("generation", open_only=True) + self.tally.count("evolution", open_only=True)

    def mature(self) -> list[Any]:
        return [p for p in self.pool.players() if p.matches_played >= self.config.evolution.mature_matches]

    def evolution_done(self) -> bool:
        attempts = ATTEMPTS_PER_HYPOTHESIS * self.config.run.max_hypotheses
        return (self.tally.count("evolution", "EvolveHypotheses") >= attempts
                and not self.tally.count("evolution", open_only=True))

    def generation_cap(self) -> int:
        """Hypotheses generation may add: ``max(n_initial, floor(max_hypotheses × (1 − evolution.pool_share)))``, never
        more than ``run.max_hypotheses``; the rest of ``run.max_hypotheses`` is left to evolution
        (``evolution.pool_share``, a cosci setting; design.md#supervisor: the cap holds)."""
        cfg = self.config
        share = max(cfg.run.n_initial, math.floor(cfg.run.max_hypotheses * (1 - cfg.evolution.pool_share)))
        return min(cfg.run.max_hypotheses, share)

    def entrants_wanted(self) -> int:
        """Carried-over entrants a project session asks for (``project.entrants``, at most ``run.max_hypotheses``;
        0 outside a project): they count towards the pool as generated hypotheses do (design.md#projects)."""
        cfg = self.config
        return min(cfg.project.entrants, cfg.run.max_hypotheses) if cfg.session.project else 0

    def initial_generations(self) -> int:
        """Generation tasks after goal parsing: ``run.n_initial``, but no more than the pool has room for once the
        entrants are in (``run.max_hypotheses − entrants``), so that a cap below ``n_initial`` holds
        (design.md#supervisor); idle growth makes up any the entrants do not fill."""
        return max(0, min(self.config.run.n_initial, self.config.run.max_hypotheses - self.entrants_wanted()))

    # --- end conditions ----------------------------------------------------------------------------------
    def pool_complete(self) -> bool:
        """MAX_HYPOTHESES: the pool is full, nothing new is on its way, and every player has been ranked enough (a
        lone player, ``run.max_hypotheses=1``, has no one to play: its pool is complete, not stalled)."""
        cfg = self.config
        players = self.pool.players()
        return (
            self.pool.pool_size() >= cfg.run.max_hypotheses
            and not self._open_growth()
            and not self.tally.count("reflection", open_only=True)
            and not self.pool.waiting()
            and (len(players) < 2 or all(p.matches_played >= cfg.evolution.mature_matches for p in players))
        )

    def duplicates_only(self) -> bool:
        """The last ``termination.stall_streak`` growth tasks all came back without a new hypothesis."""
        return self.pool.duplicate_streak >= self.config.termination.stall_streak

    def pool_cannot_grow(self) -> bool:
        """Generation and evolution have used their attempts, or they only produce duplicates."""
        if self._open_growth():
            return False
        if self.duplicates_only():
            return True
        room = self.pool.pool_size() < self.config.run.max_hypotheses
        return not room or (self.generation_done() and self.evolution_done())

    def tournament_settled(self) -> bool:
        """No pair below the rematch cap is left, and no tournament round is open."""
        return (not self.pool.open_pairs(self.config.ranking.max_matches_per_pair)
                and not self.tally.count("ranking", open_only=True))

    def stalled(self) -> bool:
        """STALLED: the pool cannot grow and the leaderboard cannot change (design.md#termination)."""
        return (self.pool_cannot_grow() and self.tournament_settled()
                and not self.tally.count("reflection", open_only=True)
                and not self.tally.count("safety", open_only=True))
