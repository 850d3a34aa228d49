"""The batch adapter behind the gateway: provider message batches for low-stakes tournament matches (design.md#batches).

Anthropic's Message Batches cost half the list price and take up to 24 h, so low-stakes tournament matches go
through them (design.md#batches). LiteLLM does not cover Anthropic's batches, so
the ``anthropic`` SDK is used here, behind one :class:`BatchGateway` shared by every agent; the scripted fake
has its own endpoint (:mod:`cosci.llm.fake.batches`). A tier uses batches only if ``models.tiers.<tier>.batch``.

Per batch: each request is admitted against its agent's share at the **batch price** (LiteLLM's price table
``*_batches`` entries; 50 % of the list price when the table has none), the batch is created, polled,
and each result is settled at the batch price with one transcript row (``request.batch_id`` names the batch).
A request that errored or expired gets ``None``: the caller plays it with a direct call. Retries of create,
poll and results follow the gateway's policy (the SDK's own retries are off).
"""

from __future__ import annotations

import os
from typing import Any, Protocol

import litellm

from cosci.config.thinking import ThinkingCfg
from cosci.domain import Call
from cosci.llm import errors as E
from cosci.llm.budget.admission import Admission, admit_call
from cosci.llm.budget.sizing import CHARS_PER_TOKEN_BOUND
from cosci.llm.gateway.adapter import Gateway
from cosci.llm.gateway.exceptions import map_exception
from cosci.llm.port.thinking import thinking_params
from cosci.llm.port.types import BatchRequest, CallSpec, LLMResponse, Route

BATCH_DISCOUNT = 0.5
"""The batch discount (half the list price, design.md#batches), used when the price table has no batch prices."""


class BatchEndpoint(Protocol):
    """A provider's batch API. Requests are ``{"custom_id", "params" (Anthropic Messages params), "meta"}``;
    results are Anthropic result entries ``{"custom_id", "result": {"type", "message"?}}``."""

    async def create(self, requests: list[dict[str, Any]]) -> str: ...

    async def ended(self, batch_id: str) -> bool: ...

    async def results(self, batch_id: str) -> list[dict[str, Any]]: ...


class AnthropicBatches:
    """Anthropic Message Batches through the ``anthropic`` SDK (its retries off: the gateway retries)."""

    def __init__(self, api_key_env: str | None, http_client: Any = None) -> None:
        import anthropic

        self.client = anthropic.AsyncAnthropic(api_key=os.environ.get(api_key_env or "ANTHROPIC_API_KEY"),
                                               max_retries=0, http_client=http_client)

    async def create(self, requests: list[dict[str, Any]]) -> str:
        batch = await self.client.messages.batches.create(
            requests=[{"custom_id": r["custom_id"], "params": r["params"]} for r in requests])  # type: ignore[misc]
        return str(batch.id)

    async def ended(self, batch_id: str) -> bool:
        return (await self.client.messages.batches.retrieve(batch_id)).processing_status == "ended"

    async def results(self, batch_id: str) -> list[dict[str, Any]]:
        return [entry.model_dump() async for entry in await self.client.messages.batches.results(batch_id)]


def anthropic_params(spec: CallSpec, table: ThinkingCfg | None = None) -> dict[str, Any]:
    """Anthropic Messages params of a single-turn text call (a pairwise match): system blocks with their cache
    markers, the user message, max tokens, and thinking in the tier's form (``table``: the budget -> effort
    table; docs/design.md#thinking-forms)."""
    route = spec.route
    params: dict[str, Any] = {
        "model": route.model.split("/", 1)[1], "max_tokens": route.max_output_tokens,
        "system": [{"type": "text", "text": b.text, **({"cache_control": {"type": "ephemeral"}} if b.cache else {})}
                   for b in spec.system],
        "messages": [{"role": m["role"], "content": m["content"]} for m in spec.messages]}
    think = thinking_params(route, table, thinking=spec.thinking, forced=False)
    params.update({k: v for k, v in think.items() if k in ("thinking", "output_config")})
    return params


def batch_price(model: str, kind: str, *, batched: bool = True) -> float:
    """USD per token of ``kind`` (``input_cost_per_token``, ``output_cost_per_token``, ``cache_read_input_token_cost``,
    ``cache_creation_input_token_cost``) at the batch price, or at the list price (``batched=False``); 0.0 for a
    model the price table does not know."""
    try:
        info: Any = litellm.get_model_info(model)
    except Exception:
        return 0.0
    if not batched:
        return float(info.get(kind) or 0.0)
    price = info.get(f"{kind}_batches")
    return float(price) if price is not None else BATCH_DISCOUNT * float(info.get(kind) or 0.0)


