"""Streamed provider calls for long answers (docs/design.md#long-calls).

A call whose ``max_tokens`` at its tier's conservative output speed outlasts the fixed call timeout (120 s,
300 s with thinking) is streamed: LiteLLM's ``stream=True``, every chunk awaited under an idle timeout
(``retry.stream_idle_seconds``: a provider that stops sending is given up at once, not at the deadline), the whole
call under the route's longer deadline (``Route.timeout_seconds``), and the chunks rebuilt into one response by
``litellm.stream_chunk_builder`` (text, tool calls, thinking blocks with their signatures, usage, cost), so the
gateway parses a streamed answer exactly as a whole one.

The first-token latency (seconds from the request to the first chunk that carries text, thinking or a tool
call) is returned beside the response; the gateway records it with the output speed on the transcript row.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import litellm

from cosci.llm.errors import CallTimeout, ConnectionFailed


async def stream_completion(kwargs: dict[str, Any], *, deadline: float | None, idle: float | None,
                            opening: float | None) -> tuple[Any, float | None]:
    """``litellm.acompletion(**kwargs)`` streamed: ``(the rebuilt ModelResponse, first-token seconds or None)``.

    Args:
        deadline: the whole call's limit, seconds. idle: the longest wait for one chunk, seconds.
        opening: the longest wait for the response to start (``retry.first_token_seconds``), seconds.

    Raises:
        CallTimeout: no chunk for ``idle`` seconds (the deadline's own expiry is the caller's ``TimeoutError``).
        ConnectionFailed: the stream ended without a stop reason (a cut-off answer is never taken as whole).
        Whatever LiteLLM raises for the request (mapped by the gateway).
    """
    started = time.perf_counter()
    end = started + deadline if deadline is not None else None
    first: float | None = None
    chunks: list[Any] = []
    call = litellm.acompletion(**kwargs, stream=True, stream_options={"include_usage": True})
    stream = await _next(call, max(idle or 0.0, opening or 0.0) or None, end, "the response to start")
    iterator = stream.__aiter__()
    while True:
        try:
            chunk = await _next(iterator.__anext__(), idle, end, "the next chunk")
        except StopAsyncIteration:
            break
        if first is None and carries_output(chunk):
            first = time.perf_counter() - started
        chunks.append(chunk)
    if not any(getattr(c, "finish_reason", None) for chunk in chunks for c in getattr(chunk, "choices", None) or []):
        raise ConnectionFailed(f"the stream ended after {len(chunks)} chunks without a stop reason (cut off)")
    return litellm.stream_chunk_builder(chunks, messages=kwargs["messages"]), first


async def _next(awaitable: Any, idle: float | None, end: float | None, what: str) -> Any:
    """One wait of the stream, under the idle timeout and what is left of the deadline. Each wait is bounded on
    its own (not by one ``asyncio.timeout`` around the loop): LiteLLM's stream iterator turns a cancellation into
    the end of the stream, which would pass a cut-off answer for a whole one."""
    left = end - time.perf_counter() if end is not None else None
    limit = min(x for x in (idle, left) if x is not None) if idle is not None or left is not None else None
    if limit is not None and limit <= 0:
        raise TimeoutError
    try:
        return await asyncio.wait_for(awaitable, limit)
    except TimeoutError:
        if left is not None and limit == left:
            raise TimeoutError from None  # the deadline: the gateway names it
        raise CallTimeout(f"the stream went idle: nothing for {idle:g} s waiting for {what}") from None


def carries_output(chunk: Any) -> bool:
    """Whether a streamed chunk carries model output (text, thinking or a tool call), not only usage or a stop."""
    for choice in getattr(chunk, "choices", None) or []:
        delta = getattr(choice, "delta", None)
        if delta is not None and (getattr(delta, "content", None) or getattr(delta, "tool_calls", None)
                                  or getattr(delta, "reasoning_content", None)
                                  or getattr(delta, "thinking_blocks", None)):
            return True
    return False
