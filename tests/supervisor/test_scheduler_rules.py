"""The Supervisor's scheduling rules (seed 000 "Agent Interactions", §1 idle refinement; seed 001 Phase 5):
follow-ups per result kind, idempotent; idle refinement; the pool-complete predicate."""

from __future__ import annotations

import pytest

from cosci.agents.base import fallback_plan
from cosci.domain import Task, TaskResult
from cosci.ids import task_id
from cosci.session.runtime import SessionRuntime
from cosci.supervisor.rules import PRIORITIES, Scheduler
from tests.supervisor.conftest import FreshScheduler


def task(agent: str = "generation", action: str = "GenerateHypothesis") -> Task:
    return Task(id="T-done", session_id="s", agent=agent, action=action, target_id=None, payload={},
                priority=100, status="in_progress", attempts=1, max_attempts=3, idempotency_key="k")


def pending(runtime: SessionRuntime, agent: str | None = None, action: str | None = None) -> list[Task]:
    rows = runtime.store.db.query("SELECT id FROM tasks WHERE status='pending' ORDER BY created_at, id")
    tasks = [runtime.store.tasks.get(r["id"]) for r in rows]
    return [t for t in tasks
            if t and (agent is None or t.agent == agent) and (action is None or t.action == action)]


def by_key(runtime: SessionRuntime, key: str) -> Task | None:
    return runtime.store.tasks.get(task_id(f"{runtime.store.namespace}::{key}"))


# --- follow-ups ------------------------------------------------------------------------------------------
def test_plan_parsed_enqueues_n_initial_generations_once(runtime: SessionRuntime,
                                                         scheduler: Scheduler) -> None:
    result = TaskResult("research_plan_parsed")
    n = runtime.config.run.n_initial
    assert scheduler.follow_ups(task("goal_parsing", "ParseGoal"), result) == n
    assert scheduler.follow_ups(task("goal_parsing", "ParseGoal"), result) == 0  # replayed: nothing new
    tasks = pending(runtime, "generation", "CreateInitialHypotheses")
    assert len(tasks) == n and {t.priority for t in tasks} == {PRIORITIES["generation"]}
    # generation.debate_share 0.34: every third generation task is a debate
    assert [t.payload["mode"] for t in tasks] == ["literature", "literature", "debate"]
    assert [scheduler.generation_mode(i) for i in range(6)].count("debate") == 2


@pytest.mark.overrides("safety.enabled=false")  # with screening on, the screen comes first (tests/safety)
def test_hypothesis_created_enqueues_a_full_review_per_hypothesis(runtime: SessionRuntime,
                                                                  scheduler: Scheduler) -> None:
    result = TaskResult("hypothesis_created", ["H-aaaaaaaaaaaa", "H-bbbbbbbbbbbb"])
    assert scheduler.follow_ups(task(), result) == 2
    assert scheduler.follow_ups(task(), result) == 0
    reviews = pending(runtime, "reflection", "ReviewHypothesis")
    assert [(t.target_id, t.payload) for t in reviews] == [("H-aaaaaaaaaaaa", {"mode": "full"}),
                                                           ("H-bbbbbbbbbbbb", {"mode": "full"})]


def test_a_full_review_enqueues_add_to_tournament_other_kinds_do_not(runtime: SessionRuntime,
                                                                     scheduler: Scheduler) -> None:
    hid = "H-aaaaaaaaaaaa"
    for kind in ("verification", "observation"):
        other = TaskResult("review_completed", [hid], detail={"mode": kind})
        assert scheduler.follow_ups(task("reflection"), other) == 0
    full = TaskResult("review_completed", [hid], detail={"mode": "full"})
    assert scheduler.follow_ups(task("reflection"), full) == 1
    assert scheduler.follow_ups(task("reflection"), full) == 0
    (add,) = pending(runtime, "ranking", "AddToTournament")
    assert (add.target_id, add.priority) == (hid, PRIORITIES["add"])