def batch_cost(model: str, usage: dict[str, Any], *, batched: bool = True) -> float:
    """USD of one batched call from Anthropic ``usage`` (uncached input, cache reads and writes, output), at the
    batch price, or at the list price the same call would have cost sent directly (``batched=False``)."""
    def price(kind: str) -> float:
        return batch_price(model, kind, batched=batched)

    return (int(usage.get("input_tokens") or 0) * price("input_cost_per_token")
            + int(usage.get("output_tokens") or 0) * price("output_cost_per_token")
            + int(usage.get("cache_read_input_tokens") or 0) * price("cache_read_input_token_cost")
            + int(usage.get("cache_creation_input_tokens") or 0) * price("cache_creation_input_token_cost"))


def _response(model: str, message: dict[str, Any]) -> LLMResponse:
    usage = message.get("usage") or {}
    cached_read = int(usage.get("cache_read_input_tokens") or 0)
    cached_write = int(usage.get("cache_creation_input_tokens") or 0)
    blocks = message.get("content") or []
    return LLMResponse(
        text="".join(b.get("text", "") for b in blocks if b.get("type") == "text"), tool_calls=[],
        thinking_blocks=[b for b in blocks if b.get("type") == "thinking"], finish_reason=message.get("stop_reason"),
        model=model, input_tokens=int(usage.get("input_tokens") or 0) + cached_read + cached_write,
        output_tokens=int(usage.get("output_tokens") or 0), cache_read_tokens=cached_read,
        cache_write_tokens=cached_write, cost_usd=batch_cost(model, usage))


