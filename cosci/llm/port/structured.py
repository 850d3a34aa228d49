"""Structured output through record tools (design.md#prompts), over the port.

:func:`call_record` asks for one record: with thinking off, or on a reasoning model that keeps reasoning on a
forced call (``effort`` form), the record tool is forced (``tool_choice``). With thinking on where a forced tool
would lose it (Anthropic's adaptive thinking skips thinking on a forced call; its budget thinking is refused with
one), ``tool_choice="auto"`` plus the prompt's instruction, and if no record comes back, one separate forced call
(carrying the thinking setting where the form allows it; design.md#thinking-forms).
:func:`parse_record` turns the model's tool call into a validated record or a typed error: empty, truncated
or invalid arguments, or no record call at all. It never raises anything else.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TypeVar

from pydantic import ValidationError

from cosci.llm.errors import EmptyArguments, InvalidArguments, NoRecordCall, TruncatedArguments
from cosci.llm.port.thinking import forced_keeps_thinking, thinks_when_forced
from cosci.llm.port.types import CallSpec, LLMPort, LLMResponse, ToolSpec
from cosci.records import Record, tool_schema

R = TypeVar("R", bound=Record)


def record_tool(record: type[Record]) -> ToolSpec:
    """The tool definition of a record type (its JSON schema as ``parameters``)."""
    return ToolSpec(name=record.tool_name, description=record.tool_description,
                    parameters=tool_schema(record))


def parse_record(resp: LLMResponse, record: type[R]) -> R:
    """The validated record from the last ``record.tool_name`` call in ``resp``.

    Raises:
        NoRecordCall: the response has no call of the record tool.
        EmptyArguments: the call's arguments are empty (``""`` or ``{}``).
        TruncatedArguments: the arguments are cut-off JSON (e.g. the output hit ``max_tokens``).
        InvalidArguments: the arguments are JSON but not a valid record.
    """
    name = record.tool_name
    calls = [c for c in resp.tool_calls if c.name == name]
    if not calls:
        got = (", ".join(c.name for c in resp.tool_calls)
               or ("text only" if resp.text.strip() else "an empty answer"))
        raise NoRecordCall(f"the model did not call {name} (got {got})", tool=name)
    raw = calls[-1].arguments.strip()
    if raw in ("", "{}", "null"):
        raise EmptyArguments("the model called the tool with empty arguments", tool=name)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        # cut off: the provider says so, the parser ran out of text, or a string runs to the end of the text
        cut = (resp.finish_reason == "length" or exc.pos >= len(raw) - 1
               or exc.msg.startswith("Unterminated string"))
        cls = TruncatedArguments if cut else InvalidArguments
        raise cls(f"arguments are not valid JSON ({exc.msg} at char {exc.pos} of {len(raw)})",
                  tool=name) from None
    except RecursionError:  # nesting deeper than the parser's stack: not a record, and never a crash
        raise InvalidArguments(f"arguments nest too deeply to parse ({len(raw)} chars)", tool=name) from None
    if not isinstance(data, dict):
        raise InvalidArguments(f"arguments must be a JSON object, got {type(data).__name__}", tool=name)
    try:
        return record.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        raise InvalidArguments(f"{where}: {err['msg']}", tool=name) from None


async def call_record(port: LLMPort, spec: CallSpec, record: type[R]) -> tuple[R, LLMResponse]:
    """One structured call returning a validated record (see module docstring for the two paths).

    Raises:
        StructuredOutputError subclasses as :func:`parse_record`; LLM errors from the port.
    """
    tool = record_tool(record)
    if spec.thinking_tokens > 0 and not thinks_when_forced(spec.route):
        resp = await port.complete(replace(spec, tools=[tool], tool_choice="auto"))
        if any(c.name == record.tool_name for c in resp.tool_calls):
            return parse_record(resp, record), resp
    forced = replace(spec, tools=[tool], tool_choice=record.tool_name)
    forced.thinking = spec.thinking and forced_keeps_thinking(spec.route)
    resp = await port.complete(forced)
    return parse_record(resp, record), resp
