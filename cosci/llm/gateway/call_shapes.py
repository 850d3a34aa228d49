"""The request shapes a session sends, for ``cosci check`` (docs/design.md#check).

A session's calls take one of three shapes per (agent, mode), listed in :data:`SESSION_CALLS`:

- ``plain``: no tools (a debate turn, a ranking judgment, the final overview);
- ``record``: a record call as :func:`cosci.llm.port.structured.call_record` makes it (the record tool forced; on a
  route where a forced tool loses its thinking, first ``tool_choice="auto"`` with thinking, then the forced call);
- ``loop``: a tool loop as :func:`cosci.agents.tool_loop.run_tool_loop` makes it: a first call offering the tools
  (when the mode allows more than one iteration), then the last call (the record forced with the loop's thinking
  setting, or, where the model refuses that, an unforced last call and one separate forced call without thinking).

Each shape's calls are built here as :class:`~cosci.llm.port.types.CallSpec` objects on the mode's own route (its
thinking budget, cap and streaming) and turned into bodies by the gateway's own builder
(:meth:`~cosci.llm.gateway.adapter.Gateway.request`). :func:`signature` keeps what a provider can reject of a body:
the model and host, the thinking fields, ``max_tokens``, streaming, whether tools are sent, the kind of
``tool_choice`` and of ``response_format``. Two shapes are one probe only when their signatures are equal.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from cosci.config.schema import CosciConfig
from cosci.llm.gateway.providers import CUSTOM_PROVIDERS
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import record_tool
from cosci.llm.port.thinking import forced_keeps_thinking, thinks_when_forced
from cosci.llm.port.types import CallSpec, Route, TextBlock, ToolSpec
from cosci.prompts import render
from cosci.records import RecordCheck

PLAIN, RECORD, LOOP = "plain", "record", "loop"
SESSION_CALLS: dict[str, tuple[str, ...]] = {
    "goal_parsing.parse_goal": (RECORD,),
    "generation.literature": (LOOP,), "generation.debate": (PLAIN, RECORD), "generation.grounding": (RECORD,),
    "reflection.full": (LOOP,), "reflection.verification": (LOOP,), "reflection.observation": (LOOP,),
    "ranking.pairwise": (PLAIN,), "ranking.debate": (PLAIN,),
    "evolution.combine": (LOOP,), "evolution.simplify": (LOOP,), "evolution.feasibility": (LOOP,),
    "evolution.out_of_box": (LOOP,), "evolution.grounding": (RECORD,),
    "metareview.system": (RECORD,), "metareview.final": (PLAIN,), "metareview.audit": (RECORD,),
    "metareview.claim_check": (RECORD,), "safety.classify": (RECORD,),
}
"""The call shapes each (agent, mode) sends (its agent module's calls: ``complete`` is plain, ``call_record`` a
record, ``tool_loop`` a loop). A mode not listed (a plugin's) is probed in every shape but the loop."""
UNLISTED = (PLAIN, RECORD)
LOOKUP = ToolSpec("lookup_check_values", "Return the word and the number to record.",
                  {"type": "object", "properties": {}})
"""The lookup tool of a loop probe (answers with the word and the number)."""
WORD, NUMBER = "cosci", 7
THINKING_FIELDS = ("thinking", "output_config", "reasoning_effort", "reasoning")


def shapes_of(agent: str, mode: str) -> tuple[str, ...]:
    return SESSION_CALLS.get(f"{agent}.{mode}", UNLISTED)


def tiers_of(config: CosciConfig, agent: str, mode: str) -> list[str]:
    """The tiers a mode's calls go to: its own; the ranking judges' (design.md#judges); the audit's move off the
    writer's model (``cosci/agents/audit.py``: the first tier of the degradation chain, then of the tiers, with
    another model)."""
    router = Router(config)
    own = config.tier_of(agent, mode)
    if agent == "ranking" and config.ranking.judges:
        return list(dict.fromkeys([own, *config.ranking.judges]))
    if (agent, mode) == ("metareview", "audit") and "final" in config.agents[agent].modes:
        writer = router.route("metareview", "final").model
        if router.route(agent, mode).model == writer:
            moved = [t for t in [*config.models.degradation, *config.models.tiers]
                     if router.route(agent, mode, t).model != writer]
            return moved[:1] or [own]
    return [own]


def session_calls(config: CosciConfig) -> list[tuple[Route, str]]:
    """Every (route, shape) a session of ``config`` sends; loops first (their last call covers a forced record)."""
    router = Router(config)
    out = [(router.route(a, m, t), s) for a, acfg in config.agents.items() for m in acfg.modes
           for t in tiers_of(config, a, m) for s in shapes_of(a, m)]
    order = {LOOP: 0, RECORD: 1, PLAIN: 2}
    return sorted(out, key=lambda rs: order[rs[1]])


def opening(route: Route, shape: str) -> CallSpec:
    """The first call of a probe of ``shape`` on ``route``: a tiny prompt, the safety preamble as system."""
    ask = (render("check_plain", word=WORD) if shape == PLAIN
           else render("check_loop", tool=LOOKUP.name, record=RecordCheck.tool_name) if shape == LOOP
           else render("check", word=WORD, number=NUMBER))
    return CallSpec(route=route, action=f"Check/{shape}", system=[TextBlock(render("_safety_preamble"), cache=True)],
                    messages=[{"role": "user", "content": ask}])


def record_calls(spec: CallSpec) -> list[CallSpec]:
    """A record call's requests as :func:`~cosci.llm.port.structured.call_record` sends them (both, when it asks
    unforced first: the probe sends the forced one even when the first brought a record)."""
    tool = record_tool(RecordCheck)
    forced = replace(spec, tools=[tool], tool_choice=RecordCheck.tool_name)
    forced.thinking = spec.thinking and forced_keeps_thinking(spec.route)
    if spec.thinking_tokens > 0 and not thinks_when_forced(spec.route):
        return [replace(spec, tools=[tool], tool_choice="auto"), forced]
    return [forced]


def loop_first(spec: CallSpec) -> CallSpec | None:
    """A tool loop's first call (the lookup and the record offered, ``auto``); None for a one-iteration mode, whose
    one call is the last."""
    if spec.route.max_iterations <= 1:
        return None
    return replace(spec, tools=[LOOKUP, record_tool(RecordCheck)], tool_choice="auto")


def loop_last(spec: CallSpec, history: Sequence[dict[str, Any]]) -> list[CallSpec]:
    """A tool loop's ending as :func:`~cosci.agents.tool_loop.run_tool_loop` sends it: the record forced with the
    loop's thinking setting; where the model refuses that (Anthropic's budget thinking), the unforced last call
    with ``_loop_last_call``, then the separate forced call without thinking (sent by the probe in any case)."""
    tools = [LOOKUP, record_tool(RecordCheck)] if spec.route.max_iterations > 1 else [record_tool(RecordCheck)]
    if not spec.thinking or forced_keeps_thinking(spec.route):
        return [replace(spec, messages=list(history), tools=tools, tool_choice=RecordCheck.tool_name)]
    asked = [*history, {"role": "user", "content": render("_loop_last_call", tool=RecordCheck.tool_name)}]
    separate = replace(spec, tools=[record_tool(RecordCheck)], tool_choice=RecordCheck.tool_name, thinking=False)
    return [replace(spec, messages=asked, tools=tools, tool_choice="auto"), separate]


def planned(route: Route, shape: str) -> list[CallSpec]:
    """Every request of a probe of ``shape`` on ``route``, in order (a loop's history as its opening)."""
    spec = opening(route, shape)
    if shape == PLAIN:
        return [spec]
    if shape == RECORD:
        return record_calls(spec)
    first = loop_first(spec)
    return [*([first] if first else []), *loop_last(spec, spec.messages)]


def signature(kwargs: dict[str, Any], route: Route) -> tuple[Any, ...]:
    """What a provider can reject of the body ``kwargs`` (the gateway's request) on ``route``; on the in-process
    providers, which reject nothing, the model and whether it thinks (in its tier's form)."""
    think = json.dumps({k: kwargs[k] for k in THINKING_FIELDS if k in kwargs}, sort_keys=True)
    if route.model.startswith(CUSTOM_PROVIDERS):
        return route.model, route.thinking_form if think != "{}" else "none"
    choice = kwargs.get("tool_choice")
    return (route.model, route.api_base, think, kwargs["max_tokens"], route.stream, "tools" in kwargs,
            choice if choice is None or isinstance(choice, str) else "forced",
            (kwargs.get("response_format") or {}).get("type"))
