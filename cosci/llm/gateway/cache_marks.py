"""Where a request carries prompt-cache breakpoints (``cache_control``), design.md#caching.

Anthropic caches the prefix of a request up to each marked block, in the order tools → system → messages, at most
4 breakpoints per request; a write costs 1.25× the input price, a read 0.1× (prompt-caching and pricing pages cited
in ``bench/prompt_cache.py``). So a breakpoint pays only where the same prefix is sent again within its 5-minute
lifetime. The gateway places at most three, and only on routes that cache (``Route.caches``: tiers with
``cache_min_tokens``, and the fake, which records them):

1. **tool definitions**: the last tool, on a mode that is called again (the tool list is stable per agent and mode);
2. **system prefix**: the last system block marked ``cache=True`` (safety preamble and session context: the same in
   every call of a session), on a mode that is called again;
3. **the latest turn of a conversation that goes on**: the last message of a tool-loop call that may be followed by
   another iteration (``tool_choice`` ``auto`` and a tool other than a record tool) and of a conversation that already
   has an answer in it, so that each iteration reads the earlier ones from cache and pays only for what it adds.

Modes run once per session (:data:`ONCE_MODES`: goal parsing, the final overview and its audit) get no breakpoint:
nothing would read what they write. ``python -m bench.cost`` measures each placement on a recorded session.
"""

from __future__ import annotations

from typing import Any

EPHEMERAL = {"type": "ephemeral"}
ONCE_MODES = frozenset({"goal_parsing.parse_goal", "metareview.final", "metareview.audit"})
"""Modes sent once per session: a cache write there is never read (design.md#caching)."""
RECORD_PREFIX = "record_"
"""How the record tools' names begin (``cosci/records.py``): a call offering only a record tool ends its loop."""


def mark(kwargs: dict[str, Any], *, route_key: str, marked_system: list[bool], forced: bool) -> None:
    """Place the breakpoints of the module docstring on the ``litellm.acompletion`` keyword arguments, in place.

    Args:
        kwargs: the request (``messages[0]`` the system message with one text block per system block).
        route_key: ``agent.mode`` of the call.
        marked_system: per system block, whether the agent marked it ``cache=True``.
        forced: the call forces a tool (the last call of a tool loop: no iteration follows).
    """
    if route_key in ONCE_MODES:
        return
    tools = kwargs.get("tools")
    if tools:
        tools[-1] = {**tools[-1], "cache_control": EPHEMERAL}
    system = kwargs["messages"][0]["content"]
    last = max((i for i, m in enumerate(marked_system) if m), default=None)
    if last is not None:
        system[last] = {**system[last], "cache_control": EPHEMERAL}
    history = kwargs["messages"][1:]
    searches = [t for t in tools or [] if not t["function"]["name"].startswith(RECORD_PREFIX)]
    loop = bool(searches) and not forced and kwargs.get("tool_choice") == "auto"
    goes_on = any(m.get("role") == "assistant" for m in history)
    if history and (loop or goes_on) and not forced:
        kwargs["messages"][-1] = marked_message(kwargs["messages"][-1])


def marked_message(message: dict[str, Any]) -> dict[str, Any]:
    """``message`` with a breakpoint on its last block: on the last part of a list content, else on the message
    (LiteLLM moves a message's ``cache_control`` onto the block it makes of a string content or a tool result)."""
    content = message.get("content")
    if isinstance(content, list) and content and isinstance(content[-1], dict):
        return {**message, "content": [*content[:-1], {**content[-1], "cache_control": EPHEMERAL}]}
    return {**message, "cache_control": EPHEMERAL}
