"""Prompt caching (seed 003 "Cached vs. Non-Cached Blocks"): blocks marked ``cache=True`` go out with
``cache_control: {"type": "ephemeral"}``; per-task content does not. The wire format Anthropic receives is
checked in ``test_litellm_replay.py``.
"""

from __future__ import annotations

from cosci.config.schema import CosciConfig
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.llm.port.types import CallSpec, TextBlock
from tests.llm.helpers import harness

EPHEMERAL = {"type": "ephemeral"}


async def test_cached_blocks_carry_cache_control_and_per_task_content_does_not(config: CosciConfig,
                                                                               fake: FakeBackend) -> None:
    h = harness(config)
    spec = CallSpec(route=h.gateway.router.route("reflection", "full"), action="ReviewHypothesis",
                    system=[TextBlock("Safety preamble.", cache=True),
                            TextBlock("Goal and research plan.", cache=True),
                            TextBlock("Latest system feedback (changes every task).")],
                    messages=[{"role": "user", "content": "Review hypothesis H-0123456789ab."}])
    fake.script(FakeReply(text="ok"))

    await h.gateway.complete(spec)

    [call] = fake.calls
    system, user = call.messages
    assert system["role"] == "system"
    assert system["content"] == [
        {"type": "text", "text": "Safety preamble.", "cache_control": EPHEMERAL},
        {"type": "text", "text": "Goal and research plan.", "cache_control": EPHEMERAL},
        {"type": "text", "text": "Latest system feedback (changes every task)."},
    ]
    assert user == {"role": "user", "content": "Review hypothesis H-0123456789ab."}
    assert "cache_control" not in str(user)
    assert h.records[0].request["messages"] == [user]  # the transcript keeps the per-task part


async def test_history_and_tool_results_are_never_marked(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    history = [{"role": "user", "content": "goal"},
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "c1", "type": "function",
                    "function": {"name": "pubmed_search", "arguments": "{}"}}]},
               {"role": "tool", "tool_call_id": "c1", "content": "result text"}]
    spec = CallSpec(route=h.gateway.router.route("reflection", "full"), action="ReviewHypothesis",
                    system=[TextBlock("Preamble.", cache=True)], messages=history)
    fake.script(FakeReply(text="ok"))
    await h.gateway.complete(spec)
    sent = fake.calls[0].messages
    assert sent[0]["content"][0]["cache_control"] == EPHEMERAL
    assert "cache_control" not in str(sent[1:])
