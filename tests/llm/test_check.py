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
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from tests.conftest import run_cli as cli
from tests.llm.helpers import WHOLE, recorded, replayed_wire

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
    assert "safety:" not in err  # the fake's preset marks it unable to classify: nothing to say
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


def test_check_on_opus_sends_what_the_session_sends(wire: respx.MockRouter, capsys: pytest.CaptureFixture[str]) -> None:
    """One record call per model and form at the route's own cap and streaming, thinking at its lowest; then the
    strong tier's tool-loop ending: an auto call offering the lookup, the forced last call with the model's turn."""
    from cosci.llm.gateway.routing import Router
    from tests.llm.helpers import make_config

    route = wire.post(ANTHROPIC).mock(return_value=httpx.Response(200, json=checked()))
    code, out, err = cli(capsys, "check", "models=opus", *WHOLE)  # replayed whole bodies (no event stream)
    assert code == 0, out + err
    assert err.count("safety:") == 1 and ("safety: tier mini (anthropic/claude-haiku-4-5-20251001) not measured as a "
                                          "classifier; the offline screen decides") in err  # design.md#safety-measured
    sent = [json.loads(c.request.content) for c in route.calls]
    records, (first, last) = sent[:-2], sent[-2:]
    forms = {(b["model"], json.dumps(b.get("thinking")), json.dumps(b.get("output_config"))) for b in records}
    assert forms == {  # Opus with and without thinking, Sonnet, Haiku: one call each
        ("claude-opus-5", '{"type": "adaptive", "display": "summarized"}', '{"effort": "low"}'),
        ("claude-opus-5", "null", "null"), ("claude-sonnet-5", "null", "null"),
        ("claude-haiku-4-5-20251001", "null", "null")}
    config = make_config(Path("/tmp/unused"), "models=opus")
    caps = {(r.model.split("/", 1)[1], r.max_output_tokens) for r in Router(config).all_routes()}
    for body in records:  # the session's own cap for that model, never a cent's worth
        assert (body["model"], body["max_tokens"]) in caps and body["tools"][0]["name"] == "record_check"
    assert [t["name"] for t in first["tools"]] == ["lookup_check_values", "record_check"]
    assert first["tool_choice"] == {"type": "auto"} and first["model"] == last["model"] == "claude-opus-5"
    assert last["tool_choice"] == {"type": "tool", "name": "record_check"}
    assert last["messages"][-1]["content"][0]["type"] == "tool_result"  # the loop's history, then the forced record
    assert last["max_tokens"] == Router(config).route("generation", "literature").max_output_tokens
    lines = out.splitlines()
    assert lines[0].startswith("check     opus: 5 calls, total $")
    calls = [x for x in lines if x.startswith("  claude") or x.startswith("  anthropic/")]
    assert len(calls) == 5 and all("api.anthropic.com" in x for x in calls)
    assert sum("loop last call" in x for x in calls) == 1 and out.count("valid record") == 5
    assert "budget_tokens" not in out  # no tier of this preset sends it


def test_a_failed_check_names_the_fix(wire: respx.MockRouter, capsys: pytest.CaptureFixture[str]) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body["model"] == "claude-opus-5" and "thinking" in body:
            return httpx.Response(400, json=ERROR)
        if body["model"] == "claude-haiku-4-5-20251001":
            error = copy.deepcopy(ERROR)
            error["error"].update(type="not_found_error", message=f"model: {body['model']}")
            return httpx.Response(404, json=error)
        return httpx.Response(200, json=checked())

    wire.post(ANTHROPIC).mock(side_effect=answer)
    code, out, _ = cli(capsys, "check", "models=opus", *WHOLE)
    assert code == 1
    fixes = [x for x in out.splitlines() if x.startswith("fix ")]
    assert len(fixes) == 3 and "3 failed" in out.splitlines()[0]  # Opus with thinking (record, loop), Haiku
    opus = next(x for x in fixes if "claude-opus-5" in x)
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


HOSTED = [("opus", "api.anthropic.com", "adaptive"), ("sonnet", "api.anthropic.com", "no thinking"),
          ("claude45", "api.anthropic.com", "budget_tokens"),
          ("gemini", "generativelanguage.googleapis.com", "thinkingLevel"),
          ("gemini3", "generativelanguage.googleapis.com", "thinkingLevel"),
          ("openai", "api.openai.com", "reasoning_effort"), ("openai_o", "api.openai.com", "reasoning_effort"),
          ("openrouter", "openrouter.ai", "reasoning.effort"), ("groq", "api.groq.com", "reasoning_effort"),
          ("together", "api.together.ai", "reasoning_effort"), ("mistral", "api.mistral.ai", "no thinking"),
          ("ollama", "localhost:11434", "no thinking"), ("openai_compatible", "localhost:8000", "no thinking")]


@pytest.mark.parametrize(("models", "host", "form"), HOSTED, ids=[h[0] for h in HOSTED])
def test_a_bogus_key_gives_one_line_per_probe_naming_host_and_form(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str], models: str,
                                                                   host: str, form: str) -> None:
    """Offline, every provider refuses a bogus key (HTTP 401, no body assumed): each probe's row names the host it
    went to and the form it sent; budget_tokens only where the tier sends it (Gemini's rows say thinkingLevel)."""
    keys = ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY",
            "TOGETHERAI_API_KEY", "MISTRAL_API_KEY", "OPENAI_COMPATIBLE_API_KEY")
    with replayed_wire(monkeypatch, keys) as wire:
        wire.route(host__regex=r".*").mock(return_value=httpx.Response(401))
        code, out, _ = cli(capsys, "check", f"models={models}")
    assert code == 1
    lines = out.splitlines()
    calls = lines[lines.index(next(x for x in lines if x.startswith("calls"))) + 1:]
    rows = [x for x in calls if x.startswith("  ")]
    assert rows and all(host in x and "FAILED" in x for x in rows)
    assert any(form in x for x in rows) and all(form in x for x in rows if "no thinking" not in x)
    assert ("budget_tokens" in out) == (form == "budget_tokens")
    assert len([x for x in calls if x.startswith("fix ")]) == len(rows)
