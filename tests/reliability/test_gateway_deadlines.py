"""Every provider call has a wall-clock deadline, and Ollama record calls are schema-constrained (issue 12).

Replayed through LiteLLM's real Ollama handling (``ollama_chat/``) with respx: the documented Ollama response
``tests/fixtures/ollama/chat_structured_output.json``, once whole and once trickled one byte at a time — the
server behaviour that kept a 2 s route timeout alive for 38 s, because LiteLLM's timeout bounds each read.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import ClassVar

import httpx
import litellm
import pytest
import respx

from cosci.config.schema import CosciConfig
from cosci.llm import errors as E
from cosci.llm.gateway.adapter import Gateway
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, TextBlock
from cosci.records import Record
from tests.llm.helpers import harness, make_config

OLLAMA_CHAT = "http://localhost:11434/api/chat"
BODY = (Path(__file__).resolve().parents[1] / "fixtures" / "ollama" / "chat_structured_output.json").read_bytes()


class Availability(Record):
    """The record of the documented request (its ``format`` schema: age, available)."""

    tool_name: ClassVar[str] = "record_availability"
    tool_description: ClassVar[str] = "Record the age and availability."

    age: int
    available: bool


@pytest.fixture
def wire() -> Iterator[respx.MockRouter]:
    """respx over LiteLLM's httpx transport; unmocked requests fail the test."""
    saved = litellm.disable_aiohttp_transport
    litellm.disable_aiohttp_transport = True
    litellm.in_memory_llm_clients_cache.flush_cache()
    with respx.mock(assert_all_mocked=True, assert_all_called=False) as router:
        yield router
    litellm.disable_aiohttp_transport = saved
    litellm.in_memory_llm_clients_cache.flush_cache()


def ollama(tmp_path: Path, *extra: str) -> CosciConfig:
    return make_config(tmp_path / "data", "models=ollama", *extra)


def record_spec(gw: Gateway) -> CallSpec:
    return CallSpec(route=gw.router.route("goal_parsing", "parse_goal"), action="ParseGoal",
                    system=[TextBlock("Safety preamble.", cache=True)],
                    messages=[{"role": "user", "content": "Ollama is 22 years old and busy saving the world."}])


class Trickle(httpx.AsyncByteStream):
    """A body sent one byte every ``gap`` seconds."""

    def __init__(self, body: bytes, gap: float) -> None:
        self.body, self.gap = body, gap

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i in range(len(self.body)):
            await asyncio.sleep(self.gap)
            yield self.body[i : i + 1]


async def test_an_ollama_record_call_sends_the_schema_as_format(wire: respx.MockRouter, tmp_path: Path) -> None:
    h = harness(ollama(tmp_path))
    # Ollama calls are streamed (NDJSON): the documented answer as the stream's one, final line
    route = wire.post(OLLAMA_CHAT).mock(return_value=httpx.Response(200, content=json.dumps(json.loads(BODY)) + "\n"))
    record, _ = await call_record(h.gateway, record_spec(h.gateway), Availability)
    assert (record.age, record.available) == (22, False)  # the JSON answer became the record call
    sent = json.loads(route.calls[0].request.content)
    assert sent["format"]["properties"].keys() == {"age", "available"}  # constrained by the record's schema
    assert "tools" not in sent and "tool_choice" not in sent  # Ollama ignores tool_choice (stack notes)
    assert h.outcomes == ["ok"]


async def test_a_trickling_body_meets_the_deadline_and_is_retried_as_a_timeout(wire: respx.MockRouter,
                                                                              tmp_path: Path) -> None:
    # an Ollama call is streamed under first_token_seconds + max_tokens / speed: made ~1 s here
    config = ollama(tmp_path, "retry.call_timeout_seconds=1", "retry.timeout_attempts=2", "retry.first_token_seconds=1",
                    *(f"models.tiers.{t}.output_tokens_per_second=100000" for t in ("strong", "cheap", "mini")))
    h = harness(config)
    body = (json.dumps(json.loads(BODY)) + "\n").encode()
    wire.post(OLLAMA_CHAT).mock(side_effect=lambda request: httpx.Response(200, stream=Trickle(body, 0.1)))
    started = time.monotonic()
    with pytest.raises(E.CallTimeout):
        await call_record(h.gateway, record_spec(h.gateway), Availability)
    elapsed = time.monotonic() - started
    assert elapsed < 4.0, elapsed  # two 1 s deadlines, not len(BODY) * 0.1 s = 35 s per attempt
    assert h.outcomes == ["retry:timeout", "error:timeout"]  # retried per the table (timeout_attempts)
    assert h.budget.total_spent_usd == 0 and h.budget.remaining_usd() == config.run.budget_usd  # released
