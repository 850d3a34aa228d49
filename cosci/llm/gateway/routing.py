"""Route an (agent, mode) to a model, and walk the degradation chain (design.md#routing).

The tier comes from ``conf/agents`` (overridden per agent or mode by ``models.agent_tiers``), the model string
and its abilities from ``conf/models``. Thinking budgets are kept only where the tier's thinking form is not
``off``; an ``effort`` tier's cap is the mode's answer budget plus room for hidden reasoning, and a call whose cap
at the tier's output speed outlasts the fixed timeout is streamed under a longer deadline
(design.md#thinking-forms, design.md#long-calls). ``reflection.verification`` and ``metareview.final``
never degrade (design.md#metareview).
"""

from __future__ import annotations

import os

from cosci.config.schema import CosciConfig
from cosci.errors import MissingApiKey
from cosci.llm import errors as E
from cosci.llm.budget.sizing import CHARS_PER_TOKEN_BOUND
from cosci.llm.errors import ModelUnavailable
from cosci.llm.port.thinking import effort_row
from cosci.llm.port.types import Route

NEVER_DEGRADE = frozenset({"reflection.verification", "metareview.final"})
"""These modes fail rather than fall back to a weaker model (design.md#routing)."""

CONSTRAINED_PROVIDERS = ("cosci-local/",)
"""Providers whose output is schema-constrained (the embedded model)."""
STREAMED_PROVIDERS = ("ollama_chat/", "ollama/")
"""Local servers every call to which is streamed under a deadline grown from its cap at the tier's speed: a
local model's speed varies tenfold with the machine, and a call sent whole under the fixed timeout is lost when the
machine is slow (design.md#routing)."""
MARKED_PROVIDERS = ("cosci-fake/",)
"""Providers sent cache markers without a ``cache_min_tokens``: the scripted fake records them (as Anthropic would
receive them) so tests see which blocks are marked; it caches nothing."""


def call_deadline(fixed: float, max_tokens: int, tokens_per_second: float | None,
                  first_token: float) -> tuple[float, bool]:
    """``(deadline seconds, streamed)`` of a call: the fixed timeout, unless ``max_tokens`` at the tier's
    conservative output speed (plus the first-token allowance) outlasts it; then the call is streamed under that
    longer deadline (docs/design.md#long-calls)."""
    if tokens_per_second is None:
        return fixed, False
    needed = first_token + max_tokens / tokens_per_second
    return (needed, True) if needed > fixed else (fixed, False)


