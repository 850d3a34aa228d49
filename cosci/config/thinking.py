"""The thinking settings of a configuration: the request form a model tier takes, and the table that maps a
mode's thinking budget to an effort level (docs/design.md#thinking-forms).

A mode's budget (``agents.<agent>.modes.<mode>.thinking_tokens``, tokens) is sent as it is to the models that
take a token budget (form ``budget``) and as an effort level to the models that take one (forms ``adaptive``
and ``effort``), through :attr:`ThinkingCfg.efforts`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ThinkingForm = Literal["off", "budget", "adaptive", "effort"]
"""How a tier's model is asked to think (docs/design.md#thinking-forms):

- ``off``: no thinking field is sent;
- ``budget``: ``thinking: {type: enabled, budget_tokens: N}`` with the mode's budget (Anthropic models before
  the 4.6 generation, Gemini 2.5 through LiteLLM's ``thinkingConfig.thinkingBudget``, the scripted fake);
- ``adaptive``: ``thinking: {type: adaptive}`` and ``output_config: {effort}`` from the table (Anthropic 4.6 and
  later; the only form Opus 4.7 accepts);
- ``effort``: ``reasoning_effort`` from the table and a cap with room for hidden reasoning (OpenAI gpt-5 family
  and o-series, Gemini 3 through LiteLLM's ``thinkingLevel``; OpenRouter's ``reasoning.effort``).
"""
Effort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
MAX_TABLE_TOKENS = 1_000_000


class EffortRow(BaseModel):
    """One row of the effort table: budgets up to ``up_to_tokens`` map to ``effort``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    up_to_tokens: int = Field(ge=0, le=MAX_TABLE_TOKENS, description="Largest mode thinking budget of this row, "
                              "tokens.")
    effort: Effort = Field(description="Effort level sent for these budgets; none: no thinking asked (adaptive "
                           "tiers send no thinking field, effort tiers their lowest_effort).")
    reasoning_tokens: int = Field(ge=0, le=MAX_TABLE_TOKENS, description="Room for hidden reasoning at this "
                                  "effort on `effort` tiers, tokens: their cap is the mode's answer budget "
                                  "(max_output_tokens - thinking_tokens) plus this.")


class ThinkingCfg(BaseModel):
    """The budget -> effort table (conf/config.yaml ``thinking``; its reasons: docs/design.md#thinking-forms)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    efforts: list[EffortRow] = Field(min_length=1, description="Rows by ascending up_to_tokens; a budget takes the "
                                     "first row whose up_to_tokens is at least the budget.")

    @model_validator(mode="after")
    def _ascending(self) -> ThinkingCfg:
        bounds = [r.up_to_tokens for r in self.efforts]
        if bounds != sorted(set(bounds)):
            raise ValueError(f"thinking.efforts: up_to_tokens must strictly ascend (got {bounds})")
        if bounds[-1] < MAX_TABLE_TOKENS:
            raise ValueError(f"thinking.efforts: the last row must cover every budget (up_to_tokens: "
                             f"{MAX_TABLE_TOKENS})")
        return self
