"""The scripted fake's data: a scripted reply (:class:`FakeReply`) and the log entry of one request
(:class:`FakeCall`). Beside the fake's content (:mod:`.content`, which builds replies from calls) and below the
provider (:mod:`.provider`, which records calls and returns replies), so neither imports the other."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from cosci.llm.responses import flatten_content


@dataclass
class FakeReply:
    """One scripted answer. ``tool_calls`` holds ``(name, arguments)``, arguments a dict or raw JSON text."""

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    fault: str | None = None
    finish_reason: str | None = None
    retry_after: float | None = None

    @classmethod
    def record(cls, tool: str, **arguments: Any) -> FakeReply:
        return cls(tool_calls=[(tool, arguments)])

    @classmethod
    def verdict(cls, decision: str, *categories: str, rationale: str = "scripted") -> FakeReply:
        """A scripted safety classifier verdict (design.md#safety): ``allow`` / ``flag`` / ``block``."""
        return cls.record("record_safety_verdict", decision=decision, categories=list(categories),
                          rationale=rationale)

    @classmethod
    def malformed(cls, tool: str) -> FakeReply:
        """Truncated arguments, as when output hits the token cap mid-JSON."""
        return cls(tool_calls=[(tool, '{"title": "Truncated hyp')], finish_reason="length")

    @classmethod
    def no_tool_call(cls, text: str = "I think the answer is obvious.") -> FakeReply:
        return cls(text=text)

    @classmethod
    def empty(cls) -> FakeReply:
        return cls(text="")


@dataclass
class FakeCall:
    """What one request asked (and which fault, if any, it got)."""

    model: str
    agent: str | None
    mode: str | None
    action: str | None
    task_id: str | None
    messages: list[dict[str, Any]]
    tools: list[str]
    tool_choice: Any
    thinking: Any
    fault: str | None = None

    @property
    def prompt(self) -> str:
        """All message text joined (for asserting on what was sent)."""
        return "\n".join(flatten_content(m.get("content")) for m in self.messages)

    def request_hash(self) -> str:
        body = json.dumps([self.model, self.messages, self.tools, self.tool_choice], sort_keys=True,
                          default=str)
        return hashlib.sha256(body.encode()).hexdigest()[:16]
