"""Recorded Anthropic and OpenAI responses replayed through LiteLLM's real request and response handling.

The gateway calls ``litellm.acompletion`` against ``api.anthropic.com`` / ``api.openai.com``; respx answers
with the recorded bodies in ``tests/fixtures/{anthropic,openai,errors}`` (sources in
``tests/fixtures/README.md``), so LiteLLM builds the real provider request, parses the real provider response,
maps the real error bodies and prices the call. No request leaves the process: respx fails the test on any
unmocked request. LiteLLM's default aiohttp transport bypasses httpx (and so respx); the tests switch it off.

Two variants are derived in the tests (never written back): the recordings' cache counters are 0, so a copy
with non-zero counters checks that cache reads and writes are picked up.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import httpx
import litellm
import pytest
import respx

from cosci.config.schema import CosciConfig
from cosci.llm import errors as E
from cosci.llm.gateway.adapter import Gateway
from cosci.llm.port.structured import call_record, parse_record
from cosci.llm.port.types import CallSpec, TextBlock, ToolSpec
from cosci.records import Record
from tests.llm.helpers import WHOLE, harness, make_config, recorded, replayed_wire

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
QUESTION = "What is the largest city in my country?"
OPENAI_URL = "https://api.openai.com/v1/chat/completions"


ANTHROPIC_BODY = recorded("anthropic/messages_thinking_text_tool_use.json")
OPENAI_BODY = recorded("openai/chat_completion_tool_calls.json")
RATE_LIMIT_BODY = recorded("errors/anthropic_429_rate_limit.json")
OVERLOADED_BODY = recorded("errors/anthropic_529_overloaded.json")


class GetUserCountry(Record):
    """The record tool of the Anthropic recording (its ``tool_use`` has empty ``input``)."""

    tool_name: ClassVar[str] = "get_user_country"
    tool_description: ClassVar[str] = "Return the user's country."


class PaperSearch(Record):
    """The record tool of the OpenAI recording."""

    tool_name: ClassVar[str] = "paper_search"
    tool_description: ClassVar[str] = "Search for papers."

    query: str
    min_year: int | None = None
    max_year: int | None = None


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[respx.MockRouter]:
    """respx over LiteLLM's httpx transport, with dummy keys; unmocked requests fail the test."""
    with replayed_wire(monkeypatch, ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")) as router:
        yield router


@pytest.fixture
def opus(tmp_path: Path) -> CosciConfig:
    """Anthropic tiers (strong = Opus with thinking); room in the budget for Opus-priced estimates."""
    return make_config(tmp_path / "data", "models=opus", "run.budget_usd=25", "retry.max_delay_seconds=60", *WHOLE)


@pytest.fixture
def openai(tmp_path: Path) -> CosciConfig:
    # gpt-5.1: an older GPT-5 name whose tool calls with reasoning stay on chat completions, the recorded bodies' API
    # (GPT-6 takes them on the Responses API: tests/llm/test_request_contracts.py)
    return make_config(tmp_path / "data", "models=openai", "run.budget_usd=25", *WHOLE,
                       *(f"models.tiers.{t}.model=openai/gpt-5.1" for t in ("strong", "cheap", "mini")))


def anthropic_spec(gw: Gateway, messages: list[dict[str, Any]] | None = None) -> CallSpec:
    return CallSpec(route=gw.router.route("generation", "literature"), action="CreateInitialHypotheses",
                    system=[TextBlock("Safety preamble.", cache=True), TextBlock("Per-task feedback.")],
                    messages=messages or [{"role": "user", "content": QUESTION}],
                    tools=[ToolSpec("get_user_country", "Return the user's country.",
                                    {"type": "object", "properties": {}})], tool_choice="auto")


def sent(route: respx.Route, i: int = -1) -> dict[str, Any]:
    return json.loads(route.calls[i].request.content)


def cost_of(model: str, prompt: int, completion: int) -> float:
    cin, cout = litellm.cost_per_token(model=model, prompt_tokens=prompt, completion_tokens=completion)
    return float(cin + cout)


# --- Anthropic: thinking, text and a tool call ------------------------------------------------------------
async def test_anthropic_response_is_parsed_through_litellm(wire: respx.MockRouter,
                                                             opus: CosciConfig) -> None:
    h = harness(opus)
    route = wire.post(ANTHROPIC_URL).mock(return_value=httpx.Response(200, json=ANTHROPIC_BODY))

    resp = await h.gateway.complete(anthropic_spec(h.gateway))

    # what was sent: Anthropic's wire format, built by LiteLLM from the gateway's request
    assert route.call_count == 1
    request = route.calls[0].request
    assert request.headers["x-api-key"] == "test-key"
    body = sent(route)
    assert body["model"] == "claude-opus-5"
    assert body["tool_choice"] == {"type": "auto"}
    # Opus 4.7 takes adaptive thinking only: generation.literature's 4,000-token budget is effort "low"
    # (conf/config.yaml thinking.efforts), max_tokens stays the mode's cap, and no budget_tokens is sent
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body["output_config"] == {"effort": "low"}
    assert body["max_tokens"] == 12192 and "budget_tokens" not in json.dumps(body)
    assert [t["name"] for t in body["tools"]] == ["get_user_country"]
    assert body["system"] == [
        {"type": "text", "text": "Safety preamble.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Per-task feedback."}]
    # a tool loop's latest turn is a breakpoint (design.md#caching), and so is its last tool definition
    assert body["messages"] == [{"role": "user", "content": [
        {"type": "text", "text": QUESTION, "cache_control": {"type": "ephemeral"}}]}]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}

    # what came back
    [block_thinking, block_text, block_tool] = ANTHROPIC_BODY["content"]
    [call] = resp.tool_calls
    assert (call.id, call.name) == (block_tool["id"], "get_user_country")
    assert json.loads(call.arguments) == block_tool["input"] == {}
    assert resp.text == block_text["text"]
    [thinking] = resp.thinking_blocks
    assert thinking["type"] == "thinking"
    assert thinking["thinking"] == block_thinking["thinking"]
    assert thinking["signature"] == block_thinking["signature"]
    assert resp.finish_reason == "tool_calls"
    assert (resp.input_tokens, resp.output_tokens) == (398, 155)
    assert (resp.cache_read_tokens, resp.cache_write_tokens) == (0, 0)
    assert resp.cost_usd > 0
    assert resp.cost_usd == pytest.approx(cost_of("anthropic/claude-opus-5", 398, 155))
    assert h.outcomes == ["ok"] and h.records[0].cost_usd == resp.cost_usd
    assert h.budget.total_spent_usd == pytest.approx(resp.cost_usd)

    # the recorded call has empty input: for a record tool that is a typed error, not a crash
    with pytest.raises(E.EmptyArguments):
        parse_record(resp, GetUserCountry)


