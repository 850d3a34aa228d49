"""The declarations of the literature tools: the one place that says which tools exist (design.md#tools).

A tool is declared as data (docs/design.md#plugins): an entry of ``cosci/tools/tools.yaml`` for the shipped tools,
of a plugin's ``tools.yaml`` for a tool another package adds (entry-point group ``cosci.tools``, docs/plugins.md).
Each entry gives the tool's name, its rank in the search order, the identifier forms of its URLs, the agents that
may call it by default and the ``module:function`` that builds it (:class:`ToolDeclaration`). Everything else
derives from these declarations: the session's registry (``cosci/tools/registry.py``, which alone imports the
builders), the tool names config validation accepts and what ``agents.<agent>.tools: [default]`` expands to
(``cosci/config/schema.py``), the search and failover order (the registry's suggestions, the observation article, a
debate hypothesis's grounding searches, the scripted fake) and the identifiers a cited URL reveals
(``cosci/tools/sources.py``).

This module sits below ``cosci.config`` in the layers (``pyproject.toml``), so config validation and the fake may
read it; it imports no tool code, statically or at run time: reading the declarations reads YAML files only.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from cosci.plugins import BUILD_FORM, TOOLS, Plugin, PluginError, folders, skip

RETRACTION_KINDS = ("retracted", "retraction_notice", "corrected")
"""The retraction flags a record may carry, strongest first (design.md#retractions)."""
WITHDRAWN = ("retracted", "retraction_notice")
"""The flags under which a record is never counted as supporting evidence (design.md#retractions)."""
SHIPPED = Path(__file__).with_name("tools") / "tools.yaml"
"""The shipped tools' declarations (data beside their modules, read, never imported)."""
DECLARATIONS_FILE = "tools.yaml"
"""The file a ``cosci.tools`` plugin folder holds (docs/plugins.md)."""
DEFAULT = "default"
"""The allowlist entry that stands for every tool declaring the agent in its ``agents``
(``agents.<agent>.tools: [default]``; design.md#tools)."""
SKILL_PATTERN = "literature_*"
"""The allowlist entry that stands for every skill tool of the session (``tools.skills_path``, found at session
start, so no config can name them one by one; design.md#skills)."""
SEARCH_AGENTS = ("generation", "reflection", "evolution")
"""The agents that call literature tools by default (design.md#tools: ranking, meta-review and the others judge
what they are shown)."""


@dataclass(frozen=True)
class UrlForm:
    """One URL form of a tool's records and the identifier it reveals.

    Attributes:
        kind: the identifier kind, e.g. ``"PMID"`` (the key is ``"<kind>:<prefix><id>"``).
        pattern: a regular expression (searched case-insensitively in the URL, trailing ``/`` removed) whose
            group ``id`` is the identifier, e.g. ``r"pubmed\\.ncbi\\.nlm\\.nih\\.gov/(?P<id>\\d+)"``.
        prefix: put before the matched id (``"PMC"`` when the pattern leaves it out).
    """

    kind: str
    pattern: str
    prefix: str = ""
    _compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        compiled = re.compile(self.pattern, re.IGNORECASE)
        if "id" not in compiled.groupindex:
            raise ValueError(f"URL form {self.pattern!r} has no group 'id'")
        object.__setattr__(self, "_compiled", compiled)

    def key(self, url: str) -> str | None:
        """``"<kind>:<prefix><id>"`` when ``url`` has this form, else None."""
        m = self._compiled.search(url.rstrip("/"))
        return f"{self.kind}:{self.prefix}{m.group('id')}" if m else None


@dataclass(frozen=True)
class ToolDeclaration:
    """What cosci knows about a tool without building it (design.md#tools).

    Attributes:
        name: the tool's name, as the model and ``agents.<agent>.tools`` spell it (its ``ToolSpec.name``).
        rank: its place in the search order, lowest first (the failover suggestions, the observation article,
            the grounding searches); None for a tool that is no search (``web_fetch``).
        articles: its hits are bibliographic records (an article an observation review or a grounding search may
            rest on); False for the web search, whose hits are snippets of pages.
        url_forms: the URL forms of its records and the identifiers they reveal (a citation written with that
            URL matches a record with that identifier).
        agents: the agents whose ``tools: [default]`` includes it.
        build: ``package.module:function`` making the session's tool (``cosci/tools/catalog.py``: it takes a
            ``BuildContext`` and returns the tool, or None when it cannot be offered); imported only when a
            session builds its tools.
        origin: the plugin that declared it (:attr:`cosci.plugins.Plugin.label`); empty for a shipped tool.
    """

    name: str
    rank: int | None
    build: str
    articles: bool = True
    url_forms: tuple[UrlForm, ...] = ()
    agents: tuple[str, ...] = SEARCH_AGENTS
    origin: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name) or self.name == DEFAULT:
            raise ValueError(f"tool name {self.name!r}: lower-case letters, digits and '_', not {DEFAULT!r}")
        if not BUILD_FORM.fullmatch(self.build):
            raise ValueError(f"tool {self.name!r}: build {self.build!r} is not 'package.module:function'")
        if self.rank is not None and (isinstance(self.rank, bool) or not isinstance(self.rank, int)):
            raise ValueError(f"tool {self.name!r}: rank {self.rank!r} is not a whole number or null")