class Router:
    """Builds :class:`Route` objects from a validated config."""

    def __init__(self, config: CosciConfig) -> None:
        self.config = config

    def route(self, agent: str, mode: str, tier: str | None = None) -> Route:
        """The route of an (agent, mode), optionally forced onto ``tier`` (used when degrading).

        Raises:
            KeyError: the agent has no such mode.
        """
        mode_cfg = self.config.agents[agent].modes[mode]
        tier = tier or self.config.tier_of(agent, mode)
        entry = self.config.models.tiers[tier]
        thinking = mode_cfg.thinking_tokens if entry.thinking != "off" else 0
        cap = mode_cfg.max_output_tokens
        if entry.thinking == "effort" and self.config.thinking is not None:  # room for hidden reasoning
            cap = cap - mode_cfg.thinking_tokens + effort_row(self.config.thinking,
                                                              mode_cfg.thinking_tokens).reasoning_tokens
        retry = self.config.retry
        reasons = bool(thinking) or entry.thinking == "effort"
        fixed = retry.thinking_call_timeout_seconds if reasons else retry.call_timeout_seconds
        iterations = self.config.debate.max_turns if mode_cfg.max_iterations is None else mode_cfg.max_iterations
        deadline, stream = call_deadline(fixed, cap, entry.output_tokens_per_second, retry.first_token_seconds)
        stream = stream or entry.model.startswith(STREAMED_PROVIDERS)
        return Route(
            agent=agent, mode=mode, tier=tier, model=entry.model, thinking_tokens=thinking,
            max_output_tokens=cap, max_iterations=iterations, timeout_seconds=deadline,
            degradable=f"{agent}.{mode}" not in NEVER_DEGRADE,
            constrained=entry.model.startswith(CONSTRAINED_PROVIDERS),
            unable_to_classify=entry.unable_to_classify,
            api_key_env=entry.api_key_env, api_base=entry.api_base,
            typical_output_tokens=entry.typical_output_tokens, thinking_form=entry.thinking,
            lowest_effort=entry.lowest_effort, min_thinking_tokens=entry.min_thinking_tokens,
            caches=entry.cache_min_tokens is not None or entry.model.startswith(MARKED_PROVIDERS), stream=stream,
            idle_seconds=retry.stream_idle_seconds if stream else None, context_window=entry.context_window,
        )

    def degrade(self, route: Route) -> Route:
        """The next route down the degradation chain.

        Raises:
            ModelUnavailable: a never-degrade mode, or the chain is exhausted.
        """
        if not route.degradable:
            raise ModelUnavailable(f"{route.key} never degrades (design.md#routing) and its model is unavailable",
                                   model=route.model)
        chain = self.config.models.degradation
        start = chain.index(route.tier) + 1 if route.tier in chain else 0
        for tier in chain[start:]:
            candidate = self.route(route.agent, route.mode, tier)
            if candidate.model != route.model:
                return candidate
        raise ModelUnavailable(f"{route.key}: no model left in the degradation chain", model=route.model)

    def all_routes(self) -> list[Route]:
        return [self.route(a, m) for a, acfg in self.config.agents.items() for m in acfg.modes]

    def check_keys(self) -> None:
        """Fail before any work if a routed model's API key is missing (design.md#routing: one line naming the
        variable).

        Raises:
            MissingApiKey: naming the first missing environment variable.
        """
        for r in self.all_routes():
            if r.api_key_env and not os.environ.get(r.api_key_env):
                raise MissingApiKey(r.api_key_env, r.model)


NUM_CTX_STEP = 4096
"""An Ollama call's num_ctx is rounded up to a multiple of this many tokens: Ollama reloads a model whenever the
context size changes, so calls of similar size share one (design.md#routing)."""


def prompt_tokens(text: str) -> tuple[int, int]:
    """``(bound, likely)`` token counts of a prompt, per script (design.md#routing): ASCII text at
    :data:`CHARS_PER_TOKEN_BOUND` characters a token (the admission's bound for English prose); every other
    character at its UTF-8 bytes for ``bound`` (a byte-level BPE or a byte-fallback tokenizer never emits more tokens
    than bytes) and at one token for ``likely`` (CJK and other non-Latin scripts run at about one token a character
    or less with current tokenizers). Characters / 3 understated a Japanese or Chinese prompt about threefold."""
    ascii_chars = sum(1 for ch in text if ch < "\x80")
    other = "" if ascii_chars == len(text) else "".join(ch for ch in text if ch >= "\x80")
    return ascii_chars // CHARS_PER_TOKEN_BOUND + len(other.encode("utf-8")) + 1, \
        ascii_chars // CHARS_PER_TOKEN_BOUND + len(other) + 1


def num_ctx(route: Route, prompt: str) -> int:
    """The context an Ollama call asks for, tokens: its prompt's tokens (``prompt``: the messages and tool
    definitions as text) at their bound (:func:`prompt_tokens`) plus its cap, rounded up to :data:`NUM_CTX_STEP`,
    at most the model's context window.

    Raises:
        RequestTooLarge: even the prompt's likely tokens and the cap do not fit in the model's context window (one
            line, never retried); between the likely count and the bound, the call gets the whole window.
    """
    bound, likely = prompt_tokens(prompt)
    need = likely + route.max_output_tokens
    if route.context_window is not None and need > route.context_window:
        raise E.RequestTooLarge(f"~{need:,} tokens (prompt by estimate plus max_tokens {route.max_output_tokens:,}) "
                                f"do not fit the model's context window of {route.context_window:,} tokens "
                                f"(conf/catalogue): lower the mode's max_output_tokens or pick a larger model",
                                model=route.model)
    rounded = -(-(bound + route.max_output_tokens) // NUM_CTX_STEP) * NUM_CTX_STEP
    return min(rounded, route.context_window) if route.context_window else rounded
