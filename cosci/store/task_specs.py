"""Every task's identity: agent, action, idempotency key, target and payload, one constructor per task kind
(design.md#task-keys).

A task's id is a hash of ``<namespace>::<key>`` (:func:`cosci.ids.task_id`) and its Prefect cache key is
derived from that id and the payload, so a key or payload field renamed here makes a resumed older session run
again what it had finished, or skip what it had not. The formats are pinned by ``tests/store/test_task_specs.py``
(a literal table, and every task of the stored sessions in ``tests/data/sessions/``). Priorities are the
scheduler's, not part of a task's identity.

``KEY_PATTERNS`` gives, per constructor, the regular expression its keys match (session-relative, without the
``<namespace>::`` prefix the store adds); its named groups are the constructor's arguments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

MATCH_BATCH = "MatchBatch"


@dataclass(frozen=True)
class TaskSpec:
    """What a task is: ``agent`` and ``action`` run it, ``key`` makes enqueueing it idempotent (session-relative),
    ``target_id`` the hypothesis it is about (or None), ``payload`` its JSON arguments (``{}`` when none)."""

    agent: str
    action: str
    key: str
    target_id: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)


def goal_screen() -> TaskSpec:
    """Safety screening of the goal (the first task when screening is on)."""
    return TaskSpec("safety", "ScreenGoal", "safety::goal")


def goal_parse() -> TaskSpec:
    """Goal parsing: the goal into a research plan."""
    return TaskSpec("goal_parsing", "ParseGoal", "goal_parsing::parse_goal")


def initial_generation(index: int, mode: str) -> TaskSpec:
    """The ``index``-th (0-based) of the ``run.n_initial`` generation tasks after the plan, in agent ``mode``."""
    return TaskSpec("generation", "CreateInitialHypotheses", f"generation::initial::{index}", payload={"mode": mode})


def growth_generation(attempt: int, mode: str) -> TaskSpec:
    """Pool growth: generation task number ``attempt`` (growth tasks enqueued before it), in agent ``mode``."""
    return TaskSpec("generation", "GenerateHypothesis", f"generation::grow::{attempt}", payload={"mode": mode})


def project_carry_over() -> TaskSpec:
    """A project session's carried-over hypotheses: the project's best prior ones inserted as drafts
    (design.md#projects)."""
    return TaskSpec("generation", "CarryOver", "generation::project::carry_over")


def result_review(hypothesis_id: str, observation_id: str) -> TaskSpec:
    """An observation review of ``hypothesis_id`` against the experimental result ``observation_id`` (a relative
    of the tested hypothesis; design.md#experimental-results)."""
    return TaskSpec("reflection", "ReviewHypothesis", f"reflection::{hypothesis_id}::result::{observation_id}",
                    target_id=hypothesis_id, payload={"mode": "observation", "observation_id": observation_id})


def hypothesis_screen(hypothesis_id: str) -> TaskSpec:
    """Safety screening of a new hypothesis."""
    return TaskSpec("safety", "ScreenHypothesis", f"safety::{hypothesis_id}", target_id=hypothesis_id)


def review(hypothesis_id: str, mode: str) -> TaskSpec:
    """A review of one hypothesis in reflection ``mode`` (``full``, ``verification``, ``observation``)."""
    return TaskSpec("reflection", "ReviewHypothesis", f"reflection::{hypothesis_id}::{mode}",
                    target_id=hypothesis_id, payload={"mode": mode})


def tournament_add(hypothesis_id: str) -> TaskSpec:
    """A reviewed hypothesis entering the tournament."""
    return TaskSpec("ranking", "AddToTournament", f"ranking::add::{hypothesis_id}", target_id=hypothesis_id)


def focused_round(hypothesis_id: str) -> TaskSpec:
    """The tournament round focused on a newcomer (it meets its nearest-Elo opponent first)."""
    return TaskSpec("ranking", "RunTournamentRound", f"ranking::focus::{hypothesis_id}", target_id=hypothesis_id,
                    payload={"focus_id": hypothesis_id})


def idle_round(count: int) -> TaskSpec:
    """An idle tournament round; ``count`` is the number of rounds enqueued before it."""
    return TaskSpec("ranking", "RunTournamentRound", f"ranking::round::{count}")


def proximity(step: int) -> TaskSpec:
    """Re-clustering after ``step × vectors.full_recluster_every_matches`` valid matches."""
    return TaskSpec("proximity", "UpdateProximityGraph", f"proximity::{step}")


def idle_proximity(hypotheses: int) -> TaskSpec:
    """Idle re-clustering, keyed by the number of hypotheses in the pool's view."""
    return TaskSpec("proximity", "UpdateProximityGraph", f"proximity::idle::{hypotheses}")


def system_feedback(number: int) -> TaskSpec:
    """The ``number``-th (1-based) periodic system feedback."""
    return TaskSpec("metareview", "GenerateSystemFeedback", f"metareview::system::{number}")


def final_system_feedback() -> TaskSpec:
    """The system feedback written at finalisation when the session has none."""
    return TaskSpec("metareview", "GenerateSystemFeedback", "metareview::system::final")


def final_overview() -> TaskSpec:
    """The final research overview."""
    return TaskSpec("metareview", "GenerateFinalResearchOverview", "metareview::final")


def overview_screen() -> TaskSpec:
    """Safety screening of the final overview."""
    return TaskSpec("safety", "ScreenOverview", "safety::overview")


def evolution(count: int, mode: str) -> TaskSpec:
    """Evolution task number ``count`` (evolution tasks enqueued before it), in evolution ``mode``."""
    return TaskSpec("evolution", "EvolveHypotheses", f"evolution::{count}", payload={"mode": mode})


def match_batch(match_id: str) -> TaskSpec:
    """The MatchBatch task that gathers queued matches, keyed by the oldest unassigned one (design.md#batches)."""
    return TaskSpec("ranking", MATCH_BATCH, f"ranking::match_batch::{match_id}", payload={"poll": 0})


def match_batch_last(match_id: str) -> TaskSpec:
    """The session's last batch: the queued matches, however few, once the session is otherwise ending (keyed by
    the oldest unassigned one; design.md#batches)."""
    return TaskSpec("ranking", MATCH_BATCH, f"ranking::match_batch::{match_id}::last",
                    payload={"poll": 0, "last": True})


def match_batch_poll(batch_task: str, poll: int) -> TaskSpec:
    """Poll ``poll`` (1, 2, ...) of the batch submitted by MatchBatch task ``batch_task``."""
    return TaskSpec("ranking", MATCH_BATCH, f"ranking::match_batch::{batch_task}::poll{poll}",
                    payload={"poll": poll, "batch_task": batch_task})


def match_batch_resume(batch_task: str, count: int, poll: int) -> TaskSpec:
    """On resume, the task that carries on MatchBatch task ``batch_task``'s matches (``count``: its MatchBatch tasks
    so far); ``poll`` 0 submits what it holds, a later poll only polls."""
    return TaskSpec("ranking", MATCH_BATCH, f"ranking::match_batch::{batch_task}::resume{count}",
                    payload={"poll": poll, "batch_task": batch_task})


def match_batch_gather_resume(match_id: str, count: int) -> TaskSpec:
    """On resume, a MatchBatch task gathering from the oldest unassigned match (``count``: MatchBatch tasks so far)."""
    return TaskSpec("ranking", MATCH_BATCH, f"ranking::match_batch::{match_id}::resume{count}", payload={"poll": 0})


def match_batch_stop(batch_task: str, count: int) -> TaskSpec:
    """At finalisation, the last poll of an outstanding batch (``count``: MatchBatch tasks so far,
    design.md#batch-settlement)."""
    return TaskSpec("ranking", MATCH_BATCH, f"ranking::match_batch::{batch_task}::stop{count}",
                    payload={"batch_task": batch_task, "final": True})


_ID = r"[^:]+"
KEY_PATTERNS: dict[str, re.Pattern[str]] = {name: re.compile(pattern) for name, pattern in {
    "goal_screen": r"safety::goal",
    "goal_parse": r"goal_parsing::parse_goal",
    "initial_generation": r"generation::initial::(?P<index>\d+)",
    "growth_generation": r"generation::grow::(?P<attempt>\d+)",
    "overview_screen": r"safety::overview",
    "hypothesis_screen": rf"safety::(?P<hypothesis_id>(?!goal$|overview$){_ID})",
    "review": rf"reflection::(?P<hypothesis_id>{_ID})::(?P<mode>[a-z_]+)",
    "result_review": rf"reflection::(?P<hypothesis_id>{_ID})::result::(?P<observation_id>O-[0-9a-f]{{12}})",
    "project_carry_over": r"generation::project::carry_over",
    "tournament_add": rf"ranking::add::(?P<hypothesis_id>{_ID})",
    "focused_round": rf"ranking::focus::(?P<hypothesis_id>{_ID})",
    "idle_round": r"ranking::round::(?P<count>\d+)",
    "proximity": r"proximity::(?P<step>\d+)",
    "idle_proximity": r"proximity::idle::(?P<hypotheses>\d+)",
    "system_feedback": r"metareview::system::(?P<number>\d+)",
    "final_system_feedback": r"metareview::system::final",
    "final_overview": r"metareview::final",
    "evolution": r"evolution::(?P<count>\d+)",
    "match_batch": rf"ranking::match_batch::(?P<match_id>{_ID})",
    "match_batch_last": rf"ranking::match_batch::(?P<match_id>{_ID})::last",
    "match_batch_poll": rf"ranking::match_batch::(?P<batch_task>{_ID})::poll(?P<poll>\d+)",
    "match_batch_resume": rf"ranking::match_batch::(?P<batch_task>{_ID})::resume(?P<count>\d+)",
    "match_batch_stop": rf"ranking::match_batch::(?P<batch_task>{_ID})::stop(?P<count>\d+)",
}.items()}
"""Per constructor name, the full-match pattern of its keys (``match_batch_gather_resume`` shares
``match_batch_resume``'s: the key alone does not tell them apart; the payload's ``batch_task`` does)."""


def kind_of(key: str) -> tuple[str, dict[str, str]] | None:
    """The constructor that builds session-relative ``key`` and its arguments as text, or None if none does.

    Raises:
        ValueError: two patterns match ``key`` (the formats would be ambiguous).
    """
    found = [(name, m.groupdict()) for name, p in KEY_PATTERNS.items() if (m := p.fullmatch(key))]
    if len(found) > 1:
        raise ValueError(f"task key {key!r} matches {[name for name, _ in found]}")
    return found[0] if found else None


__all__ = [
    "KEY_PATTERNS",
    "MATCH_BATCH",
    "TaskSpec",
    "evolution",
    "final_overview",
    "final_system_feedback",
    "focused_round",
    "goal_parse",
    "goal_screen",
    "growth_generation",
    "hypothesis_screen",
    "idle_proximity",
    "idle_round",
    "initial_generation",
    "kind_of",
    "match_batch",
    "match_batch_gather_resume",
    "match_batch_last",
    "match_batch_poll",
    "match_batch_resume",
    "match_batch_stop",
    "overview_screen",
    "proximity",
    "review",
    "system_feedback",
    "tournament_add",
]
