"""Exact request bodies per model family of ``conf/models/``, built by the gateway and LiteLLM and captured at the
transport (respx), and the families' real response bodies replayed through the parse path.

What each provider documents (docs/design.md#thinking-forms):

- Anthropic Opus 4.7 (``opus``): adaptive thinking only, ``thinking: {type: adaptive}`` with ``output_config.effort``;
  ``budget_tokens`` is refused with HTTP 400. The effort is conf/config.yaml's table applied to the mode's budget,
  and ``max_tokens`` stays the mode's cap.
- Anthropic's previous generation (``claude45``, Opus 4.5): ``thinking: {type: enabled, budget_tokens}``, the mode's
  budget as it is; a forced tool is refused together with it.
- OpenAI gpt-5 family (``openai``) and o-series (``openai_o``): ``reasoning_effort``, and ``max_completion_tokens``
  with room for the hidden reasoning tokens it counts.
- Gemini 2.5 (``gemini``): ``thinkingConfig.thinkingBudget`` on every call (the models think unless told);
  Gemini 3 (``gemini3``): ``thinkingConfig.thinkingLevel``. No ``cache_control`` (LiteLLM would turn it into a
  cachedContents resource).
- OpenRouter (``openrouter``): ``reasoning: {effort}``, its documented field; ``cache_control`` only on the Claude
  tiers. Ollama (``ollama``): no thinking field, no cache marker.

Response bodies (sources in ``tests/fixtures/README.md``, none written by hand): Opus 4.6 adaptive thinking, the
Anthropic tool-use recording, gpt-5 and o3-mini chat completions, Gemini 2.5 Pro and Gemini 3 Flash function calls,
an OpenRouter reasoning answer, Anthropic's recorded 400 ``invalid_request_error``. Two error bodies have no
recording: the 400 "invalid thinking configuration" and OpenAI's 429 "Request too large"; they use the providers'
documented error envelopes (Anthropic: the recorded 400 above; OpenAI: ``{"error": {message, type, param, code}}``)
with the provider's message as quoted in public issue reports (NousResearch/hermes-agent#11137,
enricoros/big-AGI#636). Derived in-memory variants (never written back) replace a recorded ``tool_use`` name and
input so a recording answers the record a test asks for.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from cosci.agents.tool_loop import run_tool_loop
from cosci.llm import errors as E
from cosci.llm.gateway.cache_marks import ONCE_MODES
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import ToolSpec
from cosci.records import RecordCheck
from cosci.tools.base import ToolResult
from tests.llm.helpers import FIXTURES, WHOLE, Harness, harness, make_config, recorded, replayed_wire, spec_for

ANTHROPIC = "https://api.anthropic.com/v1/messages"
OPENAI = "https://api.openai.com/v1/chat/completions"
OPENROUTER = "https://openrouter.ai/api/v1/chat/completions"
GEMINI = re.compile(r"https://generativelanguage\.googleapis\.com/.*")
KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY",
        "TOGETHERAI_API_KEY", "MISTRAL_API_KEY", "OPENAI_COMPATIBLE_API_KEY")


ADAPTIVE_BODY = recorded("anthropic/messages_adaptive_thinking_opus_4_6.json")
TOOL_USE_BODY = recorded("anthropic/messages_thinking_text_tool_use.json")
INVALID_REQUEST_BODY = recorded("errors/anthropic_400_invalid_request.json")
GPT5_BODY = recorded("openai/chat_completion_gpt_5.json")
O3_BODY = recorded("openai/chat_completion_o3_mini_reasoning.json")
TOOL_CALLS_BODY = recorded("openai/chat_completion_tool_calls.json")
GEMINI25_BODY = recorded("gemini/generate_content_2_5_pro_function_call.json")
GEMINI3_BODY = recorded("gemini/generate_content_3_flash_function_calls.json")
GEMINI_EMPTY_BODY = recorded("gemini/generate_content_2_5_pro_max_tokens_empty.json")
OPENROUTER_BODY = recorded("openrouter/chat_completion_reasoning_effort_high.json")
INVALID_THINKING = ('"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
                    '"output_config.effort" to control thinking behavior.')
"""Anthropic's message for the legacy form on Opus 4.7, as quoted in NousResearch/hermes-agent#11137."""
TOO_LARGE = ("Request too large for gpt-4o in organization org-Bnfdy1zwXXXXX on tokens per min (TPM): Limit 30000, "
             "Requested 35064. The input or output tokens must be reduced in order to run successfully. Visit "
             "https://platform.openai.com/account/rate-limits to learn more.")
