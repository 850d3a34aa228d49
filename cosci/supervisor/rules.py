"""Follow-up scheduling rules and idle refinement (design.md#supervisor).

Every enqueue uses an idempotency key (built by :mod:`cosci.store.task_specs`, design.md#task-keys), so applying a
rule twice (a replayed action after a crash) adds nothing.

Follow-ups after a result (``safety.enabled=false``: the screening rows are skipped, a goal goes straight to
``ParseGoal`` and a new hypothesis straight to its full review):

| result                      | follow-up                                                                 |
|-----------------------------|---------------------------------------------------------------------------|
| (bootstrap)                 | Safety ``ScreenGoal``                                                     |
| goal_screened               | Goal parsing ``ParseGoal`` (a refused goal, ``goal_refused``, stops)      |
| research_plan_parsed        | ``n_initial`` generation tasks, no more than the cap's room (pool_limits) |
| hypothesis_created          | Safety ``ScreenHypothesis`` for each new hypothesis                       |
| hypothesis_screened         | Reflection ``ReviewHypothesis`` (full), unless it was quarantined         |
| review_completed (full)     | Ranking ``AddToTournament``                                               |
| added_to_tournament         | Ranking ``RunTournamentRound`` focused on the new hypothesis              |
| tournament_match_complete   | Proximity every N matches; system feedback every ``every_matches``        |
| match_batch_pending         | Ranking ``MatchBatch``: the next poll of the same provider batch          |
| (any round or MatchBatch)   | Ranking ``MatchBatch`` gathering, once ``ranking.batch_size`` are queued  |

The Scheduler is the only place that enqueues tasks (a test scans the code for other callers): the ranking agent's
batch pool queues matches and reports a running batch in its result, and the rules above enqueue its tasks; when
the session is otherwise ending, :meth:`Scheduler.last_batch` sends the queued matches, however few
(design.md#batches).

Idle refinement (when nothing is pending): a tournament round; pool growth while the pool is below its
generation share of ``run.max_hypotheses`` and the backlog of unranked hypotheses is small; evolution once
``evolution.min_mature`` hypotheses have ``evolution.mature_matches`` matches (``min_mature`` capped at what
generation can supply: the generation share of the pool, or the pool as it stands once generation has used its
attempts — else a small ``max_hypotheses`` would leave evolution waiting for ever); system feedback when it is due
(design.md#metareview); deep verification and observation reviews for the top hypotheses; re-clustering of
unclustered hypotheses.
"""

from __future__ import annotations

import math

from cosci.config.schema import CosciConfig
from cosci.domain import Task, TaskResult
from cosci.store import PRIORITY, SessionStore
from cosci.store import task_specs as specs
from cosci.store.task_specs import TaskSpec
from cosci.supervisor.pool_limits import ATTEMPTS_PER_HYPOTHESIS, PoolLimits
from cosci.supervisor.slots import actions_at_once
from cosci.supervisor.state import PoolState, TaskTally

PRIORITIES = {
    "generation": 100,
    "reflection": 100,
    "add": 80,
    "focus": 80,
    "round": 120,
    "evolution": 100,
    "metareview": 90,
    "proximity": 100,
    "final": 10,
    "parse_goal": 10,
    "safety": 20,  # a new hypothesis is screened before anything else uses it (design.md#safety)
}
BACKLOG_PER_SLOT = 2
"""Pool growth waits while unranked hypotheses plus growth tasks in flight reach this many per concurrency slot:
new hypotheses are reviewed and ranked before more are made (cosci)."""


