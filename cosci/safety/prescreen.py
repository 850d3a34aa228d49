"""The deterministic safety pre-screen (design.md#safety): a coarse term list run before the classifier.

The term file (``conf/safety_prescreen.yaml``, named by ``safety.prescreen_terms``) lists, per hazard category,
agent patterns and enhancement patterns (a hit needs one of each in the same text) and intent patterns (a hit
alone). Patterns are case-insensitive regular expressions wrapped in word boundaries. A hit never blocks: it
is a note for the classifier to look with extra care, kept with the verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from cosci.errors import CosciError
from cosci.paths import conf_dir


class PrescreenError(CosciError):
    """The term file is missing or malformed."""


@dataclass(frozen=True)
class PrescreenHit:
    """One hit: its category and the matched phrases (an agent and an enhancement, or one intent phrase)."""

    category: str
    phrases: tuple[str, ...]

    def note(self) -> str:
        return f"{self.category}: " + " + ".join(f'"{p}"' for p in self.phrases)


@dataclass(frozen=True)
class Prescreen:
    """Compiled term lists. ``rules``: category -> (agent patterns, enhancement patterns); ``intent``:
    category -> patterns that hit alone (category ``any`` is reported as ``intent``)."""

    rules: dict[str, tuple[list[re.Pattern[str]], list[re.Pattern[str]]]]
    intent: dict[str, list[re.Pattern[str]]] = field(default_factory=dict)

    def check(self, text: str) -> list[PrescreenHit]:
        """The hits in ``text`` (empty: nothing for the classifier to look at with extra care)."""
        hits: list[PrescreenHit] = []
        for category, (agents, enhancements) in self.rules.items():
            agent = _first(agents, text)
            enhancement = _first(enhancements, text) if agent else None
            if agent and enhancement:
                hits.append(PrescreenHit(category, (agent, enhancement)))
        for category, patterns in self.intent.items():
            phrase = _first(patterns, text)
            if phrase:
                hits.append(PrescreenHit("intent" if category == "any" else category, (phrase,)))
        return hits


def _first(patterns: list[re.Pattern[str]], text: str) -> str | None:
    for p in patterns:
        m = p.search(text)
        if m:
            return " ".join(m.group(0).split())
    return None


def _compile(items: Any, where: str) -> list[re.Pattern[str]]:
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise PrescreenError(f"{where}: expected a list of patterns")
    try:
        return [re.compile(rf"\b(?:{i})\b", re.IGNORECASE) for i in items]
    except re.error as exc:
        raise PrescreenError(f"{where}: bad pattern ({exc})") from None


@cache
def load_prescreen(name: str) -> Prescreen:
    """Load and compile a term file: ``name`` relative to ``conf/`` or an absolute path.

    Raises:
        PrescreenError: the file is missing, is not YAML, or has the wrong shape.
    """
    path = Path(name) if Path(name).is_absolute() else conf_dir() / name
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PrescreenError(f"safety.prescreen_terms: cannot read {path} ({type(exc).__name__})") from None
    if not isinstance(data, dict) or not isinstance(data.get("categories"), dict):
        raise PrescreenError(f"safety.prescreen_terms: {path} needs a `categories` mapping")
    rules = {
        cat: (_compile(body.get("agents"), f"{cat}.agents"), _compile(body.get("enhancements"), f"{cat}.enhancements"))
        for cat, body in data["categories"].items()
    }
    intent = {cat: _compile(items, f"intent.{cat}") for cat, items in (data.get("intent") or {}).items()}
    return Prescreen(rules, intent)
