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

from cosci.agents.tool_loop import run_tool_loop
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.gateway.adapter import Gateway
from cosci.llm.gateway.call_shapes import SESSION_CALLS, session_calls, signature
from cosci.llm.gateway.check import run_check
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, LLMResponse, Route, TextBlock, ToolCall, ToolSpec
from cosci.records import RecordCheck
from cosci.tools.base import ToolResult
from tests.conftest import run_cli as cli
from tests.llm.helpers import WHOLE, make_config, recorded, replayed_wire

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
    assert err.splitlines() == ["safety: tier mini (cosci-fake/mini) answers as a test scripts it (marked unable to "
                                "classify by its preset); the offline screen decides (docs/design.md#safety-measured)"]
    lines = out.splitlines()
    assert lines[0].startswith("check     fake: 3 probes, total $") and lines[0].endswith("all passed")  # cost first
    for key in ("goal_parsing.parse_goal", "generation.literature", "metareview.final", "safety.classify"):
        assert any(line.split()[0] == key for line in lines if line.startswith("  ")), key
    assert any("generation.literature" in x and "budget_tokens 4000" in x and "max_tokens  12192" in x for x in lines)
    calls = lines[lines.index(next(x for x in lines if x.startswith("probes"))) + 1:]
    assert len(calls) == 3 and all("tool call" in x and "valid record" in x for x in calls)  # thinking, none: strong
    assert sum("cosci-fake/strong" in x for x in calls) == 1  # one model and form: the in-process fake rejects nothing


SAFETY_LINES = {"ollama": "safety: tier mini (ollama_chat/qwen2.5:3b) not measured as a classifier;",
                "opus": "safety: tier mini (anthropic/claude-haiku-4-5-20251001) not measured as a classifier;",
                "local": "safety: tier mini (cosci-local/smollm2-135m-instruct) measured worse than the offline screen"}


@pytest.mark.parametrize("models", sorted(SAFETY_LINES))
def test_check_names_who_decides_safety_for_every_tier_the_offline_screen_decides_for(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, models: str) -> None:
    """Fresh-user report: `cosci check models=ollama` lacked the safety line a hosted preset's check prints (it was
    said after the local server's check, which refused first); the embedded model's tier said nothing either. The
    line comes before the server check, as a hosted tier's comes before its probes. The probes are not sent here:
    what is checked is the line on stderr (the probes' own tests are above and below)."""
    from cosci.errors import ServerUnreachable

    def down(config: object) -> None:
        raise ServerUnreachable("strong", "http://localhost:11434", "ollama_chat/qwen2.5:14b")

    async def no_probes(config: object) -> list[object]:
        return []

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setattr("cosci.llm.gateway.providers.check_servers", down if models == "ollama" else lambda c: None)
    monkeypatch.setattr("cosci.llm.gateway.check.run_check", no_probes)
    code, _, err = cli(capsys, "check", f"models={models}")
    said = err.splitlines()
    assert said[0].startswith(SAFETY_LINES[models]), err
    assert said[0].endswith("; the offline screen decides (docs/design.md#safety-measured)")
    assert (code, said[1:]) == ((2, ["cosci: models.tiers.strong.api_base: nothing listens at http://localhost:11434 "
                                     "(connection refused); start `ollama serve` or set api_base to where it listens"])
                                if models == "ollama" else (0, []))


