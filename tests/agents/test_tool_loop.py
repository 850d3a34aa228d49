"""The tool loop through the real gateway on the scripted fake (issue 3, seed 000 "Tool Loop").

Asserts what each model call was sent (tools, tool_choice, thinking, the paired tool results) and what the
loop returned: one thinking setting for every call of a loop, the last iteration's record (forced where the
thinking form allows it, else asked for, then one separate record call), ``ToolLoopExhausted``, the parallel cap,
tool failures as error results, and citations checked against ``seen_urls``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from cosci.agents.base import filter_urls
from cosci.agents.tool_loop import ToolLoopResult, run_tool_loop
from cosci.config.schema import CosciConfig
from cosci.llm.errors import ToolLoopExhausted, TruncatedArguments
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.llm.port.types import ToolSpec
from cosci.records import RecordHypothesis
from cosci.tools.base import ToolResult
from tests.contract import CONTRACT
from tests.llm.helpers import Harness, harness, spec_for

FORCED = {"type": "function", "function": {"name": "record_hypothesis"}}
THINKING = {"type": "enabled", "budget_tokens": 4000}
PAPER = "https://pubmed.ncbi.nlm.nih.gov/31234567/"


@dataclass
class FakeSearch:
    """A search tool that counts how many of its calls run at once; it can be slow, fail or hang."""

    name: str = "pubmed_search"
    urls: tuple[str, ...] = (PAPER,)
    delay: float = 0.0
    error: Exception | None = None
    arguments: list[dict[str, Any]] = field(default_factory=list)
    running: int = 0
    peak: int = 0

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, "Search the literature.", {
            "type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        self.arguments.append(arguments)
        self.running += 1
        self.peak = max(self.peak, self.running)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            if self.error is not None:
                raise self.error
            text = f"Result for {arguments.get('query')}: see {' '.join(self.urls)}"
            return ToolResult(text, urls=self.urls, source=self.name)
        finally:
            self.running -= 1


def search(query: str, tool: str = "pubmed_search") -> tuple[str, dict[str, Any]]:
    return tool, {"query": query}


async def loop(h: Harness, tools: list[FakeSearch], max_iters: int,
               **kw: Any) -> ToolLoopResult[RecordHypothesis]:
    """Run generation.literature's loop (a thinking route) with ``tools``, ending in record_hypothesis."""
    return await run_tool_loop(h.gateway, spec_for(h.gateway, "generation", "literature"),
                               {t.name: t for t in tools}, RecordHypothesis, max_iters=max_iters, **kw)


def assert_paired(messages: list[dict[str, Any]]) -> None:
    """Every tool call id is answered by exactly one later tool message; every tool message answers one."""
    asked: list[str] = []
    answered: list[str] = []
    for m in messages:
        if m["role"] == "assistant":
            assert set(asked) == set(answered), "a new assistant turn before every call was answered"
            asked += [c["id"] for c in m.get("tool_calls") or []]
        elif m["role"] == "tool":
            assert m["tool_call_id"] in asked, "a tool result answering no call"
            answered.append(m["tool_call_id"])
    assert sorted(answered) == sorted(set(answered)), "a call answered twice"
    assert set(answered) == set(asked), "a call left unanswered"


async def test_the_last_iteration_keeps_budget_thinking_and_asks_without_forcing(config: CosciConfig,
                                                                                  fake: FakeBackend) -> None:
    """The fake's strong tier takes budget thinking, which the provider refuses with a forced tool: every call of
    the loop carries the same thinking setting, and the last one asks for the record instead of forcing it."""
    h = harness(config)
    tool = FakeSearch()
    fake.script(FakeReply(tool_calls=[search("metformin AML")]))
    fake.script(FakeReply(tool_calls=[search("complex I leukemic stem cells")]))
    # the third (last) call is not scripted: the fake's autopilot records a hypothesis after tool results

    result = await loop(h, [tool], 3)

    assert [c.tool_choice for c in fake.calls] == ["auto", "auto", "auto"]
    assert [c.thinking for c in fake.calls] == [THINKING, THINKING, THINKING]  # one setting for the whole loop
    assert "last turn" in str(fake.calls[-1].messages[-1]["content"])  # asked, not forced
    assert all(c.tools == ["pubmed_search", "record_hypothesis"] for c in fake.calls)
    assert isinstance(result.record, RecordHypothesis)
    assert result.tool_calls == ["pubmed_search", "pubmed_search"]
    assert tool.arguments == [{"query": "metformin AML"}, {"query": "complex I leukemic stem cells"}]
    assert_paired(fake.calls[-1].messages)
    tool_texts = [m["content"] for m in fake.calls[-1].messages if m["role"] == "tool"]
    assert len(tool_texts) == 2 and all("<untrusted_source" in t and PAPER in t for t in tool_texts)
    assert h.outcomes == ["ok", "ok", "ok"]


