"""Follow-up scheduling rules (seed 000 "Agent Interactions") and idle refinement (seed 000 §1, seed 001).

Every enqueue uses an idempotency key, so applying a rule twice (a replayed action after a crash) adds nothing.

Follow-ups after a result:

| result                      | follow-up                                                            |
|-----------------------------|----------------------------------------------------------------------|
| research_plan_parsed        | ``n_initial`` generation tasks                                       |
| hypothesis_created          | Reflection ``ReviewHypothesis`` (full) for each new hypothesis       |
| review_completed (full)     | Ranking ``AddToTournament``                                          |
| added_to_tournament         | Ranking ``RunTournamentBatch`` focused on the new hypothesis         |
| tournament_match_complete   | Proximity every N matches; meta-review every ~50 matches            |

Idle refinement (when nothing is pending): a tournament batch; pool growth while the pool is below its
generation share of ``run.max_ideas`` and the backlog of unranked hypotheses is small; evolution once
``evolution.min_mature`` hypotheses have ``evolution.mature_matches`` matches (``min_mature`` capped at what
generation can supply: the generation share of the pool, or the pool as it stands once generation has used its
attempts — else a small ``max_ideas`` would leave evolution waiting for ever); system feedback when it is due
(seed 000 §1: idle refinement enqueues meta-review every ~50 matches); deep verification and observation
reviews for the top hypotheses; re-clustering of unclustered hypotheses.
"""

from __future__ import annotations

import math
from typing import Any

from cosci.config.schema import CosciConfig
from cosci.domain import Task, TaskResult, task_id
from cosci.safety.classifier import screening_on
from cosci.store import PRIORITY, SessionRecord

PRIORITIES = {
    "generation": 100,
    "reflection": 100,
    "add": 80,
    "focus": 80,
    "batch": 120,
    "evolution": 100,
    "metareview": 90,
    "proximity": 100,
    "final": 10,
    "parse_goal": 10,
    "safety": 20,  # issue 15: a new hypothesis is screened before anything else uses it
}


