"""Extension points: the data folders other packages register through entry points (docs/plugins.md).

A package extends cosci by naming, in its ``pyproject.toml``, a folder of its own (a package of data files) under
one of the entry-point groups of :data:`GROUPS`::

    [project.entry-points."cosci.tools"]
    my_tools = "my_package.cosci_tools"        # holds tools.yaml: literature tool declarations
    [project.entry-points."cosci.catalogues"]
    my_models = "my_package.catalogue"         # holds <provider>.yaml: model catalogue files

:func:`folders` finds those folders **without importing the package** (docs/design.md#plugins: declarations are
data, so validating a config runs no plugin code and no tool code); the code a declaration names (a tool's
builder) is imported only by the layer that uses it, when a session builds its tools. A plugin that cannot be read
(its package is not found, the entry point names an object instead of a folder, its files break the schema, its
builder does not import) is skipped with one warning line naming it (:func:`skip`), never a traceback; the shipped
parts of cosci never depend on a plugin.

This module imports nothing of cosci: every layer may read it.
"""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.metadata
import importlib.util
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

TOOLS = "cosci.tools"
"""Entry-point group of literature tool declarations: the named folder holds ``tools.yaml`` (cosci/literature.py)."""
CATALOGUES = "cosci.catalogues"
"""Entry-point group of model catalogues: the named folder holds ``<provider>.yaml`` files in the schema of
``conf/catalogue/`` (cosci/config/catalogue.py)."""
SANDBOXES = "cosci.sandboxes"
"""Entry-point group of sandbox backends: the named folder holds ``sandboxes.yaml`` (cosci/sandbox/backends.py)."""
GROUPS = (TOOLS, CATALOGUES, SANDBOXES)
SHIPPED_SANDBOXES = Path(__file__).with_name("sandbox") / "sandboxes.yaml"
"""The shipped sandbox backends' declarations (read, never imported)."""
BUILD_FORM = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")
"""A reference to the code a declaration names: ``package.module:name``."""
"""Every extension point (docs/plugins.md has a recipe for each)."""

_WARNED: set[tuple[str, str]] = set()
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Plugin:
    """One entry point of a group, found on the path.

    Attributes:
        group: the entry-point group (:data:`GROUPS`).
        name: the entry point's name (what warnings call the plugin).
        package: the distribution that declares it (``"?"`` when unknown).
        folder: the data folder the entry point names.
    """

    group: str
    name: str
    package: str
    folder: Path

    @property
    def label(self) -> str:
        """How a line names the plugin: ``plugin 'name' (distribution, group)``."""
        return f"plugin '{self.name}' ({self.package}, {self.group})"


class PluginError(ValueError):
    """A plugin that cannot be used; ``str`` is the reason, one line (the caller names the plugin)."""


def folders(group: str) -> tuple[Plugin, ...]:
    """The data folders registered under ``group``, sorted by entry-point name; an entry point whose folder cannot
    be found is skipped with one warning line (:func:`skip`). Reads the installed distributions' metadata on every
    call (callers cache what they derive)."""
    found: list[Plugin] = []
    for point in sorted(importlib.metadata.entry_points(group=group), key=lambda p: p.name):
        package = point.dist.name if point.dist is not None else "?"
        try:
            found.append(Plugin(group, point.name, package, locate(point.value)))
        except PluginError as exc:
            skip(f"plugin '{point.name}' ({package}, {group})", str(exc))
    return tuple(found)


def locate(module: str) -> Path:
    """The folder of package ``module`` (dotted name), found on ``sys.path`` without running its code.

    Raises:
        PluginError: ``module`` names an object (``pkg.mod:attr``), a module that is no folder, or nothing found.
    """
    if ":" in module or not all(part.isidentifier() for part in module.split(".")):
        raise PluginError(f"'{module}' names no package folder (an entry point here names a folder of data "
                          "files, not an object)")
    top, *rest = module.split(".")
    spec = importlib.machinery.PathFinder.find_spec(top)
    if spec is None:
        return _located_by_import(module)  # e.g. an editable install's own finder
    if spec.submodule_search_locations is None:
        raise PluginError(f"'{top}' is a module, not a package folder")
    places = [Path(p) for p in spec.submodule_search_locations]
    for part in rest:  # a sub-folder, by name (a finder would import the parent to ask it)
        if any((p / f"{part}.py").is_file() for p in places):
            raise PluginError(f"'{module}' is a module, not a package folder")
        places = [p / part for p in places if (p / part).is_dir()]
        if not places:
            raise PluginError(f"'{module}' is not installed on this path")
    return places[0]


def _located_by_import(module: str) -> Path:
    """The folder through the import system's finders (runs the code of ``module``'s parent packages only)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as exc:
        raise PluginError(f"'{module}' cannot be found ({type(exc).__name__}: {exc})") from None
    if spec is None or not spec.submodule_search_locations:
        raise PluginError(f"'{module}' is not installed on this path or is no package folder")
    return Path(next(iter(spec.submodule_search_locations)))


def skip(who: str, reason: str) -> None:
    """Write ``warning: <who> skipped: <reason>`` on stderr, once per process for each plugin (``who`` is
    :attr:`Plugin.label` or a builder's reference). ``reason`` is cut to its first line."""
    key = (who, reason)
    with _LOCK:
        if key in _WARNED:
            return
        _WARNED.add(key)
    first = reason.strip().splitlines()[0] if reason.strip() else "unreadable"
    print(f"warning: {who} skipped: {first}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class SandboxDeclaration:
    """A sandbox backend as data: its ``name`` (what ``investigation.sandbox`` says), the ``build`` reference of
    its backend object and the plugin that declared it (:attr:`Plugin.label`; empty for a shipped backend)."""

    name: str
    build: str
    origin: str = ""


def read_sandboxes(path: Path) -> list[tuple[str, str]]:
    """The ``(name, build)`` pairs of one ``sandboxes.yaml`` (a mapping: name -> ``{build: package.module:name}``).

    Raises:
        PluginError: the file cannot be read or breaks that form (one line naming it).
    """
    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PluginError(f"{path}: cannot read ({type(exc).__name__})") from None
    if not isinstance(data, dict) or not data:
        raise PluginError(f"{path}: not a mapping of backend names to declarations")
    out = []
    for name, entry in data.items():
        build = entry.get("build") if isinstance(entry, dict) and set(entry) == {"build"} else None
        if not (isinstance(name, str) and re.fullmatch(r"[a-z][a-z0-9_]*", name) and name != "none"):
            raise PluginError(f"{path}: backend name {name!r}: lower-case letters, digits and '_', not 'none'")
        if not isinstance(build, str) or not BUILD_FORM.fullmatch(build):
            raise PluginError(f"{path}: backend '{name}': needs only build: 'package.module:name'")
        out.append((name, build))
    return out


@functools.cache
def sandboxes() -> dict[str, SandboxDeclaration]:
    """Every sandbox backend by name: the shipped ones, then each ``cosci.sandboxes`` plugin's (a plugin whose file
    is missing or malformed, or that names a backend already declared, is skipped with one warning line). Read once
    per process."""
    out = {name: SandboxDeclaration(name, build) for name, build in read_sandboxes(SHIPPED_SANDBOXES)}
    for plugin in folders(SANDBOXES):
        try:
            found = read_sandboxes(plugin.folder / "sandboxes.yaml")
            if taken := [name for name, _ in found if name in out]:
                raise PluginError(f"backend '{taken[0]}' is already declared")
        except PluginError as exc:
            skip(plugin.label, str(exc))
            continue
        out.update((name, SandboxDeclaration(name, build, plugin.label)) for name, build in found)
    return out
