"""Keys that were renamed or removed, and how an old key is met (issue 18: one name per concept).

A new configuration that uses an old key is refused with one line naming the new key; the frozen config of a
session started before the change is carried over (renamed keys moved, removed keys dropped) so the session
still resumes.
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
    "lease.default_seconds": f"no task lease has a time limit ({_NO_TTL})",
    "lease.reflection_seconds": f"no task lease has a time limit ({_NO_TTL})",
    "lease.final_seconds": f"no task lease has a time limit ({_NO_TTL})",
    "safety.embedded_block_needs_prescreen": "a tier marked models.tiers.<tier>.unable_to_classify is decided by "
                                             "the offline screen (docs/design.md#safety-screen)",
}
"""Old dotted key -> why it is gone (docs/ARCHITECTURE.md, "Leases")."""


def old_key_message(key: str) -> str | None:
    """One line for an old key (``+run.debate_fraction`` and ``run.debate_fraction`` alike), or None."""
    key = key.lstrip("+~")
    if key in RENAMED:
        return f"{key}: renamed to {RENAMED[key]} (set {RENAMED[key]}=... instead)"
    if key in REMOVED:
        return f"{key}: removed, {REMOVED[key]}"
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
    return out
