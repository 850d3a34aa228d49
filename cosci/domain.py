"""Domain objects shared by the agents, the tournament and the store (no framework imports).

Names follow design.md#vocabulary: hypothesis, review, match, task, system feedback, call.
The deterministic ids these objects carry are made and read by :mod:`cosci.ids` (design.md#ids).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from cosci.literature import WITHDRAWN

BT_INTERVAL = "95 % empirical-Bayes interval"
"""The short name of the Bradley–Terry interval every reader shows (column headers): its method, the ``eb_is`` fit of
:mod:`cosci.tournament.bt` (design.md#tournament). Not a "95 % CI from the Fisher information": the interval is a
mixture over the prior sd of importance-sampled posteriors, widened by a correction fitted on the simulator."""

BT_INTERVAL_LABEL = (f"{BT_INTERVAL} (importance-sampled, widened by the repeat share the session measures of its "
                     "judge; calibrated on two simulated judges, one independent and one with memory: "
                     "coverage 0.93–0.96 and 0.93–0.97 there)")
"""The interval named by its method and by the judges it was calibrated on and its coverage measured against: the
widening (``bt.CI_FAMILY``) was chosen on tuning trials 3000-3049 of both simulated judges, and the figures are
the share of true centred strengths inside it across the 20 regimes of ``python -m bench.ranking_sim --coverage
--judge independent`` and ``--judge memory`` on a schedule with rematches (N = 40, fresh trials 20000-20199 a regime:
0.930-0.964 and 0.934-0.974; bench/README.md, "Ranking simulator", eleventh stop; design.md#judge-memory).
Every reader that shows the interval prints
this line once (the overview's appendices, ``cosci status``, the report page, the md export, MLflow's BT plot,
docs/tournament.md)."""

def evidence_interval_label(level: float) -> str:
    """The name of ``cosci investigate``'s intervals at ``level`` (0.95 gives "95 %"): a Student t interval over the
    evidence seeds, paired (the same seeds with and without the change) for a gain; its coverage is nominal when
    the seed-to-seed noise is normal and independent, and no bench measures it (design.md#evidence)."""
    return (f"{round(level * 100)} % Student t interval over the evidence seeds (a gain's is paired: the same seeds "
            "with and without the change); coverage nominal under normal, independent seed noise, not measured")


GROUNDED, QUOTED, UNGROUNDED = "grounded", "quoted (relevance unchecked)", "ungrounded"
"""A hypothesis's grounding labels (:attr:`Hypothesis.grounding`, ``docs/design.md#grounded-debate-hypotheses``)."""
SUPPORTING = ("supported", "partially_supported")
"""Support-check verdicts that make a verified quote ground a hypothesis."""

HypothesisState = Literal["draft", "reviewed", "in_tournament", "pinned", "quarantined", "rejected", "retired"]
TaskStatus = Literal["pending", "leased", "in_progress", "done", "failed", "dead", "cancelled"]
ResultKind = Literal[
    "research_plan_parsed",
    "hypothesis_created",
    "hypothesis_duplicate",
    "review_completed",
    "added_to_tournament",
    "tournament_match_complete",
    "proximity_updated",
    "system_feedback_generated",
    "final_overview_generated",
    "nothing_to_do",
    # safety screening (design.md#safety)
    "goal_screened",
    "goal_refused",
    "hypothesis_screened",
    "hypothesis_quarantined",
    "overview_screened",
    "overview_withheld",
    "match_batch_pending",  # a provider batch of matches is still running (design.md#batches)
    "match_batch_outstanding",  # polled at a stop or after it and still running (design.md#batch-settlement)
]


@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis row. ``elo`` in Elo points; ``citations`` as dicts of :class:`cosci.records.Citation`."""

    id: str
    session_id: str
    title: str
    statement: str
    mechanism: str
    entities: list[str]
    anticipated_outcomes: str
    novelty_argument: str
    decisive_experiment: str
    predicted_result: str
    refuting_result: str
    """The falsification contract (``docs/design.md#falsification``): "" for a hypothesis stored before it."""
    citations: list[dict[str, Any]]
    mode: str
    parent_ids: list[str]
    elo: float
    matches_played: int
    wins: int
    state: HypothesisState
    dedup_cluster: int | None
    created_at: float

    @property
    def grounded(self) -> bool:
        """Whether a verified, not retracted quote of a source was judged by the support check to support it
        (``supported`` or ``partially_supported``; ``docs/design.md#grounded-debate-hypotheses``,
        ``docs/design.md#retractions``)."""
        return self.grounding == GROUNDED

    @property
    def retracted_citations(self) -> int:
        """Citations whose source is retracted or a retraction notice (``docs/design.md#retractions``)."""
        return sum(1 for c in self.citations if c.get("retraction") in WITHDRAWN)

    @property
    def grounding(self) -> str:
        """What its citations establish (the leaderboard, the report, the overview, MLflow;
        ``docs/design.md#grounded-debate-hypotheses``): :data:`GROUNDED` when a verified, not retracted quote was
        judged to support it; :data:`QUOTED` when a verified quote exists but no support check judged it (no tier
        can judge, the call failed, a verdict resting on no quote); :data:`UNGROUNDED` when no quote is verified
        or every verified one was judged not to support it."""
        quoted = [c for c in self.citations if c.get("status") == "verified" and c.get("retraction") not in WITHDRAWN]
        if any(c.get("support") in SUPPORTING for c in quoted):
            return GROUNDED
        if any(c.get("support") not in ("not_supported", "contradicted") for c in quoted):
            return QUOTED
        return UNGROUNDED

    @property
    def grounding_note(self) -> str:
        """The grounding label with what it means (the writer's prompt, the fallback overview)."""
        return {GROUNDED: "grounded (a verified quote the support check found to support it)",
                QUOTED: "quoted (relevance unchecked): a verified quote, not judged to bear on it",
                }.get(self.grounding, "ungrounded (no verified source supports it: present it as untested by the "
                                      "literature)")

    def embedding_text(self) -> str:
        """Text embedded for dedup and clustering (design.md#dedup: title + summary)."""
        return f"{self.title}. {self.statement} {self.mechanism}"

    def brief(self) -> str:
        """Plain-text rendering used inside prompts (always wrapped by the quoting helpers)."""
        lines = [f"Title: {self.title}", f"Statement: {self.statement}", f"Mechanism: {self.mechanism}"]
        if self.entities:
            lines.append("Entities: " + ", ".join(self.entities))
        if self.anticipated_outcomes:
            lines.append(f"Anticipated outcomes: {self.anticipated_outcomes}")
        if self.novelty_argument:
            lines.append(f"Novelty: {self.novelty_argument}")
        lines += [f"{label}: {value}" for label, value in self.contract() if value]
        return "\n".join(lines)

    def contract(self) -> tuple[tuple[str, str], ...]:
        """The falsification contract as ``(label, text)`` pairs, in the order prompts and the report show them."""
        return (("Decisive experiment", self.decisive_experiment), ("Predicted if it holds", self.predicted_result),
                ("Refuted if", self.refuting_result))


@dataclass(frozen=True)
class Review:
    id: str
    hypothesis_id: str
    mode: str
    verdict: str
    scores: dict[str, float | None]
    notes: str
    evidence: list[dict[str, Any]]
    assumptions: list[dict[str, Any]]
    weakest_assumption: str | None
    kill_experiment: str | None
    created_at: float
    prior_work: list[dict[str, Any]]
    """A full review's comparison with the hypothesis's nearest prior work (:class:`cosci.records.PriorWorkComparison`
    as dicts; ``docs/design.md#prior-work``)."""

    def brief(self) -> str:
        scores = ", ".join(f"{k} {v:.2f}" for k, v in self.scores.items() if v is not None)
        text = f"[{self.mode} review] verdict: {self.verdict}" + (f"; {scores}" if scores else "")
        if self.weakest_assumption:
            text += f"\nWeakest assumption: {self.weakest_assumption}"
        if self.kill_experiment:
            text += f"\nKill experiment: {self.kill_experiment}"
        return text + (f"\n{self.notes}" if self.notes else "")


@dataclass(frozen=True)
class PriorWork:
    """One record of a hypothesis's nearest prior work (``docs/design.md#prior-work``): ``rank`` 1 is the nearest;
    ``similarity`` in [-1, 1] by ``measure`` (``cosine:<embedding model>``, or ``token_set_ratio`` / 100 when the
    embedding call was refused); ``reason`` one line; ``text`` the record's text as the tool returned it."""

    hypothesis_id: str
    rank: int
    source_id: str
    url: str
    title: str
    text: str
    tool: str
    ids: list[str]
    similarity: float
    measure: str
    reason: str


@dataclass(frozen=True)
class Task:
    """A queued agent action (design.md#store)."""

    id: str
    session_id: str
    agent: str
    action: str
    target_id: str | None
    payload: dict[str, Any]
    priority: int
    status: TaskStatus
    attempts: int
    max_attempts: int
    idempotency_key: str
    cache_spec: dict[str, Any] | None = None
    """For a task enqueued before the vocabulary renames: its ``agent``, ``action``, ``target_id`` and ``payload``
    as they were then, which its Prefect cache key is built from (design.md#caching); None since."""


@dataclass
class TaskResult:
    """What an agent action produced; ``kind`` drives the follow-up rules (design.md#supervisor)."""

    kind: ResultKind
    hypothesis_ids: list[str] = field(default_factory=list)
    match_ids: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(
            {"kind": self.kind, "hypothesis_ids": self.hypothesis_ids, "match_ids": self.match_ids,
             "detail": self.detail},
            sort_keys=True,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskResult:
        """A result from its JSON form; a result stored before the vocabulary renames (``detail`` naming the mode
        ``kind`` or ``strategy``, a MatchBatch's poll ``round``) is read in today's words (design.md#vocabulary)."""
        detail = dict(data.get("detail", {}))
        for old, new in _LEGACY_DETAIL:
            if old in detail and new not in detail:
                detail[new] = detail.pop(old)
        return cls(kind=data["kind"], hypothesis_ids=list(data.get("hypothesis_ids", [])),
                   match_ids=list(data.get("match_ids", [])), detail=detail)


_LEGACY_DETAIL = (("kind", "mode"), ("strategy", "mode"), ("round", "poll"))
"""Result detail keys of releases before the vocabulary renames -> today's keys."""


@dataclass(frozen=True)
class Call:
    """One provider call attempt, as the gateway reports it (a ``transcripts`` row, design.md#store).

    Units: tokens; ``cost_usd`` in USD (from LiteLLM's cost calculation); ``latency_seconds`` in seconds.
    ``outcome`` is ``ok``, ``retry:<kind>`` (a transient failure that will be retried), ``error:<kind>``, or
    ``degraded`` (the model was unavailable and the call stepped down the chain; ``error`` is ``<model> -> <model>``).
    ``first_token_seconds``: from the request to the first streamed chunk with output (None: not streamed);
    ``output_tokens_per_second``: output tokens over the time after the first token (the whole call when not
    streamed), tokens/s.
    """

    agent: str
    action: str
    mode: str
    model: str
    task_id: str | None
    attempt: int
    outcome: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    latency_seconds: float = 0.0
    request: Any = None
    response: Any = None
    error: str | None = None
    system: Any = None
    """The system message's content as sent (stored once per distinct text in ``system_prompts``, design.md#prompts)."""
    first_token_seconds: float | None = None
    output_tokens_per_second: float | None = None


@dataclass(frozen=True)
class OverviewHeadings:
    """The top-level section headings of the final research overview, as written after ``# ``
    (design.md#metareview). The prompt ``metareview.final`` renders them; the claim check reads ``summary`` and
    ``directions``; the fallback overview and the scripted fake write them."""

    summary: str
    directions: str
    convergence: str
    caveats: str

    @property
    def all(self) -> tuple[str, str, str, str]:
        """Every heading, in the order the overview gives them."""
        return self.summary, self.directions, self.convergence, self.caveats

    @property
    def checked(self) -> tuple[str, str]:
        """The headings whose sentences are claims (design.md#claim-statuses)."""
        return self.summary, self.directions


OVERVIEW = OverviewHeadings(summary="Executive summary", directions="Main research directions",
                            convergence="Convergence and divergence", caveats="Caveats and limitations")
"""The one definition of the overview's headings; consumers read it as ``domain.OVERVIEW`` when they run."""