def test_check_without_the_key_fails_in_one_line_naming_it(capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, out, err = cli(capsys, "check", "models=opus")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("cosci: ANTHROPIC_API_KEY is not set")


def test_check_on_opus_sends_what_the_session_sends(wire: respx.MockRouter, capsys: pytest.CaptureFixture[str]) -> None:
    """One probe per distinct request shape at the mode's own effort, cap and streaming; the strong tier's tool loops
    end with the forced last call after an auto call offering the lookup, the model's turn in the history."""
    route = wire.post(ANTHROPIC).mock(return_value=httpx.Response(200, json=checked()))
    code, out, err = cli(capsys, "check", "models=opus", *WHOLE)  # replayed whole bodies (no event stream)
    assert code == 0, out + err
    assert err.count("safety:") == 1 and ("safety: tier mini (anthropic/claude-haiku-4-5-20251001) not measured as a "
                                          "classifier; the offline screen decides") in err  # design.md#safety-measured
    sent = [json.loads(c.request.content) for c in route.calls]
    efforts = {json.dumps(b.get("output_config")) for b in sent if b["model"] == "claude-opus-5"}
    assert efforts == {"null", '{"effort": "low"}', '{"effort": "medium"}', '{"effort": "high"}'}  # the modes' own
    config = make_config(Path("/tmp/unused"), "models=opus", *WHOLE)
    caps = {(r.model.split("/", 1)[1], r.max_output_tokens) for r in Router(config).all_routes()}
    assert {(b["model"], b["max_tokens"]) for b in sent} == caps  # every cap the session sends, and no other
    loops = [i for i, b in enumerate(sent) if [t["name"] for t in b.get("tools", [])][:1] == ["lookup_check_values"]]
    first, last = sent[loops[0]], sent[loops[0] + 1]
    assert first["tool_choice"] == {"type": "auto"} and last["tool_choice"] == {"type": "tool", "name": "record_check"}
    assert last["messages"][-1]["content"][0]["type"] == "tool_result"  # the loop's history, then the forced record
    assert first["output_config"] == last["output_config"]  # one thinking setting for the loop
    lines = out.splitlines()
    rows = [x for x in lines if x.startswith("  claude") or x.startswith("  anthropic/")]
    assert lines[0].startswith(f"check     opus: {len(rows)} probes, total $") and len(rows) >= 10
    assert all("api.anthropic.com" in x for x in rows) and out.count("valid record") + out.count(" text ") == len(rows)
    assert any(" loop (2 calls) " in x for x in rows) and any(" plain " in x for x in rows)
    assert "budget_tokens" not in out  # no tier of this preset sends it


@pytest.mark.parametrize(("number", "said"), [(3, "(word ', number:' for 'cosci', number 3 for 7)"),
                                              (7, "(word ', number:' for 'cosci')")])  # a right field is not listed
def test_a_record_with_other_values_names_what_came_and_what_was_asked(wire: respx.MockRouter, number: int, said: str,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A valid record whose values are not the ones asked (a small model echoing the prompt's punctuation) says
    which came for which (fresh-user trial: "values differ (', number:', 7)" named neither field)."""
    wire.post(ANTHROPIC).mock(return_value=httpx.Response(200, json=checked(word=", number:", number=number)))
    code, out, err = cli(capsys, "check", "models=opus", *WHOLE)
    rows = [x for x in out.splitlines() if x.startswith("  ") and "values differ" in x]
    assert rows and all(f"values differ {said}" in x for x in rows), out
    assert code == 0 or "the record's values differ from the request" in out, err
    assert "valid record" not in out


def test_claude45_probes_send_the_sessions_budgets_and_loop_ending(wire: respx.MockRouter,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Opus 4.5 takes budget_tokens: each probe carries its mode's own budget (4,000 to 16,000 tokens, never a
    lowered 1,024) and cap; the loop's ending with budget thinking is the unforced last call asking for the record,
    then the separate forced call without thinking, as the session's tool loop sends it."""
    route = wire.post(ANTHROPIC).mock(return_value=httpx.Response(200, json=checked()))
    code, out, err = cli(capsys, "check", "models=claude45", *WHOLE)
    assert code == 0, out + err
    sent = [json.loads(c.request.content) for c in route.calls]
    config = make_config(Path("/tmp/unused"), "models=claude45", *WHOLE)
    session = {(r.max_output_tokens, r.thinking_tokens) for r in Router(config).all_routes() if r.thinking_tokens}
    budgets = {(b["max_tokens"], b["thinking"]["budget_tokens"]) for b in sent if "thinking" in b}
    assert session <= budgets and {t for _, t in session} >= {4000, 6000, 8000, 12000, 16000}
    assert all(t >= 4000 for _, t in budgets)  # no probe lowers a budget to Anthropic's minimum
    asked = [i for i, b in enumerate(sent) if "last turn" in json.dumps(b["messages"][-1])]
    assert asked, "no unforced last call of a loop"
    last, separate = sent[asked[0]], sent[asked[0] + 1]
    assert last["tool_choice"] == {"type": "auto"} and "thinking" in last
    assert separate["tool_choice"] == {"type": "tool", "name": "record_check"} and "thinking" not in separate
    assert all("thinking" not in b for b in sent if b.get("tool_choice", {}).get("type") == "tool")  # refused so
    assert "budget_tokens 16000" in out and "budget_tokens 1024" not in out


OPENROUTER = "https://openrouter.ai/api/v1/chat/completions"
TOOL_CALLS = recorded("openai/chat_completion_tool_calls.json")
TEXT = recorded("openrouter/chat_completion_reasoning_effort_high.json")


def openai_checked() -> dict[str, Any]:
    """The recorded chat-completion tool call renamed to ``record_check`` with the check's values (in memory)."""
    body = copy.deepcopy(TOOL_CALLS)
    call = body["choices"][0]["message"]["tool_calls"][0]
    call["function"].update(name="record_check", arguments=json.dumps({"word": "cosci", "number": 7}))
    body["choices"][0]["message"]["tool_calls"] = [call]
    return body


def test_openrouter_probes_send_the_safety_call_as_the_session_does(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """The safety classifier on Gemini Flash (its lowest level, the 1,024-token cap, forced) is a probe of its own,
    not covered by the ranking judge on the same model (level low, 6,048 tokens)."""
    tiers = ("strong", "cheap", "mini", "claude", "flash")
    whole = [f"++models.tiers.{t}.output_tokens_per_second=null" for t in tiers]
    with replayed_wire(monkeypatch, ("OPENROUTER_API_KEY",)) as wire:
        route = wire.post(OPENROUTER).mock(side_effect=lambda request: httpx.Response(
            200, json=openai_checked() if "tools" in json.loads(request.content) else TEXT))
        code, out, err = cli(capsys, "check", "models=openrouter", *whole)
    assert code == 0, out + err
    sent = [json.loads(c.request.content) for c in route.calls]
    config = make_config(Path("/tmp/unused"), "models=openrouter", *whole)
    safety = Router(config).route("safety", "classify")
    ranking = Router(config).route("ranking", "pairwise")
    assert safety.model == ranking.model and safety.max_output_tokens != ranking.max_output_tokens
    model = safety.model.removeprefix("openrouter/")
    shapes = {(b["max_tokens"], json.dumps(b.get("reasoning")), json.dumps(b.get("tool_choice"))) for b in sent
              if b["model"] == model}
    forced = json.dumps({"type": "function", "function": {"name": "record_check"}})
    assert (safety.max_output_tokens, '{"effort": "minimal"}', forced) in shapes  # the classifier's call
    assert (ranking.max_output_tokens, '{"effort": "low"}', "null") in shapes  # the judge's plain call
    rows = [x for x in out.splitlines() if x.startswith("  ") and "openrouter.ai" in x]
    assert any("safety.classify" in x and "reasoning.effort minimal" in x for x in rows)
    assert out.splitlines()[0].startswith(f"check     openrouter: {len(rows)} probes")


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
    rows = [x for x in out.splitlines() if x.startswith("  anthropic/")]
    bad = [x for x in rows if ("claude-opus-5" in x and "adaptive" in x) or "claude-haiku" in x]
    assert len(bad) >= 3 and all(x.endswith("FAILED") for x in bad)  # Opus with thinking (records, loops), Haiku
    assert not any(x.endswith("FAILED") for x in rows if x not in bad)
    assert len(fixes) == len(bad) and f"{len(bad)} failed" in out.splitlines()[0]
    opus = next(x for x in fixes if "claude-opus-5" in x)
    assert "check models.tiers.strong.thinking (now adaptive)" in opus and "LiteLLM version" in opus
    assert "does not support effort level" in opus  # the provider's own words
    haiku = next(x for x in fixes if "claude-haiku" in x)
    assert "check models.tiers.mini.model" in haiku


def test_a_model_that_answers_tool_calls_in_text_is_told_apart(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A server whose model answers every call with text (a recorded plain completion): the record probes fail, and
    their fix says the model does not call tools (fresh user: "raise the tier's max tokens" cannot help there)."""
    monkeypatch.setattr("cosci.llm.gateway.providers.check_servers", lambda config: None)  # respx, not a socket
    with replayed_wire(monkeypatch, ["OPENAI_COMPATIBLE_API_KEY"]) as router:
        router.post("http://localhost:8000/v1/chat/completions").mock(
            return_value=httpx.Response(200, json=recorded("openai/chat_completion_gpt_5.json")))
        code, out, _ = cli(capsys, "check", "models=openai_compatible", *WHOLE)
    assert code == 1
    records = [x for x in out.splitlines() if x.startswith("fix ") and "no valid record" in x]
    assert records and all(x.endswith("(got text only)); pick a model that supports tool calling") for x in records)
    assert "max tokens" not in out


def test_a_refused_key_names_the_variable(wire: respx.MockRouter, capsys: pytest.CaptureFixture[str]) -> None:
    error = copy.deepcopy(ERROR)
    error["error"].update(type="authentication_error", message="invalid x-api-key")
    wire.post(ANTHROPIC).mock(return_value=httpx.Response(401, json=error))
    code, out, _ = cli(capsys, "check", "models=sonnet")
    assert code == 1
    assert all("check ANTHROPIC_API_KEY" in x for x in out.splitlines() if x.startswith("fix "))


LOCAL_FIXES = [("ollama", 404, "qwen2.5:14b is not pulled on the Ollama server at http://localhost:11434 (",
                "`ollama pull qwen2.5:14b`"),
               ("ollama", 401, "the server at http://localhost:11434 refused the call (",
                "Ollama takes no key; check that Ollama is what answers at http://localhost:11434"),
               ("ollama", 0, "no answer from the server at http://localhost:11434 (",
                "start `ollama serve` or set models.tiers.strong.api_base to where it listens"),
               ("openai_compatible", 404, "the server at http://localhost:8000/v1 does not serve local-model (",
                "set models.tiers.strong.model=openai/<a model its http://localhost:8000/v1/models lists>"),
               ("openai_compatible", 401, "the server at http://localhost:8000/v1 refused the call (",
                "check OPENAI_COMPATIBLE_API_KEY against the key it was started with"),
               ("openai_compatible", 0, "no answer from the server at http://localhost:8000/v1 (",
                "start the model's server or set models.tiers.strong.api_base to where it listens")]


@pytest.mark.parametrize(("models", "status", "starts", "ends"), LOCAL_FIXES,
                         ids=[f"{m}-{s or 'down'}" for m, s, _, _ in LOCAL_FIXES])
def test_a_local_servers_failure_names_what_is_wrong_for_that_server_not_a_key(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], models: str, status: int, starts: str,
        ends: str) -> None:
    """Fresh-user report: a model served by Ollama or an OpenAI-compatible server on this machine got API-key advice
    ("check the provider's key variable", "not served for this key"), and Ollama's 404 for a model not pulled ended
    the check in a traceback (its probe stepped down the chain under the check's own agent). Each failure (HTTP 404
    or 401, no body assumed; nothing answering) names what is wrong for that kind of server."""
    monkeypatch.setattr("cosci.llm.gateway.providers.check_servers", lambda config: None)  # respx, not a socket
    with replayed_wire(monkeypatch, ["OPENAI_COMPATIBLE_API_KEY"]) as router:
        route = router.route(host__regex=r".*")
        route.mock(return_value=httpx.Response(status)) if status else route.mock(side_effect=httpx.ConnectError("x"))
        # one attempt per call: a ConnectError is a server error or a failed connection to the gateway, tried 5 or 3
        # times (65 and 89 calls for 13 probes, 13 and 33 with one; the fix line is what is read)
        code, out, err = cli(capsys, "check", f"models={models}", *WHOLE, "retry.base_delay_seconds=0",
                             "retry.max_delay_seconds=0", "retry.server_error_attempts=1", "retry.timeout_attempts=1")
    assert code == 1, err
    fixes = [x.split("): ", 1)[1] for x in out.splitlines() if x.startswith("fix ")]  # after "fix <model> (...): "
    assert fixes and any(x.startswith(starts) and x.endswith(ends) for x in fixes), fixes[:2]
    assert not any("key variable" in x or "for this key" in x for x in fixes)


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
    # the local servers' hosts answer through respx here, not on a socket (test_routing checks the socket check)
    monkeypatch.setattr("cosci.llm.gateway.providers.check_servers", lambda config: None)
    with replayed_wire(monkeypatch, keys) as wire:
        wire.route(host__regex=r".*").mock(return_value=httpx.Response(401))
        code, out, _ = cli(capsys, "check", f"models={models}")
    assert code == 1
    lines = out.splitlines()
    calls = lines[lines.index(next(x for x in lines if x.startswith("probes"))) + 1:]
    rows = [x for x in calls if x.startswith("  ")]
    assert rows and all(host in x and "FAILED" in x for x in rows)
    assert any(form in x for x in rows) and all(form in x for x in rows if "no thinking" not in x)
    assert ("budget_tokens" in out) == (form == "budget_tokens")
    assert len([x for x in calls if x.startswith("fix ")]) == len(rows)


# --- every request shape the session sends is among the probes' -------------------------------------------------
def scripted(spec: CallSpec) -> LLMResponse:
    """A model that records when forced, calls the first non-record tool offered when free, else answers text (so
    a record call takes its unforced path to the forced one, and a tool loop runs to its last call)."""
    if spec.tool_choice == RecordCheck.tool_name:
        call = ToolCall("call_0", RecordCheck.tool_name, json.dumps({"word": "cosci", "number": 7}))
        return LLMResponse("", [call], [], "tool_calls", spec.route.model)
    other = [t.name for t in spec.tools if t.name != RecordCheck.tool_name]
    if other and spec.tool_choice == "auto":
        return LLMResponse("", [ToolCall("call_1", other[0], "{}")], [], "tool_calls", spec.route.model)
    return LLMResponse("ok", [], [], "stop", spec.route.model)


class Lookup:
    spec = ToolSpec("paper_search", "Search.", {"type": "object", "properties": {}})

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult("nothing found", source="paper_search")


class SessionPort:
    """The session's side: its own call paths (``complete``, ``call_record``, ``run_tool_loop``) on a scripted
    model, each request's signature taken from the gateway's own body builder."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway, self.signatures = gateway, set[tuple[object, ...]]()

    async def complete(self, spec: CallSpec) -> LLMResponse:
        self.signatures.add(signature(self.gateway.request(spec, spec.route), spec.route))
        return scripted(spec)

    async def send(self, route: Route, shape: str) -> None:
        spec = CallSpec(route=route, action="Session", system=[TextBlock("system", cache=True)],
                        messages=[{"role": "user", "content": "Propose one hypothesis."}])
        if shape == "plain":
            await self.complete(spec)
        elif shape == "record":
            await call_record(self, spec, RecordCheck)
        else:
            await run_tool_loop(self, spec, {"paper_search": Lookup()}, RecordCheck,  # type: ignore[dict-item]
                                max_iters=route.max_iterations)


SESSION_PRESETS = [h[0] for h in HOSTED]


@pytest.mark.parametrize("models", SESSION_PRESETS)
async def test_every_request_shape_the_session_sends_is_probed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                               models: str) -> None:
    """For every mode of the preset, on every tier it calls, in every call shape it makes, the session's request
    (built by the gateway from the session's own call paths) equals a probe's request in every field a provider can
    reject: model, host, thinking fields, max_tokens, streaming, tools, tool_choice, response format."""
    config = make_config(tmp_path / "data", f"models={models}")
    budget = TokenBudget(cap_usd=5.0, shares={"check": 1.0}, reserve_share=0.0)
    session = SessionPort(Gateway(config, budget))
    for route, shape in session_calls(config):
        await session.send(route, shape)
    probed: set[tuple[object, ...]] = set()

    async def probe_complete(self: Gateway, spec: CallSpec) -> LLMResponse:  # the check's requests, as built
        probed.add(signature(self.request(spec, spec.route), spec.route))
        return scripted(spec)

    monkeypatch.setattr(Gateway, "complete", probe_complete)
    probes = await run_check(config)
    assert all(p.fix is None for p in probes), [p.fix for p in probes if p.fix]
    assert session.signatures <= probed, session.signatures - probed
    assert len(probes) <= len(session.signatures)  # deduplicated: no more probes than distinct shapes
    safety = Router(config).route("safety", "classify")
    assert any(s[0] == safety.model and s[3] == safety.max_output_tokens for s in probed)  # the classifier's cap


def test_every_configured_mode_declares_its_call_shapes() -> None:
    """A new agent mode names the shapes its calls take (SESSION_CALLS), or the check would probe a guess."""
    config = make_config(Path("/tmp/unused"), "models=fake")
    modes = {f"{a}.{m}" for a, acfg in config.agents.items() for m in acfg.modes}
    assert modes <= set(SESSION_CALLS), modes - set(SESSION_CALLS)


def test_a_stray_logging_error_block_is_not_taken_for_a_command_s_output() -> None:
    """The flake the check test met once in a whole run: asyncio's GC-time "Task was destroyed" block before a line."""
    from tests.conftest import without_stray_logging_errors

    err = ("--- Logging error ---\nTraceback (most recent call last):\nValueError: I/O operation on closed file.\n"
           "Message: 'Task was destroyed but it is pending!'\nArguments: None\nsafety: tier mini (x) decides\n"
           "cosci: one line\n")
    assert without_stray_logging_errors(err) == "safety: tier mini (x) decides\ncosci: one line\n"
    assert without_stray_logging_errors("cosci: a line\n") == "cosci: a line\n"
