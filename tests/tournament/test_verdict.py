"""Verdict parsing: ``better idea: N`` (the last one wins), the constrained JSON form, invalid -> None."""

from __future__ import annotations

import pytest

from cosci.tournament.verdict import parse_verdict, rationale_of


@pytest.mark.parametrize(("text", "verdict"), [
    ("Hypothesis 2 is more specific.\nbetter idea: 2", 2),
    ("better idea: 1", 1),
    ("Early on I leaned to better idea: 1, but after the debate...\nbetter idea: 2", 2),  # the last one wins
    ("better idea: 2\n\nOn reflection: better idea: 1", 1),
    ("Better Idea: **2**", 2),
    ("BETTER IDEA = 1", 1),
    ("better idea: [2]", 2),
    ('{"rationale": "H1 has a cleaner experiment.", "better_idea": 1}', 1),
    ('  {"better_idea": 2}\n', 2),
    ('{"better_idea": "2"}', 2),
])
def test_valid_verdicts(text: str, verdict: int) -> None:
    assert parse_verdict(text) == verdict


@pytest.mark.parametrize("text", [
    "", "Both hypotheses have merit; I cannot decide.", "better idea: 3", "better idea: 12",
    "The better idea is hypothesis 2.", '{"better_idea": 3}', '{"better_idea": null}', "{not json",
    '["better_idea", 1]',
])
def test_invalid_verdicts_are_none(text: str) -> None:
    assert parse_verdict(text) is None


def test_rationale_of_both_forms() -> None:
    assert rationale_of('{"rationale": "cleaner experiment", "better_idea": 1}') == "cleaner experiment"
    assert rationale_of("  H1 wins.\nbetter idea: 1 ") == "H1 wins.\nbetter idea: 1"
    assert rationale_of("{broken") == "{broken"
