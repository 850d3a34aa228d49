"""Bounded JSON schemas for the schema-constrained embedded model.

Measured on the embedded model (design.md#local): grammar-constrained output from SmolLM2 always matches the schema, but
unbounded strings and arrays let it ramble until the token cap, leaving invalid JSON. :func:`bound_schema` keeps only
the required properties (optional fields are set by the agent or left at their defaults), caps every string at
``max_chars`` characters and every array at ``max_items`` items (at least the schema's ``minItems``, else none),
and drops keywords llama.cpp's grammar converter does not need.

Numeric bounds: the JSON-schema-to-grammar converter of the installed llama-cpp-python (0.3.36,
``llama_cpp/llama_grammar.py``: "TODO: support minimum, maximum, exclusiveMinimum, exclusiveMaximum") ignores
``minimum`` / ``maximum``, so a record field such as ``record_audit.overall_score`` (0-1) came back as ``7`` and
failed validation. It does compile ``enum``: a number with both bounds is sent as the grid of
:data:`NUMBER_STEPS` + 1 evenly spaced values between them (``0, 0.05, ..., 1``), an integer range of at most
:data:`MAX_INT_ENUM` values as that list. A bound the grid cannot express (one-sided, or a wider integer range)
is left to validation: an answer outside it is an invalid record, retried, then reported (the step
``unchecked``).
"""

from __future__ import annotations

import copy
from typing import Any

_DROP = ("title", "description", "default", "examples")
NUMBER_STEPS = 20
"""Intervals of the grid a bounded number is sent as (0.05 for a 0-1 score)."""
MAX_INT_ENUM = 101
"""Integer ranges up to this many values are sent as their list."""


def numeric_enum(node: dict[str, Any]) -> list[float] | list[int] | None:
    """The values a bounded ``number`` / ``integer`` node is sent as (None: not expressible, see module docstring)."""
    lo = node.get("minimum", node.get("exclusiveMinimum"))
    hi = node.get("maximum", node.get("exclusiveMaximum"))
    if not isinstance(lo, int | float) or not isinstance(hi, int | float) or hi <= lo:
        return None
    if node.get("type") == "integer":
        ints = list(range(int(lo), int(hi) + 1))
        ints = [i for i in ints if ("exclusiveMinimum" not in node or i > lo) and ("exclusiveMaximum" not in node
                                                                                  or i < hi)]
        return ints if 0 < len(ints) <= MAX_INT_ENUM else None
    grid = [round(lo + (hi - lo) * i / NUMBER_STEPS, 6) for i in range(NUMBER_STEPS + 1)]
    grid = [v for v in grid if ("exclusiveMinimum" not in node or v > lo) and ("exclusiveMaximum" not in node
                                                                              or v < hi)]
    return [int(v) if float(v).is_integer() else v for v in grid]


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
        if kind in ("number", "integer") and "enum" not in node and (values := numeric_enum(node)) is not None:
            return {"enum": values}
        if kind == "string" and "enum" not in node and "const" not in node:
            node["maxLength"] = min(int(node.get("maxLength", max_chars)), max_chars)
            node.setdefault("minLength", 1)
        elif kind == "array":
            node["maxItems"] = min(int(node.get("maxItems", max_items)), max_items)
            # the schema's own minimum (none: 0): forcing one item made the model invent a citation for every
            # record, which the citation check then dropped (design.md#local)
            node["minItems"] = min(int(node.get("minItems", 0)), node["maxItems"])
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