"""OpenAI's 429 message for a request over the TPM limit, as quoted in enricoros/big-AGI#636."""


def anthropic_record(record: str, args: dict[str, Any]) -> dict[str, Any]:
    """The recorded tool-use body with its ``tool_use`` naming ``record`` with ``args`` (an in-memory variant)."""
    body = copy.deepcopy(TOOL_USE_BODY)
    body["content"][-1].update(name=record, input=args)
    return body


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[respx.MockRouter]:
    with replayed_wire(monkeypatch, KEYS) as router:
        yield router


def family(tmp_path: Path, models: str, *extra: str) -> Harness:
    return harness(make_config(tmp_path / "data", f"models={models}", "run.budget_usd=50", *WHOLE, *extra))


def bodies(route: respx.Route) -> list[dict[str, Any]]:
    return [json.loads(c.request.content) for c in route.calls]


THINKING_FIELDS = ("thinking", "output_config", "reasoning_effort", "reasoning")


def thinking_of(body: dict[str, Any]) -> dict[str, Any]:
    return {k: body[k] for k in THINKING_FIELDS if k in body}


# --- Anthropic: Opus 4.7, adaptive thinking ----------------------------------------------------------------
OPUS_EFFORTS = [("generation", "literature", "low", 12192), ("generation", "debate", "medium", 16192),
                ("reflection", "verification", "high", 16096), ("reflection", "observation", "medium", 10096),
                ("evolution", "combine", "medium", 10096), ("metareview", "final", "high", 24192)]


@pytest.mark.parametrize(("agent", "mode", "effort", "cap"), OPUS_EFFORTS,
                         ids=[f"{a}.{m}" for a, m, _, _ in OPUS_EFFORTS])
async def test_opus_carries_adaptive_thinking_with_the_tables_effort(wire: respx.MockRouter, tmp_path: Path,
                                                                    agent: str, mode: str, effort: str,
                                                                    cap: int) -> None:
    h = family(tmp_path, "opus")
    route = wire.post(ANTHROPIC).mock(return_value=httpx.Response(200, json=ADAPTIVE_BODY))
    resp = await h.gateway.complete(spec_for(h.gateway, agent, mode, "What is 2+2?"))
    [body] = bodies(route)
    assert body["model"] == "claude-opus-5" and body["max_tokens"] == cap
    assert thinking_of(body) == {"thinking": {"type": "adaptive", "display": "summarized"},
                                 "output_config": {"effort": effort}}
    assert "budget_tokens" not in json.dumps(body) and "temperature" not in body
    if f"{agent}.{mode}" in ONCE_MODES:  # sent once per session: nothing would read a write (design.md#caching)
        assert "cache_control" not in json.dumps(body)
    else:
        assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert "cache_control" not in body["system"][1]
    # the recorded Opus 4.6 answer (adaptive thinking): thinking block with its signature, then text
    [thinking] = resp.thinking_blocks
    assert thinking["signature"] == ADAPTIVE_BODY["content"][1]["signature"] and thinking["thinking"] == "4"
    assert resp.text.strip().endswith("2 + 2 = **4**") and (resp.input_tokens, resp.output_tokens) == (31, 30)
    assert h.records[0].request["output_config"] == {"effort": effort}  # the transcript keeps what was sent


async def test_opus_without_a_budget_sends_no_thinking_field(wire: respx.MockRouter, tmp_path: Path) -> None:
    """A mode with no thinking budget on Opus 4.7: no thinking field at all ("disabled" is refused too)."""
    h = family(tmp_path, "opus")
    route = wire.post(ANTHROPIC).mock(return_value=httpx.Response(200, json=ADAPTIVE_BODY))
    await h.gateway.complete(spec_for(h.gateway, "reflection", "full"))
    [body] = bodies(route)
    assert thinking_of(body) == {} and body["max_tokens"] == 4096


async def test_a_forced_record_on_opus_keeps_the_setting_and_the_tool_choice(wire: respx.MockRouter,
                                                                             tmp_path: Path) -> None:
    h = family(tmp_path, "opus")
    route = wire.post(ANTHROPIC).mock(return_value=httpx.Response(
        200, json=anthropic_record("record_check", {"word": "cosci", "number": 7})))
    spec = spec_for(h.gateway, "metareview", "final", "Record it.")
    spec.tools, spec.tool_choice = [ToolSpec("record_check", "Record.", {"type": "object"})], "record_check"
    await h.gateway.complete(spec)
    [body] = bodies(route)
    assert body["tool_choice"] == {"type": "tool", "name": "record_check"}
    assert thinking_of(body) == {"thinking": {"type": "adaptive", "display": "summarized"},
                                 "output_config": {"effort": "high"}}


