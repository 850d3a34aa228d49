"""No setting that nothing reads (issue 18): every field of the config schema is read somewhere outside
``cosci/config/`` — as an attribute (``config.ranking.k_factor_new``), as a string key in code that reads a
frozen snapshot (``snapshot["ranking"]["first_position_flag"]``), or as an interpolation in the Hydra tree
(``${launcher.slurm.mem_gb}`` in ``conf/hydra/launcher/``). A section counts as read when one of its fields is.

The check is by name, so a field whose name is also used for something else passes; it cannot miss a field
whose name appears nowhere, which is what a forgotten setting looks like."""

from __future__ import annotations

import ast
import re
import types
import typing
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from cosci.config.schema import CosciConfig

ROOT = Path(__file__).resolve().parents[2]
READERS = ("cosci", "flows")
"""Where a setting must be read: the package and the flows, not the config package, the tests or bench."""
VIA_CONFIG_METHODS = {
    "models.agent_tiers": "tier_of",  # CosciConfig.tier_of, which the gateway and the estimate call
    "session.goal_file": "validate",  # read once by load.validate (read_goal_file); its text becomes session.goal
    "session.preset_goal": "validate",  # load.drop_preset_preferences: an experiment's preferences, another goal
    "session.preset_preferences": "validate",
}
"""Fields read inside ``cosci/config`` by a function that code outside it calls (checked below)."""


def _models_in(annotation: object) -> Iterator[type[BaseModel]]:
    """Pydantic models inside a field's type (``X``, ``X | None``, ``dict[str, X]``, ``list[X]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is not None:
        for arg in typing.get_args(annotation):
            yield from _models_in(arg)


def fields(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(dotted path, field name)`` of every field, nested models included."""
    for name, info in model.model_fields.items():
        yield f"{prefix}{name}", name
        for sub in _models_in(info.annotation):
            yield from fields(sub, f"{prefix}{name}.")


def names_read(folders: tuple[str, ...]) -> set[str]:
    """Attribute names, string constants, keyword arguments and called function names in the Python files of
    ``folders`` (outside cosci/config)."""
    found: set[str] = set()
    for folder in folders:
        for path in (ROOT / folder).rglob("*.py"):
            if path.is_relative_to(ROOT / "cosci" / "config"):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Attribute):
                    found.add(node.attr)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    found.add(node.value)
                elif isinstance(node, ast.keyword) and node.arg:
                    found.add(node.arg)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    found.add(node.func.id)  # a function called by name (for VIA_CONFIG_METHODS)
    return found


def interpolations() -> set[str]:
    """Dotted keys interpolated in the Hydra tree, e.g. ``launcher.slurm.mem_gb`` from ``${launcher.slurm.mem_gb}``."""
    keys: set[str] = set()
    for path in (ROOT / "conf").rglob("*.yaml"):
        keys |= set(re.findall(r"\$\{([A-Za-z_][\w.]*)\}", path.read_text(encoding="utf-8")))
    return keys


def unread(model: type[BaseModel], read: set[str], interpolated: set[str] = frozenset()) -> list[str]:
    """Dotted paths of fields nothing reads; a section is read when any field under it is."""
    pairs = list(fields(model))
    direct = {path for path, name in pairs if name in read or path in interpolated or path in VIA_CONFIG_METHODS}
    return sorted(path for path, _ in pairs if not any(p == path or p.startswith(path + ".") for p in direct))


def test_every_schema_field_is_read_outside_the_config_package() -> None:
    read = names_read(READERS)
    assert unread(CosciConfig, read, interpolations()) == []
    assert {m for m in VIA_CONFIG_METHODS.values() if m not in read} == set()  # those functions are called


def test_a_field_nothing_reads_is_found() -> None:
    class Spare(BaseModel):
        never_read_anywhere_xyz: int = 0

    class Extended(CosciConfig):
        spare: Spare

    every_name_today = {name for _, name in fields(CosciConfig)}
    assert unread(Extended, every_name_today) == ["spare", "spare.never_read_anywhere_xyz"]
