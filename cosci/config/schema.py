"""Typed, validated session configuration.

Hydra composes ``conf/``; :func:`cosci.config.load.validate` turns the composed tree into plain data once and
validates it into :class:`CosciConfig`. After that, code receives these objects, never a ``DictConfig``.
Every default lives in ``conf/*.yaml``, its reason in ``docs/design.md``; the models here only state the
rules (ranges, units, cross-field checks). All models forbid unknown keys.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from cosci import literature
from cosci.config.thinking import Effort, ThinkingCfg, ThinkingForm

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
# Upper bounds (design.md#defaults): a value beyond these is a typo, not a plan. Each is far above any value in conf/ or
# design.md#defaults, and below what would exhaust the machine, a provider or the store.
MAX_SECONDS = 30 * 24 * 3600
"""Longest wall clock or job limit: 30 days, seconds."""
MAX_CALL_SECONDS = 24 * 3600
"""Longest single call or timeout: one day, seconds."""
MAX_COUNT = 1_000_000
"""Largest match or task count used as a threshold or period."""
MAX_ATTEMPTS = 50
"""Most attempts of one provider call or one task (the retry table goes up to 8: design.md#retries)."""
MAX_TOKENS = 1_000_000
"""Largest token count of one call or context window, tokens."""
MAX_ELO = 10_000.0
"""Largest Elo rating, window or gap, Elo points."""
MAX_SEED = 2**63 - 1
"""Seeds are non-negative and fit a signed 64-bit integer (SQLite, numpy)."""
AGENT_NAMES = ("goal_parsing", "generation", "reflection", "ranking", "evolution", "proximity", "metareview")
"""The seven agents, in pipeline order (design.md#supervisor)."""
OPTIONAL_AGENTS = ("safety",)
"""Agents a config may add: ``safety``, the safety classifier (design.md#safety)."""
SafetyDecision = Literal["allow", "flag", "block"]


_NUMBERS = (int, float, int | None, float | None)


class _Strict(BaseModel):
    """Unknown keys, NaN and infinity are refused; so is a boolean given for a number (``run.concurrency=true``
    was taken as 1: pydantic's lax mode reads ``True`` as the integer 1)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_boolean_numbers(cls, value: object, info: ValidationInfo) -> object:
        field = cls.model_fields.get(info.field_name or "")
        if isinstance(value, bool) and field is not None and field.annotation in _NUMBERS:
            raise ValueError(f"expected a number, got {str(value).lower()}")
        return value


PROJECT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""``session.project``, ``session.name`` and ``tracking.experiment_name``: a folder name on any file system (no
separator, no leading dot, no space), at most 64 characters (MLflow keeps an experiment's artifacts in a folder of
its name: ``session.name=../../etc`` wrote outside the data folder)."""


INTERPOLATION = re.compile(r"\$\{[^{}]+\}")
"""One OmegaConf interpolation, as ``tracking.experiment_name``'s default ``${session.name}`` reads unresolved."""


def folder_name(value: object, what: str, example: str) -> object:
    """``value`` checked as a :data:`PROJECT_NAME` (a whole number, as Hydra reads ``=2026``, taken as its digits).

    Raises:
        ValueError: the rule in words (pydantic's own message quotes the regex), naming ``what`` and ``example``.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str) and INTERPOLATION.fullmatch(value):
        return value  # an unresolved config (a launcher's): the key it names is checked itself, and so is its value
    if not isinstance(value, str) or not PROJECT_NAME.fullmatch(value):
        shown = repr(value) if isinstance(value, str) else f"{value!r} ({type(value).__name__})"
        raise ValueError(f"{shown} is not {what}: use 1-64 letters, digits, '.', '_' or '-', starting "
                         f"with a letter or a digit (e.g. {example})")
    return value


class SessionCfg(_Strict):
    name: str = Field(description="Experiment name; also the MLflow experiment the session is logged to.")
    goal: str | None = Field(description="The research goal in the scientist's words (required to run).")
    goal_file: str | None = Field(
        default=None,
        description="A UTF-8 text file holding the goal (any prose); read once at validation, its text replaces goal.",
    )
    preferences: list[str] = Field(description="What the scientist values in a hypothesis (fed to goal parsing; "
                                   "design.md#supervisor).")
    resume: str | None = Field(description="Session id to continue instead of starting a new session.")
    corpus_path: str | None = Field(description="Local corpus for local_corpus_search: a JSONL/Parquet file, a "
                                    "document (PDF, Markdown, HTML, text) or a folder of them "
                                    "(design.md#own-documents).")
    background: str | None = Field(
        default=None, description="Background survey of the research goal (prose); reaches every agent's system "
        "prompt quoted as untrusted data (design.md#prompts). Set by `cosci eval` (design.md#eval).")
    project: str | None = Field(
        description="Project the session belongs to (a name: letters, digits, '-', '_', '.'); its sessions share "
        "<data_dir>/projects/NAME/ and a new one starts from the earlier ones (design.md#projects). null = none.")

    @field_validator("project", mode="before")
    @classmethod
    def _project_name(cls, value: object) -> object:
        """A project name is a folder name under ``<data_dir>/projects/``: :data:`PROJECT_NAME`, said in words
        (pydantic's own message quotes the regex). A whole number (``session.project=2026``: Hydra reads an int)
        is taken as its digits."""
        if value is None:
            return None
        return folder_name(value, "a project name", "session.project=aml-2026")

    @field_validator("name", mode="before")
    @classmethod
    def _session_name(cls, value: object) -> object:
        """The experiment name names MLflow's experiment, hence a folder under ``mlartifacts/``: the project rule
        (:func:`folder_name`)."""
        return folder_name(value, "an experiment name", "session.name=aml-2026")


class ProjectCfg(_Strict):
    entrants: int = Field(ge=0, le=1_000, description="Best prior hypotheses of the project (by final Elo) a new "
                          "session receives as tournament entrants, re-reviewed (design.md#projects: 3).")
    rejected_in_prompts: int = Field(ge=0, le=1_000, description="Rejected directions of the project quoted in "
                                     "generation and evolution prompts, newest first, and as many demoted ones "
                                     "(design.md#projects: 20).")
    lock_timeout_seconds: float = Field(gt=0, le=3_600, description="How long a write waits for the project store's "
                                        "lock, seconds (design.md#projects: 30).")


class RunCfg(_Strict):
    concurrency: int = Field(gt=0, le=64, description="Agent actions running at once (design.md#defaults).")
    max_hypotheses: int = Field(gt=0, le=10_000, description="Cap on hypotheses in the pool: generated, evolved "
                                "and carried-over ones not rejected, retired or quarantined; initial generation stops "
                                "at it too (design.md#defaults, design.md#supervisor).")
    wall_clock_seconds: float = Field(gt=0, le=MAX_SECONDS,
                                      description="Session deadline in seconds of active time (design.md#defaults).")
    budget_usd: float = Field(gt=0, le=100_000,
                              description="Session spending cap in USD, reserve included (design.md#budget).")
    budget_tokens: int | None = Field(
        gt=0, le=10**11, description="Optional session cap in tokens (in + out); null = none."
    )
    n_initial: int = Field(gt=0, le=1_000,
                           description="Generation tasks enqueued after goal parsing (design.md#supervisor: 3).")
    seed: int = Field(ge=0, le=MAX_SEED, description="Seed for every random choice (pair selection, strategy choice).")
    idle_poll_seconds: float = Field(
        gt=0, le=3_600, description="Seconds between idle refinement checks (design.md#supervisor: ~10 s)."
    )


class GenerationCfg(_Strict):
    debate_share: Unit = Field(description="Share of generation tasks that use generation's debate mode instead of "
                               "the literature mode (design.md#generation; was run.debate_fraction).")
    debate_grounding_searches: int = Field(
        ge=0, le=20, description="Searches a debate hypothesis gets after its debate, to attach verified citations "
        "(docs/design.md#grounded-debate-hypotheses); 0 leaves every debate hypothesis ungrounded.")
    debate_grounding_results: int = Field(
        ge=1, le=50, description="Sources kept per search of a debate hypothesis's grounding step.")


class BudgetCfg(_Strict):
    reserve_share: Unit = Field(description="Share of the budget kept for goal parsing, safety screening, the final "
                                "overview and overages (design.md#budget: 0.08).")
    warn_ratio: float = Field(
        gt=0, le=1_000, description="Pre-flight estimate warns above this multiple of the budget (design.md#budget)."
    )
    admission_wait_seconds: float = Field(
        gt=0, le=3600,
        description="A call that fits the budget but not beside the calls in flight waits up to this many seconds"
        " for them to settle; then its action goes back to the queue (design.md#budget).",
    )


class RankingCfg(_Strict):
    elo_initial: float = Field(
        ge=0, le=MAX_ELO,
        description="Elo rating of a hypothesis entering the tournament, Elo points (design.md#tournament)."
    )
    k_factor_new: float = Field(
        gt=0, le=1_000, description="K while the less experienced player is new, Elo points (design.md#tournament)."
    )
    k_factor_warm: float = Field(
        gt=0, le=1_000, description="K once both players are experienced, Elo points (design.md#tournament)."
    )
    new_matches_threshold: int = Field(
        ge=0, le=MAX_COUNT, description="A player with fewer matches than this is new (design.md#tournament: 5)."
    )
    p_new: Unit = Field(description="Probability of the new-arrival pairing bucket (design.md#tournament: 0.4).")
    p_close: Unit = Field(description="Probability of the close-Elo pairing bucket (design.md#tournament: 0.4).")
    p_random: Unit = Field(description="Probability of the random top-half bucket (design.md#tournament: 0.2).")
    new_arrival_matches: int = Field(
        ge=0, le=MAX_COUNT, description="Fewer matches than this makes a new arrival (design.md#tournament: 3)."
    )
    close_elo_window: float = Field(
        gt=0, le=MAX_ELO, description="Max |ΔElo| for the close-Elo bucket, Elo points (design.md#tournament)."
    )
    debate_min_matches: int = Field(
        ge=0, le=MAX_COUNT, description="Debate when either side has fewer matches (design.md#tournament: 2)."
    )
    debate_elo_gap: float = Field(
        ge=0, le=MAX_ELO, description="Debate when |ΔElo| is below this, Elo points (design.md#tournament: 50)."
    )
    matches_per_round: int = Field(gt=0, le=1_000, description="Matches played by one RunTournamentRound task.")
    max_matches_per_pair: int = Field(
        gt=0, le=100, description="Rematch cap: matches one pair may play; a pair at the cap is not chosen again"
        " (design.md#termination: the leaderboard cannot change once every pair is at the cap -> stop reason stalled)."
    )
    researcher_weight: int = Field(
        ge=1, le=100, description="Judge verdicts one researcher preference (`cosci rate A B --prefer`) counts as in "
        "the Bradley–Terry fit (design.md#researcher-ratings: one more than the rematch cap, 4).")
    batch: bool = Field(description="Send low-stakes matches through the provider's message-batch "
                        "API (design.md#batches; only for tiers with models.tiers.<t>.batch).")
    batch_top_chance: Unit = Field(description="A match the pairing chose is batched when each hypothesis's chance "
                                   "of belonging to the top_k, by the Bradley–Terry fit's uncertainty, is at most "
                                   "this (0-1; design.md#batches: 0.1).")
    batch_size: int = Field(gt=0, description="Fewest queued matches a batch is submitted with, except the session's "
                            "last batch (design.md#batches: 4).")
    batch_poll_seconds: float = Field(ge=0, description="Seconds between polls of a submitted batch.")
    # pairing, dual-order judging, Bradley–Terry (cosci/tournament/; design.md#tournament)
    pairing: Literal["elo_buckets", "uncertainty"] = Field(
        description="Pair selection: elo_buckets (new arrivals, close Elo, random top half) or uncertainty (the "
        "pair that most narrows the BT top-k boundary; design.md#tournament).")
    top_k: int = Field(ge=1,
                       description="Top-k boundary the uncertainty pairing settles (design.md#tournament: 5).")
    warmup_matches: int = Field(ge=0,
                                description="Matches before a hypothesis leaves warm-up (design.md#tournament: 4).")
    temperature: float = Field(gt=0,
                               description="Softmax sharpness over pair scores scaled to max 1 (tuned on the "
                               "simulator).")
    pair_draw: Literal["softmax", "thompson"] = Field(
        description="How the uncertainty pairing draws the pair: softmax (of temperature over the pair scores) or "
        "thompson (the best pair of the scores at one draw from the fit's posterior; design.md#tournament).")
    distance_bonus: float = Field(ge=0,
                                  description="Weight of idea distance (1 - cosine) as a tie-break "
                                  "(design.md#tournament).")
    dual_order: Literal["off", "close", "all"] = Field(
        description="Judge in both orders: off, close (debates and pairwise within "
        "dual_order_elo_gap), or all matches (design.md#tournament).")
    dual_order_elo_gap: float = Field(ge=0, description="|ΔElo| under which a pairwise match is "
                                      "judged in both orders with dual_order=close, Elo points.")
    dual_order_sample: Unit = Field(description="Share of other matches judged in both orders to measure the "
                                    "judge's flip rate, drawn by a hash of the match key and topped up to at least "
                                    "floor(n * share) after n matches (design.md#position-bias: 0.1).")
    dual_order_biased_share: Unit = Field(description="Share of close pairs (debates and pairwise within "
                                          "dual_order_elo_gap) judged in both orders once the first-shown win "
                                          "rate's 95 % interval excludes 0.5 (design.md#position-bias: 0.5).")
    judges: list[str] = Field(description="Judge tiers (models.tiers) the matches are split between, one per match "
                              "by a hash of its key; empty: one judge, the tier conf/agents and models.agent_tiers "
                              "route ranking to (design.md#judges).")
    bt_prior_sd: float = Field(gt=0, description="SD of the Bradley–Terry N(0, sd²) prior, logits.")
    bt_refit_stride: int = Field(ge=1, description="Refit cadence: the Bradley–Terry fit is redone once "
                                 "⌈players / bt_refit_stride⌉ valid verdicts are new since the last fit (every verdict "
                                 "up to this many players), hypotheses (design.md#scale: 100).")
    bt_leaderboard_growth: float = Field(ge=0, description="Above bt_refit_stride players, the leaderboard's "
                                         "Bradley–Terry fit (the stored intervals bt_stable reads) is redone once the "
                                         "valid verdicts grew by this fraction of those it was fitted on, or at the "
                                         "pairing's cadence while its top k is CI-separated; 0 = the pairing's "
                                         "cadence, a fraction (design.md#scale: 0.05).")
    pair_candidates: int = Field(ge=0, description="The uncertainty pairing scores the pairs among this many "
                                 "hypotheses nearest the top-k boundary when the pool is larger; 0 = the whole pool, "
                                 "hypotheses (design.md#scale: 100).")
    first_position_flag: Unit = Field(description="A first-position win rate further than this from 0.5 whose 95 % "
                                      "interval includes 0.5 gets a 'not significant' note; a significant one a "
                                      "warning (design.md#position-bias).")

    @model_validator(mode="after")
    def _buckets_sum_to_one(self) -> RankingCfg:
        total = self.p_new + self.p_close + self.p_random
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise ValueError(f"p_new + p_close + p_random must sum to 1 (got {total:.3f})")
        return self


class DebateCfg(_Strict):
    min_turns: int = Field(ge=1, le=10, description="Turn from which a debate may conclude (design.md#generation: 3).")
    max_turns: int = Field(ge=1, le=10, description="Turn at which a debate must conclude (design.md#generation: 10).")

    @model_validator(mode="after")
    def _ordered(self) -> DebateCfg:
        if self.min_turns > self.max_turns:
            raise ValueError(f"min_turns ({self.min_turns}) must not exceed max_turns ({self.max_turns})")
        return self


class ReflectionCfg(_Strict):
    verification_top_k: int = Field(
        ge=0, le=1_000, description="Deep verifications per session, given to the best mature hypotheses at the time."
    )
    observation_top_k: int = Field(
        ge=0, le=1_000, description="Top hypotheses given an observation review when an article is at hand."
    )
    observation_search_results: int = Field(
        ge=1, le=100, description="Records an observation review's search asks for, so one not cited by the "
        "hypothesis can be found (docs/design.md#independent-observation-review).")
    result_relatives: int = Field(
        ge=0, le=1_000, description="Relatives (same cluster, descendants) of a hypothesis with an experimental "
        "result given an observation review against it, nearest first (design.md#experimental-results: 5).")
    falsification_terms: str = Field(min_length=1, description="Term file under conf/ (or an absolute path) of the "
                                     "falsification contract's concreteness check (docs/design.md#falsification).")
    vague_refutation_testability: Unit = Field(
        description="Highest testability (0-1) a full review keeps when the hypothesis's refuting result fails the "
        "concreteness check (docs/design.md#falsification).")
    prior_work_queries: int = Field(ge=0, le=10, description="Novelty searches per hypothesis before its full review "
                                    "(statement, then mechanism; 0: none; docs/design.md#prior-work).")
    prior_work_search_results: int = Field(ge=1, le=100, description="Records asked of each search tool per novelty "
                                           "query (docs/design.md#prior-work).")
    prior_work_kept: int = Field(ge=1, le=50, description="Nearest records kept per hypothesis and given to its full "
                                 "review as required reading (docs/design.md#prior-work).")
    prior_work_chars: int = Field(ge=100, le=100_000, description="Characters of each kept record's text shown to the "
                                  "full review (docs/design.md#prior-work).")


class EvolutionCfg(_Strict):
    min_mature: int = Field(
        ge=1, le=10_000, description="Mature hypotheses needed before evolution fires (design.md#evolution: 20)."
    )
    mature_matches: int = Field(ge=0, le=MAX_COUNT,
                                description="Matches that make a hypothesis mature (design.md#evolution: 3).")
    top_k: int = Field(ge=2, le=1_000, description="Top hypotheses evolution draws from (design.md#evolution: 5).")
    modes: list[Literal["combine", "simplify", "feasibility", "out_of_box"]] = Field(
        min_length=1, description="Evolution modes used, in rotation (design.md#evolution)."
    )
    pool_share: Unit = Field(
        description="Share of run.max_hypotheses kept for evolved hypotheses (generation stops below it)."
    )


class MetareviewCfg(_Strict):
    every_matches: int = Field(
        gt=0, le=MAX_COUNT, description="System feedback every this many matches (design.md#metareview: ~50)."
    )
    max_reviews: int = Field(gt=0, le=10_000,
                             description="Reviews given to metareview.system (design.md#metareview: 50).")
    review_chars: int = Field(gt=0, le=1_000_000,
                              description="Characters kept per review (design.md#metareview: 3000).")
    max_rationales: int = Field(
        gt=0, le=10_000, description="Debate rationales given to metareview.system (design.md#metareview: 50)."
    )
    rationale_chars: int = Field(gt=0, le=1_000_000,
                                 description="Characters kept per rationale (design.md#metareview: 1500).")
    overview_top_n: int = Field(gt=0, le=1_000,
                                description="Hypotheses in the final overview, the top of the current standing (BT, "
                                "then Elo; design.md#metareview: 10).")
    overclaim_terms: str = Field(min_length=1, description="Overclaim term file under conf/ (or an absolute path): a "
                                 "coarse word list run on every claim (docs/design.md#claim-statuses).")
    claim_check_batch: int = Field(ge=1, le=50, description="Claims per support-check call.")
    claim_check_batch_constrained: int = Field(
        ge=1, le=50, description="Claims per support-check call on a schema-constrained embedded model (4096-token "
        "context).")
    claim_check_max_calls: int = Field(
        ge=0, le=1_000, description="Support-check calls per overview; claims beyond them stay unchecked.")
    claim_check_constrained_verdicts: bool = Field(
        description="Whether a schema-constrained embedded model's support verdicts count; when false they are kept "
        "in the claim's note and the claim is unchecked (a 135M model's entailment judgments are near chance).")
    claim_check_source_chars: int = Field(
        ge=100, le=100_000, description="Characters of each cited source's text given to the support check "
        "(a quarter of it on an embedded model).")


class TerminationCfg(_Strict):
    elo_stability_k: int = Field(gt=0, le=1_000, description="Top-K watched for stability (design.md#termination: 5).")
    elo_stability_n: int = Field(ge=2, le=1_000, description="Snapshots that must agree (design.md#termination: 3).")
    elo_stability_eps: float = Field(
        gt=0, le=MAX_ELO, description="Max Elo change within the window, Elo points (design.md#termination)."
    )
    min_hypotheses_before_stable: int = Field(
        ge=0, le=MAX_COUNT, description="Guard: hypotheses needed before ELO_STABLE (design.md#termination)."
    )
    min_matches_before_stable: int = Field(
        ge=0, le=MAX_COUNT, description="Guard: matches needed before ELO_STABLE (design.md#termination)."
    )
    snapshot_every_matches: int = Field(
        gt=0, le=MAX_COUNT, description="An Elo snapshot is taken every this many matches."
    )
    stall_streak: int = Field(
        gt=0, le=1000, description="Growth tasks in a row (generation or evolution) that add no hypothesis, only"
        " duplicates, after which the pool counts as unable to grow (stop reason stalled; design.md#termination)."
    )
    stability_rule: Literal["elo", "bt", "either"] = Field(
        default="either", description="Which stability rule may stop the session: the Elo rule, the "
        "Bradley–Terry rule (top-k unchanged for bt_stability_n refits and separated by its CIs), or either "
        "(design.md#termination; both are logged).")
    bt_stability_n: int = Field(default=3, ge=1, description="BT refits the top-k set must stay unchanged.")


class EmbeddingThresholdsCfg(_Strict):
    dedup_cosine_threshold: Unit = Field(description="Dedup cosine threshold for this embedding model.")
    cluster_threshold: Unit = Field(description="Clustering cosine-distance threshold for this embedding model.")


class VectorsCfg(_Strict):
    dedup_cosine_threshold: Unit = Field(
        description="Cosine similarity at or above which a hypothesis is a duplicate (design.md#dedup: 0.92)."
    )
    cluster_threshold: Unit = Field(description="Max cosine distance merged by clustering (design.md#proximity: 0.15).")
    full_recluster_every_matches: int = Field(
        gt=0, le=MAX_COUNT, description="Proximity re-clusters every N matches (design.md#proximity: 20)."
    )
    recluster_every_hypotheses: int = Field(
        gt=0, le=10000, description="Idle re-clustering once this many hypotheses are unclustered (design.md#proximity:"
        " a cadence, not after every match)."
    )
    models: dict[str, EmbeddingThresholdsCfg] = Field(
        default_factory=dict,
        description="Thresholds per embedding model (design.md#dedup: a static model's cosine scale differs from a "
        "hosted one's; calibrated in bench/README.md); a model not listed uses the two values above.",
    )

    def dedup_threshold(self, model: str) -> float:
        """Dedup cosine threshold for vectors of ``model`` (per-model entry, else the hosted models' value)."""
        entry = self.models.get(model)
        return entry.dedup_cosine_threshold if entry else self.dedup_cosine_threshold

    def cluster_threshold_for(self, model: str) -> float:
        """Clustering cosine-distance threshold for vectors of ``model`` (per-model entry, else the hosted models'
        value)."""
        entry = self.models.get(model)
        return entry.cluster_threshold if entry else self.cluster_threshold


class LeaseCfg(_Strict):
    """A claimed task's attempts. Leases carry no time limit: one process runs a session, and a resume voids
    every lease (design.md#store; lease durations are deliberately absent, design.md#departures)."""

    max_attempts: int = Field(ge=1, le=MAX_ATTEMPTS, description="Attempts of one task (one agent action, its "
                              "provider-call retries inside each) before it is dead (design.md#store: 3).")


class RetryCfg(_Strict):
    rate_limit_attempts: int = Field(ge=1, le=MAX_ATTEMPTS,
                                     description="Attempts on HTTP 429 (design.md#retries: 6).")
    overloaded_attempts: int = Field(
        ge=1, le=MAX_ATTEMPTS, description="Attempts on HTTP 529 overloaded (design.md#retries: 8)."
    )
    server_error_attempts: int = Field(ge=1, le=MAX_ATTEMPTS,
                                       description="Attempts on other 5xx (design.md#retries: 5).")
    timeout_attempts: int = Field(
        ge=1, le=MAX_ATTEMPTS, description="Attempts on timeouts and connection errors (design.md#retries: 3)."
    )
    base_delay_seconds: float = Field(ge=0, le=3_600,
                                      description="First backoff delay, seconds (design.md#retries: 1 s).")
    max_delay_seconds: float = Field(ge=0, le=3_600, description="Backoff cap, seconds (design.md#retries: 60 s).")
    call_timeout_seconds: float = Field(
        gt=0, le=MAX_CALL_SECONDS, description="Per-call timeout, seconds (design.md#retries: 120 s)."
    )
    thinking_call_timeout_seconds: float = Field(
        gt=0, le=MAX_CALL_SECONDS, description="Per-call timeout with thinking (design.md#retries: 300 s)."
    )
    first_token_seconds: float = Field(
        default=60.0, gt=0, le=MAX_CALL_SECONDS, description="A streamed call's allowance for its first token, "
        "seconds: its deadline is this plus max_tokens at the tier's output_tokens_per_second "
        "(docs/design.md#long-calls).")
    stream_idle_seconds: float = Field(
        default=90.0, gt=0, le=MAX_CALL_SECONDS, description="A streamed call that sends no chunk for this long times "
        "out, seconds (docs/design.md#long-calls).")
    stream_timeout_attempts: int = Field(
        default=2, ge=1, le=MAX_ATTEMPTS, description="Attempts of a streamed call that timed out: once more at the "
        "same settings, no more (its deadline already allows the full answer; docs/design.md#long-calls).")


class ApisCfg(_Strict):
    """Settings of the scholarly APIs behind the literature tools (design.md#tools, design.md#retractions).

    The defaults equal ``conf/config.yaml``'s and serve only a session frozen before these keys existed (its
    snapshot lacks them: it resumes, reports and exports with the shipped values)."""

    crossref_mailto: str | None = Field(
        default=None, description="E-mail sent to Crossref as `mailto`, which puts requests in its polite pool; "
        "null sends none (the public pool).")
    openalex_max_calls: int = Field(
        default=200, ge=0, le=100_000, description="OpenAlex requests a session may send, requests "
        "(design.md#tools: a free key buys about 1,000 a day; 200 leaves room for several sessions a day).")
    retraction_check: bool = Field(
        default=True, description="Check every cited record once per session against Crossref update notices and "
        "Europe PMC publication types (design.md#retractions); false: only the flags the search results carry.")


class McpServerCfg(_Strict):
    """One MCP tool server whose tools are sources (design.md#mcp-servers): a ``command`` started over stdio or a
    streamable HTTP ``url``, and the tools it may offer (``allow``: names or shell patterns, ``fnmatch``)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,23}$", description="Short name: tools are offered as "
                      "mcp_<name>_<tool> and warnings name it.")
    command: list[str] | None = Field(default=None, min_length=1, description="The server's command and its "
                                      "arguments, started over stdio (no shell).")
    url: str | None = Field(default=None, pattern=r"^https?://\S+$", description="The server's streamable HTTP "
                            "endpoint.")
    allow: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1, description="Tool names or patterns "
                                                               "('search_*') the agents may load; others are never "
                                                               "offered.")

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerCfg:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"tools.mcp_servers '{self.name}': give exactly one of command (stdio) or url (HTTP)")
        return self


class ToolsCfg(_Strict):
    timeout_seconds: float = Field(gt=0, le=3_600, description="Per-tool timeout, seconds (design.md#tools: 30 s).")
    parallel_cap: int = Field(gt=0, le=64, description="Tool calls dispatched at once per turn (design.md#tools: 4).")
    max_results: int = Field(gt=0, le=1_000, description="Records returned per literature search.")
    fetch_max_bytes: int = Field(gt=0, le=1_000_000_000, description="web_fetch download cap, bytes.")
    fetch_max_chars: int = Field(gt=0, le=10_000_000, description="web_fetch text returned to the model, characters.")
    offline: bool = Field(description="Network tools answer 'unavailable' without making a request.")
    apis: ApisCfg = Field(default_factory=ApisCfg, description="The scholarly APIs' settings (design.md#tools); "
                          "a session frozen before them gets the shipped values.")
    skills_path: str | None = Field(description="Folder scanned at session start for SKILL.md documents, each a "
                                    "literature_<name> tool (design.md#skills); null: no skills.")
    skill_max_chars: int = Field(gt=0, le=1_000_000, description="A skill document returned to the model, "
                                 "characters (design.md#skills: 12000).")
    passage_words: int = Field(gt=20, le=2_000, description="Longest passage of a document in "
                               "session.corpus_path or of an open-access full text, words "
                               "(design.md#own-documents: 200).")
    fulltext_per_search: int = Field(ge=0, le=20, description="Hits of one Europe PMC search whose open-access "
                                     "full text is read (design.md#full-text: 2; 0: abstracts only).")
    fulltext_passages: int = Field(ge=1, le=20, description="Passages of a full text shown per hit, those best "
                                   "matching the query (design.md#full-text: 3).")
    fulltext_max_chars: int = Field(gt=0, le=2_000_000, description="Characters of a full text kept for "
                                    "excerpt verification and the observation review (design.md#full-text).")
    # defaults: what a session frozen before MCP servers existed resumes with (conf/config.yaml sets them)
    mcp_servers: list[McpServerCfg] = Field(default_factory=list, max_length=50, description="MCP tool servers "
                                            "whose allowed tools the agents find through mcp_tool_search "
                                            "(design.md#mcp-servers); []: none.")
    mcp_timeout_seconds: float = Field(default=20.0, gt=0, le=600, description="Starting and listing an MCP "
                                       "server, and one call of its tool, seconds (design.md#mcp-servers: 20).")
    mcp_max_chars: int = Field(default=100_000, gt=0, le=10_000_000, description="The longest answer of an MCP "
                               "tool read, characters; a longer one is refused in one warning "
                               "(design.md#mcp-servers).")

    @field_validator("mcp_servers")
    @classmethod
    def _unique_servers(cls, servers: list[McpServerCfg]) -> list[McpServerCfg]:
        names = [s.name for s in servers]
        if twice := sorted({n for n in names if names.count(n) > 1}):
            raise ValueError(f"tools.mcp_servers: the name {twice[0]!r} is given twice")
        return servers


class TrackingCfg(_Strict):
    enabled: bool = Field(description="Log each session as an MLflow run.")
    tracking_uri: str | None = Field(description="MLflow tracking URI; null = sqlite under paths.data_dir.")
    experiment_name: str = Field(min_length=1, description="MLflow experiment (defaults to session.name).")
    log_every_tasks: int = Field(gt=0, le=MAX_COUNT, description="Step metrics are logged every N completed tasks.")
    traces: bool = Field(default=True, description="Log every LLM call as an MLflow trace span, one trace per task "
                         "(design.md#tracking); false = none.")

    @field_validator("experiment_name", mode="before")
    @classmethod
    def _experiment_name(cls, value: object) -> object:
        """A folder under ``mlartifacts/`` as ``session.name`` is (:func:`folder_name`)."""
        return folder_name(value, "an experiment name", "tracking.experiment_name=aml-2026")


class ScreenCfg(_Strict):
    """The offline screen's thresholds: harm scores (the learned model's probability, 0-1) at which a window acts
    (docs/design.md#safety-screen; chosen by ``python -m bench.safety --split tune``, figures in bench/README.md)."""

    hit_score: Unit = Field(description="A term pre-screen hit acts from this harm score.")
    protected_hit_score: Unit = Field(description="A term hit in a text that states a protective purpose "
                                      "(treatment, detection, vaccine, training...) acts from this harm score.")
    agent_score: Unit = Field(description="An agent named without a term hit acts from this harm score.")
    # default: what a session frozen before this threshold existed resumes with (conf/config.yaml sets it)
    protected_agent_score: Unit | None = Field(default=None, description="An agent named without a term hit in a "
                                               "text that states a protective purpose acts from this harm score "
                                               "(null: agent_score).")
    alone_score: Unit = Field(description="A text naming no agent acts from this harm score (1.0: never).")
    # default 0: what a session frozen before the support check existed resumes with (conf/config.yaml sets it)
    alone_support: Unit = Field(default=0.0, description="A text naming no agent acts only where the share of "
                                "harmful requests among its 10 nearest training rows reaches this (0-1; 0: the "
                                "harm score alone).")


class SafetyCfg(_Strict):
    """Safety screening: the classifier's decisions, the offline screen, and which decisions act."""

    enabled: bool = Field(description="Screen the goal, feedback, new hypotheses and the overview (false: no call).")
    block_goal_on: list[SafetyDecision] = Field(description="Decisions that refuse a goal or feedback text.")
    quarantine_on: list[SafetyDecision] = Field(description="Decisions that quarantine a new hypothesis.")
    withhold_overview_on: list[SafetyDecision] = Field(description="Decisions that withhold the final overview.")
    categories: list[str] = Field(min_length=1, description="The fixed hazard categories the classifier names.")
    prescreen_terms: str = Field(
        min_length=1, description="Pre-screen term file, relative to conf/ (or absolute): a coarse first pass."
    )
    # defaults: what a session frozen before the offline screen existed resumes with (conf/config.yaml sets them)
    refuse_categories: list[str] = Field(
        default=["biological", "chemical", "radiological_nuclear"],
        description="Categories where a screen hit is `block` (refuses a goal before any generation); a hit in "
        "another category is `flag` (warns and tags the run)."
    )
    intent: str = Field(default="safety_intent.npz", min_length=1, description="The fitted intent model (numpy "
                        ".npz, relative to conf/ or absolute) the offline screen scores requests with: fitted on the "
                        "labelled set's tuning part by python -m bench.safety --fit-intent "
                        "(docs/design.md#safety-screen).")
    model_answer_on: list[Literal["goal", "hypothesis", "overview", "feedback"]] = Field(
        default=["goal", "hypothesis", "overview", "feedback"],
        description="Texts a tier unable to classify is still asked about, its answer only recorded for "
        "measurement (the offline screen decides on every text either way; the demo asks on the goal only, "
        "design.md#demo).")
    screen: ScreenCfg = Field(default_factory=lambda: ScreenCfg(hit_score=0.6, protected_hit_score=0.6,
                                                                agent_score=0.6, alone_score=0.6),
                              description="Thresholds of the offline screen.")

    @model_validator(mode="after")
    def _refuse_in_categories(self) -> SafetyCfg:
        unknown = [c for c in self.refuse_categories if c not in self.categories]
        if unknown:
            raise ValueError(f"safety.refuse_categories: '{unknown[0]}' is not in safety.categories")
        return self


class JoblibCfg(_Strict):
    n_jobs: int = Field(gt=0, le=1_024, description="Local processes running sessions at once.")


class SlurmCfg(_Strict):
    partition: str | None = Field(description="SLURM partition; null = the cluster default.")
    timeout_min: int = Field(gt=0, le=MAX_SECONDS // 60, description="Job time limit, minutes.")
    cpus_per_task: int = Field(gt=0, le=1_024, description="CPUs per session job.")
    mem_gb: int = Field(gt=0, le=65_536, description="Memory per session job, GB.")


class RayCfg(_Strict):
    address: str | None = Field(description="Ray cluster address; null = start a local Ray.")
    num_cpus: int = Field(gt=0, le=1_024, description="CPUs per session task.")


class LauncherCfg(_Strict):
    joblib: JoblibCfg
    slurm: SlurmCfg
    ray: RayCfg


class ScheduleCfg(_Strict):
    cron: str = Field(description="Cron schedule of `cosci serve` (five fields, e.g. '0 6 * * 1').")
    deployment: str = Field(min_length=1, description="Prefect deployment name.")

    @field_validator("cron")
    @classmethod
    def _five_fields(cls, v: str) -> str:
        if len(v.split()) != 5:
            raise ValueError(f"'{v}' is not a five-field cron expression (minute hour day month weekday)")
        return v


class PathsCfg(_Strict):
    data_dir: Path = Field(description="Root for sessions, the MLflow store and Prefect's home (made absolute).")

    @field_validator("data_dir")
    @classmethod
    def _absolute(cls, v: Path) -> Path:
        return v.expanduser().resolve()


DEBATE_MODE = "debate"
"""The mode whose turns ``debate.max_turns`` bounds (generation and ranking), not ``max_iterations``."""


class ModeCfg(_Strict):
    tier: str = Field(min_length=1, description="Model tier this mode calls (a key of models.tiers).")
    thinking_tokens: int = Field(
        ge=0, le=MAX_TOKENS, description="Extended-thinking budget, tokens (used only on thinking models)."
    )
    max_output_tokens: int = Field(gt=0, le=MAX_TOKENS, description="Max output tokens per call, thinking included.")
    max_iterations: int | None = Field(
        default=None, ge=1, le=1_000,
        description="Max tool-loop iterations for this mode; not set for a debate mode, whose turns "
                    "debate.max_turns bounds (design.md#generation).")

    @model_validator(mode="after")
    def _thinking_below_output(self) -> ModeCfg:
        if self.thinking_tokens and self.thinking_tokens >= self.max_output_tokens:
            raise ValueError(
                f"thinking_tokens ({self.thinking_tokens}) must be below max_output_tokens ({self.max_output_tokens})"
            )
        return self


class AgentCfg(_Strict):
    budget_share: Unit = Field(description="Share of the session budget for this agent (design.md#budget).")
    tools: list[str] = Field(description="Tool allowlist (design.md#tools): declared tool names "
                             "(cosci.literature.tool_names), `default` for the tools declaring this agent, and "
                             "`literature_*` for the session's skills (design.md#skills).")
    modes: dict[str, ModeCfg] = Field(description="Routing per mode (design.md#routing).")

    @model_validator(mode="after")
    def _iterations_where_they_bound(self) -> AgentCfg:
        for name, mode in self.modes.items():
            if name == DEBATE_MODE and mode.max_iterations is not None:
                raise ValueError("modes.debate.max_iterations: debate turns are bounded by debate.max_turns alone")
            if name != DEBATE_MODE and mode.max_iterations is None:
                raise ValueError(f"modes.{name}.max_iterations is required (max tool-loop iterations)")
        return self

    @field_validator("tools")
    @classmethod
    def _known_tools(cls, v: list[str]) -> list[str]:
        known = literature.tool_names()
        patterns = (literature.DEFAULT, literature.SKILL_PATTERN)
        unknown = [name for name in v if name not in known and name not in patterns]
        if unknown:
            raise ValueError(f"unknown tool '{unknown[0]}' (known: {literature.DEFAULT}, {', '.join(known)})")
        return v


class ModelEntry(_Strict):
    model: str = Field(min_length=1, description="LiteLLM model string, e.g. 'anthropic/claude-opus-5'.")
    thinking: ThinkingForm = Field(
        description="How the model is asked to think: off, budget (budget_tokens), adaptive (adaptive thinking plus "
        "an effort level), effort (reasoning_effort); docs/design.md#thinking-forms. A boolean (sessions frozen "
        "before the forms existed) reads as budget / off.")
    lowest_effort: Effort | None = Field(
        default=None, description="Effort an `effort` tier sends on calls without a thinking budget (the model "
        "reasons anyway): gpt-5 family minimal, o-series and Gemini 3 Pro low; null: no effort field on such calls.")
    min_thinking_tokens: int | None = Field(
        default=None, ge=0, le=MAX_TOKENS, description="Budget a `budget` tier sends on calls without one, tokens: "
        "for models that think unless told (Gemini 2.5: 0 switches Flash off, 128 is Pro's documented minimum); "
        "null: no thinking field on such calls (Anthropic thinks only when asked).")
    output_tokens_per_second: float | None = Field(
        default=None, gt=0, le=100_000, description="Conservative output speed of this model, tokens/s: a call whose "
        "max_tokens at this speed (plus retry.first_token_seconds) outlasts the fixed call timeout is streamed under "
        "that longer deadline (docs/design.md#long-calls); null: never streamed, the fixed timeout applies.")
    api_key_env: str | None = Field(default=None, description="Environment variable holding the API key.")
    api_base: str | None = Field(default=None, description="Endpoint override (Ollama, llama.cpp server).")
    input_usd_per_mtok: float | None = Field(
        default=None,
        ge=0,
        le=10_000,
        description="Price override, USD per 1M input tokens; null = LiteLLM's price map.",
    )
    output_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=10_000, description="Price override, USD per 1M output tokens."
    )
    typical_output_tokens: int | None = Field(
        default=None, gt=0, le=1_000_000,
        description="Typical answer length of this tier, tokens (thinking included): the budget admission's prior"
        " before the session has seen an answer, and the pre-flight estimate's answer size; null = 35 % of the"
        " mode's max_output_tokens (design.md#routing).",
    )
    batch: bool = Field(default=False, description="The provider has a message-batch API the batch pool may use "
                        "(Anthropic, design.md#batches); priced at the price table's batch prices.")
    unable_to_classify: bool = Field(
        default=False, description="The model may not decide safety verdicts: the offline screen decides and the "
        "model's answer is only recorded (docs/design.md#safety-screen). Set at validation for every model without "
        "a measurement as a classifier no worse than the screen's (conf/catalogue, docs/design.md#safety-measured);"
        " false for such a model is refused. The presets of the embedded model and the fake set it true.")
    unable_because: str | None = Field(
        default=None, description="Why the measurement rule marked this tier unable to classify (not measured, "
        "measured on another held-out set or a sample, or worse than the offline screen), filled at validation "
        "and said by the pre-flight (docs/design.md#safety-measured); null: the tier decides or its preset marks it.")
    context_window: int | None = Field(
        default=None, gt=0, le=100_000_000, description="The model's context window, tokens (conf/catalogue): an "
        "Ollama call sends num_ctx up to it and is refused when its prompt and cap do not fit (design.md#routing); "
        "null: LiteLLM's map, or unknown.")
    cache_min_tokens: int | None = Field(
        default=None, gt=0, description="The provider's minimum cacheable prompt prefix for this model, tokens "
        "(Anthropic's prompt-caching docs: 4096 for Opus 4.5-4.7 and Haiku 4.5, 1024 for Sonnet 4.5/4.6); a shorter "
        "marked prefix is silently not cached. When set, the gateway places cache breakpoints, and a tool loop whose "
        "own prefix is shorter gets the research handbook (design.md#caching). null: the provider does not cache "
        "marked blocks.")

    @field_validator("thinking", mode="before")
    @classmethod
    def _legacy_boolean(cls, value: object) -> object:
        """A session frozen before the forms existed said ``thinking: true`` for the budget form it was sent."""
        if isinstance(value, bool):
            return "budget" if value else "off"
        return value


class LocalModelCfg(_Strict):
    n_ctx: int = Field(gt=0, le=MAX_TOKENS, description="llama.cpp context window, tokens.")
    n_threads: int | Literal["auto"] = Field(
        description="CPU threads for llama.cpp: a number, or `auto` = the cores free for this process, read when the "
        "model loads and again before each call (design.md#local-threads).")
    weights: Literal["q4_0", "q8_0", "shipped"] = Field(
        default="q4_0", description="Weight format: the shipped Q4_1 GGUF requantised once into the model cache "
        "(`q4_0`, `q8_0`), or the shipped file as is (design.md#local-weights).")
    decoding: Literal["grammar_last", "grammar_first"] = Field(
        default="grammar_last", description="Grammar-constrained sampling: check the grammar on the drawn token "
        "first and over the whole vocabulary only when it is rejected (`grammar_last`), or llama-cpp-python's chain "
        "that matches every vocabulary entry at every token (`grammar_first`; design.md#local-decoding).")
    n_batch: int = Field(gt=0, le=MAX_TOKENS, description="Prompt tokens llama.cpp evaluates per batch; also the rows "
                         "of its logits buffer (n_batch × 49,152 float32 for SmolLM2: 48 MiB at 256), copied into each "
                         "saved prompt state (design.md#local).")
    max_string_chars: int = Field(
        gt=0, le=1_000_000, description="Bound on each string in schema-constrained output, characters."
    )
    max_list_items: int = Field(gt=0, le=10_000, description="Bound on each list in schema-constrained output.")
    temperature: float = Field(ge=0, le=2.0, description="Sampling temperature.")
    max_tokens: int = Field(gt=0, le=MAX_TOKENS, description="Cap on tokens per schema-constrained answer.")
    max_text_tokens: int = Field(
        gt=0, le=MAX_TOKENS, description="Cap on tokens per free-text answer (debate turns, overview)."
    )
    repeat_penalty: float = Field(
        ge=1.0, le=10.0, description="llama.cpp repeat penalty (>1 discourages the tiny model's loops)."
    )
    cache_mb: int = Field(
        ge=1, le=1_048_576, description="RAM for cached prompt states (shared prefixes are not evaluated again), MB: "
        "every byte a state holds, its kept logits included (design.md#local)."
    )
    call_log: str | None = Field(
        description="JSONL file each call's figures are appended to (prompt tokens evaluated and reused, tokens "
        "generated, CPU and wall seconds; read by `python -m bench.demo`); null = none."
    )


class FakeModelCfg(_Strict):
    seed: int = Field(
        ge=0, le=MAX_SEED, description="Seed of the fake's deterministic choices (verdicts, texts, faults)."
    )
    fault_rate: Unit = Field(description="Probability of a transient fault per call.")
    latency_seconds: float = Field(ge=0, le=3_600, description="Simulated latency per call, seconds.")
    call_log: str | None = Field(description="JSONL file every request is appended to; null = memory only.")
    batch_dir: str | None = Field(default=None, description="Folder keeping the fake batch endpoint's batches "
                                  "(they outlive a killed process); null = memory only.")
    batch_polls: int = Field(default=1, ge=1, description="Polls of a fake batch until it has ended.")
    batch_outcome: Literal["succeeded", "errored", "expired"] = Field(
        default="succeeded", description="What every request of a fake batch ends as.")
    searches_per_loop: int = Field(
        default=1, ge=1, le=8, description="Searches the autopilot makes in a tool loop before it records its answer "
        "(1: one search, then the record; more: a literature-heavy session, as `python -m bench.cost` runs).")


class EmbeddingsCfg(_Strict):
    chain: list[str] = Field(
        min_length=1,
        description="Embedding models tried in order; the bundled static model and 'hash' are the offline end "
        "(design.md#embeddings).",
    )
    prices: dict[str, float] = Field(
        default_factory=dict,
        description="USD per 1M input tokens of embedding models LiteLLM does not price (the fake's).",
    )


class ModelsCfg(_Strict):
    name: str = Field(description="Which conf/models option this is.")
    tiers: dict[str, ModelEntry] = Field(min_length=1, description="Tier name -> model (strong, cheap, mini, ...).")
    degradation: list[str] = Field(
        min_length=1, description="Tiers walked, in order, when a model is unavailable (design.md#routing)."
    )
    agent_tiers: dict[str, str] = Field(description="'agent' or 'agent.mode' -> tier, winning over conf/agents.")
    local: LocalModelCfg | None = Field(default=None, description="Settings of the embedded model (models=local).")
    fake: FakeModelCfg | None = Field(default=None, description="Settings of the scripted fake (models=fake).")
    embeddings: EmbeddingsCfg = Field(description="Embedding chain.")


class CosciConfig(_Strict):
    """The whole validated configuration of one session.

    Raises (from :func:`cosci.config.load.validate`): ``ConfigError`` naming the first offending key and rule.
    """

    session: SessionCfg
    project: ProjectCfg
    run: RunCfg
    generation: GenerationCfg
    budget: BudgetCfg
    ranking: RankingCfg
    debate: DebateCfg
    reflection: ReflectionCfg
    evolution: EvolutionCfg
    metareview: MetareviewCfg
    termination: TerminationCfg
    vectors: VectorsCfg
    lease: LeaseCfg
    retry: RetryCfg
    tools: ToolsCfg
    tracking: TrackingCfg
    launcher: LauncherCfg
    schedule: ScheduleCfg
    paths: PathsCfg
    models: ModelsCfg
    agents: dict[str, AgentCfg]
    safety: SafetyCfg | None = Field(
        default=None, description="Safety screening (design.md#safety); absent in sessions frozen before it existed."
    )
    thinking: ThinkingCfg | None = Field(
        default=None, description="The thinking-budget -> effort table (docs/design.md#thinking-forms); absent in "
        "sessions frozen before it existed (their tiers take budgets or nothing).")

    @field_validator("agents", mode="before")
    @classmethod
    def _default_tools(cls, agents: object) -> object:
        """``tools: [default, …]`` becomes the declared tools of that agent (design.md#tools), so the validated
        config, and the session's frozen snapshot, name every tool."""
        if not isinstance(agents, dict):
            return agents
        out = dict(agents)
        for name, agent in agents.items():
            tools = agent.get("tools") if isinstance(agent, dict) else None
            if isinstance(tools, list) and literature.DEFAULT in tools and all(isinstance(t, str) for t in tools):
                out[name] = {**agent, "tools": literature.expand(str(name), tools)}
        return out

    @model_validator(mode="after")
    def _judges_are_tiers(self) -> CosciConfig:
        for tier in self.ranking.judges:
            if tier not in self.models.tiers:
                raise ValueError(f"ranking.judges: tier '{tier}' is not in models '{self.models.name}' "
                                 f"({', '.join(self.models.tiers)})")
        if len(set(self.ranking.judges)) != len(self.ranking.judges):
            raise ValueError(f"ranking.judges: a tier is listed twice ({', '.join(self.ranking.judges)})")
        return self

    @model_validator(mode="after")
    def _cross_field(self) -> CosciConfig:  # noqa: C901 - independent checks in a row; split once issue-18b lands
        missing = [a for a in AGENT_NAMES if a not in self.agents]
        if missing:
            raise ValueError(f"agents: missing agent(s) {', '.join(missing)}")
        unknown = sorted(set(self.agents) - set(AGENT_NAMES) - set(OPTIONAL_AGENTS))
        if unknown:
            known = ", ".join((*AGENT_NAMES, *OPTIONAL_AGENTS))
            raise ValueError(f"agents.{unknown[0]}: unknown agent (known: {known})")
        if self.safety is not None and self.safety.enabled and "classify" not in self.agents.get(
            "safety", AgentCfg(budget_share=0.0, tools=[], modes={})
        ).modes:
            raise ValueError("safety.enabled: needs agents.safety.modes.classify (conf/agents/default.yaml)")
        shares = sum(a.budget_share for a in self.agents.values()) + self.budget.reserve_share
        if not math.isclose(shares, 1.0, abs_tol=1e-6):
            raise ValueError(f"agents.*.budget_share + budget.reserve_share must sum to 1 (got {shares:.3f})")
        for tier in self.models.degradation:
            if tier not in self.models.tiers:
                raise ValueError(f"models.degradation: tier '{tier}' is not in models.tiers")
        if self.thinking is None and any(e.thinking in ("adaptive", "effort") for e in self.models.tiers.values()):
            raise ValueError("thinking.efforts: adaptive and effort tiers need the effort table (conf/config.yaml)")
        for key, tier in self.models.agent_tiers.items():
            if tier not in self.models.tiers:
                raise ValueError(f"models.agent_tiers.{key}: tier '{tier}' is not in models.tiers")
        for agent, acfg in self.agents.items():
            for mode in acfg.modes:
                tier = self.tier_of(agent, mode)
                if tier not in self.models.tiers:
                    known = ", ".join(self.models.tiers)
                    raise ValueError(
                        f"agents.{agent}.modes.{mode}.tier: tier '{tier}' is not in models "
                        f"'{self.models.name}' ({known})"
                    )
        return self

    def tier_of(self, agent: str, mode: str) -> str:
        """The tier an (agent, mode) calls: ``models.agent_tiers`` wins over ``agents.<agent>.modes.<mode>.tier``."""
        overrides = self.models.agent_tiers
        return overrides.get(f"{agent}.{mode}") or overrides.get(agent) or self.agents[agent].modes[mode].tier
