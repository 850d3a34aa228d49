"""The Anthropic batch adapter (issue 16) over the ``anthropic`` SDK's real HTTP path, replayed offline.

The SDK sends through its own ``httpx2`` client, which respx does not patch, so the recorded answers are served
by that client's ``MockTransport``; every request is kept and checked.

Bodies: the Message Batch object is Anthropic's documented example of a created batch (Message Batches API
docs, "Create a Message Batch": ``msgbatch_013Zva2CMHLNnXjNJJKqJ2EF``); its ``ended`` form is derived from it
in the test (status, results URL, counts). The succeeded result wraps the recorded Messages response with cache
reads and writes (``tests/fixtures/anthropic/messages_cache_read_write.json``) in the documented result line
``{"custom_id", "result": {"type": "succeeded", "message"}}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpx2
import pytest

from cosci.llm.batches.batch_gateway import AnthropicBatches, BatchGateway
from cosci.llm.port.types import BatchRequest
from tests.llm.helpers import harness, make_config, spec_for
from tests.llm.test_litellm_replay import recorded

BATCHES_URL = "https://api.anthropic.com/v1/messages/batches"
BATCH_ID = "msgbatch_013Zva2CMHLNnXjNJJKqJ2EF"
CREATED = {"id": BATCH_ID, "type": "message_batch", "processing_status": "in_progress",
           "request_counts": {"processing": 2, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0},
           "ended_at": None, "created_at": "2024-09-24T18:37:24.100435Z", "expires_at": "2024-09-25T18:37:24.100435Z",
           "cancel_initiated_at": None, "results_url": None}
ENDED = {**CREATED, "processing_status": "ended", "ended_at": "2024-09-24T19:37:24.100435Z",
         "request_counts": {"processing": 0, "succeeded": 1, "errored": 0, "canceled": 0, "expired": 1},
         "results_url": f"{BATCHES_URL}/{BATCH_ID}/results"}


class Wire:
    """Answers ``(method, url)`` with queued responses, in order; anything else fails the test."""

    def __init__(self) -> None:
        self.answers: dict[tuple[str, str], list[httpx2.Response]] = {}
        self.requests: list[httpx2.Request] = []

    def on(self, method: str, url: str, *responses: httpx2.Response) -> None:
        self.answers.setdefault((method, url), []).extend(responses)

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        queue = self.answers.get((request.method, str(request.url).split("?")[0]))
        assert queue, f"unexpected request {request.method} {request.url}"
        return queue.pop(0)

    def sent(self, method: str) -> list[dict]:
        return [json.loads(r.content) for r in self.requests if r.method == method]


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[Wire]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    yield Wire()


def gateway_over(wire: Wire, h: object) -> BatchGateway:
    client = anthropic.DefaultAsyncHttpxClient(transport=httpx2.MockTransport(wire))
    return BatchGateway(h.gateway, {"anthropic/": AnthropicBatches("ANTHROPIC_API_KEY", http_client=client)})  # type: ignore[attr-defined]


async def test_a_batch_is_created_polled_and_priced_at_the_batch_price(wire: Wire, tmp_path: Path) -> None:
    # Sonnet 4.6 on the judge's tier: the recorded message's prices (the preset now names Sonnet 5)
    config = make_config(tmp_path / "data", "models=opus", "run.budget_usd=25",
                         "models.tiers.cheap.model=anthropic/claude-sonnet-4-6")
    h = harness(config)
    batches = gateway_over(wire, h)
    reqs = [BatchRequest(f"M-{i}", spec_for(h.gateway, "ranking", "pairwise", f"Compare pair {i}.", task_id="T-1"))
            for i in range(2)]
    route = reqs[0].spec.route
    assert route.model == "anthropic/claude-sonnet-4-6" and batches.supports(route)

    wire.on("POST", BATCHES_URL, httpx2.Response(200, json=CREATED))
    wire.on("GET", f"{BATCHES_URL}/{BATCH_ID}", *(httpx2.Response(200, json=body) for body in (CREATED, ENDED, ENDED)))
    message = recorded("anthropic/messages_cache_read_write.json")
    lines = [{"custom_id": "M-0", "result": {"type": "succeeded", "message": message}},
             {"custom_id": "M-1", "result": {"type": "expired"}}]
    wire.on("GET", f"{BATCHES_URL}/{BATCH_ID}/results", httpx2.Response(
        200, text="\n".join(json.dumps(x) for x in lines) + "\n", headers={"content-type": "application/binary"}))

    batch_id, refused = await batches.submit(reqs)
    assert (batch_id, refused) == (BATCH_ID, [])
    [sent] = wire.sent("POST")
    assert [r["custom_id"] for r in sent["requests"]] == ["M-0", "M-1"]
    params = sent["requests"][0]["params"]
    assert params["model"] == "claude-sonnet-4-6" and params["max_tokens"] == route.max_output_tokens
    assert params["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert params["messages"] == [{"role": "user", "content": "Compare pair 0."}]
    assert h.budget._reserved_usd["ranking"] > 0  # admitted at the batch price until the results settle it

    assert not await batches.ended(route, batch_id)
    assert await batches.ended(route, batch_id)
    out = await batches.results(route, batch_id, reqs)

    assert out["M-1"] is None  # expired: the caller plays it directly
    resp = out["M-0"]
    assert resp is not None and resp.text == message["content"][0]["text"]
    assert (resp.cache_read_tokens, resp.cache_write_tokens) == (1111, 418)
    list_price = (3 * 3.0 + 33 * 15.0 + 418 * 3.75 + 1111 * 0.30) / 1e6  # Sonnet 4.6, USD per 1M tokens
    assert resp.cost_usd == pytest.approx(list_price / 2)  # Anthropic's batch discount: 50 %
    assert [r.outcome for r in h.records] == ["ok", "error:batch_expired"]
    assert h.records[0].request["batch_id"] == BATCH_ID and h.records[0].cost_usd == resp.cost_usd
    assert h.budget.spent_usd["ranking"] == pytest.approx(resp.cost_usd)
    assert h.budget._reserved_usd["ranking"] == pytest.approx(0.0)


async def test_a_rate_limited_create_is_retried_by_the_gateway(wire: Wire, tmp_path: Path) -> None:
    config = make_config(tmp_path / "data", "models=opus", "run.budget_usd=25")
    h = harness(config)
    batches = gateway_over(wire, h)
    error = recorded("errors/anthropic_429_rate_limit.json")
    wire.on("POST", BATCHES_URL, httpx2.Response(429, json=error), httpx2.Response(200, json=CREATED))
    req = BatchRequest("M-0", spec_for(h.gateway, "ranking", "pairwise", "Compare."))
    assert await batches.submit([req]) == (BATCH_ID, [])
    assert len(wire.sent("POST")) == 2 and len(h.waits) == 1  # one retry, waited by the gateway's policy