def test_added_to_tournament_enqueues_a_focused_batch(runtime: SessionRuntime, scheduler: Scheduler) -> None:
    result = TaskResult("added_to_tournament", ["H-aaaaaaaaaaaa"])
    assert scheduler.follow_ups(task("ranking", "AddToTournament"), result) == 1
    assert scheduler.follow_ups(task("ranking", "AddToTournament"), result) == 0
    (batch,) = pending(runtime, "ranking", "RunTournamentRound")
    assert batch.payload == {"focus_id": "H-aaaaaaaaaaaa"} and batch.priority == PRIORITIES["focus"]


@pytest.mark.parametrize("kind", ["hypothesis_duplicate", "nothing_to_do", "proximity_updated",
                                  "system_feedback_generated", "final_overview_generated"])
def test_other_results_have_no_follow_up(runtime: SessionRuntime, scheduler: Scheduler, kind: str) -> None:
    assert scheduler.follow_ups(task(), TaskResult(kind, ["H-aaaaaaaaaaaa"])) == 0
    assert runtime.store.tasks.counts() == {}


def test_match_complete_schedules_proximity_and_system_feedback_periodically(runtime: SessionRuntime,
                                                                             scheduler: Scheduler, add_player,
                                                                             play) -> None:
    a, b = add_player(), add_player()
    done = TaskResult("tournament_match_complete", match_ids=["M-x"])
    every_cluster = runtime.config.vectors.full_recluster_every_matches  # demo: 6
    every_feedback = runtime.config.metareview.every_matches  # demo: 8
    play(a, b, every_cluster - 1)
    assert scheduler.follow_ups(task("ranking"), done) == 0
    play(a, b, 1)
    assert scheduler.follow_ups(task("ranking"), done) == 1
    assert scheduler.follow_ups(task("ranking"), done) == 0
    assert by_key(runtime, "proximity::1") is not None
    play(a, b, every_feedback - every_cluster)
    assert scheduler.follow_ups(task("ranking"), done) == 1
    assert by_key(runtime, "metareview::system::1").action == "GenerateSystemFeedback"
    assert scheduler.follow_ups(task("ranking"), done) == 0
    runtime.store.logs.add_feedback("meta_review", "system_feedback", "narrative", key="f1")
    play(a, b, every_feedback)  # 16 matches, one feedback so far: the second is due
    assert scheduler.follow_ups(task("ranking"), done) == 2  # proximity::2 and metareview::system::2
    assert by_key(runtime, "metareview::system::2") is not None


@pytest.mark.overrides("safety.enabled=false")  # with screening on, the screen comes first (tests/safety)
def test_an_exhausted_agent_gets_no_new_work(runtime: SessionRuntime, scheduler: Scheduler) -> None:
    scheduler.exhausted.add("reflection")
    assert scheduler.follow_ups(task(), TaskResult("hypothesis_created", ["H-aaaaaaaaaaaa"])) == 0
    assert runtime.store.tasks.counts() == {}


@pytest.mark.overrides("safety.enabled=false")  # with screening on, the screen comes first (tests/safety)
def test_reconcile_restores_missing_follow_ups(runtime: SessionRuntime, scheduler: Scheduler,
                                               add_player) -> None:
    draft, reviewed = add_player(state="draft"), add_player(state="reviewed")
    add_player(state="in_tournament")
    assert scheduler.reconcile() == 2
    assert scheduler.reconcile() == 0
    assert [t.target_id for t in pending(runtime, "reflection")] == [draft]
    assert [t.target_id for t in pending(runtime, "ranking", "AddToTournament")] == [reviewed]


# --- idle refinement ---------------------------------------------------------------------------------------
def test_decide_next_steps_grows_an_empty_pool_within_the_backlog(runtime: SessionRuntime,
                                                                 scheduler: Scheduler) -> None:
    concurrency = runtime.config.run.concurrency  # demo: 2
    assert scheduler.decide_next_steps() == concurrency
    grow = pending(runtime, "generation", "GenerateHypothesis")
    assert len(grow) == concurrency and not pending(runtime, "ranking")  # no tournament with no players
    assert scheduler.decide_next_steps() == concurrency  # backlog 2 < 2 x concurrency: one more round
    assert scheduler.decide_next_steps() == 0  # the backlog of open generation tasks is full
    keys = {t.idempotency_key.split("::", 1)[1] for t in pending(runtime, "generation")}
    assert keys == {f"generation::grow::{i}" for i in range(2 * concurrency)}


