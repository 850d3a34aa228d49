"""Keys that were renamed or removed, and how an old key is met (issue 18: one name per concept).

A new configuration that uses an old key is refused with one line naming the new key; the frozen config of a
session started before the change is carried over (renamed keys moved, removed keys dropped) so the session
still resumes; keys added since are given their default there (:data:`ADDED`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

RENAMED: dict[str, str] = {
    "run.debate_fraction": "generation.debate_share",
}
"""Old dotted key -> new dotted key. ``run.debate_fraction`` was generation's debate share, not ranking's debate
(seed 003 prompt 3: debate is one of generation's strategies)."""

_NO_TTL = "one process runs a session and a resume voids every lease; docs/ARCHITECTURE.md, Leases"
REMOVED: dict[str, str] = {
    "lease.default_seconds": _NO_TTL,
    "lease.reflection_seconds": _NO_TTL,
    "lease.final_seconds": _NO_TTL,
}
"""Old dotted key -> why it is gone (docs/ARCHITECTURE.md, "Leases")."""


ADDED: dict[str, Any] = {
    "generation.debate_grounding_searches": 2,
    "generation.debate_grounding_results": 3,
    "reflection.observation_search_results": 5,
    "metareview.overclaim_terms": "overclaim_terms.yaml",
    "metareview.claim_check_batch": 6,
    "metareview.claim_check_batch_constrained": 3,
    "metareview.claim_check_max_calls": 8,
    "metareview.claim_check_source_chars": 1500,
    "metareview.claim_check_constrained_verdicts": False,
    "agents.generation.modes.grounding": {"tier": "cheap", "thinking_tokens": 0, "max_output_tokens": 2048,
                                          "max_iterations": 1},
    "agents.metareview.modes.claim_check": {"tier": "cheap", "thinking_tokens": 0, "max_output_tokens": 3072,
                                            "max_iterations": 1},
}
"""Keys added after sessions were frozen without them -> the value such a session gets when it resumes (the
defaults of ``conf/``; ``docs/design.md#claim-statuses``)."""


def old_key_message(key: str) -> str | None:
    """One line for an old key (``+run.debate_fraction`` and ``run.debate_fraction`` alike), or None."""
    key = key.lstrip("+~")
    if key in RENAMED:
        return f"{key}: renamed to {RENAMED[key]} (set {RENAMED[key]}=... instead)"
    if key in REMOVED:
        return f"{key}: removed, no task lease has a time limit ({REMOVED[key]})"
    return None


def old_override(overrides: Sequence[str]) -> str | None:
    """The message for the first override that sets an old key, or None."""
    for override in overrides:
        message = old_key_message(override.split("=", 1)[0])
        if message:
            return message
    return None


def old_key_in(data: Mapping[Any, Any]) -> str | None:
    """The message for the first old key present in a composed config (plain data), or None."""
    for key in (*RENAMED, *REMOVED):
        section, _, leaf = key.partition(".")
        node = data.get(section)
        if isinstance(node, dict) and leaf in node:
            return old_key_message(key)
    return None


def carry_over(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A frozen config snapshot with renamed keys moved to their new place and removed keys dropped (a copy)."""
    out = copy.deepcopy(snapshot)
    for old, new in RENAMED.items():
        section, _, leaf = old.partition(".")
        node = out.get(section)
        if isinstance(node, dict) and leaf in node:
            value = node.pop(leaf)
            new_section, _, new_leaf = new.partition(".")
            out.setdefault(new_section, {}).setdefault(new_leaf, value)
    for old in REMOVED:
        section, _, leaf = old.partition(".")
        node = out.get(section)
        if isinstance(node, dict):
            node.pop(leaf, None)
    for added, value in ADDED.items():
        *path, leaf = added.split(".")
        node = out
        for part in path:
            node = node.setdefault(part, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node.setdefault(leaf, copy.deepcopy(value))
    return out
