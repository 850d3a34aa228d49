"""A call's deadline and the forms of its answer, for the gateway (:mod:`.adapter`; docs/design.md#retries,
docs/design.md#routing): the wall-clock deadline of one call, an answer's text made storable, and a schema-constrained
answer (Ollama's ``format``) read as a call of the record tool.
"""

from __future__ import annotations

from dataclasses import replace

from cosci.llm.gateway.providers import CUSTOM_PROVIDERS
from cosci.llm.port.types import CallSpec, LLMResponse, Route, ToolCall

FORMAT_PROVIDERS = ("ollama_chat/", "ollama/")
"""Providers that take a JSON schema as constrained output (Ollama's ``format``) but ignore ``tool_choice``."""


def deadline(route: Route) -> float | None:
    """The wall-clock deadline of one call on ``route``, seconds (design.md#retries: 120 s, 300 s with thinking);
    None for the in-process providers (embedded model, fake): their time is computation under a lock, which a cancelled
    await would not stop, so a deadline there only queues a retry behind the abandoned call."""
    return None if route.model.startswith(CUSTOM_PROVIDERS) else route.timeout_seconds


def valid_utf8(text: str) -> str:
    """``text`` with what UTF-8 cannot encode (lone surrogates from a broken decoder) replaced by ``?``, so
    an answer can always be stored and sent back (an invalid one crashed the store write)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def format_tool(spec: CallSpec, route: Route) -> str | None:
    """The record tool a call on a ``format`` provider (Ollama) forces, sent as a schema instead; else None."""
    forced = spec.tool_choice not in (None, "auto", "none")
    return spec.tool_choice if forced and spec.tools and route.model.startswith(FORMAT_PROVIDERS) else None


def as_record_call(resp: LLMResponse, tool: str) -> LLMResponse:
    """A schema-constrained JSON answer (Ollama ``format``) as a call of the record tool ``tool``; an answer that
    already holds tool calls is left as it is (the record's parser then judges it)."""
    if resp.tool_calls:
        return resp
    return replace(resp, text="", tool_calls=[ToolCall(id="format_0", name=tool, arguments=resp.text.strip())])

