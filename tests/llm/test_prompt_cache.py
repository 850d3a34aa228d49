"""Prompt-cache breakpoints (design.md#caching, ``cosci/llm/gateway/cache_marks.py``): the last cached system block,
the last tool definition and, in a conversation that goes on, the latest turn carry ``cache_control:
{"type": "ephemeral"}``; nothing else does, a mode sent once per session carries none, and no request carries more
than Anthropic's 4. The wire format Anthropic receives is checked in ``test_litellm_replay.py`` and
``test_request_contracts.py``.
"""

from __future__ import annotations

import json
from typing import Any

from cosci.config.schema import CosciConfig
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.llm.port.types import CallSpec, TextBlock, ToolSpec
from tests.llm.helpers import harness
from tests.llm.test_litellm_replay import wire  # noqa: F401

EPHEMERAL = {"type": "ephemeral"}
SEARCH = ToolSpec("pubmed_search", "Search PubMed.", {"type": "object", "properties": {"query": {"type": "string"}}})
RECORD = ToolSpec("record_review", "Record the review.", {"type": "object", "properties": {}})
SYSTEM = [TextBlock("Safety preamble.", cache=True), TextBlock("Goal and research plan.", cache=True),
          TextBlock("Latest system feedback (changes every task).")]
LOOP: list[dict[str, Any]] = [{"role": "user", "content": "Review hypothesis H-0123456789ab."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "pubmed_search", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "result text"}]


def marks(call_messages: list[dict], tools: list[dict]) -> int:
    return json.dumps([call_messages, tools]).count('"cache_control"')


async def test_only_the_last_cached_system_block_is_marked(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    spec = CallSpec(route=h.gateway.router.route("reflection", "full"), action="ReviewHypothesis",
                    system=SYSTEM, messages=[{"role": "user", "content": "Review hypothesis H-0123456789ab."}])
    fake.script(FakeReply(text="ok"))

    await h.gateway.complete(spec)

    [call] = fake.calls
    system, user = call.messages
    assert system["content"] == [  # the prefix up to the mark is cached: one mark covers the preamble too
        {"type": "text", "text": "Safety preamble."},
        {"type": "text", "text": "Goal and research plan.", "cache_control": EPHEMERAL},
        {"type": "text", "text": "Latest system feedback (changes every task)."},
    ]
    assert user == {"role": "user", "content": "Review hypothesis H-0123456789ab."}  # a first turn: not marked
    assert h.records[0].request["messages"] == [user]  # the transcript keeps the per-task part


async def test_a_tool_loop_marks_its_tools_and_its_latest_turn(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    route = h.gateway.router.route("reflection", "full")
    kwargs = h.gateway.request(CallSpec(route=route, action="ReviewHypothesis", system=SYSTEM, messages=LOOP,
                                        tools=[SEARCH, RECORD], tool_choice="auto"), route)
    assert [t.get("cache_control") for t in kwargs["tools"]] == [None, EPHEMERAL]
    *earlier, latest = kwargs["messages"][1:]
    assert "cache_control" not in json.dumps(earlier)
    # on the tool message: LiteLLM puts a tool message's cache_control on its tool_result block
    assert latest == {**LOOP[-1], "cache_control": EPHEMERAL}
    assert marks(kwargs["messages"], kwargs["tools"]) == 3 <= 4
    fake.script(FakeReply(text="ok"))
    await h.gateway.complete(CallSpec(route=route, action="ReviewHypothesis", system=SYSTEM, messages=LOOP,
                                      tools=[SEARCH, RECORD], tool_choice="auto"))
    assert h.records[0].request["tool_definitions"][-1]["cache_control"] == EPHEMERAL  # kept for bench.cost


async def test_a_forced_last_call_marks_no_turn(config: CosciConfig) -> None:
    h = harness(config)
    route = h.gateway.router.route("reflection", "full")
    kwargs = h.gateway.request(CallSpec(route=route, action="ReviewHypothesis", system=SYSTEM, messages=LOOP,
                                        tools=[SEARCH, RECORD], tool_choice="record_review"), route)
    assert "cache_control" not in json.dumps(kwargs["messages"][1:])  # nothing follows it
    assert kwargs["tools"][-1]["cache_control"] == EPHEMERAL


async def test_a_mode_sent_once_per_session_carries_no_breakpoint(config: CosciConfig) -> None:
    h = harness(config)
    for agent, mode in (("metareview", "final"), ("goal_parsing", "parse_goal"), ("metareview", "audit")):
        route = h.gateway.router.route(agent, mode)
        kwargs = h.gateway.request(CallSpec(route=route, action=mode, system=SYSTEM, messages=LOOP,
                                            tools=[SEARCH, RECORD], tool_choice="auto"), route)
        assert marks(kwargs["messages"], kwargs["tools"]) == 0, f"{agent}.{mode}"


async def test_a_tier_that_does_not_cache_gets_no_breakpoint(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from tests.llm.helpers import make_config

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    h = harness(make_config(tmp_path / "data", "models=openai"))
    route = h.gateway.router.route("reflection", "full")
    kwargs = h.gateway.request(CallSpec(route=route, action="ReviewHypothesis", system=SYSTEM, messages=LOOP,
                                        tools=[SEARCH, RECORD], tool_choice="auto"), route)
    assert marks(kwargs["messages"], kwargs["tools"]) == 0


async def test_anthropic_receives_the_breakpoints_of_a_tool_loop(wire, tmp_path) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    """The wire body LiteLLM builds for Anthropic (replayed against the recorded response): the last tool, the last
    cached system block and the latest tool result carry ``cache_control``, the rest does not."""
    import httpx

    from tests.llm.helpers import WHOLE, make_config
    from tests.llm.test_litellm_replay import ANTHROPIC_BODY, ANTHROPIC_URL

    h = harness(make_config(tmp_path / "data", "models=opus", "run.budget_usd=25", *WHOLE))
    route = wire.post(ANTHROPIC_URL).mock(return_value=httpx.Response(200, json=ANTHROPIC_BODY))
    spec = CallSpec(route=h.gateway.router.route("reflection", "full"), action="ReviewHypothesis", system=SYSTEM,
                    messages=LOOP, tools=[SEARCH, RECORD], tool_choice="auto")
    await h.gateway.complete(spec)
    body = json.loads(route.calls[0].request.content)
    assert [t.get("cache_control") for t in body["tools"]] == [None, EPHEMERAL]
    assert [b.get("cache_control") for b in body["system"]] == [None, EPHEMERAL, None]
    *earlier, latest = body["messages"]
    assert "cache_control" not in json.dumps(earlier)
    assert latest["content"][-1]["type"] == "tool_result" and latest["content"][-1]["cache_control"] == EPHEMERAL
    assert json.dumps(body).count('"cache_control"') == 3
