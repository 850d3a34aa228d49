"""Numeric bounds reach the embedded model's grammar: the installed llama.cpp JSON-schema converter ignores
``minimum``/``maximum``, so a bounded number is sent as an enum its grammar enforces; a record of the embedded
model then cannot carry an out-of-range score."""

from __future__ import annotations

import json
import re

import pytest
from llama_cpp.llama_grammar import json_schema_to_gbnf

from cosci.llm.local.schema_bounds import bound_schema, numeric_enum
from cosci.records import RecordAudit, RecordReview, claim_check_record, tool_schema


def bounded(record: type) -> dict:
    return bound_schema(tool_schema(record), max_chars=100, max_items=2)


def test_the_installed_grammar_converter_ignores_minimum_and_maximum() -> None:
    grammar = json_schema_to_gbnf(json.dumps({"type": "object", "properties": {"x": {
        "type": "number", "minimum": 0, "maximum": 1}}, "required": ["x"]}))
    assert 'x-kv ::= "\\"x\\"" space ":" space number' in grammar  # any number at all, "7" or "-3e9" included
    assert 'number ::= ("-"? integral-part)' in grammar


def test_the_audit_score_is_a_grid_of_values_between_its_bounds() -> None:
    score = bounded(RecordAudit)["properties"]["overall_score"]
    assert score == {"enum": [round(i / 20, 2) if i % 20 else i // 20 for i in range(21)]}
    grammar = json_schema_to_gbnf(json.dumps(bounded(RecordAudit)))
    (rule,) = [line for line in grammar.splitlines() if line.startswith("overall-score ::=")]
    alternatives = re.findall(r'"([^"]+)"', rule)
    assert alternatives[0] == "0" and alternatives[-1] == "1" and all(0 <= float(a) <= 1 for a in alternatives)


def test_bounds_the_grid_cannot_express_are_left_to_validation() -> None:
    assert numeric_enum({"type": "number", "minimum": 0}) is None
    assert numeric_enum({"type": "integer", "minimum": 0, "maximum": 10_000}) is None
    assert numeric_enum({"type": "integer", "minimum": 0, "maximum": 5}) == [0, 1, 2, 3, 4, 5]
    assert numeric_enum({"type": "number", "exclusiveMinimum": 0, "maximum": 1})[0] == 0.05


def test_every_claim_of_a_support_check_batch_is_required() -> None:
    schema = bounded(claim_check_record(3))
    assert schema["required"] == ["c1", "c2", "c3"]
    assert schema["properties"]["c2"]["required"] == ["verdict", "excerpt"]
    assert "enum" in bounded(RecordReview)["properties"]["verdict"]


def test_a_record_schema_is_made_once_per_class_and_each_caller_gets_its_own_copy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Pydantic's schema generation ran at every record call (3 % of the concurrency bench's event loop)."""
    from cosci import records

    records._tool_schema.cache_clear()
    made: list[type] = []
    generate = RecordReview.model_json_schema.__func__  # type: ignore[attr-defined]

    def counted(cls, *args, **kw):  # type: ignore[no-untyped-def]
        made.append(cls)
        return generate(cls, *args, **kw)

    monkeypatch.setattr(RecordReview, "model_json_schema", classmethod(counted))
    first = tool_schema(RecordReview)
    first["properties"].clear()  # a caller changing its copy (the schema bounds do) changes no other caller's
    second = tool_schema(RecordReview)
    assert made == [RecordReview] and second["properties"] and second == bound_free(RecordReview)


def bound_free(record: type) -> dict:  # type: ignore[type-arg]
    """The schema made afresh, without the cache."""
    from cosci.records import _tool_schema

    return _tool_schema.__wrapped__(record)  # type: ignore[attr-defined,no-any-return]