def test_pool_growth_stops_at_the_generation_share(runtime: SessionRuntime, scheduler: Scheduler,
                                                   add_player) -> None:
    cfg = runtime.config
    cap = max(cfg.run.n_initial, int(cfg.run.max_hypotheses * (1 - cfg.evolution.pool_share)))  # demo: 5
    for _ in range(cap):
        add_player(matches=cfg.evolution.mature_matches)
    scheduler.decide_next_steps()
    assert pending(runtime, "generation") == []


def test_idle_tournament_batches_fill_free_slots_one_per_disjoint_pair(runtime: SessionRuntime,
                                                                      scheduler: Scheduler, add_player) -> None:
    add_player()
    scheduler.decide_next_steps()
    assert pending(runtime, "ranking") == []  # one player: no match possible
    add_player()
    scheduler.decide_next_steps()
    scheduler.decide_next_steps()
    (batch,) = pending(runtime, "ranking", "RunTournamentRound")  # two players: one pair, one batch at a time
    assert batch.priority == PRIORITIES["round"] and batch.payload == {}  # no focus: the seed's buckets choose
    for _ in range(3):
        add_player()
    scheduler.decide_next_steps()  # five players: two disjoint pairs, and concurrency (demo: 2) allows two
    assert len(pending(runtime, "ranking", "RunTournamentRound")) == 2 == runtime.config.run.concurrency


def test_no_idle_batch_once_every_pair_is_at_the_rematch_cap(runtime: SessionRuntime, scheduler: Scheduler,
                                                              add_player, play) -> None:
    a, b = add_player(), add_player()
    play(a, b, runtime.config.ranking.max_matches_per_pair)
    scheduler.decide_next_steps()
    assert pending(runtime, "ranking") == []
    assert scheduler.tournament_settled()


def test_evolution_fires_once_min_mature_players_are_mature(runtime: SessionRuntime, scheduler: Scheduler,
                                                            add_player) -> None:
    cfg = runtime.config.evolution  # demo: min_mature 4, mature at 3 matches
    for i in range(cfg.min_mature - 1):
        add_player(elo=1300.0 - i, matches=cfg.mature_matches)
    add_player(matches=cfg.mature_matches - 1)
    scheduler.decide_next_steps()
    assert pending(runtime, "evolution") == []
    add_player(elo=1250.0, matches=cfg.mature_matches + 4)
    scheduler.decide_next_steps()
    (evolve,) = pending(runtime, "evolution", "EvolveHypotheses")
    assert evolve.payload == {"mode": cfg.modes[0]}
    scheduler.decide_next_steps()
    assert len(pending(runtime, "evolution")) == 1  # not while one is open
    runtime.store.tasks.complete(evolve.id, TaskResult("nothing_to_do"))
    scheduler.decide_next_steps()
    assert [t.payload["mode"] for t in pending(runtime, "evolution")] == [cfg.modes[1]]  # rotation


def test_evolution_waits_for_no_more_than_generation_can_supply(runtime: SessionRuntime, add_player) -> None:
    """max_hypotheses 5 leaves generation max(3, floor(5 × 0.7)) = 3 hypotheses: evolution must not wait for 4."""
    cfg = runtime.config
    small = cfg.model_copy(update={"run": cfg.run.model_copy(update={"max_hypotheses": 5, "n_initial": 3}),
                                   "evolution": cfg.evolution.model_copy(update={"min_mature": 4, "pool_share": 0.3})})
    row = runtime.store.sessions.get()
    runtime.store.sessions.update(
        research_plan=fallback_plan(row.research_goal, list(cfg.session.preferences)).model_dump())
    scheduler = FreshScheduler(small, runtime.store)
    assert scheduler.generation_cap() == 3
    for i in range(3):
        add_player(elo=1300.0 - i, matches=small.evolution.mature_matches)
    scheduler.decide_next_steps()
    assert len(pending(runtime, "evolution", "EvolveHypotheses")) == 1