_KEYS = {"rank", "build", "articles", "url_forms", "agents"}


def parse(data: Any, where: str) -> list[ToolDeclaration]:
    """The declarations of one ``tools.yaml`` (a mapping: tool name -> ``rank``, ``build``, optional
    ``articles``, ``url_forms`` (a list of ``{kind, pattern, prefix}``) and ``agents``).

    Raises:
        ValueError: one line naming ``where`` and the tool, for the first entry that breaks the form.
    """
    if not isinstance(data, Mapping) or not data:
        raise ValueError(f"{where}: not a mapping of tool names to declarations")
    out = []
    for name, entry in data.items():
        try:
            if not isinstance(entry, Mapping) or not {"rank", "build"} <= set(entry) or set(entry) - _KEYS:
                raise ValueError(f"needs rank and build, and only {', '.join(sorted(_KEYS))}")
            forms = tuple(UrlForm(**form) for form in entry.get("url_forms") or ())
            agents = entry.get("agents", SEARCH_AGENTS)
            if not isinstance(agents, list | tuple) or not all(isinstance(a, str) for a in agents):
                raise ValueError("agents is not a list of agent names")
            out.append(ToolDeclaration(name=str(name), rank=entry["rank"], build=str(entry["build"]),
                                       articles=bool(entry.get("articles", True)), url_forms=forms,
                                       agents=tuple(agents)))
        except (TypeError, ValueError, re.error) as exc:
            raise ValueError(f"{where}: tool {name!r}: {exc}") from None
    return out


def read(path: Path) -> list[ToolDeclaration]:
    """The declarations in the ``tools.yaml`` at ``path`` (see :func:`parse`).

    Raises:
        ValueError: the file cannot be read, is not YAML, or breaks the form (one line naming it).
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"{path}: cannot read ({type(exc).__name__})") from None
    return parse(data, str(path))


_DECLARED: dict[str, ToolDeclaration] = {}
_LOCK = threading.Lock()
"""Guards :data:`_DECLARED` only; never held while importing (a module being imported in another thread may be
declaring)."""
_loaded = False


def declare(declaration: ToolDeclaration) -> ToolDeclaration:
    """Add ``declaration`` (again: no change). Returns it.

    Raises:
        ValueError: another declaration has the same name.
    """
    with _LOCK:
        known = _DECLARED.get(declaration.name)
        if known is not None and known != declaration:
            raise ValueError(f"tool '{declaration.name}' is declared twice, differently")
        _DECLARED[declaration.name] = declaration
    return declaration


def withdraw(name: str) -> None:
    """Remove a declaration (a test's throwaway tool); an unknown name is ignored."""
    with _LOCK:
        _DECLARED.pop(name, None)


def declarations() -> tuple[ToolDeclaration, ...]:
    """Every declared tool, searches by rank first, then the others by name (see module docstring)."""
    _discover()
    with _LOCK:
        found = list(_DECLARED.values())
    return tuple(sorted(found, key=lambda d: (d.rank is None, d.rank or 0, d.name)))


def _discover() -> None:
    """Read the shipped declarations and each ``cosci.tools`` plugin's once (see module docstring). A plugin whose
    file is missing or malformed, or that declares a name already declared, is skipped with one warning line."""
    global _loaded
    if _loaded:
        return
    for declaration in read(SHIPPED):
        declare(declaration)
    for plugin in folders(TOOLS):
        _declare_plugin(plugin)
    _loaded = True


def _declare_plugin(plugin: Plugin) -> None:
    try:
        found = read(plugin.folder / DECLARATIONS_FILE)
        with _LOCK:
            taken = [d.name for d in found if d.name in _DECLARED and _DECLARED[d.name] != d]
        if taken:
            raise PluginError(f"tool '{taken[0]}' is already declared")
    except ValueError as exc:
        skip(plugin.label, str(exc))
        return
    for declaration in found:
        declare(replace(declaration, origin=plugin.label))


def tool_names() -> tuple[str, ...]:
    """Every declared tool's name, in :func:`declarations` order."""
    return tuple(d.name for d in declarations())


def search_order(*, articles: bool = False) -> tuple[str, ...]:
    """The searches by rank; with ``articles``, only those whose hits are bibliographic records."""
    return tuple(d.name for d in declarations() if d.rank is not None and (d.articles or not articles))


def default_tools(agent: str) -> tuple[str, ...]:
    """The tools ``agents.<agent>.tools: [default]`` stands for, in :func:`declarations` order."""
    return tuple(d.name for d in declarations() if agent in d.agents)


def expand(agent: str, names: Iterable[str]) -> list[str]:
    """An allowlist with :data:`DEFAULT` replaced by :func:`default_tools` (``agent``), duplicates dropped."""
    out: list[str] = []
    for name in names:
        for one in default_tools(agent) if name == DEFAULT else (name,):
            if one not in out:
                out.append(one)
    return out


def url_identifiers(url: str) -> set[str]:
    """The identifiers (``"PMID:…"``, ``"PMCID:PMC…"``, ``"arXiv:…"``) the declared URL forms find in ``url``."""
    return {key for d in declarations() for form in d.url_forms if (key := form.key(url)) is not None}