class Scheduler:
    """Enqueues follow-ups and idle work for one session.

    Args:
        exhausted: agents whose budget share is spent; no new work is scheduled for them.
    """

    def __init__(self, config: CosciConfig, record: SessionRecord) -> None:
        self.config = config
        self.record = record
        self.tasks = record.tasks
        self.exhausted: set[str] = set()

    def _enqueue(
        self,
        agent: str,
        action: str,
        key: str,
        priority: int,
        *,
        target_id: str | None = None,
        payload: dict[str, Any] | None = None,
    ) -> int:
        if agent in self.exhausted:
            return 0
        tid = self.tasks.enqueue(
            agent,
            action,
            key,
            target_id=target_id,
            payload=payload,
            priority=priority,
            max_attempts=self.config.lease.max_attempts,
        )
        return int(tid is not None)

    # --- bootstrap and follow-ups ------------------------------------------------------------------------
    def bootstrap(self) -> int:
        if screening_on(self.config):  # issue 15: the goal is screened before goal parsing and any other call
            return self._enqueue("safety", "ScreenGoal", "safety::goal", PRIORITIES["parse_goal"])
        return self._enqueue("supervisor", "ParseGoal", "supervisor::parse_goal", PRIORITIES["parse_goal"])

    def generation_strategy(self, index: int) -> str:
        """Deterministic interleaving: task ``index`` is a debate when ``(index+1)*f`` crosses an integer."""
        f = self.config.run.debate_fraction
        return "debate" if math.floor((index + 1) * f) > math.floor(index * f) else "literature"

    def enqueue_generation(self, key: str, index: int, action: str = "GenerateHypothesis") -> int:
        return self._enqueue(
            "generation", action, key, PRIORITIES["generation"], payload={"strategy": self.generation_strategy(index)}
        )

    def follow_ups(self, task: Task, result: TaskResult) -> int:
        """Apply the follow-up rules for one finished task; returns the number of tasks enqueued."""
        n = 0
        if result.kind == "research_plan_parsed":
            for i in range(self.config.run.n_initial):
                n += self.enqueue_generation(f"generation::initial::{i}", i, "CreateInitialHypotheses")
        elif result.kind == "goal_screened":  # issue 15: allowed or flagged; a refused goal stops the loop
            n += self._enqueue("supervisor", "ParseGoal", "supervisor::parse_goal", PRIORITIES["parse_goal"])
        elif result.kind == "hypothesis_created":
            for hid in result.hypothesis_ids:
                n += self.screen_or_review(hid)
        elif result.kind == "hypothesis_screened":  # issue 15: not quarantined
            for hid in result.hypothesis_ids:
                n += self.review(hid, "full")
        elif result.kind == "review_completed" and result.detail.get("kind", "full") == "full":
            for hid in result.hypothesis_ids:
                n += self._enqueue(
                    "ranking", "AddToTournament", f"ranking::add::{hid}", PRIORITIES["add"], target_id=hid
                )
        elif result.kind == "added_to_tournament":
            for hid in result.hypothesis_ids:
                n += self._enqueue(
                    "ranking",
                    "RunTournamentBatch",
                    f"ranking::focus::{hid}",
                    PRIORITIES["focus"],
                    target_id=hid,
                    payload={"focus_id": hid},
                )
        elif result.kind == "tournament_match_complete":
            n += self.periodic()
        return n

    def has_task(self, key: str) -> bool:
        """Whether a task with this (session-relative) idempotency key was ever enqueued."""
        return self.tasks.get(task_id(f"{self.record.session_id}::{key}")) is not None

    def review(self, hid: str, kind: str) -> int:
        return self._enqueue(
            "reflection",
            "ReviewHypothesis",
            f"reflection::{hid}::{kind}",
            PRIORITIES["reflection"],
            target_id=hid,
            payload={"kind": kind},
        )

    def screen_or_review(self, hid: str) -> int:
        """Issue 15: a new hypothesis is screened first (its review follows ``hypothesis_screened``); with
        screening off, or once it has a verdict (a released hypothesis), it goes straight to review."""
        if screening_on(self.config) and self.record.safety.latest("hypothesis", hid) is None:
            return self._enqueue("safety", "ScreenHypothesis", f"safety::{hid}", PRIORITIES["safety"], target_id=hid)
        return self.review(hid, "full")

    def periodic(self) -> int:
        """Proximity every ``full_recluster_every_matches`` matches; system feedback every ``every_matches``."""
        matches = self.record.matches.count(valid_only=True)
        n = 0
        every = self.config.vectors.full_recluster_every_matches
        if matches >= every:
            n += self._enqueue(
                "proximity", "UpdateProximityGraph", f"proximity::{matches // every}", PRIORITIES["proximity"]
            )
        return n + self.system_feedback()

    def system_feedback(self) -> int:
        """System feedback once ``(feedback + 1) * every_matches`` valid matches were played (seed 001)."""
        matches = self.record.matches.count(valid_only=True)
        feedback = len(self.record.logs.feedback(source="meta_review"))
        if matches >= (feedback + 1) * self.config.metareview.every_matches:
            return self._enqueue(
                "metareview", "GenerateSystemFeedback", f"metareview::system::{feedback + 1}", PRIORITIES["metareview"]
            )
        return 0

    def reconcile(self) -> int:
        """On resume: make sure every hypothesis has the follow-up its state calls for (idempotent)."""
        n = 0
        for h in self.record.hypotheses.all(states=("draft", "reviewed")):
            n += (
                self.screen_or_review(h.id)
                if h.state == "draft"
                else self._enqueue(
                    "ranking", "AddToTournament", f"ranking::add::{h.id}", PRIORITIES["add"], target_id=h.id
                )
            )
        return n

    # --- idle refinement ---------------------------------------------------------------------------------
    def decide_next_steps(self) -> int:
        """Idle refinement (see module docstring); returns the number of tasks enqueued (0 -> IDLE)."""
        cfg, hyps = self.config, self.record.hypotheses
        if self.record.sessions.get().research_plan is None:
            return 0  # nothing is scheduled before the goal is parsed: every prompt depends on the plan
        players = hyps.ranked()
        n = 0
        if len(players) >= 2 and not self.tasks.open_count("ranking", "RunTournamentBatch"):
            k = self.tasks.count("ranking", "RunTournamentBatch")
            # the least-played immature player, if any, gets the first match: every hypothesis reaches
            # evolution.mature_matches (maturity gate and MAX_IDEAS) instead of waiting on the random buckets
            immature = sorted(
                (p for p in players if p.matches_played < cfg.evolution.mature_matches),
                key=lambda p: (p.matches_played, p.id),
            )
            payload = {"focus_id": immature[0].id} if immature else None
            n += self._enqueue(
                "ranking", "RunTournamentBatch", f"ranking::batch::{k}", PRIORITIES["batch"], payload=payload
            )
        pool = hyps.count()
        open_new = self.tasks.open_count("generation") + self.tasks.open_count("evolution")
        unranked = len(hyps.all(states=("draft", "reviewed"))) + sum(
            1 for p in players if p.matches_played < cfg.evolution.mature_matches
        )
        generation_cap = self.generation_cap()
        attempts = self.tasks.count("generation", "GenerateHypothesis") + self.tasks.count(
            "generation", "CreateInitialHypotheses"
        )
        backlog_ok = unranked + open_new < 2 * cfg.run.concurrency
        if pool + open_new < generation_cap and backlog_ok and attempts < 3 * cfg.run.max_ideas:
            for _ in range(min(cfg.run.concurrency, generation_cap - pool - open_new)):
                n += self.enqueue_generation(f"generation::grow::{attempts}", attempts)
                attempts += 1
        mature = [p for p in players if p.matches_played >= cfg.evolution.mature_matches]
        generation_done = attempts >= 3 * cfg.run.max_ideas and not self.tasks.open_count("generation")
        supply = len(players) if generation_done else generation_cap  # what generation will have ranked
        min_mature = min(cfg.evolution.min_mature, supply)
        if (
            len(mature) >= max(min_mature, 2)
            and pool + open_new < cfg.run.max_ideas
            and not self.tasks.open_count("evolution")
            and self.tasks.count("evolution", "EvolveHypotheses") < 3 * cfg.run.max_ideas
        ):
            k = self.tasks.count("evolution", "EvolveHypotheses")
            strategy = cfg.evolution.strategies[k % len(cfg.evolution.strategies)]
            n += self._enqueue(
                "evolution",
                "EvolveHypotheses",
                f"evolution::{k}",
                PRIORITIES["evolution"],
                payload={"strategy": strategy},
            )
        n += self.system_feedback()
        top_mature = sorted(mature, key=lambda p: (-p.elo, p.id))
        for kind, cap in (
            ("verification", cfg.reflection.verification_top_k),
            ("observation", cfg.reflection.observation_top_k),
        ):
            done = self.tasks.count("reflection", "ReviewHypothesis", key_suffix=f"::{kind}")
            fresh = [p for p in top_mature if not self.has_task(f"reflection::{p.id}::{kind}")]
            for p in fresh[: max(cap - done, 0)]:  # at most `cap` per session, for the best at the time
                n += self.review(p.id, kind)
        if any(h.dedup_cluster is None for h in hyps.all()) and len(players) >= 2:
            n += self._enqueue(
                "proximity",
                "UpdateProximityGraph",
                f"proximity::idle::{self.record.matches.count()}",
                PRIORITIES["proximity"],
            )
        return n

    def generation_cap(self) -> int:
        """Hypotheses generation may add: ``max(n_initial, floor(max_ideas × (1 − evolution.pool_share)))``; the
        rest of ``run.max_ideas`` is left to evolution (``evolution.pool_share``, a cosci setting)."""
        cfg = self.config
        return max(cfg.run.n_initial, math.floor(cfg.run.max_ideas * (1 - cfg.evolution.pool_share)))

    def pool_complete(self) -> bool:
        """MAX_IDEAS: the pool is full, nothing new is on its way, and every player has been ranked enough."""
        cfg = self.config
        players = self.record.hypotheses.ranked()
        return (
            self.record.hypotheses.count() >= cfg.run.max_ideas
            and not self.tasks.open_count("generation")
            and not self.tasks.open_count("evolution")
            and not self.tasks.open_count("reflection")
            and not self.record.hypotheses.all(states=("draft", "reviewed"))
            and all(p.matches_played >= cfg.evolution.mature_matches for p in players)
        )


__all__ = ["PRIORITIES", "PRIORITY", "Scheduler"]
