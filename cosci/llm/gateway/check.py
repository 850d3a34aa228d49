"""``cosci check``: a pre-flight of a configuration's models before a session spends (docs/design.md#check).

For every (agent, mode) route of the composed config it names the model, the request form (thinking, cap, streamed
or whole); then it sends what the session sends, through the gateway and LiteLLM as a session's calls go: one probe
per distinct request shape (:mod:`.call_shapes`): every (agent, mode) on each tier it calls, in each call shape it
makes (plain, record, a tool loop's first and last calls), with the mode's own thinking setting (its budget or
effort, never a lowered one), cap (room for hidden reasoning included) and streaming. Two shapes are one probe only
when their bodies are equal in every field a provider can reject (:func:`.call_shapes.signature`). Prompts are
tiny (a word and a number echoed in a record), so a probe costs what the model writes and thinks, not its cap.
On the in-process providers (the embedded model, the fake), which reject no field, one record probe per model and
thinking form.

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
from cosci.hosts import is_loopback
from cosci.llm import errors as E
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.gateway import call_shapes as S
from cosci.llm.gateway.adapter import Gateway
from cosci.llm.gateway.answer_forms import FORMAT_PROVIDERS
from cosci.llm.gateway.providers import CUSTOM_PROVIDERS
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import parse_record
from cosci.llm.port.thinking import describe
from cosci.llm.port.types import LLMResponse, Route
from cosci.records import RecordCheck

CENT = 0.01
"""A check call costing this much or more is named in the first line, USD."""
TESTED_LITELLM = ">=1.110.2,<1.111"
"""The LiteLLM range cosci's request bodies are tested against (pyproject.toml)."""


@dataclass(frozen=True)
class Probe:
    """One probe's outcome (its one to three requests). ``cost_usd`` USD, ``latency_seconds`` seconds; ``fix`` is
    None when it passed."""

    model: str
    tier: str
    form: str
    max_tokens: int
    host: str = "-"
    shape: str = S.RECORD
    streamed: bool = False
    tool_use: str = "-"
    structured: str = "-"
    latency_seconds: float = 0.0
    cost_usd: float = 0.0
    fix: str | None = None
    mode: str = "-"


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


def probe_plans(config: CosciConfig, gateway: Gateway) -> list[tuple[Route, str]]:
    """``(route, shape)`` of every probe: the session's calls (:func:`.call_shapes.session_calls`) less those whose
    every request's signature an earlier probe already sends (the route's agent becomes ``check``, its budget)."""
    covered: set[tuple[object, ...]] = set()
    out = []
    for route, shape in S.session_calls(config):
        if route.model.startswith(CUSTOM_PROVIDERS):
            shape = S.RECORD
        # the check's budget; the row names the mode; no step down the chain: a model the session cannot call fails
        route = replace(route, agent="check", mode=route.key, degradable=False)
        sigs = {S.signature(gateway.request(s, route), route) for s in S.planned(route, shape)}
        if not sigs <= covered:
            covered |= sigs
            out.append((route, shape))
    return out


async def run_check(config: CosciConfig) -> list[Probe]:
    """Send every probe (:func:`probe_plans`); every outcome, passed or failed. A host that cannot be reached is
    tried once (not ``retry.unreachable_attempts`` times) and its later probes are not sent: they carry its first
    probe's fix (design.md#unreachable-hosts)."""
    records: list[Call] = []
    budget = TokenBudget(cap_usd=CHECK_CAP_USD, shares={"check": 1.0}, reserve_share=0.0)
    gateway = Gateway(config, budget, records.append)
    gateway.retry = config.retry.model_copy(update={"unreachable_attempts": 1})  # one attempt per host is the answer
    out: list[Probe] = []
    dead: dict[str, str] = {}  # host -> the fix of its first probe: a host that cannot be reached is not asked again
    for route, shape in probe_plans(config, gateway):
        records.clear()
        if (host := host_of(route)) in dead:
            out.append(replace(base_probe(route, config, shape), fix=dead[host]))
            continue
        out.append(result := await probe(gateway, route, shape, config, records))
        if result.fix and result.fix.startswith(UNREACHABLE):
            dead[host] = result.fix
    return out


UNREACHABLE = "host unreachable:"
"""The start of a probe's fix when its host cannot be reached at all (design.md#unreachable-hosts): later probes
of that host are not sent and carry the same fix."""
CHECK_CAP_USD = 5.0
"""The check's own budget, USD: the largest call's upper bound (its real cap at the list price) must fit."""


