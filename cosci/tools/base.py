"""What a tool is, for the tool loop and the registry (seed 004 "Tool Registry").

A tool has a :class:`~cosci.llm.types.ToolSpec` (name, description, JSON-schema parameters the model sees) and
is awaited with the model's arguments. It returns a :class:`ToolResult` and never raises for an expected
failure (network down, rate limit, bad arguments): those come back as ``is_error=True`` results naming the
source, so the loop continues (issue 5). ``urls`` lists every URL the text contains, so the loop's
``seen_urls`` is exact; ``text`` is untrusted and is quoted before the model sees it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from cosci.llm.types import ToolSpec


@dataclass(frozen=True)
class ToolResult:
    text: str
    urls: tuple[str, ...] = ()
    is_error: bool = False
    source: str = ""


class Tool(Protocol):
    spec: ToolSpec

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult: ...
