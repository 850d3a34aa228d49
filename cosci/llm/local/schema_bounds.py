"""Bounded JSON schemas for the schema-constrained embedded model.

Measured on the embedded model (design.md#local): grammar-constrained output from SmolLM2 always matches the schema, but
unbounded strings and arrays let it ramble until the token cap, leaving invalid JSON. :func:`bound_schema` keeps only
the required properties (optional fields are set by the agent or left at their defaults), caps every string at
``max_chars`` characters and every array at ``max_items`` items, and drops keywords llama.cpp's grammar
converter does not need.
"""

from __future__ import annotations

import copy
from typing import Any

_DROP = ("title", "description", "default", "examples")


def bound_schema(schema: dict[str, Any], *, max_chars: int, max_items: int) -> dict[str, Any]:
    """A copy of ``schema`` with strings, arrays and properties bounded (see module docstring)."""

    def walk(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        node = {k: v for k, v in node.items() if k not in _DROP}  # annotations only; properties live below
        for key in ("anyOf", "oneOf", "allOf"):
            if key in node:
                options = [walk(o) for o in node[key]
                           if not (isinstance(o, dict) and o.get("type") == "null")]
                if len(options) == 1 and key != "allOf":
                    rest = {k: v for k, v in node.items() if k != key}
                    return {**rest, **options[0]}
                node[key] = options
        kind = node.get("type")
        if kind == "string" and "enum" not in node and "const" not in node:
            node["maxLength"] = min(int(node.get("maxLength", max_chars)), max_chars)
            node.setdefault("minLength", 1)
        elif kind == "array":
            node["maxItems"] = min(int(node.get("maxItems", max_items)), max_items)
            node["minItems"] = min(int(node.get("minItems", 1)), node["maxItems"])
            node["items"] = walk(node.get("items", {"type": "string"}))
        elif kind == "object" or "properties" in node:
            required = list(node.get("required", []))
            props = node.get("properties", {})
            node["properties"] = {k: walk(props[k]) for k in required if k in props}
            node["required"] = [k for k in required if k in props]
            node["additionalProperties"] = False
        return node

    return walk(copy.deepcopy(schema))


def tool_choice_schema(tools: list[dict[str, Any]], *, max_chars: int, max_items: int) -> dict[str, Any]:
    """Schema for "call one of these tools": ``{"name": <const>, "arguments": {...}}`` for each tool."""
    options = []
    for tool in tools:
        fn = tool["function"]
        options.append({
            "type": "object",
            "properties": {"name": {"const": fn["name"]},
                           "arguments": bound_schema(fn.get("parameters", {"type": "object"}),
                                                     max_chars=max_chars, max_items=max_items)},
            "required": ["name", "arguments"], "additionalProperties": False,
        })
    return options[0] if len(options) == 1 else {"anyOf": options}
