"""The agents' sections: generation, debate, reflection, evolution, metareview, and each agent's modes and tiers
(conf/agents/; design.md#generation, #reflection, #evolution, #metareview).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from cosci import literature
from cosci.config.schema.base import (
    MAX_COUNT,
    MAX_TOKENS,
    Unit,
    _Strict,
)


class GenerationCfg(_Strict):
    debate_share: Unit = Field(description="Share of generation tasks that use generation's debate mode instead of "
                               "the literature mode (design.md#generation; was run.debate_fraction).")
    debate_grounding_searches: int = Field(
        ge=0, le=20, description="Searches a debate hypothesis gets after its debate, to attach verified citations "
        "(docs/design.md#grounded-debate-hypotheses); 0 leaves every debate hypothesis ungrounded.")
    debate_grounding_results: int = Field(
        ge=1, le=50, description="Sources kept per search of a debate hypothesis's grounding step.")


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
    def _known_tools(cls, v: list[str], info: ValidationInfo) -> list[str]:
        if info.context and not info.context.get("tools", True):  # a stopped session read (rate, result,
            return v  # status) calls no tool: its plugin tools need not be installed (design.md#tools)
        known = literature.tool_names()
        patterns = (literature.DEFAULT, literature.SKILL_PATTERN)
        unknown = [name for name in v if name not in known and name not in patterns]
        if unknown:
            if info.context and info.context.get("frozen"):  # a resume of a session made with a removed plugin
                raise ValueError(f"the session's tool '{unknown[0]}' is not installed (a plugin's tool removed since "
                                 f"it was made? install it again to resume; known: {', '.join(known)})")
            raise ValueError(f"unknown tool '{unknown[0]}' (known: {literature.DEFAULT}, {', '.join(known)})")
        return v
