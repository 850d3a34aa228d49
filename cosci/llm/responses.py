"""Response building and message flattening for the in-process providers (the fake and the embedded model).

A leaf of :mod:`cosci.llm`: it imports only LiteLLM's response types, so :mod:`.providers` (which registers the
providers), :mod:`.fake` and :mod:`.local_model` can all use it without importing one another.
"""

from __future__ import annotations

import hashlib
from typing import Any

from litellm.types.utils import (
    ChatCompletionMessageToolCall,
    Choices,
    Function,
    Message,
    ModelResponse,
    Usage,
)


def make_response(model: str, *, text: str = "", tool_calls: list[tuple[str, str]] | None = None,
                  prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0,
                  finish_reason: str | None = None) -> ModelResponse:
    """A LiteLLM ``ModelResponse`` from a custom provider (``model`` with its provider prefix, for pricing).

    ``cached_tokens`` (of ``prompt_tokens``) were not evaluated again (the embedded model's reused prompt state);
    they reach the transcript as cache reads, as a hosted provider's do.

    Tool-call ids are derived from the call (a stable digest, not Python's per-process ``hash``), so the same
    answer gets the same ids in every process and a resumed session's requests hash as before.
    """
    calls = [ChatCompletionMessageToolCall(id=f"call_{i}_{_digest(name, args)}", type="function",
                                           function=Function(name=name, arguments=args))
             for i, (name, args) in enumerate(tool_calls or [])]
    message = Message(role="assistant", content=text or None, tool_calls=calls or None)
    return ModelResponse(
        model=model,
        choices=[Choices(index=0, message=message,
                         finish_reason=finish_reason or ("tool_calls" if calls else "stop"))],
        usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                    total_tokens=prompt_tokens + completion_tokens,
                    prompt_tokens_details={"cached_tokens": cached_tokens} if cached_tokens else None),
    )


def _digest(name: str, arguments: str) -> str:
    return hashlib.sha256(f"{name}\0{arguments}".encode()).hexdigest()[:8]


def flatten_content(content: Any) -> str:
    """Text of an OpenAI-format message content (a string or a list of text parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))


def plain_messages(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """Messages as plain role/text pairs for models without tool-call history (the embedded model)."""
    out: list[dict[str, str]] = []
    for m in messages:
        text = flatten_content(m.get("content"))
        if m.get("role") == "tool":
            out.append({"role": "user", "content": f"Tool result:\n{text}"})
        elif m.get("role") == "assistant" and m.get("tool_calls"):
            calls = "; ".join(f"{c['function']['name']}({c['function']['arguments']})"
                              for c in m["tool_calls"])
            out.append({"role": "assistant", "content": (text + "\n" if text else "") + f"Called {calls}"})
        else:
            out.append({"role": m.get("role", "user"), "content": text})
    return out
