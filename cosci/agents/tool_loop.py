"""The tool loop: assistant -> tool calls -> tool results, until the terminal record tool (design.md#prompts).

1. The spec goes out with the allowed tools plus the terminal record tool, ``tool_choice="auto"``.
2. Tool calls are dispatched in parallel, at most ``parallel_cap`` (4) at once, each under a timeout (30 s);
   every call gets exactly one result message (calls and results stay paired), failures included.
3. Results are untrusted: their text is quoted before the model sees it; the records they return join
   ``sources`` (their own URLs are ``seen_urls``; a link printed inside a page is no record, design.md#grounding). A
   tool that returns URLs but no records (an older or scripted tool) gives one record per URL, with its text.
4. A terminal record call ends the loop at once and is not dispatched: the record is the answer. An invalid
   record is reported back to the model as a tool error while iterations remain.
5. On the last allowed iteration the terminal tool is forced (and thinking is off for that call).
6. :class:`~cosci.llm.errors.ToolLoopExhausted` when no record was made. Thinking blocks stay in the history.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar
from urllib.parse import urlsplit, urlunsplit

from cosci.llm.errors import StructuredOutputError, ToolLoopExhausted
from cosci.llm.port.structured import parse_record, record_tool
from cosci.llm.port.types import CallSpec, LLMPort, LLMResponse, ToolCall
from cosci.records import Record
from cosci.safety.quoting import quote_untrusted
from cosci.tools.base import Source, Tool, ToolResult

R = TypeVar("R", bound=Record)
NUDGE = "Continue: call a search tool if you still need evidence, or call {tool} now to record your answer."


def normalise_url(url: str) -> str:
    """Compare URLs loosely: lower-case scheme and host, no fragment, no trailing slash."""
    try:
        p = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    return urlunsplit((p.scheme.lower(), p.netloc.lower(), p.path.rstrip("/"), p.query, ""))


@dataclass
class ToolLoopResult(Generic[R]):
    """The record, the records tools returned (and their URLs), and the conversation that produced them."""

    record: R
    seen_urls: set[str]
    messages: list[dict[str, Any]]
    responses: list[LLMResponse] = field(default_factory=list)
    tool_calls: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)

    def is_seen(self, url: str) -> bool:
        """Whether ``url`` appeared in a tool result (citation integrity, design.md#grounding)."""
        return normalise_url(url) in {normalise_url(u) for u in self.seen_urls}


async def _dispatch(call: ToolCall, tools: Mapping[str, Tool], timeout: float,
                    sem: asyncio.Semaphore) -> ToolResult:
    tool = tools.get(call.name)
    if tool is None:
        return ToolResult(f"Unknown tool '{call.name}'. Available: {', '.join(tools) or 'none'}.",
                          is_error=True)
    try:
        args = json.loads(call.arguments or "{}")
        if not isinstance(args, dict):
            raise ValueError("arguments must be a JSON object")
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        return ToolResult(f"{call.name}: invalid arguments ({exc}).", is_error=True, source=call.name)
    async with sem:
        try:
            return await asyncio.wait_for(tool(args), timeout=timeout)
        except TimeoutError:
            return ToolResult(f"{call.name} timed out after {timeout:.0f} s; try another source.",
                              is_error=True, source=call.name)
        except Exception as exc:  # a tool failure never crashes the loop (design.md#tools)
            return ToolResult(f"{call.name} failed: {type(exc).__name__}: {exc}", is_error=True,
                              source=call.name)


def result_sources(result: ToolResult, tool: str) -> tuple[Source, ...]:
    """The citable records of a tool result (see module docstring, step 3); none for an error."""
    if result.is_error:
        return ()
    if result.records:
        return result.records
    return tuple(Source(url=u, text=result.text, tool=tool) for u in result.urls)


async def run_tool_loop(port: LLMPort, spec: CallSpec, tools: Mapping[str, Tool], terminal: type[R], *,
                        max_iters: int, parallel_cap: int = 4, tool_timeout: float = 30.0,
                        prior: Sequence[Source] = (),
                        on_sources: Callable[[list[Source]], None] | None = None) -> ToolLoopResult[R]:
    """Drive the loop (see module docstring).

    Args:
        spec: system prompt and opening messages; its ``tools``/``tool_choice`` are set here.
        tools: the agent's allowed tools by name (design.md#tools).
        terminal: the record type that ends the loop (``RecordHypothesis``, ``RecordReview``...).
        max_iters: model calls allowed (seed: 8 for generation and reflection, 6 for evolution).
        prior: records an earlier attempt of the same task found (they count as found in this loop).
        on_sources: called with the new records after each round of tool calls (so a retry can reuse them).

    Raises:
        ToolLoopExhausted: no valid record after ``max_iters`` calls.
        StructuredOutputError: the forced final record is invalid.
        LLM errors from the port (after the gateway's retries).
    """
    messages: list[dict[str, Any]] = list(spec.messages)
    specs = [t.spec for t in tools.values()] + [record_tool(terminal)]
    sources: list[Source] = list(prior)
    seen: set[str] = {r.url for r in sources if r.url}
    responses: list[LLMResponse] = []
    names: list[str] = []
    sem = asyncio.Semaphore(parallel_cap)
    for i in range(max_iters):
        last = i == max_iters - 1
        call_spec = replace(spec, messages=list(messages), tools=specs,
                            tool_choice=terminal.tool_name if last else "auto",
                            thinking=not last and spec.thinking)
        resp = await port.complete(call_spec)
        responses.append(resp)
        messages.append(resp.assistant_message())
        if any(c.name == terminal.tool_name for c in resp.tool_calls):
            try:
                record = parse_record(resp, terminal)
            except StructuredOutputError as exc:
                if last:
                    raise
                _answer_all(messages, resp.tool_calls,
                            {terminal.tool_name: f"Error: {exc}. Call it again, fixed."})
                continue
            return ToolLoopResult(record, seen, messages, responses, names, sources)
        if not resp.tool_calls:
            messages.append({"role": "user", "content": NUDGE.format(tool=terminal.tool_name)})
            continue
        results = await asyncio.gather(*(_dispatch(c, tools, tool_timeout, sem) for c in resp.tool_calls))
        new: list[Source] = []
        for call, result in zip(resp.tool_calls, results, strict=True):
            names.append(call.name)
            new.extend(result_sources(result, call.name))
            label = f"{call.name}#{i}.{call.id}"
            body = (result.text if not result.is_error
                    else f"ERROR from {result.source or call.name}: {result.text}")
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": quote_untrusted(body, label)})
        sources.extend(new)
        seen.update(r.url for r in new if r.url)
        if on_sources and new:
            on_sources(new)
    raise ToolLoopExhausted(f"no {terminal.tool_name} after {max_iters} iterations", tool=terminal.tool_name)


def _answer_all(messages: list[dict[str, Any]], calls: Sequence[ToolCall], texts: dict[str, str]) -> None:
    for c in calls:
        messages.append({"role": "tool", "tool_call_id": c.id, "content": texts.get(c.name, "Not run.")})

