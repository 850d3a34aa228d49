"""The thinking part of a request, in the form each model family documents (docs/design.md#thinking-forms).

A route carries its tier's form (``off``, ``budget``, ``adaptive``, ``effort``) and its mode's thinking budget
(tokens); :func:`thinking_params` turns them into the ``litellm.acompletion`` keyword arguments, and
:func:`effort_of` maps a budget to an effort level through the configured table (``thinking.efforts``):

- ``budget``: ``thinking={"type": "enabled", "budget_tokens": N}`` (Anthropic before 4.6; Gemini 2.5, which LiteLLM
  sends as ``thinkingConfig.thinkingBudget``), or the tier's ``min_thinking_tokens`` on a call without a budget.
  Anthropic refuses a forced tool together with such thinking, so a forced call carries no budget.
- ``adaptive``: ``thinking={"type": "adaptive", "display": "summarized"}`` plus ``output_config={"effort": E}``
  (``reasoning={"effort": E}`` through OpenRouter)
  (Anthropic 4.6 and later; the summarized display streams thinking as it goes, so a streamed call is never idle
  while the model thinks). A forced tool is accepted with it (the model then skips thinking), so one tool loop can
  keep one setting on every call.
- ``effort``: ``reasoning_effort=E`` (OpenAI, Gemini 3), sent as ``reasoning={"effort": E}`` to OpenRouter, whose
  documented field that is; calls without a budget send the tier's ``lowest_effort``.

The per-call cost cap is ``max_tokens`` in every form (an effort level is a hint, not a bound).
"""

from __future__ import annotations

from typing import Any

from cosci.config.thinking import EffortRow, ThinkingCfg
from cosci.llm.port.types import Route

OPENROUTER = "openrouter/"


def effort_row(table: ThinkingCfg, budget: int) -> EffortRow:
    """The table's row of a thinking budget (tokens): the first whose ``up_to_tokens`` is at least the budget."""
    return next(r for r in table.efforts if budget <= r.up_to_tokens)


def effort_of(table: ThinkingCfg | None, budget: int) -> str | None:
    """The effort level of a thinking budget (tokens); None when the table says ``none`` (or there is no table)."""
    if table is None:
        return None
    effort = effort_row(table, budget).effort
    return None if effort == "none" else effort


def forced_keeps_thinking(route: Route) -> bool:
    """Whether a forced tool call may carry the route's thinking setting (not for Anthropic's budget thinking)."""
    return route.thinking_form != "budget" or route.thinking_tokens == 0


def thinks_when_forced(route: Route) -> bool:
    """Whether the model still thinks on a forced tool call: reasoning models do (``effort``); Anthropic's adaptive
    thinking skips thinking when a tool is forced, and budget thinking is refused with one."""
    return route.thinking_form == "effort"


def thinking_params(route: Route, table: ThinkingCfg | None, *, thinking: bool, forced: bool) -> dict[str, Any]:
    """The ``litellm.acompletion`` keyword arguments that ask ``route``'s model to think (or not).

    Args:
        table: the configured budget -> effort table.
        thinking: the call allows the route's budget (``CallSpec.thinking``).
        forced: the call forces a tool (``tool_choice`` names one).
    """
    budget = route.thinking_tokens if thinking else 0
    form = route.thinking_form
    if form == "budget":
        tokens = 0 if forced else budget
        tokens = tokens or route.min_thinking_tokens or 0
        if not tokens and route.min_thinking_tokens is None:
            return {}
        if route.model.startswith(OPENROUTER):
            return {"reasoning": {"max_tokens": tokens}}
        return {"thinking": {"type": "enabled", "budget_tokens": tokens}}
    if form == "adaptive":
        effort = effort_of(table, budget) if budget else None
        if effort is None:
            return {}
        if route.model.startswith(OPENROUTER):  # OpenRouter's documented field; it sends Anthropic's form on
            return {"reasoning": {"effort": effort}}
        return {"thinking": {"type": "adaptive", "display": "summarized"}, "output_config": {"effort": effort}}
    if form == "effort":
        effort = (effort_of(table, budget) if budget else None) or route.lowest_effort
        if effort is None:
            return {}
        if route.model.startswith(OPENROUTER):
            return {"reasoning": {"effort": effort}}
        return {"reasoning_effort": effort}
    return {}


GEMINI = "gemini/"


def describe(route: Route, table: ThinkingCfg | None) -> str:
    """The request form of ``route`` in words, named by the field the provider receives, for ``cosci check``
    (e.g. ``adaptive, effort high``; Gemini's ``thinkingLevel low``, never ``budget_tokens``)."""
    params = thinking_params(route, table, thinking=True, forced=False)
    gemini = route.model.startswith(GEMINI)
    if "output_config" in params:
        return f"adaptive, effort {params['output_config']['effort']}"
    if "thinking" in params:
        return f"{'thinkingBudget' if gemini else 'budget_tokens'} {params['thinking']['budget_tokens']}"
    if "reasoning_effort" in params:
        return f"{'thinkingLevel' if gemini else 'reasoning_effort'} {params['reasoning_effort']}"
    if "reasoning" in params:
        return ", ".join(f"reasoning.{k} {v}" for k, v in params["reasoning"].items())
    return "no thinking"