def base_probe(route: Route, config: CosciConfig, shape: str) -> Probe:
    calls = len(S.planned(route, shape))
    return Probe(route.model, route.tier, describe(route, config.thinking), route.max_output_tokens,
                 host=host_of(route), shape=shape + (f" ({calls} calls)" if calls > 1 else ""), streamed=route.stream,
                 mode=route.mode)


async def send_plain(gateway: Gateway, route: Route) -> tuple[str, str, str | None]:
    """A call without tools: ``(tool use, answer, fix)``; an empty answer fails (the cap left no room for it)."""
    resp = await gateway.complete(S.opening(route, S.PLAIN))
    if resp.text.strip():
        return "none", "text", None
    return "none", "empty answer", f"no text within max_tokens {route.max_output_tokens} (finish {resp.finish_reason})"


async def send_record(gateway: Gateway, route: Route) -> LLMResponse:
    """A record call's requests (the unforced one first where the session asks so); the forced one's answer."""
    calls = S.record_calls(S.opening(route, S.RECORD))
    for spec in calls[:-1]:
        await gateway.complete(spec)
    return await gateway.complete(calls[-1])


async def send_loop(gateway: Gateway, route: Route) -> LLMResponse:
    """A tool loop's first call (the lookup offered), then its ending with the model's own turn (and thinking
    blocks) in the history; the answer of the last request (the forced record)."""
    spec = S.opening(route, S.LOOP)
    history = list(spec.messages)
    if first := S.loop_first(spec):
        resp = await gateway.complete(first)
        history += [resp.assistant_message(),
                    *({"role": "tool", "tool_call_id": c.id, "content": f"word: {S.WORD}, number: {S.NUMBER}"}
                      for c in resp.tool_calls)]
        if not resp.tool_calls:
            history.append({"role": "user", "content": "Call record_check now."})
    calls = S.loop_last(spec, history)
    for s in calls[:-1]:
        await gateway.complete(s)
    return await gateway.complete(calls[-1])


async def probe(gateway: Gateway, route: Route, shape: str, config: CosciConfig, records: list[Call]) -> Probe:
    """Send one probe's requests; its outcome (a failure with its fix)."""
    base = base_probe(route, config, shape)
    started = time.perf_counter()
    try:
        if shape == S.PLAIN:
            use, structured, fix = await send_plain(gateway, route)
            return replace(base, tool_use=use, structured=structured, fix=fix, cost_usd=_cost(records),
                           latency_seconds=time.perf_counter() - started)
        resp = await (send_loop(gateway, route) if shape == S.LOOP else send_record(gateway, route))
        record = parse_record(resp, RecordCheck)
    except E.StructuredOutputError as exc:
        text_only = str(exc).endswith("(got text only)")  # more tokens cannot make a model call a tool it answers
        advice = ("pick a model that supports tool calling" if text_only else  # in text
                  "raise the tier's max tokens or pick another model")
        return replace(base, tool_use="no record call" if isinstance(exc, E.NoRecordCall) else "tool call",
                       structured=exc.kind, cost_usd=_cost(records), latency_seconds=time.perf_counter() - started,
                       fix=f"no valid record ({exc}); {advice}")
    except E.LLMError as exc:
        return replace(base, cost_usd=_cost(records), latency_seconds=time.perf_counter() - started,
                       fix=fix_for(exc, route, config))
    use = ("schema (format)" if route.model.startswith(FORMAT_PROVIDERS)
           else "schema-constrained" if route.constrained else "forced" if shape == S.LOOP else "tool call")
    right = (record.word, record.number) == (S.WORD, S.NUMBER)
    return replace(base, tool_use=use, structured="valid record" if right else
                   f"valid schema, values differ ({_differ(record.word, record.number)})", cost_usd=_cost(records),
                   latency_seconds=time.perf_counter() - started,
                   fix=None if right or route.constrained else "the record's values differ from the request")


def _differ(word: str, number: int) -> str:
    """The fields of a record that differ from those asked, each as ``word ', number:' for 'cosci'`` (fresh-user
    trial: "number 7 for 7" listed a field that was right)."""
    return ", ".join(f"{name} {got!r} for {asked!r}" for name, got, asked in
                     (("word", word, S.WORD), ("number", number, S.NUMBER)) if got != asked)


def _cost(records: list[Call]) -> float:
    """USD of the calls a check made (a record call may take two: ask, then force)."""
    return sum(r.cost_usd for r in records)


