"""The registry's tools inside the real tool loop: URLs reach ``seen_urls``; failures do not stop the loop."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import httpx
import respx

from cosci.agents.tool_loop import run_tool_loop
from cosci.llm.port.types import CallSpec, LLMResponse, Route, ToolCall
from cosci.records import RecordResearchPlan
from cosci.tools import arxiv

PLAN = {"objective": "Find testing methods for DL models", "preferences": ["novel"],
        "idea_attributes": ["testable", "specific", "novel"]}


@dataclass
class ScriptedPort:
    """Answers each call with the next scripted tool calls and records what it was asked."""

    script: list[list[ToolCall]]
    asked: list[CallSpec] = field(default_factory=list)

    async def complete(self, spec: CallSpec) -> LLMResponse:
        self.asked.append(spec)
        return LLMResponse(text="", tool_calls=self.script.pop(0), thinking_blocks=[],
                           finish_reason="tool_calls", model="scripted")


def spec() -> CallSpec:
    route = Route(agent="generation", mode="literature", tier="strong", model="scripted", thinking_tokens=0,
                  max_output_tokens=1000, max_iterations=4, timeout_seconds=30.0)
    return CallSpec(route=route, action="CreateInitialHypotheses", system=[],
                    messages=[{"role": "user", "content": "goal"}])


@respx.mock
async def test_search_urls_become_seen_urls(make_registry, recorded) -> None:
    respx.get(arxiv.API_URL).mock(return_value=httpx.Response(200, text=recorded("arxiv/query.xml")))
    respx.get(url__startswith="https://eutils.ncbi.nlm.nih.gov/").mock(side_effect=httpx.ConnectError("down"))
    tools = make_registry().for_agent("generation")
    port = ScriptedPort([
        [ToolCall("c1", "arxiv_search", json.dumps({"query": "testing"})),
         ToolCall("c2", "pubmed_search", json.dumps({"query": "testing"}))],
        [ToolCall("c3", "record_research_plan", json.dumps(PLAN))],
    ])
    result = await run_tool_loop(port, spec(), tools, RecordResearchPlan, max_iters=4)

    assert {t.name for t in port.asked[0].tools} >= {"arxiv_search", "pubmed_search", "web_fetch"}
    assert result.seen_urls == {"https://arxiv.org/abs/2202.12139v1", "https://arxiv.org/abs/2405.13786v1",
                                "https://arxiv.org/abs/2005.14124v2"}
    assert result.is_seen("https://arxiv.org/abs/2405.13786v1/")
    tool_messages = [m["content"] for m in port.asked[1].messages if m["role"] == "tool"]
    assert any("Towards Explainable Test Case Prioritisation" in m for m in tool_messages)
    assert any("ERROR from pubmed_search: pubmed_search is unavailable: cannot connect" in m
               for m in tool_messages)
    assert result.record.objective == PLAN["objective"]
