"""The gateway: cosci's one adapter over LiteLLM, implementing :class:`cosci.llm.port.types.LLMPort`.

Owns, for every provider call: the LiteLLM request (prompt-cache markers, thinking, forced tools, constrained
output), the budget admission and settlement, cost and cache-token extraction, the transcript record of every
attempt, retries, and the degradation chain. Provider exceptions become :mod:`cosci.llm.errors` in
:mod:`.exceptions`.

Retries: **the gateway is the one owner of retries for provider calls.** Transient errors (rate limit,
overloaded, 5xx, timeout, connection) are retried here with exponential backoff and full jitter (tenacity),
never shorter than the provider's ``Retry-After`` (which is itself capped at ``retry.max_delay_seconds``,
60 s); attempts per error kind follow the retry table of design.md#retries
(429: 6, 529: 8, 5xx: 5, timeout: 3). LiteLLM's own retries are off (``num_retries=0``). A host that cannot be
reached at all (its name, a refused port) is tried twice, then ends the session (design.md#unreachable-hosts).
Other non-transient errors are never retried. A whole agent action may be attempted again by the flow (3 attempts,
then dead) only after a call's retries ran out or its answer was not a valid record.

Deadlines (design.md#retries): LiteLLM's ``timeout`` bounds each read, not the call, so a server that
trickles its body one byte at a time keeps a call alive indefinitely. Every provider call therefore runs under
a deadline, ``route.timeout_seconds``: the fixed timeout (design.md#retries: 120 s, 300 s with thinking) for a
call sent whole, or, for a call whose cap at its tier's output speed would outlast that, a longer one under which
it is streamed with an idle timeout (:mod:`.streaming`, design.md#long-calls). Expiry is a
:class:`~cosci.llm.errors.CallTimeout`, retried per the table like any timeout; a streamed call's
(:class:`~cosci.llm.errors.StreamTimeout`) once more at most. In-process providers (the embedded model, the
fake) have none (:func:`deadline`).

Request forms (design.md#thinking-forms): the thinking fields come from the tier's form
(:mod:`cosci.llm.port.thinking`); cache breakpoints (:mod:`.cache_marks`) go only to tiers that cache them
(``Route.caches``). A permanent
error carries the provider's own message (:mod:`.error_text`); a request too large is never retried.

Schema-constrained record calls on Ollama (design.md#routing): Ollama ignores ``tool_choice``, so a forced record call
is sent with the record's JSON schema as ``format`` (LiteLLM's ``response_format`` → Ollama ``format``) and no
tools; the JSON answer comes back as the record tool's call, as with the embedded model.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price map (LiteLLM would download it)

import litellm
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type
from tenacity.wait import wait_random_exponential

from cosci.config.schema import CosciConfig, RetryCfg
from cosci.domain import Call
from cosci.llm import errors as E
from cosci.llm.budget.admission import Admission, admit_call
from cosci.llm.budget.sizing import OutputSizer, expected_input_tokens
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.gateway.answer_forms import FORMAT_PROVIDERS, as_record_call, deadline, format_tool, valid_utf8
from cosci.llm.gateway.cache_marks import mark
from cosci.llm.gateway.exceptions import map_exception
from cosci.llm.gateway.prices import estimate_call, output_room
from cosci.llm.gateway.providers import CUSTOM_PROVIDERS, register_providers
from cosci.llm.gateway.routing import Router, num_ctx
from cosci.llm.gateway.streaming import stream_completion
from cosci.llm.gateway.transcript_rows import output_speed, recorded_request
from cosci.llm.port.thinking import thinking_params
from cosci.llm.port.types import CallSpec, LLMResponse, Route, ToolCall
from cosci.startup import mark as mark_phase

log = logging.getLogger(__name__)
litellm.suppress_debug_info = True
for _name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "httpx"):
    logging.getLogger(_name).setLevel(logging.WARNING)


def _not_loop_change(record: logging.LogRecord) -> bool:
    """False for LiteLLM's notice that its logging worker moved its pending tasks to a new event loop: a CLI
    command that runs ``asyncio.run`` more than once (the safety screen, then the command) gets it on the
    terminal, though the tasks are carried over, not lost (a refusal is one line: design.md#cli)."""
    return not str(record.msg).startswith("LoggingWorker: event loop changed")


logging.getLogger("LiteLLM").addFilter(_not_loop_change)

RESERVE_MODES = frozenset({"goal_parsing.parse_goal", "metareview.final", "safety.classify", "metareview.audit",
                           "metareview.claim_check"})
"""Calls that may draw on the budget reserve (design.md#budget): goal parsing, the final overview, its audit and
the support check of its claims, and the safety classifier; the reserve is the buffer that must not starve."""
RETRIED = (E.TransientLLMError, E.HostUnreachable)
"""Errors the gateway tries again (per the retry table); a host unreachable is permanent once its attempts are out."""

Recorder = Callable[[Call], None]


class Gateway:
    """The LiteLLM-backed :class:`~cosci.llm.port.types.LLMPort`.

    Args:
        config: the validated session config (models, retry table).
        budget: the session's :class:`TokenBudget`.
        recorder: receives a :class:`~cosci.domain.Call` for every call attempt (the transcripts table).
        sleep: the wait between retries (replaced in tests).
        calls: the most provider calls out at once (a session's ``run.concurrency``), or None: no limit here. Each
            attempt takes a call slot for its admission and its request only (:meth:`call_slot`), so the actions of
            a session may outnumber its calls (design.md#supervisor, "A slot is a model call").
    """

    def __init__(self, config: CosciConfig, budget: TokenBudget, recorder: Recorder | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, calls: int | None = None) -> None:
        register_providers(config)
        self.config = config
        self.router = Router(config)
        self.budget = budget
        self.recorder = recorder or (lambda rec: None)
        self.retry: RetryCfg = config.retry
        self.sleep = sleep
        self.sizer = OutputSizer()
        self.stepped: set[str] = set()
        """The steps down the degradation chain already printed (``<model> -> <model>``)."""
        self.calls = asyncio.Semaphore(calls) if calls else None

    def call_slot(self) -> AbstractAsyncContextManager[object]:
        """One of the session's call slots, held by a provider call from its budget admission to its answer (or
        error): at most ``calls`` are out at once, whatever the number of actions in flight. An attempt waiting
        for a slot holds no admission, so the budget sees the calls out as before (design.md#supervisor); a retry's
        wait holds no slot. Without ``calls``, no limit (a command's own gateway)."""
        return self.calls if self.calls is not None else contextlib.nullcontext()

    # --- the port ----------------------------------------------------------------------------------------
    async def complete(self, spec: CallSpec) -> LLMResponse:
        """Call the model of ``spec.route`` (stepping down the degradation chain if it is unavailable).

        Raises:
            TransientLLMError: retries exhausted.
            PermanentLLMError: not retried.
            BudgetExceeded: not admitted.
        """
        route = spec.route
        while True:
            try:
                return await self._with_retries(spec, route)
            except E.ModelUnavailable as exc:
                nxt = self.router.degrade(route)  # raises for never-degrade modes / end of chain
                self._stepped_down(spec, route, nxt, exc)
                route = nxt

    def _stepped_down(self, spec: CallSpec, route: Route, nxt: Route, exc: E.ModelUnavailable) -> None:
        """A step down the degradation chain: recorded on every call (a ``degraded`` transcript row whose error is
        ``<model> -> <model>``, which ``cosci status`` and ``cosci report`` show) and printed once per pair of
        models (design.md#routing)."""
        step = f"{route.model} -> {nxt.model}"
        self.recorder(Call(agent=route.agent, action=spec.action, mode=route.mode, model=route.model,
                           task_id=spec.task_id, attempt=0, outcome="degraded", error=step))
        if step not in self.stepped:
            self.stepped.add(step)
            print(f"cosci: {route.model} is unavailable ({' '.join(str(exc).split())[:200]}); its calls step down "
                  f"to {nxt.model} (design.md#routing)", file=sys.stderr)

    # --- retries -----------------------------------------------------------------------------------------
    def max_attempts(self, exc: BaseException | None) -> int:
        """Attempts allowed for this error kind (the retry table of design.md#retries); 1 for errors never retried."""
        r = self.retry
        table: dict[type, int] = {
            E.RateLimited: r.rate_limit_attempts, E.Overloaded: r.overloaded_attempts,
            E.ServerError: r.server_error_attempts, E.CallTimeout: r.timeout_attempts,
            E.ConnectionFailed: r.timeout_attempts, E.HostUnreachable: r.unreachable_attempts,
            E.StreamTimeout: min(r.timeout_attempts, r.stream_timeout_attempts)}
        return table.get(type(exc), 1)

    def retrying(self) -> AsyncRetrying:
        """The gateway's retry policy for a provider call made beside it (hosted embeddings, design.md#retries), so that
        every provider call has this one retry owner."""
        return AsyncRetrying(retry=retry_if_exception_type(RETRIED), stop=self._stop,
                             wait=self._wait, sleep=self.sleep, reraise=True)

    def _stop(self, state: RetryCallState) -> bool:
        exc = state.outcome.exception() if state.outcome else None
        return state.attempt_number >= self.max_attempts(exc)

    def _wait(self, state: RetryCallState) -> float:
        backoff = wait_random_exponential(multiplier=self.retry.base_delay_seconds,
                                          max=self.retry.max_delay_seconds)
        exc = state.outcome.exception() if state.outcome else None
        after = getattr(exc, "retry_after", None) or 0.0
        return max(float(backoff(state)), min(float(after), self.retry.max_delay_seconds))

    async def _with_retries(self, spec: CallSpec, route: Route) -> LLMResponse:
        attempt = 0
        async for trial in self.retrying():
            with trial:
                attempt += 1
                return await self._attempt(spec, route, attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    # --- one attempt -------------------------------------------------------------------------------------
    async def _attempt(self, spec: CallSpec, route: Route, attempt: int) -> LLMResponse:
        kwargs = self.request(spec, route)
        input_chars = len(str(kwargs["messages"])) + len(str(kwargs.get("tools", "")))
        base: dict[str, Any] = {"agent": route.agent, "action": spec.action, "mode": route.mode,
                                "model": route.model, "task_id": spec.task_id, "attempt": attempt}
        async with self.call_slot():  # admission and request only: the rest of the action runs beside the calls
            try:
                admission = await self._admit(route, input_chars, kwargs)
            except E.BudgetError as exc:
                self.recorder(Call(**base, outcome="error:budget", error=str(exc)))
                raise
            if admission.max_output_tokens is not None:  # admitted capped to what the money left holds
                kwargs["max_tokens"] = admission.max_output_tokens
            started = time.perf_counter()
            with admission:  # cancelled (deadline, abort) or failed unsettled: refunded, or it is held for good
                try:
                    raw, first_token = await self._send(kwargs, route)
                except Exception as exc:  # every provider error is mapped, recorded, then retried or raised
                    admission.refund()
                    err = self._error(exc, route, input_chars)
                    will_retry = isinstance(err, RETRIED) and attempt < self.max_attempts(err)
                    self.recorder(Call(**base, outcome=f"{'retry' if will_retry else 'error'}:{err.kind}",
                                       latency_seconds=time.perf_counter() - started, error=str(err)))
                    raise err from exc
                resp = self.parse_response(raw, route.model, time.perf_counter() - started)
                if tool := format_tool(spec, route):
                    resp = as_record_call(resp, tool)
                admission.settle(resp.cost_usd, resp.input_tokens + resp.output_tokens)
        self.sizer.observe(route.key, resp.output_tokens)
        self.recorder(Call(
            **base, outcome="ok", input_tokens=resp.input_tokens, output_tokens=resp.output_tokens,
            cache_read_tokens=resp.cache_read_tokens, cache_write_tokens=resp.cache_write_tokens,
            cost_usd=resp.cost_usd, latency_seconds=resp.latency_seconds, first_token_seconds=first_token,
            output_tokens_per_second=output_speed(resp.output_tokens, resp.latency_seconds, first_token),
            request=recorded_request(kwargs), response=resp.assistant_message(),
            system=kwargs["messages"][0]["content"]))
        return resp

    async def _send(self, kwargs: dict[str, Any], route: Route) -> tuple[Any, float | None]:
        """One provider call: streamed for a long answer (:mod:`.streaming`), else whole under its deadline (a
        deadline, not LiteLLM's per-read timeout). Returns ``(ModelResponse, first-token seconds or None)``."""
        mark_phase("model call")  # the start-up bench's last phase (cosci.startup)
        if route.api_key_env and (key := os.environ.get(route.api_key_env)):  # LiteLLM reads only its provider's
            kwargs = {**kwargs, "api_key": key}  # own variable (OPENAI_API_KEY), not a tier's (design.md#routing)
        limit = deadline(route)
        if route.stream and limit is not None:
            return await stream_completion(kwargs, deadline=limit, idle=route.idle_seconds,
                                           opening=self.retry.first_token_seconds)
        async with asyncio.timeout(limit):
            return await litellm.acompletion(**kwargs), None

    def _error(self, exc: Exception, route: Route, input_chars: int) -> E.LLMError:
        """The cosci error of a failed attempt: a streamed call's timeout is a :class:`~.errors.StreamTimeout`
        (retried less); a request too large names its size."""
        if route.stream and isinstance(exc, TimeoutError | E.CallTimeout):
            why = str(exc) or f"no complete answer within the streamed deadline of {route.timeout_seconds:.0f} s"
            return E.StreamTimeout(why, model=route.model)
        err = map_exception(exc, route.model, route.tier)
        if isinstance(err, E.RequestTooLarge):
            return E.RequestTooLarge(f"{str(err).removeprefix(route.model + ': ')} (this request: ~"
                                     f"{expected_input_tokens(input_chars)} input tokens by estimate, max_tokens "
                                     f"{route.max_output_tokens})", model=route.model)
        return err

    async def _admit(self, route: Route, input_chars: int, request: dict[str, Any]) -> Admission:
        """Admit a call at its expected cost (agent share) and upper bound (session cap) through
        :func:`~cosci.llm.budget.admission.admit_call`; one the money left cannot hold at its own cap may be admitted
        with ``max_tokens`` lowered, down to its useful minimum (:func:`~.prices.output_room`).

        A call that fits only once the calls in flight settle waits, up to ``budget.admission_wait_seconds``.

        Raises:
            BudgetExceeded: it cannot fit at all (the money ran out).
            BudgetBusy: it still did not fit when the wait ran out (its action goes back to the queue).
        """
        bound_usd, bound_tokens = estimate_call(route.model, input_chars, route.max_output_tokens)
        expected_out = self.sizer.expected(route.key, route.max_output_tokens, route.typical_output_tokens)
        usd, _ = estimate_call(route.model, input_chars, expected_out,
                               input_tokens=expected_input_tokens(input_chars))
        room = output_room(route.model, input_chars, route.max_output_tokens, expected_out, request)
        return await admit_call(self.budget, route.agent, usd, bound_tokens, bound_usd=bound_usd, room=room,
                                use_reserve=route.key in RESERVE_MODES,
                                wait_seconds=self.config.budget.admission_wait_seconds)

    def request(self, spec: CallSpec, route: Route) -> dict[str, Any]:
        """The ``litellm.acompletion`` keyword arguments for ``spec`` on ``route``: the thinking part in the form the
        tier's model documents (:mod:`cosci.llm.port.thinking`), cache markers only for tiers that cache them."""
        forced = spec.tool_choice not in (None, "auto", "none")
        # Anthropic rejects a forced tool together with thinking (design.md#prompts): thinking_params drops it
        think = thinking_params(route, self.config.thinking, thinking=spec.thinking, forced=forced)
        system = {"role": "system", "content": [{"type": "text", "text": b.text} for b in spec.system]}
        history = spec.messages if think else [
            {k: v for k, v in m.items() if k != "thinking_blocks"} for m in spec.messages]
        kwargs: dict[str, Any] = {
            "model": route.model, "messages": [system, *history], "max_tokens": route.max_output_tokens,
            "timeout": route.timeout_seconds, "num_retries": 0, **think,
            "metadata": {"cosci_agent": route.agent, "cosci_mode": route.mode, "cosci_action": spec.action,
                         "cosci_task_id": spec.task_id},
        }
        if route.api_base:
            kwargs["api_base"] = route.api_base
        if route.model.startswith(FORMAT_PROVIDERS):  # Ollama cuts a prompt past its 4k default silently
            kwargs["num_ctx"] = num_ctx(route, str(kwargs["messages"]) + str(spec.tools))
        if spec.tools:
            kwargs["tools"] = [{"type": "function",
                                "function": {"name": t.name, "description": t.description,
                                             "parameters": t.parameters}} for t in spec.tools]
            if spec.tool_choice:
                kwargs["tool_choice"] = ({"type": "function", "function": {"name": spec.tool_choice}}
                                         if forced else spec.tool_choice)
        if route.caches:  # breakpoints where a later call reads them (design.md#caching)
            mark(kwargs, route_key=route.key, marked_system=[b.cache for b in spec.system], forced=forced)
        if think and route.model.startswith(CUSTOM_PROVIDERS):
            kwargs["allowed_openai_params"] = list(think)
        if spec.response_schema is not None and route.constrained and not spec.tools:
            kwargs["response_format"] = {"type": "json_object", "schema": spec.response_schema}
        if format_tool(spec, route):
            (tool,) = [t for t in spec.tools if t.name == spec.tool_choice]
            del kwargs["tools"], kwargs["tool_choice"]
            kwargs["response_format"] = {"type": "json_schema",
                                         "json_schema": {"name": tool.name, "schema": tool.parameters}}
        return kwargs

    @staticmethod
    def parse_response(raw: Any, model: str, latency: float) -> LLMResponse:
        """Normalise a LiteLLM ``ModelResponse`` (any provider) into :class:`LLMResponse`, with usage and
        cost."""
        choice = raw.choices[0]
        msg = choice.message
        calls = [ToolCall(id=c.id or f"call_{i}", name=valid_utf8(c.function.name or ""),
                          arguments=valid_utf8(c.function.arguments or ""))
                 for i, c in enumerate(getattr(msg, "tool_calls", None) or [])]
        thinking = [dict(b) for b in (getattr(msg, "thinking_blocks", None) or [])]
        usage = getattr(raw, "usage", None)
        details = getattr(usage, "prompt_tokens_details", None)
        cost = (getattr(raw, "_hidden_params", None) or {}).get("response_cost")
        if cost is None:
            try:
                cost = litellm.completion_cost(completion_response=raw, model=model)
            except Exception:
                cost = 0.0
        return LLMResponse(
            text=valid_utf8(msg.content or ""), tool_calls=calls, thinking_blocks=thinking,
            finish_reason=choice.finish_reason,
            model=getattr(raw, "model", None) or model,
            input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cache_read_tokens=int(getattr(details, "cached_tokens", 0) or 0),
            cache_write_tokens=int(getattr(usage, "cache_creation_input_tokens", 0) or 0),
            cost_usd=float(cost or 0.0), latency_seconds=latency,
        )

