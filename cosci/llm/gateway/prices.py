"""What a call costs before it is made (design.md#budget): LiteLLM's price map, with the prices cosci registered
(the catalogue's, the fake's, zero for local servers), or a documented fallback, never zero for a model with no price.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price map (LiteLLM would download it)

import litellm

from cosci.llm.budget.sizing import CHARS_PER_TOKEN_BOUND
from cosci.llm.budget.token_budget import OutputRoom

FALLBACK_USD_PER_MTOK = (3.0, 15.0)
"""Models with no price (not in the catalogue, not in LiteLLM's map) are admitted and estimated as Sonnet-class,
3 / 15 USD per 1M input / output tokens (design.md#budget): never as free."""
def estimate_call(model: str, input_chars: int, max_output_tokens: int, *,
                  input_tokens: int | None = None) -> tuple[float, int]:
    """Estimate of one call, ``(usd, tokens)``: ``input_chars`` of prompt (at most ``CHARS_PER_TOKEN_BOUND``
    characters per token unless ``input_tokens`` is given) and ``max_output_tokens`` of answer. With the full
    ``max_output_tokens`` of the route this is the call's upper bound."""
    tin = input_tokens if input_tokens is not None else input_chars // CHARS_PER_TOKEN_BOUND + 1
    fallback = (tin * FALLBACK_USD_PER_MTOK[0] + max_output_tokens * FALLBACK_USD_PER_MTOK[1]) / 1e6
    if not has_price(model):  # unknown to LiteLLM's map: LiteLLM may say (0.0, 0.0) for it (design.md#budget)
        return fallback, tin + max_output_tokens
    try:
        cin, cout = litellm.cost_per_token(model=model, prompt_tokens=tin,
                                           completion_tokens=max_output_tokens)
        usd = float(cin + cout)
    except Exception:  # unknown to LiteLLM's price map: a conservative default (design.md#budget)
        usd = fallback
    return usd, tin + max_output_tokens


def output_room(model: str, input_chars: int, max_output_tokens: int, expected_output_tokens: int,
                request: dict[str, Any]) -> OutputRoom:
    """How the upper bound of a call of ``input_chars`` prompt characters grows with its output cap, for admitting it
    capped when the money left cannot hold it at ``max_output_tokens`` (design.md#budget, "The last call, capped").

    The useful minimum is ``expected_output_tokens`` (the answer length the session measured for the call's mode:
    an answer cut shorter, a record's JSON above all, would be invalid and retried) plus the thinking budget the
    ``request`` asks for (``budget_tokens`` must stay below ``max_tokens``), at most ``max_output_tokens``."""
    input_usd, _ = estimate_call(model, input_chars, 0)
    full_usd, _ = estimate_call(model, input_chars, max_output_tokens)
    thinking = (request.get("thinking") or {}).get("budget_tokens") or (request.get("reasoning") or {}).get(
        "max_tokens") or 0
    return OutputRoom(input_usd, max(full_usd - input_usd, 0.0) / max(max_output_tokens, 1),
                      min(expected_output_tokens + int(thinking), max_output_tokens), max_output_tokens)


def has_price(model: str) -> bool:
    """Whether LiteLLM's map (with the prices cosci registered: the catalogue's, the fake's, zero for local
    servers) prices ``model``. LiteLLM prices an OpenRouter model it does not know at (0.0, 0.0) instead of raising
    (design.md#catalogue), which would admit every call for free: such a model takes the fallback price."""
    try:
        info = litellm.get_model_info(model)
    except Exception:
        return False
    if info.get("key") not in litellm.model_cost:  # a row LiteLLM made up (OpenRouter: costs 0), not its map's
        return False
    return info.get("input_cost_per_token") is not None and info.get("output_cost_per_token") is not None