@pytest.mark.overrides("models.tiers.strong.thinking=adaptive")
async def test_the_last_iteration_forces_the_record_with_the_loops_thinking(config: CosciConfig,
                                                                            fake: FakeBackend) -> None:
    """Adaptive thinking accepts a forced tool: the last call forces the record and keeps the loop's setting."""
    h = harness(config)
    fake.script(FakeReply(tool_calls=[search("metformin AML")]))
    await loop(h, [FakeSearch()], 2)
    assert [c.tool_choice for c in fake.calls] == ["auto", FORCED]
    asked = [(r.request["thinking"], r.request["output_config"]) for r in h.records]
    assert asked == [({"type": "adaptive", "display": "summarized"}, {"effort": "low"})] * 2  # 4,000 tokens: low


async def test_a_loop_without_a_record_ends_in_one_separate_record_call(config: CosciConfig,
                                                                        fake: FakeBackend) -> None:
    """Budget thinking, and the last (unforced) call records nothing: one separate call follows, outside the loop:
    a new conversation with the loop's material, the record tool forced, no thinking."""
    h = harness(config)
    fake.script(FakeReply(tool_calls=[search("metformin")]))
    fake.script(FakeReply.no_tool_call("I would rather not record anything."))

    result = await loop(h, [FakeSearch()], 2)

    assert [c.tool_choice for c in fake.calls] == ["auto", "auto", FORCED]
    assert [c.thinking for c in fake.calls] == [THINKING, THINKING, None]  # the loop's two calls alike
    separate = fake.calls[-1]
    assert [m["role"] for m in separate.messages] == ["system", "user", "user"]  # a new conversation
    material = separate.messages[-1]["content"]
    assert "The search for this task has ended" in material and "Called pubmed_search" in material
    assert PAPER in material and "<untrusted_source" in material  # the tool result, as it was quoted
    assert separate.tools == ["record_hypothesis"]
    assert isinstance(result.record, RecordHypothesis) and len(result.responses) == 3


async def test_a_record_before_the_last_iteration_ends_the_loop(config: CosciConfig,
                                                                 fake: FakeBackend) -> None:
    h = harness(config)
    tool = FakeSearch()
    fake.script(FakeReply(tool_calls=[search("metformin")]))
    # second call unscripted: the autopilot sees a tool result and records (tool_choice "auto")
    result = await loop(h, [tool], 8)
    assert [c.tool_choice for c in fake.calls] == ["auto", "auto"]
    assert result.record.citations and len(result.responses) == 2