# --- Anthropic: previous generation, budget_tokens ------------------------------------------------------------
async def test_an_older_claude_carries_budget_tokens_and_no_thinking_when_forced(wire: respx.MockRouter,
                                                                                 tmp_path: Path) -> None:
    h = family(tmp_path, "claude45")
    route = wire.post(ANTHROPIC).mock(side_effect=[
        httpx.Response(200, json=TOOL_USE_BODY),  # auto, with thinking: no record comes back
        httpx.Response(200, json=anthropic_record("record_check", {"word": "cosci", "number": 7}))])
    spec = spec_for(h.gateway, "generation", "literature", "Record it.")
    record, _ = await call_record(h.gateway, spec, RecordCheck)
    auto, forced = bodies(route)
    assert auto["model"] == "claude-haiku-4-5-20251001" and auto["max_tokens"] == 12192
    assert thinking_of(auto) == {"thinking": {"type": "enabled", "budget_tokens": 4000}}
    assert auto["tool_choice"] == {"type": "auto"}
    assert forced["tool_choice"] == {"type": "tool", "name": "record_check"} and thinking_of(forced) == {}
    assert "output_config" not in json.dumps(auto) and record == RecordCheck(word="cosci", number=7)


@pytest.mark.parametrize(("models", "tier_model"), [("opus", "claude-sonnet-5"), ("claude45", "claude-sonnet-5"),
                                                    ("sonnet", "claude-haiku-4-5")])
async def test_sonnet_and_haiku_tiers_send_no_thinking(wire: respx.MockRouter, tmp_path: Path, models: str,
                                                       tier_model: str) -> None:
    h = family(tmp_path, models)
    route = wire.post(ANTHROPIC).mock(return_value=httpx.Response(200, json=TOOL_USE_BODY))
    await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise", "Which is better?"))
    [body] = bodies(route)
    assert body["model"].startswith(tier_model) and thinking_of(body) == {} and body["max_tokens"] == 6048
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}


# --- one thinking setting per tool loop (Anthropic) ----------------------------------------------------------
async def lookup(arguments: dict[str, Any]) -> ToolResult:
    return ToolResult("France", source="get_user_country")


class Country:
    name = "get_user_country"
    spec = ToolSpec("get_user_country", "Return the user's country.", {"type": "object", "properties": {}})

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        return await lookup(arguments)


async def test_every_call_of_an_opus_tool_loop_has_the_same_thinking_setting(wire: respx.MockRouter,
                                                                             tmp_path: Path) -> None:
    h = family(tmp_path, "opus")
    route = wire.post(ANTHROPIC).mock(return_value=httpx.Response(200, json=TOOL_USE_BODY))  # never records
    spec = spec_for(h.gateway, "generation", "literature", "What is the largest city in my country?")
    with pytest.raises(E.StructuredOutputError):
        await run_tool_loop(h.gateway, spec, {"get_user_country": Country()}, RecordCheck, max_iters=3)  # type: ignore[dict-item]
    sent = bodies(route)
    assert len(sent) == 3 and len({json.dumps(thinking_of(b)) for b in sent}) == 1  # one setting, every call
    assert thinking_of(sent[0]) == {"thinking": {"type": "adaptive", "display": "summarized"},
                                    "output_config": {"effort": "low"}}
    assert [b["tool_choice"] for b in sent] == [{"type": "auto"}, {"type": "auto"},
                                                {"type": "tool", "name": "record_check"}]
    assert sent[2]["messages"][1]["content"][0]["type"] == "thinking"  # thinking blocks go back unchanged