def local_server(route: Route) -> str | None:
    """The address of the server ``route``'s calls go to when it is no provider's API but a server of the user's
    own: Ollama (wherever it runs), or an ``api_base`` on this machine (a vLLM or llama.cpp server); else None."""
    if route.model.startswith(("ollama/", "ollama_chat/")):
        return route.api_base or "http://localhost:11434"
    host = urlsplit(route.api_base or "").hostname
    return route.api_base if host and is_loopback(host) else None


def server_fix(exc: E.LLMError, route: Route, config: CosciConfig, base: str) -> str:
    """What to change after a failed call to a local server at ``base`` (:func:`local_server`), in one line: what
    is wrong for that kind of server (nothing answers there, the model is not pulled or not served), not a provider
    key (Ollama takes none; an OpenAI-compatible server's key is named only when it refused it)."""
    ollama = route.model.startswith(("ollama/", "ollama_chat/"))
    name = route.model.split("/", 1)[1]
    tier = f"models.tiers.{route.tier}"
    if isinstance(exc, E.AuthFailed):
        key = config.models.tiers[route.tier].api_key_env
        return (f"the server at {base} refused the call ({exc}): " + (f"check {key} against the key it was started "
                "with" if key and not ollama else f"Ollama takes no key; check that Ollama is what answers at {base}"))
    if isinstance(exc, E.ModelUnavailable):
        if ollama:
            return f"{name} is not pulled on the Ollama server at {base} ({exc}): `ollama pull {name}`"
        return (f"the server at {base} does not serve {name} ({exc}): set {tier}.model=openai/<a model its "
                f"{base.rstrip('/')}/models lists>")
    if isinstance(exc, E.TransientLLMError):
        start = "`ollama serve`" if ollama else "the model's server"
        return f"no answer from the server at {base} ({exc}): start {start} or set {tier}.api_base to where it listens"
    return fix_for(exc, route, config, local=False)


def fix_for(exc: E.LLMError, route: Route, config: CosciConfig, *, local: bool = True) -> str:
    """What to change after a failed check call, in one line (a local server's: :func:`server_fix`, unless not
    ``local``)."""
    if isinstance(exc, E.ModelUnavailable) and isinstance(exc.__context__, E.ModelUnavailable):
        exc = exc.__context__  # the provider's own words, not "never degrades" (the check's routes do not step down)
    if local and (base := local_server(route)):
        return server_fix(exc, route, config, base)
    entry = config.models.tiers[route.tier]
    if isinstance(exc, E.HostUnreachable):
        return f"{UNREACHABLE} {str(exc).removeprefix(exc.model + ': ')}" + (f" (now {entry.api_base})"
                                                                             if entry.api_base else "")
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
    """The check's lines: a host that cannot be reached first (one fix line for all its probes, as a run's line
    comes first, design.md#unreachable-hosts), then the total cost, the routes, one row per probe naming its host and
    form, and each other failure's fix."""
    total = sum(p.cost_usd for p in probes)
    over = [p.model for p in probes if p.cost_usd >= CENT]
    failed = [p for p in probes if p.fix]
    lines = [f"check     {config.models.name}: {len(probes)} probe{'s' if len(probes) != 1 else ''}, total ${total:.4f}"
             + (f"; a cent or more: {', '.join(over)}" if over else " (each under $0.01)")
             + (f"; {len(failed)} failed" if failed else "; all passed"),
             "routes    (agent.mode, model, request form, cap, streamed or whole)", *route_lines(config),
             "probes    (model, host, agent.mode, shape, thinking form, cap, streamed or whole, tool use, structured "
             "output, latency, cost)"]
    for p in probes:
        lines.append(f"  {p.model:40s} {p.host:34s} {p.mode:26s} {p.shape:16s} {p.form:26s} "
                     f"max_tokens {p.max_tokens:6d} {'streamed' if p.streamed else 'whole':8s} {p.tool_use:18s} "
                     f"{p.structured:20s} "
                     f"{p.latency_seconds:6.1f} s  ${p.cost_usd:.4f}" + ("  FAILED" if p.fix else ""))
    hosts: dict[str, list[Probe]] = {}  # a host that cannot be reached: one line for all its probes
    for p in failed:
        if p.fix and p.fix.startswith(UNREACHABLE):
            hosts.setdefault(p.host, []).append(p)
    first = [f"fix       {host} ({len(ps)} probe{'s' if len(ps) != 1 else ''}, 1 sent): {ps[0].fix}"
             for host, ps in hosts.items()]
    lines = first + lines
    lines += [f"fix       {p.model} ({p.host}, {p.mode}, {p.shape}, {p.form}): {p.fix}" for p in failed
              if p.host not in hosts]
    return lines