def relatives(store: SessionStore, hid: str, k: int) -> list[str]:
    """Up to ``k`` live relatives of ``hid``: its dedup cluster's members (best Elo first), then its descendants
    (hypotheses evolved from it, at any depth); never ``hid`` itself."""
    pool = [h for h in store.hypotheses.all() if h.state not in ("quarantined", "rejected", "retired")]
    target = store.hypotheses.get(hid)
    if target is None or k <= 0:
        return []
    cluster = [h.id for h in sorted(pool, key=lambda h: (-h.elo, h.id))
               if target.dedup_cluster is not None and h.dedup_cluster == target.dedup_cluster and h.id != hid]
    descendants: list[str] = []
    frontier = {hid}
    while frontier:
        children = [h.id for h in pool if frontier & set(h.parent_ids) and h.id not in descendants and h.id != hid]
        descendants += children
        frontier = set(children)
    return list(dict.fromkeys([*cluster, *descendants]))[:k]



def _screening_on(config: CosciConfig) -> bool:
    """:func:`cosci.safety.classifier.screening_on`, imported when first asked: the classifier imports the offline
    screen (scikit-learn), which ``cosci result`` queueing observation reviews does not need (design.md#startup)."""
    from cosci.safety.classifier import screening_on

    return screening_on(config)