async def test_every_call_of_a_budget_tool_loop_has_the_same_thinking_then_one_separate_call(
        wire: respx.MockRouter, tmp_path: Path) -> None:
    h = family(tmp_path, "claude45")
    route = wire.post(ANTHROPIC).mock(side_effect=[
        httpx.Response(200, json=TOOL_USE_BODY), httpx.Response(200, json=TOOL_USE_BODY),
        httpx.Response(200, json=anthropic_record("record_check", {"word": "Paris", "number": 1}))])
    spec = spec_for(h.gateway, "generation", "literature", "What is the largest city in my country?")
    result = await run_tool_loop(h.gateway, spec, {"get_user_country": Country()}, RecordCheck,  # type: ignore[dict-item]
                                 max_iters=2)
    first, last, separate = bodies(route)
    assert thinking_of(first) == thinking_of(last) == {"thinking": {"type": "enabled", "budget_tokens": 4000}}
    assert first["tool_choice"] == last["tool_choice"] == {"type": "auto"}  # never forced with budget thinking
    turn = last["messages"][-1]
    assert turn["role"] == "user" and [b["type"] for b in turn["content"]] == ["tool_result", "text"]
    assert "last turn" in turn["content"][-1]["text"]  # asked, in the same user turn as the tool result
    assert thinking_of(separate) == {} and separate["tool_choice"] == {"type": "tool", "name": "record_check"}
    assert [m["role"] for m in separate["messages"]] == ["user"]  # a new conversation: no earlier assistant turn
    assert "France" in json.dumps(separate["messages"]) and result.record.word == "Paris"


# --- OpenAI: GPT-6 family (function tools with reasoning: the Responses API) ----------------------------------------
OPENAI_RESPONSES = "https://api.openai.com/v1/responses"
OPENAI_400 = {"error": {"message": "stop here", "type": "invalid_request_error", "param": None, "code": None}}
"""OpenAI's documented error envelope: the Responses request is captured, no answer body is invented."""


@pytest.mark.parametrize(("agent", "mode", "effort", "cap"), [
    ("generation", "literature", "low", 8192 + 4000), ("metareview", "final", "high", 8192 + 16000)])
async def test_gpt6_tools_with_reasoning_go_to_the_responses_api(wire: respx.MockRouter, tmp_path: Path, agent: str,
                                                                 mode: str, effort: str, cap: int) -> None:
    """GPT-6.1 Sol rejects function tools with reasoning on chat completions; LiteLLM bridges the call."""
    h = family(tmp_path, "openai")
    route = wire.post(OPENAI_RESPONSES).mock(return_value=httpx.Response(400, json=OPENAI_400))
    spec = spec_for(h.gateway, agent, mode, "Who was Frederick Bates?")
    spec.tools = [ToolSpec("paper_search", "Search.", {"type": "object", "properties": {"query": {"type": "string"}}})]
    spec.tool_choice = "paper_search"
    with pytest.raises(E.PermanentLLMError):
        await h.gateway.complete(spec)
    [body] = bodies(route)
    assert body["model"] == "gpt-6.1-sol" and body["reasoning"]["effort"] == effort
    assert body["max_output_tokens"] == cap and "max_tokens" not in body and "thinking" not in body
    assert [t["name"] for t in body["tools"]] == ["paper_search"] and "cache_control" not in json.dumps(body)


@pytest.mark.parametrize(("agent", "mode", "cap"), [("safety", "classify", 1024 + 2048),
                                                    ("goal_parsing", "parse_goal", 2048 + 2048)])
async def test_gpt6_without_a_budget_sends_effort_none_on_chat_completions(wire: respx.MockRouter, tmp_path: Path,
                                                                           agent: str, mode: str, cap: int) -> None:
    h = family(tmp_path, "openai")
    route = wire.post(OPENAI).mock(return_value=httpx.Response(200, json=TOOL_CALLS_BODY))
    spec = spec_for(h.gateway, agent, mode, "Who was Frederick Bates?")
    spec.tools = [ToolSpec("paper_search", "Search.", {"type": "object", "properties": {"query": {"type": "string"}}})]
    spec.tool_choice = "paper_search"
    resp = await h.gateway.complete(spec)
    [body] = bodies(route)
    assert body["reasoning_effort"] == "none" and body["max_completion_tokens"] == cap
    assert body["tool_choice"] == {"type": "function", "function": {"name": "paper_search"}}
    assert resp.tool_calls[0].name == "paper_search"


async def test_a_gpt5_answer_is_parsed_with_its_reasoning_tokens(wire: respx.MockRouter, tmp_path: Path) -> None:
    h = family(tmp_path, "openai")
    wire.post(OPENAI).mock(return_value=httpx.Response(200, json=GPT5_BODY))
    resp = await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise", "What is the capital of France?"))
    assert resp.text == "Paris." and resp.finish_reason == "stop" and resp.cost_usd > 0
    assert (resp.input_tokens, resp.output_tokens) == (13, 11)


