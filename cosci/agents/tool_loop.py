"""The tool loop: assistant -> tool calls -> tool results, until the terminal record tool (design.md#prompts).

1. The spec goes out with the allowed tools plus the terminal record tool, ``tool_choice="auto"``.
2. Tool calls are dispatched in parallel, at most ``parallel_cap`` (4) at once, each under a timeout (30 s);
   every call gets exactly one result message (calls and results stay paired), failures included.
3. Results are untrusted: their text is quoted before the model sees it; the records they return join
   ``sources`` (their own URLs are ``seen_urls``; a link printed inside a page is no record, design.md#grounding). A
   tool that returns URLs but no records (an older or scripted tool) gives one record per URL, with its text.
   The tools a result offers (``ToolResult.offers``: the picks of ``mcp_tool_search``) are added to the loop's
   tools from the next call on, so the first prompt carries only the search (design.md#mcp-servers).
4. A terminal record call ends the loop at once and is not dispatched: the record is the answer. An invalid
   record is reported back to the model as a tool error while iterations remain.
5. One thinking setting for every call of the loop (a tool loop is one assistant turn, and the provider documents
   one thinking configuration per turn; docs/design.md#thinking-forms). On the last allowed iteration the terminal
   tool is forced with that same setting where the model accepts a forced tool with it (adaptive thinking,
   reasoning effort, no thinking). Where it does not (Anthropic's budget thinking), the last call asks for the
   record without forcing (``_loop_last_call``); if none comes, one separate record call follows, outside the
   loop: a new conversation holding the loop's material (``_loop_record``), the record tool forced, no thinking.
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
from cosci.llm.port.thinking import forced_keeps_thinking
from cosci.llm.port.types import CallSpec, LLMPort, LLMResponse, ToolCall
from cosci.prompts import render
from cosci.records import Record
from cosci.safety.quoting import quote_untrusted
from cosci.tools.base import Source, Tool, ToolResult
from cosci.tools.sources import merge_records

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
    tools = dict(tools)  # a tool search's picks join it (step 3)
    specs = [t.spec for t in tools.values()] + [record_tool(terminal)]
    sources: list[Source] = merge_records(prior)
    seen: set[str] = {r.url for r in sources if r.url}
    responses: list[LLMResponse] = []
    names: list[str] = []
    sem = asyncio.Semaphore(parallel_cap)
    force_last = not spec.thinking or forced_keeps_thinking(spec.route)
    for i in range(max_iters):
        last = i == max_iters - 1
        if last and not force_last:
            messages.append({"role": "user", "content": render("_loop_last_call", tool=terminal.tool_name)})
        call_spec = replace(spec, messages=list(messages), tools=specs,
                            tool_choice=terminal.tool_name if last and force_last else "auto")
        resp = await port.complete(call_spec)
        responses.append(resp)
        messages.append(resp.assistant_message())
        record, handled = _record_of(resp, terminal, messages, last=last, forced=last and force_last)
        if record is not None:
            return ToolLoopResult(record, seen, messages, responses, names, sources)
        if last:
            break
        if handled:
            continue
        if not resp.tool_calls:
            messages.append({"role": "user", "content": NUDGE.format(tool=terminal.tool_name)})
            continue
        results = await asyncio.gather(*(_dispatch(c, tools, tool_timeout, sem) for c in resp.tool_calls))
        new = _answer_results(messages, resp.tool_calls, results, i)
        for offered in (t for r in results for t in r.offers if t.spec.name not in tools):
            tools[offered.spec.name] = offered
            specs.insert(len(specs) - 1, offered.spec)  # the record tool stays last
        names.extend(c.name for c in resp.tool_calls)
        sources = merge_records([*sources, *new])  # the same paper from two sources is one record
        seen.update(r.url for r in new if r.url)
        if on_sources and new:
            on_sources(new)
    if force_last:
        raise ToolLoopExhausted(f"no {terminal.tool_name} after {max_iters} iterations", tool=terminal.tool_name)
    record, resp = await _record_after(port, spec, messages, terminal)
    responses.append(resp)
    return ToolLoopResult(record, seen, messages, responses, names, sources)


async def _record_after(port: LLMPort, spec: CallSpec, messages: list[dict[str, Any]],
                        terminal: type[R]) -> tuple[R, LLMResponse]:
    """The separate record call after a loop that ended without its record (module docstring, step 5): a new
    conversation, the opening messages plus the loop's material in one user message, the record tool forced,
    no thinking.

    Raises:
        StructuredOutputError: the forced record is invalid (or missing).
    """
    transcript = loop_transcript(messages[len(spec.messages):])
    ask = {"role": "user", "content": render("_loop_record", tool=terminal.tool_name, transcript=transcript)}
    record_spec = replace(spec, messages=[*spec.messages, ask], tools=[record_tool(terminal)],
                          tool_choice=terminal.tool_name, thinking=False)
    resp = await port.complete(record_spec)
    return parse_record(resp, terminal), resp


def loop_transcript(messages: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """A tool loop's turns as ``{speaker, text}`` for ``_loop_record``: the model's notes quoted, its tool calls
    named with their arguments, tool results as they were sent (already quoted); cosci's nudges left out."""
    out: list[dict[str, str]] = []
    for i, m in enumerate(messages):
        content = m.get("content")
        text = content if isinstance(content, str) else "\n".join(
            p.get("text", "") for p in content or [] if isinstance(p, dict))
        if m.get("role") == "tool":
            out.append({"speaker": "Tool result", "text": text})
        elif m.get("role") == "assistant":  # cosci's own nudges (user turns) are left out
            calls = "; ".join(f"{c['function']['name']}({c['function']['arguments']})"
                              for c in m.get("tool_calls") or [])
            parts = [quote_untrusted(text, f"notes-{i}") if text.strip() else "", f"Called {calls}" if calls else ""]
            out.append({"speaker": "You", "text": "\n".join(p for p in parts if p) or "(nothing)"})
    return out


def _record_of(resp: LLMResponse, terminal: type[R], messages: list[dict[str, Any]], *, last: bool,
               forced: bool) -> tuple[R | None, bool]:
    """``(the record, whether the turn was a record call)``. An invalid record is answered with its error while
    iterations remain (module docstring, step 4).

    Raises:
        StructuredOutputError: an invalid record from a forced call.
    """
    if not any(c.name == terminal.tool_name for c in resp.tool_calls):
        return None, False
    try:
        return parse_record(resp, terminal), True
    except StructuredOutputError as exc:
        if forced:
            raise
        if not last:
            _answer_all(messages, resp.tool_calls, {terminal.tool_name: f"Error: {exc}. Call it again, fixed."})
        return None, True


def _answer_results(messages: list[dict[str, Any]], calls: Sequence[ToolCall], results: Sequence[ToolResult],
                    turn: int) -> list[Source]:
    """Append one quoted result message per tool call (module docstring, step 3); the records they returned."""
    new: list[Source] = []
    for call, result in zip(calls, results, strict=True):
        new.extend(result_sources(result, call.name))
        body = result.text if not result.is_error else f"ERROR from {result.source or call.name}: {result.text}"
        messages.append({"role": "tool", "tool_call_id": call.id,
                         "content": quote_untrusted(body, f"{call.name}#{turn}.{call.id}")})
    return new


def _answer_all(messages: list[dict[str, Any]], calls: Sequence[ToolCall], texts: dict[str, str]) -> None:
    for c in calls:
        messages.append({"role": "tool", "tool_call_id": c.id, "content": texts.get(c.name, "Not run.")})