class Scheduler(PoolLimits):
    """Enqueues follow-ups and idle work for one session.

    Args:
        pool: the Supervisor's in-memory view of the session (loaded here if not given).
        tally: the in-memory task counts (loaded here if not given).

    Attributes:
        exhausted: agents whose budget share is spent; no new work is scheduled for them.
    """

    def __init__(self, config: CosciConfig, store: SessionStore, pool: PoolState | None = None,
                 tally: TaskTally | None = None) -> None:
        self.config = config
        self.store = store
        self.tasks = store.tasks
        self.exhausted: set[str] = set()
        if pool is None:
            pool = PoolState(store)
            pool.load()
        if tally is None:
            tally = TaskTally(store)
            tally.load()
        self.pool, self.tally = pool, tally
        self._empty_round_mark: int | None = None
        """Tasks ended when a tournament round last found no pair to play (see :meth:`idle_tournament`)."""

    def _enqueue(self, spec: TaskSpec, priority: int, *, paid: bool = False) -> int:
        """Enqueue ``spec`` (idempotent on its key) and count it in the tally; returns 1 if it is new. An exhausted
        agent gets nothing new, except ``paid`` work: the polls of a provider batch already submitted."""
        if spec.agent in self.exhausted and not paid:
            return 0
        tid = self.tasks.enqueue(
            spec.agent,
            spec.action,
            spec.key,
            target_id=spec.target_id,
            payload=spec.payload,
            priority=priority,
            max_attempts=self.config.lease.max_attempts,
        )
        if tid is None:
            return 0
        self.tally.enqueued(spec.agent, spec.action, str(spec.payload.get("mode", "")))
        return 1

    def enqueue_final(self, spec: TaskSpec, priority: int) -> Task | None:
        """Enqueue a finalisation task (idempotently; an exhausted share does not hold it back, and it keeps the
        store's default attempts) and return its row, which an earlier attempt may have finished."""
        self.tasks.enqueue(spec.agent, spec.action, spec.key, priority=priority, payload=spec.payload)
        return self.tasks.by_key(spec.key)

    # --- bootstrap and follow-ups ------------------------------------------------------------------------
    def bootstrap(self) -> int:
        if _screening_on(self.config):  # the goal is screened before goal parsing and any other call (design.md#safety)
            return self._enqueue(specs.goal_screen(), PRIORITIES["parse_goal"])
        return self._enqueue(specs.goal_parse(), PRIORITIES["parse_goal"])

    def generation_mode(self, index: int) -> str:
        """Deterministic interleaving: task ``index`` is a debate when ``(index+1)*f`` crosses an integer."""
        f = self.config.generation.debate_share
        return "debate" if math.floor((index + 1) * f) > math.floor(index * f) else "literature"

    def enqueue_generation(self, index: int, *, initial: bool = False) -> int:
        """Generation task ``index``: the ``index``-th initial one, or growth attempt ``index``."""
        mode = self.generation_mode(index)
        spec = specs.initial_generation(index, mode) if initial else specs.growth_generation(index, mode)
        return self._enqueue(spec, PRIORITIES["generation"])

    def follow_ups(self, task: Task, result: TaskResult) -> int:  # noqa: C901 - the follow-up table (design.md#supervisor), one branch a row
        """Apply the follow-up rules for one finished task; returns the number of tasks enqueued."""
        n = 0
        if result.kind == "research_plan_parsed":
            for i in range(self.initial_generations()):  # n_initial, within run.max_hypotheses
                n += self.enqueue_generation(i, initial=True)
            if self.config.session.project and self.config.project.entrants:  # design.md#projects
                n += self._enqueue(specs.project_carry_over(), PRIORITIES["generation"])
        elif result.kind == "goal_screened":  # allowed or flagged; a refused goal stops the loop (design.md#safety)
            n += self._enqueue(specs.goal_parse(), PRIORITIES["parse_goal"])
        elif result.kind == "hypothesis_created":
            for hid in result.hypothesis_ids:
                n += self.screen_or_review(hid)
        elif result.kind == "hypothesis_screened":  # not quarantined (design.md#safety)
            for hid in result.hypothesis_ids:
                n += self.review(hid, "full")
        elif result.kind == "review_completed" and result.detail.get("mode", "full") == "full":
            for hid in result.hypothesis_ids:
                n += self._enqueue(specs.tournament_add(hid), PRIORITIES["add"])
        elif result.kind == "added_to_tournament":
            for hid in result.hypothesis_ids:
                n += self._enqueue(specs.focused_round(hid), PRIORITIES["focus"])
        elif result.kind == "nothing_to_do" and task.action == "RunTournamentRound":
            self._empty_round_mark = self._ended() + 1  # counted once this round's own end is tallied
        elif result.kind == "tournament_match_complete":
            n += self.periodic()
        elif result.kind == "match_batch_pending":  # the batch runs at the provider: poll it again
            batch_task, poll = str(result.detail["batch_task"]), int(result.detail["poll"]) + 1
            n += self._enqueue(specs.match_batch_poll(batch_task, poll), PRIORITY["ranking"], paid=True)
        if task.action in ("RunTournamentRound", specs.MATCH_BATCH):
            n += self.gather_batch(finished=task.id)
        return n

    def gather_batch(self, finished: str | None = None) -> int:
        """A gathering MatchBatch task once ``ranking.batch_size`` matches are queued and none is open (task
        ``finished``, whose follow-ups these are, does not count), keyed by the oldest queued match
        (design.md#batches)."""
        batches = self.store.batches
        count, oldest = batches.waiting()
        if oldest is None or count < self.config.ranking.batch_size or batches.gatherer_open(other_than=finished):
            return 0
        return self._enqueue(specs.match_batch(oldest), PRIORITY["ranking"])

    def last_batch(self) -> int:
        """The session's last batch: the queued matches, however few, when the session is otherwise ending (a stop
        that waits for batches, or nothing else to do; design.md#batches)."""
        batches = self.store.batches
        _, oldest = batches.waiting()
        if oldest is None or batches.gatherer_open():
            return 0
        return self._enqueue(specs.match_batch_last(oldest), PRIORITY["ranking"])

    def has_task(self, key: str) -> bool:
        """Whether a task with this (session-relative) idempotency key was ever enqueued."""
        return self.tasks.by_key(key) is not None

    def review(self, hid: str, mode: str) -> int:
        return self._enqueue(specs.review(hid, mode), PRIORITIES["reflection"])

    def screen_or_review(self, hid: str) -> int:
        """A new hypothesis is screened first (its review follows ``hypothesis_screened``); with (design.md#safety)
        screening off, or once it has a verdict (a released hypothesis), it goes straight to review."""
        if _screening_on(self.config) and self.store.safety.latest("hypothesis", hid) is None:
            return self._enqueue(specs.hypothesis_screen(hid), PRIORITIES["safety"])
        return self.review(hid, "full")

    def periodic(self) -> int:
        """Proximity every ``full_recluster_every_matches`` matches; system feedback every ``every_matches``."""
        matches = self.pool.valid_matches
        n = 0
        every = self.config.vectors.full_recluster_every_matches
        if matches >= every:
            n += self._enqueue(specs.proximity(matches // every), PRIORITIES["proximity"])
        return n + self.system_feedback()

    def system_feedback(self) -> int:
        """System feedback once ``(feedback + 1) * every_matches`` valid matches were played (design.md#metareview)."""
        feedback = self.pool.feedback
        if self.pool.valid_matches >= (feedback + 1) * self.config.metareview.every_matches:
            return self._enqueue(specs.system_feedback(feedback + 1), PRIORITIES["metareview"])
        return 0

    def reconcile(self) -> int:
        """On resume: make sure every hypothesis has the follow-up its state calls for, and every batched match
        a MatchBatch task that will submit or poll it (idempotent)."""
        n = 0
        held, waiting = self.store.batches.stranded()
        for first, k, submitted in held:  # poll 0 submits what the task holds; a later poll only polls
            n += self._enqueue(specs.match_batch_resume(first, k, k if submitted else 0), PRIORITY["ranking"],
                               paid=submitted)
        if waiting and self.store.batches.waiting()[0] >= self.config.ranking.batch_size:  # fewer: they wait for more
            k = self.tasks.count("ranking", specs.MATCH_BATCH)
            n += self._enqueue(specs.match_batch_gather_resume(waiting, k), PRIORITY["ranking"])
        for h in self.pool.standings.values():
            if h.state == "draft":
                n += self.screen_or_review(h.id)
            elif h.state == "reviewed":
                n += self._enqueue(specs.tournament_add(h.id), PRIORITIES["add"])
        return n + self.result_reviews()

    def result_reviews(self) -> int:
        """Observation reviews of the relatives (same cluster, then descendants) of each hypothesis with an
        experimental result, against that result: ``reflection.result_relatives`` per result, idempotent by key
        (design.md#experimental-results). Called on resume and by ``cosci result``."""
        n = 0
        for o in self.store.researcher.observations():
            for hid in relatives(self.store, o.hypothesis_id, self.config.reflection.result_relatives):
                n += self._enqueue(specs.result_review(hid, o.id), PRIORITIES["reflection"])
        return n

    # --- idle refinement ---------------------------------------------------------------------------------
    def decide_next_steps(self) -> int:
        """Idle refinement (see module docstring); returns the number of tasks enqueued (0 -> idle)."""
        if not self.store.sessions.has_research_plan() or self.tally.count("goal_parsing", open_only=True):
            # nothing is scheduled before the goal is parsed (every prompt depends on the plan) and its follow-ups
            # are in: the plan is stored while its task is still open, and growth chosen then came on top of the
            # initial hypotheses (seen on the embedded demo under load: four generated, no room for evolution)
            return 0
        return (self.idle_tournament() + self.idle_growth() + self.idle_evolution() + self.system_feedback()
                + self.idle_deep_reviews() + self.idle_recluster())

    def idle_tournament(self) -> int:
        """Tournament rounds for free slots: at most :func:`~cosci.supervisor.slots.actions_at_once` open at once
        (``run.concurrency`` call slots and the actions beyond them), one per disjoint pair of players, only while a
        pair below the rematch cap is left. Idle rounds carry no focus: the pairing chooses (the focused round
        follows ``AddToTournament``)."""
        players = self.pool.players()
        open_pairs = self.pool.open_pairs(self.config.ranking.max_matches_per_pair)
        if len(players) < 2 or not open_pairs or self._tournament_blocked():
            return 0
        wanted = min(actions_at_once(self.config.run.concurrency), len(players) // 2, open_pairs)
        n = 0
        k = self.tally.count("ranking", "RunTournamentRound")
        for _ in range(wanted - self.tally.count("ranking", "RunTournamentRound", open_only=True)):
            n += self._enqueue(specs.idle_round(k), PRIORITIES["round"])
            k += 1
        return n

    def _ended(self) -> int:
        return sum(self.tally.status[s] for s in ("done", "failed", "dead"))

    def _tournament_blocked(self) -> bool:
        """A round just found no pair to play and no task has ended since, while others are in flight: the free
        players are the same, so another round would find nothing either. (Seen on the embedded model: an open
        pair whose players were busy in a slow match made 1,022 empty rounds while one evolution call ran.)"""
        return self._empty_round_mark == self._ended() and any(self.tally.open.values())

    def idle_growth(self) -> int:
        """Generation tasks while the pool is below :meth:`generation_cap` and the backlog is small."""
        cfg = self.config
        pool, open_new = self.pool.pool_size(), self._open_growth()
        attempts = self.growth_attempts()
        backlog = self.pool.unranked(cfg.evolution.mature_matches) + open_new
        room = self.generation_cap() - pool - open_new
        if room <= 0 or backlog >= BACKLOG_PER_SLOT * cfg.run.concurrency or self.duplicates_only():
            return 0
        n = 0
        for _ in range(min(cfg.run.concurrency, room, ATTEMPTS_PER_HYPOTHESIS * cfg.run.max_hypotheses - attempts)):
            n += self.enqueue_generation(attempts)
            attempts += 1
        return n

    def idle_evolution(self) -> int:
        """One evolution task at a time once enough hypotheses are mature and the pool has room."""
        cfg = self.config
        supply = len(self.pool.players()) if self.generation_done() else self.generation_cap()
        min_mature = min(cfg.evolution.min_mature, supply)
        k = self.tally.count("evolution", "EvolveHypotheses")
        if (
            self.duplicates_only()
            or len(self.mature()) < max(min_mature, 2)
            or self.pool.pool_size() + self._open_growth() >= cfg.run.max_hypotheses
            or self.tally.count("evolution", open_only=True)
            or k >= ATTEMPTS_PER_HYPOTHESIS * cfg.run.max_hypotheses
        ):
            return 0
        mode = cfg.evolution.modes[k % len(cfg.evolution.modes)]
        return self._enqueue(specs.evolution(k, mode), PRIORITIES["evolution"])

    def idle_deep_reviews(self) -> int:
        """Deep verification and observation reviews for the best mature hypotheses, ``*_top_k`` per session."""
        cfg, n = self.config, 0
        top_mature = sorted(self.mature(), key=lambda p: (-p.elo, p.id))
        for mode, cap in (
            ("verification", cfg.reflection.verification_top_k),
            ("observation", cfg.reflection.observation_top_k),
        ):
            left = cap - self.tally.count("reflection", "ReviewHypothesis", mode)
            for p in top_mature:
                if left <= 0:
                    break
                if not self.has_task(specs.review(p.id, mode).key):
                    n += self.review(p.id, mode)
                    left -= 1
        return n

    def idle_recluster(self) -> int:
        """Re-cluster once ``vectors.recluster_every_hypotheses`` are unclustered, or any are and the pool
        cannot grow; keyed by the pool size, so one clustering per cadence step."""
        unclustered = self.pool.unclustered()
        if len(self.pool.players()) < 2 or not unclustered:
            return 0
        if unclustered < self.config.vectors.recluster_every_hypotheses and not self.pool_cannot_grow():
            return 0
        return self._enqueue(specs.idle_proximity(len(self.pool.standings)), PRIORITIES["proximity"])


__all__ = ["ATTEMPTS_PER_HYPOTHESIS", "BACKLOG_PER_SLOT", "PRIORITIES", "PRIORITY", "Scheduler"]
