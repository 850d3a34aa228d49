"""``cosci check``: a pre-flight of a configuration's models before a session spends (docs/design.md#check).

For every (agent, mode) route of the composed config it names the model, the request form (thinking, cap, streamed
or whole); then it sends what the session sends, through the gateway and LiteLLM as a session's calls go:

- one record call per distinct (model, form) pair: a tiny structured record (:class:`~cosci.records.RecordCheck`,
  two values the prompt names, echoed back) with the route's own cap (room for hidden reasoning included) and its
  own streaming, thinking in the configured form at its lowest setting (an effort of ``low``, or the provider's
  minimum budget of 1,024 tokens);
- per strong tier, one tool loop's ending: a first call offering a lookup tool, then the loop's last call, the
  record tool forced (with the thinking setting a loop keeps on it), the history holding the model's own turn.

A pass means the session's call shapes were accepted. A failure names the host, the form and the fix: the key
variable, the model id, the tier's thinking form, or the LiteLLM version cosci is tested with. Each row names the
host the call went to, so an offline run (or a bogus key) reads as one line per probe.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from importlib.metadata import version
from urllib.parse import urlsplit

from cosci.config.catalogue import catalogue
from cosci.config.schema import CosciConfig
from cosci.domain import Call
from cosci.llm import errors as E
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.gateway.adapter import FORMAT_PROVIDERS, Gateway
from cosci.llm.gateway.providers import CUSTOM_PROVIDERS
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import call_record, parse_record, record_tool
from cosci.llm.port.thinking import describe, forced_keeps_thinking
from cosci.llm.port.types import CallSpec, Route, TextBlock, ToolSpec
from cosci.prompts import render
from cosci.records import RecordCheck

CENT = 0.01
"""A check call costing this much or more is named in the first line, USD."""
LOOKUP = "lookup_check_values"
"""The lookup tool of the tool-loop probe (answers with the word and the number)."""
MIN_BUDGET = 1024
"""The smallest thinking budget Anthropic accepts (``budget_tokens`` >= 1,024), tokens."""
WORD, NUMBER = "cosci", 7
TESTED_LITELLM = ">=1.110.2,<1.111"
"""The LiteLLM range cosci's request bodies are tested against (pyproject.toml)."""


@dataclass(frozen=True)
class Probe:
    """One check call's outcome. ``cost_usd`` USD, ``latency_seconds`` seconds; ``fix`` is None when it passed."""

    model: str
    tier: str
    form: str
    max_tokens: int
    host: str = "-"
    shape: str = "record"
    streamed: bool = False
    tool_use: str = "-"
    structured: str = "-"
    latency_seconds: float = 0.0
    cost_usd: float = 0.0
    fix: str | None = None


def form_kind(route: Route, config: CosciConfig) -> str:
    """The request form a route's calls take, named by the field the provider receives: ``adaptive, effort``,
    ``budget_tokens``, ``thinkingBudget``, ``thinkingLevel``, ``reasoning_effort``, ``reasoning.effort`` or
    ``no thinking``."""
    text = describe(route, config.thinking)
    return text if text == "no thinking" else text.rsplit(" ", 1)[0]


def host_of(route: Route) -> str:
    """The host a route's calls go to: its ``api_base``'s, the catalogue's for its provider, or the provider name."""
    if route.api_base:
        return urlsplit(route.api_base).netloc or route.api_base
    return catalogue().host(route.model) or route.model.split("/", 1)[0]


def route_lines(config: CosciConfig) -> list[str]:
    """Every (agent, mode) route: model, request form, cap (tokens), streamed or whole."""
    out = []
    for r in Router(config).all_routes():
        out.append(f"  {r.key:26s} {r.model:44s} {describe(r, config.thinking):26s} max_tokens {r.max_output_tokens:6d}"
                   f"  {'streamed' if r.stream else 'whole'}")
    return out


def probe_routes(config: CosciConfig) -> list[Route]:
    """One minimal route per distinct (model, form) pair of the config's routes (see the module docstring)."""
    seen: dict[tuple[str, str], Route] = {}
    for r in Router(config).all_routes():
        seen.setdefault((r.model, form_kind(r, config)), r)
    return [minimal(r, config) for r in seen.values()]