def test_verification_and_observation_for_the_top_mature(runtime: SessionRuntime, scheduler: Scheduler,
                                                         add_player) -> None:
    mature = runtime.config.evolution.mature_matches
    ids = [add_player(elo=1400.0 - 10 * i, matches=mature) for i in range(5)]
    newcomer = add_player(elo=1500.0, matches=0)  # best Elo, but not mature
    scheduler.decide_next_steps()
    reviews = pending(runtime, "reflection", "ReviewHypothesis")
    k_ver, k_obs = runtime.config.reflection.verification_top_k, runtime.config.reflection.observation_top_k
    assert [t.target_id for t in reviews if t.payload["mode"] == "verification"] == ids[:k_ver]
    assert [t.target_id for t in reviews if t.payload["mode"] == "observation"] == ids[:k_obs]
    assert newcomer not in {t.target_id for t in reviews}
    before = len(reviews)
    scheduler.decide_next_steps()
    assert len(pending(runtime, "reflection")) == before  # once each


def test_decide_next_steps_schedules_system_feedback_when_due(runtime: SessionRuntime, scheduler: Scheduler,
                                                              add_player, play) -> None:
    a, b = add_player(), add_player()
    play(a, b, runtime.config.metareview.every_matches)
    scheduler.decide_next_steps()
    (feedback,) = pending(runtime, "metareview", "GenerateSystemFeedback")
    assert feedback.priority == PRIORITIES["metareview"]
    scheduler.decide_next_steps()
    assert len(pending(runtime, "metareview")) == 1


def test_unclustered_hypotheses_get_a_proximity_pass_on_a_cadence(runtime: SessionRuntime, scheduler: Scheduler,
                                                                  add_player) -> None:
    add_player(), add_player()
    scheduler.decide_next_steps()
    assert pending(runtime, "proximity") == []
    every = runtime.config.vectors.recluster_every_hypotheses
    for _ in range(every - 1):
        add_player(cluster=None)
    scheduler.decide_next_steps()
    assert pending(runtime, "proximity") == []  # not after every new hypothesis
    add_player(cluster=None)
    scheduler.decide_next_steps()
    scheduler.decide_next_steps()
    assert len(pending(runtime, "proximity", "UpdateProximityGraph")) == 1


# --- pool complete ------------------------------------------------------------------------------------------
def test_pool_complete(runtime: SessionRuntime, scheduler: Scheduler, add_player) -> None:
    cfg = runtime.config
    ids = [add_player(matches=cfg.evolution.mature_matches) for _ in range(cfg.run.max_hypotheses - 1)]
    assert not scheduler.pool_complete()  # one short of max_hypotheses
    last = add_player(matches=cfg.evolution.mature_matches - 1)
    assert not scheduler.pool_complete()  # full, but one player is not ranked enough
    with runtime.store.db.tx() as c:
        c.execute("UPDATE hypotheses SET matches_played=? WHERE id=?", (cfg.evolution.mature_matches, last))
    assert scheduler.pool_complete()
    tid = runtime.store.tasks.enqueue("generation", "GenerateHypothesis", "late")
    assert not scheduler.pool_complete()  # something new is on its way
    runtime.store.tasks.cancel_pending()
    runtime.store.hypotheses.set_state(ids[0], "retired")
    assert not scheduler.pool_complete()  # retired ones leave the pool
    add_player(state="reviewed")
    assert not scheduler.pool_complete()  # a hypothesis still waits for the tournament
    assert tid is not None


