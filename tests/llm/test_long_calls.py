"""Long calls finish: streamed under a deadline from max_tokens and the tier's output speed, with an idle timeout.

``metareview.final`` on Opus asks for up to 24,192 tokens; at a conservative 20 tokens/s that outlasts the fixed
300 s deadline of a thinking call, so the gateway streams it under 60 s + 24,192 / 20 s and gives up on a stream
that sends nothing for 90 s. Time is scaled by 1/100 here (300 s -> 3 s, 20 tokens/s -> 2,000 tokens/s, 90 s ->
0.9 s), except the first-token allowance (5 s): LiteLLM's own set-up of a first call is not scaled.

The stream is a real one: ``tests/fixtures/anthropic/messages_stream_thinking_text.sse``, an Anthropic Messages
event stream (thinking with its signature, then text, then usage) recorded by pydantic-ai (source in
``tests/fixtures/README.md``), replayed through LiteLLM's real streaming path with respx, one event at a time.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import respx

from cosci.config.schema import CosciConfig
from cosci.llm import errors as E
from tests.llm.helpers import harness, make_config, replayed_wire, spec_for

ANTHROPIC_URL = "https://api.anthropic.com/v1/messages"
STREAM = (Path(__file__).resolve().parents[1] / "fixtures" / "anthropic"
          / "messages_stream_thinking_text.sse").read_bytes()
EVENTS = [e + b"\n\n" for e in STREAM.split(b"\n\n") if e.strip()]
SCALED = ["models=opus", "run.budget_usd=25", "retry.thinking_call_timeout_seconds=3",
          "retry.call_timeout_seconds=1.2", "retry.first_token_seconds=5", "retry.stream_idle_seconds=0.9",
          "models.tiers.strong.output_tokens_per_second=2000", "retry.base_delay_seconds=0"]


class Paced(httpx.AsyncByteStream):
    """The recorded events, one every ``gap`` seconds; after ``stop_after`` events the sender goes silent."""

    def __init__(self, gap: float, stop_after: int | None = None) -> None:
        self.gap, self.stop_after = gap, stop_after

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i, event in enumerate(EVENTS):
            if self.stop_after is not None and i >= self.stop_after:
                await asyncio.sleep(3600)  # a provider that stopped sending (the connection stays open)
            await asyncio.sleep(self.gap)
            yield event


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[respx.MockRouter]:
    with replayed_wire(monkeypatch, ("ANTHROPIC_API_KEY",)) as router:
        yield router


@pytest.fixture
def scaled(tmp_path: Path) -> CosciConfig:
    return make_config(tmp_path / "data", *SCALED)


def sse(stream: httpx.AsyncByteStream) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream; charset=utf-8"}, stream=stream)


async def test_a_slow_stream_longer_than_the_old_deadline_completes(wire: respx.MockRouter,
                                                                     scaled: CosciConfig) -> None:
    h = harness(scaled)
    spec = spec_for(h.gateway, "metareview", "final", "Write the final overview.")
    assert spec.route.stream and spec.route.timeout_seconds == pytest.approx(5 + 24192 / 2000)
    route = wire.post(ANTHROPIC_URL).mock(side_effect=lambda request: sse(Paced(gap=0.03)))  # 118 events: 3.5 s

    started = time.monotonic()
    resp = await h.gateway.complete(spec)
    elapsed = time.monotonic() - started

    assert elapsed > scaled.retry.thinking_call_timeout_seconds  # longer than the old fixed deadline, yet done
    body = json.loads(route.calls[0].request.content)
    assert body["stream"] is True and body["max_tokens"] == 24192
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body["output_config"] == {"effort": "high"}  # metareview.final's 16,000-token budget
    assert resp.text.startswith("Here are the basic steps for safely crossing the street")
    [thinking] = resp.thinking_blocks
    assert thinking["signature"] and thinking["thinking"].startswith("This is a straightforward question")
    assert (resp.input_tokens, resp.output_tokens) == (43, 282)
    assert resp.finish_reason == "stop" and resp.cost_usd > 0
    assert [r.outcome for r in h.records] == ["ok"], [(r.outcome, r.error) for r in h.records]
    [row] = h.records
    assert row.outcome == "ok" and row.first_token_seconds is not None
    assert 0 < row.first_token_seconds < elapsed
    assert row.output_tokens_per_second == pytest.approx(282 / (row.latency_seconds - row.first_token_seconds))
    assert h.budget.total_spent_usd == pytest.approx(resp.cost_usd)


async def test_a_stream_that_stops_sending_times_out_once_and_is_retried_once(wire: respx.MockRouter,
                                                                              scaled: CosciConfig) -> None:
    h = harness(scaled)
    spec = spec_for(h.gateway, "metareview", "final", "Write the final overview.")
    route = wire.post(ANTHROPIC_URL).mock(side_effect=lambda request: sse(Paced(gap=0.002, stop_after=20)))

    started = time.monotonic()
    with pytest.raises(E.StreamTimeout, match=r"nothing for 0\.9 s waiting for the next chunk"):
        await h.gateway.complete(spec)

    assert time.monotonic() - started < 8.0  # given up at the idle timeout (twice), not at the 17 s deadline
    assert route.call_count == 2  # retry.timeout_attempts is 3; a streamed timeout is tried once more only
    assert h.outcomes == ["retry:timeout", "error:timeout"]
    assert all("the stream went idle" in (r.error or "") for r in h.records)
    assert h.budget.total_spent_usd == 0.0 and h.budget.remaining_usd() == scaled.run.budget_usd  # released


async def test_a_stream_past_its_deadline_is_a_stream_timeout(wire: respx.MockRouter, tmp_path: Path) -> None:
    """A provider that keeps sending, too slowly to finish: the whole call's deadline ends it."""
    config = make_config(tmp_path / "data", *SCALED, "models.tiers.strong.output_tokens_per_second=24192",
                         "retry.first_token_seconds=1.5", "retry.thinking_call_timeout_seconds=0.5")
    h = harness(config)
    spec = spec_for(h.gateway, "metareview", "final", "Write the final overview.")
    assert spec.route.stream and spec.route.timeout_seconds == pytest.approx(2.5)  # 1.5 s + 24192 / 24192 s
    wire.post(ANTHROPIC_URL).mock(side_effect=lambda request: sse(Paced(gap=0.1)))  # 118 events: 11.8 s
    with pytest.raises(E.StreamTimeout, match="streamed deadline"):
        await h.gateway.complete(spec)
    assert h.outcomes == ["retry:timeout", "error:timeout"]


async def test_a_stream_cut_off_before_its_stop_reason_is_not_an_answer(wire: respx.MockRouter,
                                                                        scaled: CosciConfig) -> None:
    """The connection closes mid-answer (the recorded stream without its last events): a transient error, retried
    as a connection failure; never a cut-off text taken for the whole answer."""

    class Cut(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            for event in EVENTS[:40]:
                yield event

    h = harness(scaled)
    spec = spec_for(h.gateway, "metareview", "final", "Write the final overview.")
    wire.post(ANTHROPIC_URL).mock(side_effect=lambda request: sse(Cut()))
    with pytest.raises(E.ConnectionFailed, match="before a finish_reason"):  # LiteLLM's own check sees it first
        await h.gateway.complete(spec)
    assert h.outcomes[-1] == "error:connection" and set(h.outcomes[:-1]) == {"retry:connection"}
