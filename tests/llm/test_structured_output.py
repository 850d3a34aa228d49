"""Structured output through record tools (issue 3): the forced path, the thinking path and its fallback, and
every malformed answer as a typed error. Each test asserts what the fake was sent as well as what came back.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cosci.config.schema import CosciConfig
from cosci.llm.errors import (
    EmptyArguments,
    InvalidArguments,
    NoRecordCall,
    StructuredOutputError,
    TruncatedArguments,
)
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.llm.port.structured import call_record, parse_record, record_tool
from cosci.llm.port.types import LLMResponse, ToolCall
from cosci.records import RecordHypothesis, RecordReview, tool_schema
from tests.contract import CONTRACT
from tests.llm.helpers import harness, spec_for

FORCED_HYPOTHESIS = {"type": "function", "function": {"name": "record_hypothesis"}}
VALID = {"title": "Metformin against complex I in AML",
         "statement": "Metformin depletes leukemic stem cells.",
         "mechanism": "Complex I inhibition collapses OXPHOS, on which leukemic stem cells depend.",
         "entities": ["metformin", "complex I"], "anticipated_outcomes": "Fewer colonies at 10 uM.",
         "novelty_argument": "Not tested in AML stem cells.", **CONTRACT,
         "citations": [{"url": "https://pubmed.ncbi.nlm.nih.gov/1/", "title": "OXPHOS in AML"}]}


async def test_thinking_off_forces_the_record_tool(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    spec = spec_for(h.gateway, "reflection", "full")  # strong tier, but this mode has no thinking budget
    assert spec.thinking_tokens == 0
    fake.script(FakeReply.record("record_review", verdict="neutral", evidence=[], notes="Plausible."))

    review, resp = await call_record(h.gateway, spec, RecordReview)

    assert isinstance(review, RecordReview) and review.verdict == "neutral" and review.notes == "Plausible."
    [call] = fake.calls
    assert call.tool_choice == {"type": "function", "function": {"name": "record_review"}}
    assert call.tools == ["record_review"]
    assert call.thinking is None
    assert call.model == "cosci-fake/strong" and (call.agent, call.mode) == ("reflection", "full")
    assert resp.tool_calls[0].name == "record_review"
    assert h.outcomes == ["ok"] and h.records[0].request["tool_choice"] == call.tool_choice


async def test_thinking_route_asks_with_auto_and_takes_the_record(config: CosciConfig,
                                                                   fake: FakeBackend) -> None:
    h = harness(config)
    spec = spec_for(h.gateway, "generation", "literature")
    assert spec.route.thinking_tokens == 4000  # fake strong tier: thinking true
    fake.script(FakeReply.record("record_hypothesis", **VALID))

    hyp, _ = await call_record(h.gateway, spec, RecordHypothesis)

    assert hyp.title == VALID["title"] and hyp.citations[0].url == VALID["citations"][0]["url"]
    [call] = fake.calls  # the record came back: no fallback call
    assert call.tool_choice == "auto"
    assert call.thinking == {"type": "enabled", "budget_tokens": 4000}


async def test_thinking_route_without_record_falls_back_to_one_forced_call(config: CosciConfig,
                                                                          fake: FakeBackend) -> None:
    h = harness(config)
    spec = spec_for(h.gateway, "generation", "literature")
    fake.script(FakeReply.no_tool_call("Here is my idea in prose, no tool."), agent="generation")
    fake.script(FakeReply.record("record_hypothesis", **VALID), agent="generation")

    hyp, resp = await call_record(h.gateway, spec, RecordHypothesis)

    assert hyp.statement == VALID["statement"]
    first, second = fake.calls  # exactly one more call
    assert (first.tool_choice, first.thinking) == ("auto", {"type": "enabled", "budget_tokens": 4000})
    assert second.tool_choice == FORCED_HYPOTHESIS
    assert second.thinking is None  # Anthropic rejects a forced tool with thinking (stack notes)
    assert second.tools == ["record_hypothesis"] and second.messages == first.messages
    assert resp.tool_calls[0].name == "record_hypothesis"
    assert [r.request["thinking"] for r in h.records] == [{"type": "enabled", "budget_tokens": 4000}, None]


async def test_fallback_is_taken_once_only(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    fake.script(FakeReply.no_tool_call(), times=2)
    with pytest.raises(NoRecordCall):
        await call_record(h.gateway, spec_for(h.gateway, "generation", "literature"), RecordHypothesis)
    assert [c.tool_choice for c in fake.calls] == ["auto", FORCED_HYPOTHESIS]


def test_forced_request_never_carries_thinking(config: CosciConfig) -> None:
    gw = harness(config).gateway
    tools = [record_tool(RecordHypothesis)]
    forced = spec_for(gw, "generation", "literature", tools=tools, tool_choice="record_hypothesis")
    assert forced.thinking and forced.route.thinking_tokens == 4000  # thinking allowed, yet forced
    kwargs = gw.request(forced, forced.route)
    assert kwargs["tool_choice"] == FORCED_HYPOTHESIS
    assert "thinking" not in kwargs
    auto = spec_for(gw, "generation", "literature", tools=tools, tool_choice="auto")
    assert gw.request(auto, auto.route)["thinking"] == {"type": "enabled", "budget_tokens": 4000}


# --- malformed answers: typed errors, never a crash -------------------------------------------------------
@pytest.mark.parametrize(("reply", "error"), [
    (FakeReply.malformed("record_hypothesis"), TruncatedArguments),
    (FakeReply(tool_calls=[("record_hypothesis", "")]), EmptyArguments),
    (FakeReply(tool_calls=[("record_hypothesis", "{}")]), EmptyArguments),
    (FakeReply.record("record_hypothesis", title="Only a title"), InvalidArguments),
    (FakeReply(tool_calls=[("record_hypothesis", '["a", "list"]')]), InvalidArguments),
    (FakeReply(tool_calls=[("record_hypothesis", '{"title": "x",, }')]), InvalidArguments),
    (FakeReply.no_tool_call(), NoRecordCall),
    (FakeReply.empty(), NoRecordCall),
    (FakeReply.record("pubmed_search", query="metformin"), NoRecordCall),
], ids=["truncated", "empty-string", "empty-object", "missing-fields", "not-an-object", "bad-json",
        "text-only", "empty-answer", "other-tool"])
async def test_malformed_answers_raise_typed_errors(config: CosciConfig, fake: FakeBackend, reply: FakeReply,
                                                    error: type[StructuredOutputError]) -> None:
    h = harness(config)
    fake.script(reply)
    with pytest.raises(error) as info:
        await call_record(h.gateway, spec_for(h.gateway, "reflection", "full"), RecordHypothesis)
    assert info.value.tool == "record_hypothesis"
    assert [c.tool_choice for c in fake.calls] == [FORCED_HYPOTHESIS]  # one forced call, no retry here
    assert h.outcomes == ["ok"]  # the provider call itself succeeded


def _resp(arguments: str, finish: str | None = None) -> LLMResponse:
    return LLMResponse(text="", tool_calls=[ToolCall("c1", "record_hypothesis", arguments)],
                       thinking_blocks=[], finish_reason=finish, model="m")


@pytest.mark.parametrize("cut", ['{"title": "Metformin against compl', '{"title": "x", ',
                                 '{"title": "x", "n": 12', '{"title": "x\\'],
                         ids=["mid-string", "after-comma", "mid-number", "mid-escape"])
def test_cut_off_json_is_truncated_even_without_a_finish_reason(cut: str) -> None:
    with pytest.raises(TruncatedArguments):
        parse_record(_resp(cut), RecordHypothesis)


def test_truncation_is_told_from_invalid_json() -> None:
    full = json.dumps(VALID)
    with pytest.raises(TruncatedArguments):
        parse_record(_resp(full[: len(full) // 2]), RecordHypothesis)  # cut mid-JSON, no finish reason
    with pytest.raises(TruncatedArguments):
        parse_record(_resp('{"title": "x", "statement": ', "length"), RecordHypothesis)
    with pytest.raises(InvalidArguments, match="not valid JSON"):
        parse_record(_resp('{"title": "x",, "statement": "y"}'), RecordHypothesis)
    with pytest.raises(InvalidArguments, match="citations"):
        parse_record(_resp(json.dumps({**VALID, "citations": "none"})), RecordHypothesis)
    assert parse_record(_resp(full), RecordHypothesis).title == VALID["title"]


def test_the_last_record_call_wins() -> None:
    resp = LLMResponse(text="", thinking_blocks=[], finish_reason="tool_calls", model="m", tool_calls=[
        ToolCall("a", "record_hypothesis", json.dumps({**VALID, "title": "first"})),
        ToolCall("b", "record_hypothesis", json.dumps({**VALID, "title": "second"}))])
    assert parse_record(resp, RecordHypothesis).title == "second"


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.from_regex(r'\A[\[\]{}",:0-9a-z ]{0,80}\Z'),
                 st.builds(lambda d: json.dumps(d)[: len(json.dumps(d)) // 2 + 1],
                           st.dictionaries(st.sampled_from(list(VALID)), st.text(max_size=20)))),
       st.sampled_from([None, "stop", "length", "tool_calls"]))
def test_parse_record_never_crashes(arguments: str, finish: str | None) -> None:
    try:
        rec = parse_record(_resp(arguments, finish), RecordHypothesis)
    except StructuredOutputError:
        return
    assert isinstance(rec, RecordHypothesis)


def test_pathologically_nested_arguments_are_invalid_not_a_crash() -> None:
    depth = 100_000  # deeper than the JSON parser's recursion limit
    with pytest.raises(InvalidArguments):
        parse_record(_resp("[" * depth + "]" * depth), RecordHypothesis)
    with pytest.raises(StructuredOutputError):
        parse_record(_resp('{"a": ' * depth), RecordHypothesis)


def test_the_record_tool_sent_is_the_records_schema(config: CosciConfig) -> None:
    gw = harness(config).gateway
    spec = spec_for(gw, "reflection", "full", tools=[record_tool(RecordHypothesis)],
                    tool_choice="record_hypothesis")
    [tool] = gw.request(spec, spec.route)["tools"]
    assert tool["function"]["name"] == "record_hypothesis"
    assert tool["function"]["description"] == RecordHypothesis.tool_description
    assert tool["function"]["parameters"] == tool_schema(RecordHypothesis)
    assert "$ref" not in json.dumps(tool)  # inlined: some providers and llama.cpp reject $ref
    assert set(tool["function"]["parameters"]["required"]) >= {"title", "statement", "mechanism", "citations"}