async def test_openai_o_takes_low_effort_on_calls_without_a_budget(wire: respx.MockRouter, tmp_path: Path) -> None:
    """The o-series is retired; `openai_o` names its replacements at the o-series' lowest effort (low)."""
    h = family(tmp_path, "openai_o")
    route = wire.post(OPENAI).mock(return_value=httpx.Response(200, json=O3_BODY))
    resp = await h.gateway.complete(spec_for(h.gateway, "reflection", "full", "What is the capital of Mexico?"))
    [body] = bodies(route)
    assert body["model"] == "gpt-6.1-sol" and body["reasoning_effort"] == "low"
    assert body["max_completion_tokens"] == 4096 + 2048
    assert body["messages"][0]["role"] in ("system", "developer")  # the system prompt is not a user turn
    assert resp.output_tokens == 238 and resp.text.startswith("The capital of Mexico is Mexico City")


# --- Gemini 2.5 and 3 -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("agent", "mode", "level", "cap"), [
    ("generation", "literature", "low", 12192), ("reflection", "full", "low", 4096 + 2048),  # Pro: lowest low
    ("ranking", "pairwise", "low", 6048), ("safety", "classify", "minimal", 1024 + 2048)])  # Flash(-Lite): minimal
async def test_gemini_carries_a_thinking_level_on_every_call(wire: respx.MockRouter, tmp_path: Path, agent: str,
                                                             mode: str, level: str, cap: int) -> None:
    """Gemini 3 thinks unless told: every call carries a level, never a budget (Gemini 2.5 is shut down)."""
    h = family(tmp_path, "gemini")
    route = wire.post(GEMINI).mock(return_value=httpx.Response(200, json=GEMINI25_BODY))
    await h.gateway.complete(spec_for(h.gateway, agent, mode, "What is the largest city in the user country?"))
    [call] = route.calls
    body = json.loads(call.request.content)
    assert ":generateContent" in str(call.request.url) and "cachedContents" not in str(call.request.url)
    config = body["generationConfig"]
    assert config["max_output_tokens"] == cap and config["thinkingConfig"]["thinkingLevel"] == level
    assert "cache_control" not in json.dumps(body) and "thinkingBudget" not in json.dumps(body)


async def test_a_gemini_25_function_call_is_parsed(wire: respx.MockRouter, tmp_path: Path) -> None:
    h = family(tmp_path, "gemini")
    wire.post(GEMINI).mock(return_value=httpx.Response(200, json=GEMINI25_BODY))
    spec = spec_for(h.gateway, "generation", "literature", "What is the largest city in the user country?")
    spec.tools = [ToolSpec("get_user_country", "Return the user's country.", {"type": "object", "properties": {}})]
    spec.tool_choice = "auto"
    resp = await h.gateway.complete(spec)
    [call] = resp.tool_calls
    assert call.name == "get_user_country" and json.loads(call.arguments) == {}
    assert resp.input_tokens == 49 and resp.output_tokens >= 12  # thoughts (136) are billed as output


async def test_a_gemini_answer_cut_by_its_cap_is_a_typed_error(wire: respx.MockRouter, tmp_path: Path) -> None:
    """The recorded 2.5 Pro answer with maxOutputTokens 5: its thoughts used the cap, no text came (why every
    Gemini call carries a budget below its cap)."""
    h = family(tmp_path, "gemini")
    wire.post(GEMINI).mock(return_value=httpx.Response(200, json=GEMINI_EMPTY_BODY))
    with pytest.raises(E.StructuredOutputError):
        await call_record(h.gateway, spec_for(h.gateway, "safety", "classify", "Classify."), RecordCheck)


async def test_gemini_3_carries_a_thinking_level(wire: respx.MockRouter, tmp_path: Path) -> None:
    h = family(tmp_path, "gemini3")
    route = wire.post(GEMINI).mock(return_value=httpx.Response(200, json=GEMINI3_BODY))
    spec = spec_for(h.gateway, "generation", "literature", "Tell three jokes.")
    spec.tools = [ToolSpec("generate_topic", "A topic.", {"type": "object", "properties": {}})]
    spec.tool_choice = "auto"
    resp = await h.gateway.complete(spec)
    [body] = bodies(route)
    thinking = body["generationConfig"]["thinkingConfig"]
    assert thinking["thinkingLevel"] == "low" and "thinkingBudget" not in thinking
    assert body["generationConfig"]["max_output_tokens"] == 8192 + 4000
    assert [c.name for c in resp.tool_calls] == ["generate_topic"] * 3


