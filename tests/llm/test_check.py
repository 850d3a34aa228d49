"""``cosci check [overrides...]``: routes with their request forms, then one minimal real call per model and form.

Offline on the scripted fake; against Anthropic through LiteLLM's real request building with respx at the
transport, answered by the recorded tool-use body with its ``tool_use`` renamed to the check's record (an in-memory
variant; sources in ``tests/fixtures/README.md``). Failures use Anthropic's recorded error envelope
(``errors/anthropic_400_invalid_request.json``) with status codes the provider documents (400, 401, 404).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import httpx
import litellm
import pytest
import respx

from cosci.llm.gateway.check import CENT
from tests.conftest import run_cli as cli
from tests.llm.helpers import recorded, replayed_wire

ANTHROPIC = "https://api.anthropic.com/v1/messages"
TOOL_USE = recorded("anthropic/messages_thinking_text_tool_use.json")
ERROR = recorded("errors/anthropic_400_invalid_request.json")


def checked(word: str = "cosci", number: int = 7) -> dict[str, Any]:
    body = copy.deepcopy(TOOL_USE)
    body["content"][-1].update(name="record_check", input={"word": word, "number": number})
    return body


@pytest.fixture
def wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[respx.MockRouter]:
    with replayed_wire(monkeypatch, ("ANTHROPIC_API_KEY",)) as router:
        yield router


def test_check_on_the_fake_prints_the_route_table_offline(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "check", "models=fake")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("check     fake: 4 calls, total $") and lines[0].endswith("all passed")  # cost first
    for key in ("goal_parsing.parse_goal", "generation.literature", "metareview.final", "safety.classify"):
        assert any(line.split()[0] == key for line in lines if line.startswith("  ")), key
    assert any("generation.literature" in x and "budget_tokens 4000" in x and "max_tokens  12192" in x for x in lines)
    calls = lines[lines.index(next(x for x in lines if x.startswith("calls"))) + 1:]
    assert len(calls) == 4 and all("tool call" in x and "valid record" in x for x in calls)


def test_check_without_the_key_fails_in_one_line_naming_it(capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, out, err = cli(capsys, "check", "models=opus")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("cosci: ANTHROPIC_API_KEY is not set")


def test_check_on_opus_makes_one_call_per_model_and_form_under_a_cent(wire: respx.MockRouter,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    route = wire.post(ANTHROPIC).mock(return_value=httpx.Response(200, json=checked()))
    code, out, err = cli(capsys, "check", "models=opus")
    assert code == 0, out + err
    sent = [json.loads(c.request.content) for c in route.calls]
    forms = {(b["model"], json.dumps(b.get("thinking")), json.dumps(b.get("output_config"))) for b in sent}
    assert forms == {  # Opus with and without thinking, Sonnet, Haiku: one call each
        ("claude-opus-4-7", '{"type": "adaptive", "display": "summarized"}', '{"effort": "low"}'),
        ("claude-opus-4-7", "null", "null"), ("claude-sonnet-4-6", "null", "null"),
        ("claude-haiku-4-5-20251001", "null", "null")}
    for body in sent:  # each call's cap: what a cent buys at the model's list price
        _, cout = litellm.cost_per_token(model=f"anthropic/{body['model']}", prompt_tokens=1, completion_tokens=1)
        assert body["max_tokens"] * cout < CENT and body["max_tokens"] >= 256
        assert body["tools"][0]["name"] == "record_check"
    [first] = out.splitlines()[:1]
    assert first.startswith("check     opus: 4 calls, total $") and "(each under $0.01)" in first
    assert "adaptive, effort low" in out and out.count("valid record") == 4


def test_a_failed_check_names_the_fix(wire: respx.MockRouter, capsys: pytest.CaptureFixture[str]) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body["model"] == "claude-opus-4-7" and "thinking" in body:
            return httpx.Response(400, json=ERROR)
        if body["model"] == "claude-haiku-4-5-20251001":
            error = copy.deepcopy(ERROR)
            error["error"].update(type="not_found_error", message=f"model: {body['model']}")
            return httpx.Response(404, json=error)
        return httpx.Response(200, json=checked())

    wire.post(ANTHROPIC).mock(side_effect=answer)
    code, out, _ = cli(capsys, "check", "models=opus")
    assert code == 1
    fixes = [x for x in out.splitlines() if x.startswith("fix ")]
    assert len(fixes) == 2 and "2 failed" in out.splitlines()[0]
    opus = next(x for x in fixes if "claude-opus-4-7" in x)
    assert "check models.tiers.strong.thinking (now adaptive)" in opus and "LiteLLM version" in opus
    assert "does not support effort level" in opus  # the provider's own words
    haiku = next(x for x in fixes if "claude-haiku" in x)
    assert "check models.tiers.mini.model" in haiku


def test_a_refused_key_names_the_variable(wire: respx.MockRouter, capsys: pytest.CaptureFixture[str]) -> None:
    error = copy.deepcopy(ERROR)
    error["error"].update(type="authentication_error", message="invalid x-api-key")
    wire.post(ANTHROPIC).mock(return_value=httpx.Response(401, json=error))
    code, out, _ = cli(capsys, "check", "models=sonnet")
    assert code == 1
    assert all("check ANTHROPIC_API_KEY" in x for x in out.splitlines() if x.startswith("fix "))