def test_an_empty_batch_waits_for_some_task_to_end_before_the_next(runtime: SessionRuntime, scheduler: Scheduler,
                                                                   add_player) -> None:
    """Seen on the embedded model: players busy in a slow match left an open pair no batch could play, and the
    loop scheduled 1,022 empty batches while one evolution call ran. After an empty batch, the next idle batch
    waits until some task ends."""
    for _ in range(4):
        add_player()
    scheduler.decide_next_steps()
    tasks = runtime.store.tasks
    first, second = tasks.claim("test"), tasks.claim("test")
    assert first and second and {first.action, second.action} == {"RunTournamentRound"}
    empty = TaskResult("nothing_to_do", detail={"reason": "no pair left to play"})
    scheduler.follow_ups(second, empty)
    tasks.complete(second.id, empty)
    scheduler.tally.ended(second, "done")
    scheduler.decide_next_steps()
    assert pending(runtime, "ranking", "RunTournamentRound") == []  # the first batch still plays: wait
    played = TaskResult("tournament_match_complete", match_ids=[])
    scheduler.follow_ups(first, played)
    tasks.complete(first.id, played)
    scheduler.tally.ended(first, "done")
    scheduler.decide_next_steps()
    assert pending(runtime, "ranking", "RunTournamentRound")  # a task ended: the free players may differ now


@pytest.mark.overrides("safety.enabled=false")  # the goal's screen would come first
def test_nothing_is_grown_while_goal_parsing_is_open(runtime: SessionRuntime, scheduler: Scheduler) -> None:
    """Seen on the embedded demo under load: the plan is stored while the ParseGoal task is still open, and an idle
    decision then added two growth tasks to the two initial ones (four generated, no room left for evolution)."""
    scheduler.bootstrap()
    parse = runtime.store.tasks.claim("test")
    assert parse is not None and parse.action == "ParseGoal"
    assert scheduler.decide_next_steps() == 0 and pending(runtime, "generation") == []
    done = TaskResult("research_plan_parsed")
    scheduler.follow_ups(parse, done)
    runtime.store.tasks.complete(parse.id, done)
    scheduler.tally.ended(parse, "done")
    assert len(pending(runtime, "generation", "CreateInitialHypotheses")) == runtime.config.run.n_initial
    assert scheduler.decide_next_steps() > 0  # the goal parsed and its follow-ups in: idle decisions resume


@pytest.mark.overrides("run.max_hypotheses=1")
def test_a_cap_below_n_initial_holds(runtime: SessionRuntime, scheduler: Scheduler, add_player) -> None:
    """Fresh-user trial: ``run.max_hypotheses=1`` gave a session of 2 hypotheses: goal parsing enqueued ``n_initial``
    generation tasks whatever the cap, and the generation share, ``max(n_initial, …)``, let growth make more. The
    initial tasks and the share both stop at the cap."""
    assert runtime.config.run.n_initial > 1 and scheduler.generation_cap() == 1
    assert scheduler.follow_ups(task("goal_parsing", "ParseGoal"), TaskResult("research_plan_parsed")) == 1
    assert len(pending(runtime, "generation", "CreateInitialHypotheses")) == 1
    runtime.store.tasks.cancel_pending()
    add_player(matches=runtime.config.evolution.mature_matches)
    scheduler.decide_next_steps()
    assert pending(runtime, "generation") == [] and pending(runtime, "evolution") == []  # the pool is full
    runtime.store.tasks.cancel_pending()  # its deep reviews
    assert scheduler.pool_complete()
    with runtime.store.db.tx() as c:  # a lone player has no one to play: the stop is max_hypotheses, not stalled
        c.execute("UPDATE hypotheses SET matches_played=0")
    assert scheduler.pool_complete()


@pytest.mark.overrides("run.max_hypotheses=4", "session.project=p", "project.entrants=3", "run.n_initial=2")
def test_a_project_sessions_entrants_leave_room_in_the_cap(runtime: SessionRuntime, scheduler: Scheduler) -> None:
    """Carried-over entrants count towards the pool: with 3 asked for and a cap of 4, one initial generation task
    (``n_initial`` 2) runs beside the carry-over, so the session holds at most 4 (design.md#supervisor)."""
    assert scheduler.initial_generations() == 1
    assert scheduler.follow_ups(task("goal_parsing", "ParseGoal"), TaskResult("research_plan_parsed")) == 2
    assert len(pending(runtime, "generation", "CreateInitialHypotheses")) == 1
    assert len(pending(runtime, "generation", "CarryOver")) == 1