def minimal(route: Route, config: CosciConfig) -> Route:
    """``route`` as the session sends it (its cap, deadline and streaming), its thinking at the form's lowest
    setting."""
    thinks = form_kind(route, config) != "no thinking" and route.thinking_tokens > 0
    budget = MIN_BUDGET if thinks else 0  # budget form: the minimum; effort forms: 1,024 tokens maps to "low"
    return replace(route, agent="check", mode="check", thinking_tokens=budget)


def loop_routes(config: CosciConfig) -> list[Route]:
    """The strong tier's tool-loop route (``generation.literature`` on it), for the loop probe; none on the
    in-process providers (their loops are tested directly)."""
    route = Router(config).route("generation", "literature", "strong") if "strong" in config.models.tiers else None
    return [] if route is None or route.model.startswith(CUSTOM_PROVIDERS) else [minimal(route, config)]


async def run_check(config: CosciConfig) -> list[Probe]:
    """Make the check calls (one record call per distinct model and form, one tool loop's ending per strong tier);
    every outcome, passed or failed."""
    records: list[Call] = []
    budget = TokenBudget(cap_usd=CHECK_CAP_USD, shares={"check": 1.0}, reserve_share=0.0)
    gateway = Gateway(config, budget, records.append)
    out = []
    for route in probe_routes(config):
        records.clear()
        out.append(await probe(gateway, route, config, records))
    for route in loop_routes(config):
        records.clear()
        out.append(await loop_probe(gateway, route, config, records))
    return out


CHECK_CAP_USD = 5.0
"""The check's own budget, USD: the largest call's upper bound (its real cap at the list price) must fit."""


def base_probe(route: Route, config: CosciConfig, shape: str) -> Probe:
    return Probe(route.model, route.tier, describe(route, config.thinking), route.max_output_tokens,
                 host=host_of(route), shape=shape, streamed=route.stream)


async def loop_probe(gateway: Gateway, route: Route, config: CosciConfig, records: list[Call]) -> Probe:
    """A tool loop's ending on ``route``: an auto call offering the lookup tool, then the forced last call with the
    model's own turn (and thinking blocks) in the history."""
    base = base_probe(route, config, "loop last call")
    lookup = ToolSpec(LOOKUP, "Return the word and the number to record.", {"type": "object", "properties": {}})
    tool = record_tool(RecordCheck)
    ask = render("check_loop", tool=LOOKUP, record=RecordCheck.tool_name)
    first = CallSpec(route=route, action="CheckLoop", system=[TextBlock(render("_safety_preamble"), cache=True)],
                     messages=[{"role": "user", "content": ask}], tools=[lookup, tool], tool_choice="auto")
    started = time.perf_counter()
    try:
        resp = await gateway.complete(first)
        history = [*first.messages, resp.assistant_message(),
                   *({"role": "tool", "tool_call_id": c.id, "content": f"word: {WORD}, number: {NUMBER}"}
                     for c in resp.tool_calls)]
        if not resp.tool_calls:
            history.append({"role": "user", "content": render("_loop_last_call", tool=RecordCheck.tool_name)})
        last = replace(first, messages=history, tool_choice=RecordCheck.tool_name,
                       thinking=forced_keeps_thinking(route))
        record = parse_record(await gateway.complete(last), RecordCheck)
    except E.StructuredOutputError as exc:
        return replace(base, tool_use="forced", structured=exc.kind, cost_usd=_cost(records),
                       latency_seconds=time.perf_counter() - started,
                       fix=f"no valid record on the loop's last call ({exc}); pick another model")
    except E.LLMError as exc:
        return replace(base, cost_usd=_cost(records), latency_seconds=time.perf_counter() - started,
                       fix=fix_for(exc, route, config))
    right = (record.word, record.number) == (WORD, NUMBER)
    return replace(base, tool_use="forced", structured="valid record" if right else "values differ",
                   cost_usd=_cost(records), latency_seconds=time.perf_counter() - started,
                   fix=None if right else "the record's values differ from the lookup's")


