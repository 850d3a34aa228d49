"""The declarations of the literature tools: the one place that says which tools exist (design.md#tools).

Each tool module under ``cosci/tools/`` declares its tool once, at import, with
:func:`cosci.tools.catalog.register` (a :class:`ToolDeclaration` plus how to build the tool): its name, its rank
in the search order, the identifier forms of its URLs and the agents that may call it by default. Everything else
derives from these declarations: the session's registry (``cosci/tools/registry.py``), the tool names config
validation accepts and what ``agents.<agent>.tools: [default]`` expands to (``cosci/config/schema/``), the
search and failover order (the registry's suggestions, the observation article, a debate hypothesis's grounding
searches, the scripted fake) and the identifiers a cited URL reveals (``cosci/tools/sources.py``).

This module sits below ``cosci.config`` in the layers (``pyproject.toml``), so config validation and the fake may
read it; it imports nothing of cosci. The first question asked of it imports every module of
:data:`TOOL_PACKAGE` by name (:func:`declarations`), which is how a new tool module is found without being listed
anywhere: the import contracts see no upward edge, and nothing here reads a tool's code, only its declaration.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

RETRACTION_KINDS = ("retracted", "retraction_notice", "corrected")
"""The retraction flags a record may carry, strongest first (design.md#retractions)."""
WITHDRAWN = ("retracted", "retraction_notice")
"""The flags under which a record is never counted as supporting evidence (design.md#retractions)."""
TOOL_PACKAGE = "cosci.tools"
"""The package whose modules declare the tools (each module is imported once, at the first question)."""
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
    """

    name: str
    rank: int | None
    articles: bool = True
    url_forms: tuple[UrlForm, ...] = ()
    agents: tuple[str, ...] = SEARCH_AGENTS

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name) or self.name == DEFAULT:
            raise ValueError(f"tool name {self.name!r}: lower-case letters, digits and '_', not {DEFAULT!r}")


_DECLARED: dict[str, ToolDeclaration] = {}
_LOCK = threading.Lock()
"""Guards :data:`_DECLARED` only; never held while importing (a module being imported in another thread may be
declaring)."""
_discovered = False


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
    """Import every module of :data:`TOOL_PACKAGE` once (Python's import locks make concurrent callers wait for
    each module; repeating the loop is harmless)."""
    global _discovered
    if _discovered:
        return
    package = importlib.import_module(TOOL_PACKAGE)
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{TOOL_PACKAGE}.{module.name}")
    _discovered = True


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