async def test_thinking_blocks_are_sent_back_on_the_next_turn(wire: respx.MockRouter,
                                                               opus: CosciConfig) -> None:
    h = harness(opus)
    route = wire.post(ANTHROPIC_URL).mock(return_value=httpx.Response(200, json=ANTHROPIC_BODY))
    first = await h.gateway.complete(anthropic_spec(h.gateway))
    history = [{"role": "user", "content": QUESTION}, first.assistant_message(),
               {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "France"}]

    await h.gateway.complete(anthropic_spec(h.gateway, history))

    assistant = sent(route)["messages"][1]
    assert assistant["role"] == "assistant"
    kinds = [b["type"] for b in assistant["content"]]
    assert kinds[0] == "thinking" and "tool_use" in kinds  # thinking first, as Anthropic requires
    assert assistant["content"][0]["signature"] == ANTHROPIC_BODY["content"][0]["signature"]
    tool_result = sent(route)["messages"][2]["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == first.tool_calls[0].id


async def test_a_forced_record_keeps_adaptive_thinking(wire: respx.MockRouter, opus: CosciConfig) -> None:
    """Adaptive thinking accepts a forced tool (the model then skips thinking), so a forced call keeps the
    route's thinking setting; the budget form drops it (tests/llm/test_request_contracts.py)."""
    h = harness(opus)
    route = wire.post(ANTHROPIC_URL).mock(return_value=httpx.Response(200, json=ANTHROPIC_BODY))
    spec = anthropic_spec(h.gateway)
    spec.tool_choice = "get_user_country"  # forced, on a route that has a thinking budget

    await h.gateway.complete(spec)

    body = sent(route)
    assert body["tool_choice"] == {"type": "tool", "name": "get_user_country"}
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body["output_config"] == {"effort": "low"}


async def test_anthropic_cache_counters_are_read(wire: respx.MockRouter, opus: CosciConfig) -> None:
    variant = copy.deepcopy(ANTHROPIC_BODY)
    variant["usage"].update(cache_creation_input_tokens=1200, cache_read_input_tokens=3000)
    wire.post(ANTHROPIC_URL).mock(return_value=httpx.Response(200, json=variant))
    h = harness(opus)

    resp = await h.gateway.complete(anthropic_spec(h.gateway))

    assert (resp.cache_read_tokens, resp.cache_write_tokens) == (3000, 1200)
    assert resp.input_tokens >= 398  # LiteLLM's prompt_tokens counts the cached tokens too
    assert resp.cost_usd > cost_of("anthropic/claude-opus-5", 398, 155)  # cache reads/writes are billed
    assert (h.records[0].cache_read_tokens, h.records[0].cache_write_tokens) == (3000, 1200)


# --- OpenAI: a forced tool call ---------------------------------------------------------------------------
async def test_openai_record_is_parsed_through_litellm(wire: respx.MockRouter, openai: CosciConfig) -> None:
    h = harness(openai)
    route = wire.post(OPENAI_URL).mock(return_value=httpx.Response(200, json=OPENAI_BODY))
    spec = CallSpec(route=h.gateway.router.route("generation", "literature"), action="Literature",
                    system=[TextBlock("Safety preamble.", cache=True)],
                    messages=[{"role": "user", "content": "Who was Frederick Bates?"}])

    record, resp = await call_record(h.gateway, spec, PaperSearch)

    body = sent(route)
    assert route.call_count == 1  # no thinking on this tier: one forced call
    assert route.calls[0].request.headers["authorization"] == "Bearer test-key"
    assert body["model"] == "gpt-5.1"
    assert body["tool_choice"] == {"type": "function", "function": {"name": "paper_search"}}
    assert [t["function"]["name"] for t in body["tools"]] == ["paper_search"]
    assert "thinking" not in body
    assert record == PaperSearch(query="Frederick Bates", min_year=None, max_year=None)
    [call] = resp.tool_calls
    assert call.id == "call_gv6koqdo4FVxaXN6KZausOky" and call.name == "paper_search"
    assert resp.thinking_blocks == [] and resp.text == ""
    assert (resp.input_tokens, resp.output_tokens) == (632, 28)
    assert (resp.cache_read_tokens, resp.cache_write_tokens) == (0, 0)
    assert resp.cost_usd > 0
    assert h.outcomes == ["ok"] and h.records[0].cost_usd == resp.cost_usd


async def test_openai_cached_tokens_are_read(wire: respx.MockRouter, openai: CosciConfig) -> None:
    variant = copy.deepcopy(OPENAI_BODY)
    variant["usage"]["prompt_tokens_details"]["cached_tokens"] = 512
    wire.post(OPENAI_URL).mock(return_value=httpx.Response(200, json=variant))
    h = harness(openai)
    spec = CallSpec(route=h.gateway.router.route("generation", "literature"), action="x", system=[],
                    messages=[{"role": "user", "content": "q"}])
    _, resp = await call_record(h.gateway, spec, PaperSearch)
    assert (resp.input_tokens, resp.cache_read_tokens) == (632, 512)


def test_parse_response_gives_the_openai_history_format() -> None:
    """``Gateway.parse_response`` over a LiteLLM ``ModelResponse`` built from the raw OpenAI body."""
    from litellm.types.utils import ModelResponse

    openai_resp = Gateway.parse_response(ModelResponse(**copy.deepcopy(OPENAI_BODY)), "openai/gpt-4o", 0.1)
    assert openai_resp.assistant_message() == {
        "role": "assistant", "content": None, "tool_calls": [{
            "id": "call_gv6koqdo4FVxaXN6KZausOky", "type": "function", "function": {
                "name": "paper_search",
                "arguments": '{"query":"Frederick Bates","min_year":null,"max_year":null}'}}]}
    assert openai_resp.cost_usd > 0 and openai_resp.latency_seconds == 0.1


# --- recorded error bodies --------------------------------------------------------------------------------
@pytest.mark.parametrize(("status", "body", "kind", "headers"), [
    (429, RATE_LIMIT_BODY, "rate_limit", {"retry-after": "7"}),
    (529, OVERLOADED_BODY, "overloaded", {}),
], ids=["429-rate-limit", "529-overloaded"])
async def test_recorded_errors_are_transient_and_retried(wire: respx.MockRouter, opus: CosciConfig,
                                                         status: int, body: dict[str, Any], kind: str,
                                                         headers: dict[str, str]) -> None:
    h = harness(opus)
    route = wire.post(ANTHROPIC_URL).mock(side_effect=[httpx.Response(status, json=body, headers=headers),
                                                       httpx.Response(200, json=ANTHROPIC_BODY)])

    resp = await h.gateway.complete(anthropic_spec(h.gateway))

    assert route.call_count == 2  # LiteLLM made no retries of its own
    assert sent(route, 0) == sent(route, 1)
    assert h.outcomes == [f"retry:{kind}", "ok"]
    assert body["error"]["message"] in (h.records[0].error or "")
    assert resp.tool_calls[0].name == "get_user_country"
    if headers:
        assert h.waits[0] == 7.0  # the Retry-After of the 429
    assert h.budget.total_spent_usd == pytest.approx(resp.cost_usd)


@pytest.mark.parametrize(("status", "body", "error", "attempts_key"), [
    (429, RATE_LIMIT_BODY, E.RateLimited, "rate_limit_attempts"),
    (529, OVERLOADED_BODY, E.Overloaded, "overloaded_attempts"),
], ids=["429-rate-limit", "529-overloaded"])
async def test_recorded_errors_map_to_typed_transient_errors(wire: respx.MockRouter, opus: CosciConfig,
                                                             status: int, body: dict[str, Any],
                                                             error: type[E.TransientLLMError],
                                                             attempts_key: str) -> None:
    h = harness(opus)
    route = wire.post(ANTHROPIC_URL).mock(return_value=httpx.Response(status, json=body,
                                                                      headers={"retry-after": "2"}))

    with pytest.raises(error) as info:
        await h.gateway.complete(anthropic_spec(h.gateway))

    attempts = getattr(opus.retry, attempts_key)
    assert isinstance(info.value, E.TransientLLMError)
    assert info.value.model == "anthropic/claude-opus-5" and info.value.retry_after == 2.0
    assert route.call_count == attempts
    assert h.outcomes[-1] == f"error:{error.kind}"
    assert h.budget.total_spent_usd == 0.0