async def probe(gateway: Gateway, route: Route, config: CosciConfig, records: list[Call]) -> Probe:
    spec = CallSpec(route=route, action="Check", system=[TextBlock(render("_safety_preamble"), cache=True)],
                    messages=[{"role": "user", "content": render("check", word=WORD, number=NUMBER)}])
    base = base_probe(route, config, "record")
    started = time.perf_counter()
    try:
        record, _ = await call_record(gateway, spec, RecordCheck)
    except E.StructuredOutputError as exc:
        return replace(base, tool_use="no record call" if isinstance(exc, E.NoRecordCall) else "tool call",
                       structured=exc.kind, cost_usd=_cost(records), latency_seconds=time.perf_counter() - started,
                       fix=f"no valid record ({exc}); raise the tier's max tokens or pick another model")
    except E.LLMError as exc:
        return replace(base, cost_usd=_cost(records), latency_seconds=time.perf_counter() - started,
                       fix=fix_for(exc, route, config))
    use = ("schema (format)" if route.model.startswith(FORMAT_PROVIDERS)
           else "schema-constrained" if route.constrained else "tool call")
    right = (record.word, record.number) == (WORD, NUMBER)
    return replace(base, tool_use=use, structured="valid record" if right else
                   f"valid schema, values differ ({record.word!r}, {record.number})", cost_usd=_cost(records),
                   latency_seconds=time.perf_counter() - started,
                   fix=None if right or route.constrained else "the record's values differ from the request")


def _cost(records: list[Call]) -> float:
    """USD of the calls a check made (a record call may take two: ask, then force)."""
    return sum(r.cost_usd for r in records)


def fix_for(exc: E.LLMError, route: Route, config: CosciConfig) -> str:
    """What to change after a failed check call, in one line."""
    entry = config.models.tiers[route.tier]
    key = entry.api_key_env or "the provider's key variable"
    if isinstance(exc, E.AuthFailed):
        return f"the key was refused ({exc}): check {key}"
    if isinstance(exc, E.ModelUnavailable):
        return f"{route.model} is not served for this key ({exc}): check models.tiers.{route.tier}.model"
    if isinstance(exc, E.PermanentLLMError):
        return (f"the provider refused the request ({exc}): check models.tiers.{route.tier}.thinking "
                f"(now {entry.thinking}) and the LiteLLM version (installed {version('litellm')}, tested "
                f"{TESTED_LITELLM})")
    return f"no answer after the gateway's retries ({exc}): check the network or {entry.api_base or 'the provider'}"


def report(config: CosciConfig, probes: list[Probe]) -> list[str]:
    """The check's lines: the total cost first, the routes, then one row per call naming its host and form (and
    each failure's fix)."""
    total = sum(p.cost_usd for p in probes)
    over = [p.model for p in probes if p.cost_usd >= CENT]
    failed = [p for p in probes if p.fix]
    lines = [f"check     {config.models.name}: {len(probes)} call{'s' if len(probes) != 1 else ''}, total ${total:.4f}"
             + (f"; a cent or more: {', '.join(over)}" if over else " (each under $0.01)")
             + (f"; {len(failed)} failed" if failed else "; all passed"),
             "routes    (agent.mode, model, request form, cap, streamed or whole)", *route_lines(config),
             "calls     (model, host, shape, thinking form, cap, streamed or whole, tool use, structured output, "
             "latency, cost)"]
    for p in probes:
        lines.append(f"  {p.model:40s} {p.host:34s} {p.shape:15s} {p.form:26s} max_tokens {p.max_tokens:6d} "
                     f"{'streamed' if p.streamed else 'whole':8s} {p.tool_use:18s} {p.structured:20s} "
                     f"{p.latency_seconds:6.1f} s  ${p.cost_usd:.4f}" + ("  FAILED" if p.fix else ""))
    lines += [f"fix       {p.model} ({p.host}, {p.shape}, {p.form}): {p.fix}" for p in failed]
    return lines