# --- OpenRouter, Ollama ------------------------------------------------------------------------------------------
async def test_openrouter_sends_its_reasoning_field_and_cache_markers_only_to_claude(wire: respx.MockRouter,
                                                                                     tmp_path: Path) -> None:
    h = family(tmp_path, "openrouter", "++models.tiers.claude.output_tokens_per_second=null",
               "++models.tiers.flash.output_tokens_per_second=null")
    route = wire.post(OPENROUTER).mock(return_value=httpx.Response(200, json=OPENROUTER_BODY))
    gpt = await h.gateway.complete(spec_for(h.gateway, "generation", "literature", "Reply: ok"))
    await h.gateway.complete(spec_for(h.gateway, "reflection", "full", "Reply: ok"))  # the Claude tier
    await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise", "Reply: ok"))  # Gemini Flash
    await h.gateway.complete(spec_for(h.gateway, "safety", "classify", "Reply: ok"))  # mini: Flash, no budget
    strong, claude, flash, mini = bodies(route)
    assert strong["model"] == "openai/gpt-6.1-sol" and strong["reasoning"] == {"effort": "low"}
    assert strong["max_tokens"] == 8192 + 4000 and "reasoning_effort" not in strong
    assert "cache_control" not in json.dumps(strong) and "cache_control" not in json.dumps(flash)
    assert claude["model"] == "anthropic/claude-sonnet-5" and "reasoning_effort" not in claude
    assert claude["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    # Gemini 3 cannot switch thinking off: a call without a budget sends its lowest level, never nothing
    assert flash["model"] == "google/gemini-3.5-flash" and flash["reasoning"] == {"effort": "low"}
    assert mini["reasoning"] == {"effort": "minimal"}
    assert gpt.text == "ok" and gpt.cost_usd > 0  # priced from the catalogue (LiteLLM alone says 0.0)


OLLAMA_CHAT = "http://localhost:11434/api/chat"
OLLAMA_BODY = (FIXTURES / "ollama" / "chat_structured_output.json").read_bytes()


def ollama_stream() -> httpx.Response:
    """The documented /api/chat answer as a stream of one line: Ollama streams NDJSON whose last line is the whole
    answer with ``done: true``; nothing is added to the recorded body."""
    return httpx.Response(200, content=json.dumps(json.loads(OLLAMA_BODY)).encode() + b"\n",
                          headers={"content-type": "application/x-ndjson"})


@pytest.mark.parametrize(("agent", "mode"), [("generation", "literature"), ("metareview", "final"),
                                             ("safety", "classify")])
async def test_ollama_streams_and_sends_a_num_ctx_that_holds_the_prompt_and_the_cap(
        wire: respx.MockRouter, tmp_path: Path, agent: str, mode: str) -> None:
    """Ollama's default context (4k on most machines) cuts a longer prompt silently: every call carries num_ctx of
    at least its prompt's tokens plus its cap, is streamed, and its deadline grows with num_predict."""
    h = family(tmp_path, "ollama")
    route = wire.post(OLLAMA_CHAT).mock(return_value=ollama_stream())
    spec = spec_for(h.gateway, agent, mode, "Say something. " * 400)
    spec.tools = [ToolSpec("paper_search", "Search. " * 300, {"type": "object", "properties": {}})]
    spec.tool_choice = "auto"
    await h.gateway.complete(spec)
    [body] = bodies(route)
    prompt_chars = len(json.dumps(body["messages"])) + len(json.dumps(body.get("tools", [])))
    options = body["options"]
    assert body["stream"] is True and options["num_predict"] == h.gateway.router.route(agent, mode).max_output_tokens
    assert options["num_ctx"] >= prompt_chars // 3 + options["num_predict"] and options["num_ctx"] % 4096 == 0
    assert options["num_ctx"] <= 32768  # the model's context window (conf/catalogue/ollama.yaml)
    assert thinking_of(body) == {} and "think" not in body and "cache_control" not in json.dumps(body)
    shipped = make_config(tmp_path / "data", "models=ollama")  # its catalogue speeds (the harness sends whole)
    r = Router(shipped).route(agent, mode)
    speed = shipped.models.tiers[r.tier].output_tokens_per_second
    assert r.stream and speed and r.timeout_seconds == shipped.retry.first_token_seconds + r.max_output_tokens / speed


@pytest.mark.parametrize("sentence", ["光合成の効率を高める酵素の候補を三つ挙げてください。",  # Japanese
                                      "请列出三种可以提高光合作用效率的酶。",  # Chinese
                                      "Перечислите три фермента, повышающих эффективность фотосинтеза."])  # Russian
async def test_an_ollama_num_ctx_counts_non_latin_scripts_conservatively(wire: respx.MockRouter, tmp_path: Path,
                                                                         sentence: str) -> None:
    """A CJK character is about one token (often more on older tokenizers), not a third of one: characters / 3
    understated such a prompt threefold and Ollama cut it silently. Every non-ASCII character now counts at least
    one token (its UTF-8 bytes at most, the bound of a byte-level tokenizer), for the window asked."""
    from cosci.llm.gateway.routing import prompt_tokens

    h = family(tmp_path, "ollama")
    route = wire.post(OLLAMA_CHAT).mock(return_value=ollama_stream())
    prompt = sentence * 200
    await h.gateway.complete(spec_for(h.gateway, "reflection", "full", prompt))
    [body] = bodies(route)
    options = body["options"]
    non_ascii = sum(1 for ch in json.dumps(body["messages"], ensure_ascii=False) if ord(ch) > 127)
    assert options["num_ctx"] >= non_ascii + options["num_predict"]
    assert options["num_ctx"] > (len(prompt) // 3 + options["num_predict"])  # more than the old estimate asked
    bound, likely = prompt_tokens(sentence)
    assert likely >= sum(1 for ch in sentence if ord(ch) > 127) and bound >= len(sentence.encode()) // 2
    assert prompt_tokens("Say something. ") == prompt_tokens("Say something. ")[:1] * 2  # ASCII: one figure


async def test_an_ollama_call_the_model_cannot_hold_is_refused_in_one_line(wire: respx.MockRouter,
                                                                          tmp_path: Path) -> None:
    h = family(tmp_path, "ollama", "++models.tiers.strong.context_window=8192")
    route = wire.post(OLLAMA_CHAT).mock(return_value=ollama_stream())
    with pytest.raises(E.RequestTooLarge) as info:
        await h.gateway.complete(spec_for(h.gateway, "generation", "literature", "Say something."))
    assert route.call_count == 0 and "\n" not in str(info.value) and "context window of 8,192" in str(info.value)


# --- Groq, Together, Mistral, any OpenAI-compatible server: chat completions through LiteLLM --------------------------
COMPATIBLE = [("groq", "https://api.groq.com/openai/v1/chat/completions", "openai/gpt-oss-120b", "low"),
              ("together", "https://api.together.ai/v1/chat/completions", "openai/gpt-oss-120b", "low"),
              ("mistral", "https://api.mistral.ai/v1/chat/completions", "mistral-medium-3-5", None),
              ("openai_compatible", "http://localhost:8000/v1/chat/completions", "local-model", None)]


@pytest.mark.parametrize(("models", "url", "model", "effort"), COMPATIBLE, ids=[c[0] for c in COMPATIBLE])
async def test_an_openai_compatible_family_sends_its_form(wire: respx.MockRouter, tmp_path: Path, models: str,
                                                          url: str, model: str, effort: str | None) -> None:
    h = harness(make_config(tmp_path / "data", f"models={models}", "run.budget_usd=50", *WHOLE))
    route = wire.post(url).mock(return_value=httpx.Response(200, json=TOOL_CALLS_BODY))
    spec = spec_for(h.gateway, "generation", "literature", "Who was Frederick Bates?")
    spec.tools = [ToolSpec("paper_search", "Search.", {"type": "object", "properties": {"query": {"type": "string"}}})]
    spec.tool_choice = "paper_search"
    resp = await h.gateway.complete(spec)
    [body] = bodies(route)
    assert body["model"] == model and body.get("reasoning_effort") == effort
    assert "thinking" not in body and "cache_control" not in json.dumps(body)
    assert body["tool_choice"] == {"type": "function", "function": {"name": "paper_search"}}
    assert resp.tool_calls[0].name == "paper_search"


async def test_a_tiers_key_variable_is_the_key_sent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``openai_compatible`` names its key OPENAI_COMPATIBLE_API_KEY; LiteLLM's ``openai/`` provider reads only
    OPENAI_API_KEY, so without it every call failed "Missing credentials" (145 attempts, then the session failed)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with replayed_wire(monkeypatch, ["OPENAI_COMPATIBLE_API_KEY"]) as router:
        monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "sk-lab-gateway")
        h = family(tmp_path, "openai_compatible")
        route = router.post("http://localhost:8000/v1/chat/completions").mock(
            return_value=httpx.Response(200, json=TOOL_CALLS_BODY))
        await h.gateway.complete(spec_for(h.gateway, "generation", "literature", "Who was Frederick Bates?"))
    assert route.calls.last.request.headers["authorization"] == "Bearer sk-lab-gateway"
    assert "sk-lab-gateway" not in json.dumps([r.request for r in h.records])  # the transcript keeps no key


# --- errors that can never succeed ----------------------------------------------------------------------------------
async def test_a_recorded_400_is_permanent_and_names_the_providers_message(wire: respx.MockRouter,
                                                                           tmp_path: Path) -> None:
    h = family(tmp_path, "opus")
    route = wire.post(ANTHROPIC).mock(return_value=httpx.Response(400, json=INVALID_REQUEST_BODY))
    with pytest.raises(E.PermanentLLMError) as info:
        await h.gateway.complete(spec_for(h.gateway, "generation", "literature"))
    assert route.call_count == 1 and E.repeats(info.value)
    assert str(info.value) == ("anthropic/claude-opus-5: invalid_request_error: This model does not support "
                               "effort level 'xhigh'. Supported levels: high, low, max, medium.")


async def test_an_invalid_thinking_configuration_is_permanent(wire: respx.MockRouter, tmp_path: Path) -> None:
    h = family(tmp_path, "opus")
    body = copy.deepcopy(INVALID_REQUEST_BODY)
    body["error"]["message"] = INVALID_THINKING
    wire.post(ANTHROPIC).mock(return_value=httpx.Response(400, json=body))
    with pytest.raises(E.PermanentLLMError, match=re.escape(INVALID_THINKING)):
        await h.gateway.complete(spec_for(h.gateway, "generation", "literature"))
    assert h.outcomes == ["error:bad_request"]


async def test_a_request_too_large_is_not_retried(wire: respx.MockRouter, tmp_path: Path) -> None:
    h = family(tmp_path, "openai")
    route = wire.post(OPENAI).mock(return_value=httpx.Response(429, json={"error": {
        "message": TOO_LARGE, "type": "tokens", "param": None, "code": "rate_limit_exceeded"}}))
    with pytest.raises(E.RequestTooLarge) as info:
        await h.gateway.complete(spec_for(h.gateway, "generation", "literature"))
    assert route.call_count == 1 and h.outcomes == ["error:request_too_large"]  # one attempt in the transcripts
    assert h.waits == [] and E.repeats(info.value)
    message = str(info.value)
    assert "Limit 30000, Requested 35064" in message and "max_tokens 12192" in message  # the size, named


def test_every_family_of_conf_models_is_covered() -> None:
    """Each hosted models choice has a contract test above (a new conf/models file needs one)."""
    source = Path(__file__).read_text(encoding="utf-8")
    choices = {p.stem for p in (Path(__file__).resolve().parents[2] / "conf" / "models").glob("*.yaml")}
    covered = set(re.findall(r'family\(tmp_path, "(\w+)"', source)) | set(re.findall(r'\("(\w+)", "claude-', source))
    covered |= {c[0] for c in COMPATIBLE}
    assert choices - {"fake", "local"} <= covered, choices - covered


def gemini_record(args: dict[str, Any]) -> dict[str, Any]:
    """The recorded Gemini function call renamed to ``record_check`` with ``args`` (an in-memory variant)."""
    body = copy.deepcopy(GEMINI25_BODY)
    call = next(p for p in body["candidates"][0]["content"]["parts"] if "functionCall" in p)
    call["functionCall"].update(name="record_check", args=args)
    return body


async def test_a_gemini_record_is_forced_at_once_with_its_level(wire: respx.MockRouter, tmp_path: Path) -> None:
    """The Anthropic budget workaround (ask unforced, then a separate forced call without thinking) is for models
    that refuse a forced tool while thinking; Gemini 3 reasons when forced, so one forced call keeps its level."""
    h = family(tmp_path, "gemini")
    route = wire.post(GEMINI).mock(return_value=httpx.Response(200, json=gemini_record({"word": "cosci",
                                                                                         "number": 7})))
    record, _ = await call_record(h.gateway, spec_for(h.gateway, "generation", "literature", "Record it."),
                                  RecordCheck)
    [call] = route.calls
    body = json.loads(call.request.content)
    assert body["generationConfig"]["thinkingConfig"]["thinkingLevel"] == "low"
    assert body["toolConfig"]["functionCallingConfig"]["mode"] == "ANY"  # forced, in Gemini's form
    assert record == RecordCheck(word="cosci", number=7)