class BatchGateway:
    """The gateway's batch side (:class:`~cosci.llm.port.types.BatchPort`): budget, transcripts, retries, endpoints.

    Args:
        gateway: the session's gateway (its config, budget, recorder and retry policy).
        endpoints: model prefix -> endpoint; default: ``anthropic/`` (SDK) and ``cosci-fake/`` (the fake's).
    """

    def __init__(self, gateway: Gateway, endpoints: dict[str, BatchEndpoint] | None = None) -> None:
        self.gateway = gateway
        self.endpoints = endpoints or {}
        self._reserved: dict[str, Admission] = {}

    def supports(self, route: Route) -> bool:
        entry = self.gateway.config.models.tiers.get(route.tier)
        return bool(entry and entry.batch and self._endpoint(route) is not None)

    def _endpoint(self, route: Route) -> BatchEndpoint | None:
        prefix = route.model.split("/", 1)[0] + "/"
        if prefix not in self.endpoints:
            if prefix == "anthropic/":
                self.endpoints[prefix] = AnthropicBatches(route.api_key_env)
            elif prefix == "cosci-fake/":
                from cosci.llm.fake.batches import FakeBatches

                self.endpoints[prefix] = FakeBatches()
            else:
                return None
        return self.endpoints[prefix]

    async def _call(self, route: Route, fn: Any, *args: Any) -> Any:
        async for trial in self.gateway.retrying():
            with trial:
                try:
                    return await fn(*args)
                except E.LLMError:
                    raise
                except Exception as exc:
                    raise _map(exc, route.model) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    async def submit(self, requests: list[BatchRequest]) -> tuple[str, list[str]]:
        """Admit each request at the batch price and create one batch of those admitted. If creating it fails, or a
        request is :class:`~cosci.llm.errors.BudgetBusy` (raised), the requests admitted are refunded.

        Returns:
            ``(batch id, refused custom ids)``; the id is ``""`` when every request was refused.
        """
        route = requests[0].spec.route
        admitted: list[dict[str, Any]] = []
        admissions: dict[str, Admission] = {}
        refused: list[str] = []
        try:
            for r in requests:
                chars = sum(len(b.text) for b in r.spec.system) + sum(len(str(m["content"])) for m in r.spec.messages)
                tokens_in = chars // CHARS_PER_TOKEN_BOUND + 1
                est = (tokens_in * batch_price(route.model, "input_cost_per_token")
                       + route.max_output_tokens * batch_price(route.model, "output_cost_per_token"))
                try:
                    admissions[r.custom_id] = await admit_call(self.gateway.budget, route.agent, est,
                                                               tokens_in + route.max_output_tokens)
                except E.BudgetExceeded as exc:
                    refused.append(r.custom_id)
                    self._record(r, outcome="error:budget", error=str(exc))
                    continue
                params = anthropic_params(r.spec, self.gateway.config.thinking)
                admitted.append({"custom_id": r.custom_id, "params": params,
                                 "meta": {"cosci_agent": route.agent, "cosci_mode": route.mode,
                                          "cosci_action": r.spec.action, "cosci_task_id": r.spec.task_id}})
            if not admitted:
                return "", refused
            endpoint = self._endpoint(route)
            assert endpoint is not None
            batch_id = str(await self._call(route, endpoint.create, admitted))
        except BaseException:
            for admission in admissions.values():
                admission.refund()
            raise
        self._reserved.update(admissions)  # held until the batch's results settle them
        return batch_id, refused

    async def ended(self, route: Route, batch_id: str) -> bool:
        endpoint = self._endpoint(route)
        assert endpoint is not None
        return bool(await self._call(route, endpoint.ended, batch_id))

    async def results(self, route: Route, batch_id: str,
                      requests: list[BatchRequest]) -> dict[str, LLMResponse | None]:
        """Responses of an ended batch, settled at the batch price; ``None`` for errored or expired ones."""
        endpoint = self._endpoint(route)
        assert endpoint is not None
        entries = {e["custom_id"]: e["result"] for e in await self._call(route, endpoint.results, batch_id)}
        out: dict[str, LLMResponse | None] = {}
        for r in requests:
            result = entries.get(r.custom_id) or {"type": "expired"}
            if result.get("type") == "succeeded":
                resp = _response(route.model, result["message"])
                self._settle(r, resp.cost_usd, resp.input_tokens + resp.output_tokens)
                self._record(r, outcome="ok", resp=resp, batch_id=batch_id)
                out[r.custom_id] = resp
            else:
                self._settle(r, 0.0, 0)
                self._record(r, outcome=f"error:batch_{result.get('type', 'errored')}", batch_id=batch_id,
                             error=str((result.get("error") or {}).get("error", {}).get("message", ""))[:500]
                             if isinstance(result.get("error"), dict) else None)
                out[r.custom_id] = None
        return out

    def reserved_usd(self, custom_id: str) -> float:
        """USD held for a submitted request until its result is settled (its upper bound at the batch price; 0 once
        settled or unknown): what the session owes the provider for it at most."""
        admission = self._reserved.get(custom_id)
        return admission.usd if admission is not None else 0.0

    def _settle(self, r: BatchRequest, usd: float, tokens: int) -> None:
        # a resumed session has no reservation for a batch submitted before: book the actual cost directly
        admission = (self._reserved.pop(r.custom_id, None)
                     or Admission.unreserved(self.gateway.budget, r.spec.route.agent))
        admission.settle(usd, tokens)

    def _record(self, r: BatchRequest, *, outcome: str, resp: LLMResponse | None = None,
                batch_id: str | None = None, error: str | None = None) -> None:
        route = r.spec.route
        usage: dict[str, Any] = {}
        if resp is not None:
            usage = {"input_tokens": resp.input_tokens, "output_tokens": resp.output_tokens,
                     "cache_read_tokens": resp.cache_read_tokens, "cache_write_tokens": resp.cache_write_tokens,
                     "cost_usd": resp.cost_usd}
        self.gateway.recorder(Call(
            agent=route.agent, action=r.spec.action, mode=route.mode, model=route.model, task_id=r.spec.task_id,
            attempt=1, outcome=outcome, error=error, **usage,
            request={"batch_id": batch_id, "custom_id": r.custom_id, "messages": r.spec.messages},
            response=resp.assistant_message() if resp else None))


def _map(exc: Exception, model: str) -> E.LLMError:
    """The SDK's errors in cosci's hierarchy (status codes as in :func:`cosci.llm.gateway.exceptions.map_exception`)."""
    import anthropic

    msg = " ".join(str(exc).split())[:500]
    if isinstance(exc, anthropic.APITimeoutError):
        return E.CallTimeout(msg, model=model)
    if isinstance(exc, anthropic.APIConnectionError):
        return E.ConnectionFailed(msg, model=model)
    return map_exception(exc, model)
