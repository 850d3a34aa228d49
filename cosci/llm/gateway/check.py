"""``cosci check``: a pre-flight of a configuration's models before a session spends (docs/design.md#check).

For every (agent, mode) route of the composed config it names the model, the request form (thinking, cap, streamed
or whole) and then makes one minimal real call per distinct (model, form) pair: a tiny structured record
(:class:`~cosci.records.RecordCheck`, two values the prompt names, echoed back) with thinking in the configured form
at its lowest setting (an effort of ``low``, or the provider's minimum budget of 1,024 tokens), through the gateway
and LiteLLM as a session's calls go. Each call's cap is what one cent buys at the model's list price (never below
what the form needs), so a check costs at most about a cent per model; the budget form's 1,024-token minimum can
cost more on the priciest models, and the table says so. A failure names the fix: the key variable, the model id,
the tier's thinking form, or the LiteLLM version cosci is tested with.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from importlib.metadata import version

import litellm

from cosci.config.schema import CosciConfig
from cosci.domain import Call
from cosci.llm import errors as E
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.gateway.adapter import CHARS_PER_TOKEN_BOUND, FALLBACK_USD_PER_MTOK, FORMAT_PROVIDERS, Gateway
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import call_record
from cosci.llm.port.thinking import describe, thinking_params
from cosci.llm.port.types import CallSpec, Route, TextBlock
from cosci.prompts import render
from cosci.records import RecordCheck

CENT = 0.01
"""The most one check call should cost at the model's list price, USD."""
MIN_BUDGET = 1024
"""The smallest thinking budget Anthropic accepts (``budget_tokens`` >= 1,024), tokens."""
ANSWER_TOKENS = 256
"""Tokens a check record needs besides thinking (the record is two short values)."""
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
    tool_use: str = "-"
    structured: str = "-"
    latency_seconds: float = 0.0
    cost_usd: float = 0.0
    fix: str | None = None


def form_kind(route: Route, config: CosciConfig) -> str:
    """The request form a route's calls take: ``adaptive``, ``budget_tokens``, ``reasoning_effort``, ``reasoning``
    (OpenRouter) or ``no thinking``."""
    params = thinking_params(route, config.thinking, thinking=True, forced=False)
    if "output_config" in params:
        return "adaptive"
    return {"thinking": "budget_tokens"}.get(next(iter(params), ""), next(iter(params), "no thinking"))


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
    """``route`` at its form's lowest thinking setting, capped at a cent's worth of output, sent whole."""
    thinks = form_kind(route, config) != "no thinking" and route.thinking_tokens > 0
    budget = MIN_BUDGET if thinks else 0  # budget form: the minimum; effort forms: 1,024 tokens maps to "low"
    floor = (budget if route.thinking_form == "budget" else 0) + ANSWER_TOKENS
    prompt_tokens = (len(render("_safety_preamble")) + len(render("check", word=WORD, number=NUMBER))) \
        // CHARS_PER_TOKEN_BOUND
    usd_in, usd_out = prices(route.model, config, route.tier)
    cap = int((CENT - prompt_tokens * usd_in) / usd_out) if usd_out > 0 else 4 * ANSWER_TOKENS
    cap = max(floor, min(cap, floor + 3 * ANSWER_TOKENS))
    return replace(route, agent="check", mode="check", thinking_tokens=budget, max_output_tokens=cap, stream=False,
                   idle_seconds=None, timeout_seconds=config.retry.thinking_call_timeout_seconds)


def prices(model: str, config: CosciConfig, tier: str) -> tuple[float, float]:
    """USD per input and per output token: the tier's price override, LiteLLM's price map, or the fallback."""
    entry = config.models.tiers[tier]
    if entry.output_usd_per_mtok is not None:
        return (entry.input_usd_per_mtok or 0.0) / 1e6, entry.output_usd_per_mtok / 1e6
    try:
        return float(litellm.cost_per_token(model=model, prompt_tokens=1, completion_tokens=0)[0]), \
            float(litellm.cost_per_token(model=model, prompt_tokens=0, completion_tokens=1)[1])
    except Exception:  # unknown to the price map: the gateway's conservative default
        return FALLBACK_USD_PER_MTOK[0] / 1e6, FALLBACK_USD_PER_MTOK[1] / 1e6


async def run_check(config: CosciConfig) -> list[Probe]:
    """Make the check calls (one per distinct model and form); every outcome, passed or failed."""
    records: list[Call] = []
    budget = TokenBudget(cap_usd=1.0, shares={"check": 1.0}, reserve_share=0.0)
    gateway = Gateway(config, budget, records.append)
    out = []
    for route in probe_routes(config):
        records.clear()
        out.append(await probe(gateway, route, config, records))
    return out


async def probe(gateway: Gateway, route: Route, config: CosciConfig, records: list[Call]) -> Probe:
    spec = CallSpec(route=route, action="Check", system=[TextBlock(render("_safety_preamble"), cache=True)],
                    messages=[{"role": "user", "content": render("check", word=WORD, number=NUMBER)}])
    base = Probe(route.model, route.tier, describe(route, config.thinking), route.max_output_tokens)
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
    """The check's lines: the total cost first, the routes, then one row per call (and each failure's fix)."""
    total = sum(p.cost_usd for p in probes)
    over = [p.model for p in probes if p.cost_usd >= CENT]
    failed = [p for p in probes if p.fix]
    lines = [f"check     {config.models.name}: {len(probes)} call{'s' if len(probes) != 1 else ''}, total ${total:.4f}"
             + (f"; over a cent: {', '.join(over)}" if over else " (each under $0.01)")
             + (f"; {len(failed)} failed" if failed else "; all passed"),
             "routes    (agent.mode, model, request form, cap, streamed or whole)", *route_lines(config),
             "calls     (model, thinking form, tool use, structured output, latency, cost)"]
    for p in probes:
        lines.append(f"  {p.model:44s} {p.form:26s} {p.tool_use:18s} {p.structured:34s} "
                     f"{p.latency_seconds:6.1f} s  ${p.cost_usd:.4f}" + ("  FAILED" if p.fix else ""))
    lines += [f"fix       {p.model}: {p.fix}" for p in failed]
    return lines
