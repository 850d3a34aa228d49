"""Parse a tournament verdict: which hypothesis is the better idea (design.md#prompts).

The prompts ask every judge to end with the exact line ``better idea: 1`` or ``better idea: 2``; the last such
line wins. The embedded model answers with a schema-constrained object ``{"rationale":..., "better_idea": n}``
(:class:`cosci.records.TournamentVerdict`), which is accepted too. Anything else is invalid (None): the match
is recorded and Elo is left unchanged.
"""

from __future__ import annotations

import json
import re

_LINE = re.compile(r"better\s+idea\s*[:=]?\s*[*_`\"'\[(]*\s*([12])\b", re.IGNORECASE)


def parse_verdict(text: str) -> int | None:
    """Return 1, 2, or None when the text holds no valid verdict."""
    if not text:
        return None
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped).get("better_idea")
        except (json.JSONDecodeError, AttributeError):
            value = None
        if value in (1, 2, "1", "2"):
            return int(value)
    found = _LINE.findall(text)
    return int(found[-1]) if found else None


def rationale_of(text: str) -> str:
    """The judge's reasoning: the constrained object's rationale, or the text itself."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            return str(json.loads(stripped).get("rationale", stripped))
        except (json.JSONDecodeError, AttributeError):
            return stripped
    return stripped
