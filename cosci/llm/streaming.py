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

from cosci.llm.errors import CallTimeout


async def stream_completion(kwargs: dict[str, Any], *, deadline: float | None,
                            idle: float | None) -> tuple[Any, float | None]:
    """``litellm.acompletion(**kwargs)`` streamed: ``(the rebuilt ModelResponse, first-token seconds or None)``.

    Raises:
        CallTimeout: no chunk for ``idle`` seconds (the deadline's own expiry is the caller's ``TimeoutError``).
        Whatever LiteLLM raises for the request (mapped by the gateway).
    """
    started = time.perf_counter()
    first: float | None = None
    chunks: list[Any] = []
    async with asyncio.timeout(deadline):
        stream = await _next(litellm.acompletion(**kwargs, stream=True, stream_options={"include_usage": True}),
                             idle, "the response headers")
        iterator = stream.__aiter__()
        while True:
            try:
                chunk = await _next(iterator.__anext__(), idle, "the next chunk")
            except StopAsyncIteration:
                break
            if first is None and carries_output(chunk):
                first = time.perf_counter() - started
            chunks.append(chunk)
    return litellm.stream_chunk_builder(chunks, messages=kwargs["messages"]), first


async def _next(awaitable: Any, idle: float | None, what: str) -> Any:
    try:
        return await asyncio.wait_for(awaitable, idle)
    except TimeoutError:
        raise CallTimeout(f"the stream went idle: no chunk for {idle:.0f} s waiting for {what}") from None


def carries_output(chunk: Any) -> bool:
    """Whether a streamed chunk carries model output (text, thinking or a tool call), not only usage or a stop."""
    for choice in getattr(chunk, "choices", None) or []:
        delta = getattr(choice, "delta", None)
        if delta is not None and (getattr(delta, "content", None) or getattr(delta, "tool_calls", None)
                                  or getattr(delta, "reasoning_content", None)
                                  or getattr(delta, "thinking_blocks", None)):
            return True
    return False
