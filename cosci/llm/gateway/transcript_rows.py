"""What a transcript row keeps of a provider call: the request's deciding fields and the call's output speed."""

from __future__ import annotations

from typing import Any

THINKING_FIELDS = ("thinking", "output_config", "reasoning_effort", "reasoning")
"""The request fields that carry a call's thinking setting (:mod:`cosci.llm.port.thinking`), kept on its transcript
row."""


def recorded_request(kwargs: dict[str, Any]) -> dict[str, Any]:
    """What a transcript row keeps of a request: tools (names, and the definitions as sent, with their cache
    breakpoint: ``python -m bench.cost`` replays them), tool choice, constrained output, the thinking fields, the
    cap, and the messages after the system message (stored once in ``system_prompts``)."""
    return {"tool_choice": kwargs.get("tool_choice"), "response_format": kwargs.get("response_format"),
            "tools": [t["function"]["name"] for t in kwargs.get("tools", [])],
            "tool_definitions": kwargs.get("tools", []),
            **{k: kwargs.get(k) for k in THINKING_FIELDS if k in kwargs}, "thinking": kwargs.get("thinking"),
            "max_tokens": kwargs.get("max_tokens"), "messages": kwargs["messages"][1:]}


def output_speed(tokens: int, latency: float, first_token: float | None) -> float | None:
    """Output tokens per second of an answered call: after its first token when streamed, else over the whole
    call; None for an empty answer or no measurable time."""
    span = latency - (first_token or 0.0)
    return tokens / span if tokens and span > 0 else None