@pytest.mark.overrides("models.tiers.strong.thinking=off")
async def test_exhausted_when_the_forced_call_records_nothing(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    tool = FakeSearch()
    fake.script(FakeReply(tool_calls=[search("metformin")]))
    fake.script(FakeReply.no_tool_call("I would rather not record anything."))

    with pytest.raises(ToolLoopExhausted) as info:
        await loop(h, [tool], 2)

    assert info.value.tool == "record_hypothesis"
    assert [c.tool_choice for c in fake.calls] == ["auto", FORCED]  # max_iters calls, the last one forced
    assert [c.thinking for c in fake.calls] == [None, None]


@pytest.mark.overrides("models.tiers.strong.thinking=off")
async def test_an_invalid_forced_record_is_a_typed_error(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    fake.script(FakeReply.malformed("record_hypothesis"))
    with pytest.raises(TruncatedArguments):
        await loop(h, [], 1)
    assert [c.tool_choice for c in fake.calls] == [FORCED]


async def test_an_invalid_last_record_goes_to_the_separate_call(config: CosciConfig, fake: FakeBackend) -> None:
    """Budget thinking: a truncated record on the last (unforced) call is not the end; the separate forced call
    asks again, and its own invalid record is the typed error."""
    h = harness(config)
    fake.script(FakeReply.malformed("record_hypothesis"), times=2)
    with pytest.raises(TruncatedArguments):
        await loop(h, [], 1)
    assert [c.tool_choice for c in fake.calls] == ["auto", FORCED]


async def test_an_invalid_record_is_reported_back_while_iterations_remain(config: CosciConfig,
                                                                         fake: FakeBackend) -> None:
    h = harness(config)
    tool = FakeSearch()
    fake.script(FakeReply(tool_calls=[("record_hypothesis", {"title": "incomplete"}), search("metformin")]))

    result = await loop(h, [tool], 3)

    assert isinstance(result.record, RecordHypothesis)
    second = fake.calls[1]
    assert_paired(second.messages)
    replies = {m["tool_call_id"]: m["content"] for m in second.messages if m["role"] == "tool"}
    assert any(r.startswith("Error: record_hypothesis:") and "Call it again" in r for r in replies.values())
    assert "Not run." in replies.values()  # the search next to the invalid record was not dispatched
    assert tool.arguments == []


async def test_a_turn_without_tool_calls_gets_a_nudge(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    fake.script(FakeReply.no_tool_call("Thinking aloud."))
    await loop(h, [], 3)
    last_user = [m for m in fake.calls[1].messages if m["role"] == "user"][-1]
    assert "record_hypothesis" in last_user["content"]


async def test_parallel_dispatch_is_capped(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    tool = FakeSearch(delay=0.05)
    fake.script(FakeReply(tool_calls=[search(f"query {i}") for i in range(5)]))

    result = await loop(h, [tool], 2, parallel_cap=2)

    assert len(tool.arguments) == 5
    assert tool.peak == 2  # in parallel, but never more than the cap
    assert result.tool_calls == ["pubmed_search"] * 5
    assert_paired(fake.calls[-1].messages)


async def test_failing_and_hanging_tools_become_error_results(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    broken = FakeSearch(name="pubmed_search", error=RuntimeError("boom"))
    hanging = FakeSearch(name="arxiv_search", delay=5.0)
    working = FakeSearch(name="europe_pmc_search")
    fake.script(FakeReply(tool_calls=[search("a", "pubmed_search"), search("b", "arxiv_search"),
                                      search("c", "europe_pmc_search"), ("web_fetch", {"url": "x"}),
                                      ("europe_pmc_search", "{not json")]))

    result = await loop(h, [broken, hanging, working], 2, tool_timeout=0.05)

    assert isinstance(result.record, RecordHypothesis)  # the loop went on to the (forced) record
    messages = fake.calls[-1].messages
    assert_paired(messages)
    texts = [m["content"] for m in messages if m["role"] == "tool"]
    assert "ERROR from pubmed_search: pubmed_search failed: RuntimeError: boom" in texts[0]
    assert "ERROR from arxiv_search: arxiv_search timed out" in texts[1]
    assert "Result for c" in texts[2] and "ERROR" not in texts[2]
    assert "Unknown tool 'web_fetch'" in texts[3]
    assert "europe_pmc_search: invalid arguments" in texts[4]
    assert result.seen_urls == {PAPER}  # only the working tool's URLs count as seen


async def test_citations_outside_seen_urls_are_visible(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    tool = FakeSearch(urls=(PAPER,))
    fake.script(FakeReply(tool_calls=[search("metformin")]))
    fake.script(FakeReply.record("record_hypothesis", title="t", statement="s", mechanism="m", entities=["e"],
                                 anticipated_outcomes="o", novelty_argument="n", **CONTRACT, citations=[
                                     {"url": "HTTPS://PubMed.ncbi.nlm.nih.gov/31234567"},  # the seen one
                                     {"url": "https://fabricated.example.org/paper/1"}]))

    result = await loop(h, [tool], 4)

    assert result.seen_urls == {PAPER}
    assert [result.is_seen(c.url) for c in result.record.citations] == [True, False]
    kept, dropped = filter_urls(result.record.citations, result.seen_urls)
    assert [c.url for c in kept] == ["HTTPS://PubMed.ncbi.nlm.nih.gov/31234567"]
    assert dropped == ["https://fabricated.example.org/paper/1"]


async def test_the_autopilots_fabricated_citation_is_caught(config: CosciConfig, fake: FakeBackend) -> None:
    h = harness(config)
    tool = FakeSearch()
    result = await loop(h, [tool], 4)  # fully on autopilot: search, then record
    urls = [c.url for c in result.record.citations]
    assert PAPER in urls and any("fabricated" in u for u in urls)
    kept, dropped = filter_urls(result.record.citations, result.seen_urls)
    assert [c.url for c in kept] == [PAPER] and len(dropped) == 1
    assert [c.tool_choice for c in fake.calls] == ["auto", "auto"]
