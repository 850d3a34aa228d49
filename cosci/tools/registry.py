"""The session's tool registry: which tools exist and which each agent may call (design.md#tools).

:func:`build_registry` builds every declared tool (:mod:`cosci.literature`: ``cosci/tools/tools.yaml`` and the
``cosci.tools`` plugins' declarations; each names its builder, imported here by :func:`cosci.tools.catalog.builder`)
once per session from the validated config and the environment. A builder may decline, and a tool the model cannot
use is not offered:

* ``pubmed_search``, ``europe_pmc_search``, ``semantic_scholar_search``, ``arxiv_search``,
  ``clinical_trials_search``, ``crossref_lookup``, ``web_fetch`` always (with ``tools.offline`` they answer
  "unavailable (offline mode)" and make no request);
* ``web_search`` only when ``TAVILY_API_KEY`` or ``BRAVE_API_KEY`` is set; ``openalex_search`` only when
  ``OPENALEX_API_KEY`` is set;
* ``local_corpus_search`` only when ``session.corpus_path`` is set (loaded and indexed here; a missing path is
  a one-line :class:`~cosci.tools.corpus.CorpusError` naming ``session.corpus_path``);
* a plugin's tool when its builder imports and returns a tool; a builder that does not import, raises or returns
  something else skips that tool with one warning line naming its plugin (docs/plugins.md);
* one ``literature_<name>`` per skill found under ``tools.skills_path`` (:mod:`cosci.tools.skills`; allowlisted
  by the entry ``literature_*``; a path that is no folder is a one-line
  :class:`~cosci.tools.skills.SkillsError`).

Tools are registered in the declarations' order (searches by rank, then the others). A failing search suggests
the other usable searches in :func:`cosci.literature.search_order`. :meth:`ToolRegistry.for_agent` filters by
``agents.<agent>.tools`` (names not registered are silently absent). All network tools share one on-disk
response cache (``cache_dir``); each API has its own polite client.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from cosci.config.schema import CosciConfig
from cosci.literature import SKILL_PATTERN, ToolDeclaration, declarations, search_order
from cosci.plugins import skip
from cosci.tools.base import Tool
from cosci.tools.cache import ResponseCache
from cosci.tools.catalog import BuildContext, BuilderError, builder
from cosci.tools.common import SearchTool, ToolBase
from cosci.tools.corpus_vectors import CorpusEmbedder
from cosci.tools.http import ApiClient, HttpPolicy
from cosci.tools.retractions import RetractionCheck
from cosci.tools.skills import skill_tools

RETRACTION_CHECKERS = (("crossref_lookup", ("DOI",)), ("europe_pmc_search", ("PMID", "PMCID", "DOI")))
"""The tools the retraction check asks, and the identifier kinds each reads (design.md#retractions)."""


class ToolRegistry:
    """The session's tools by name, with per-agent allowlists.

    Args:
        tools: registered tools by name.
        allowlists: agent name -> tool names it may call (``agents.<agent>.tools``).
        clients: HTTP clients to close in :meth:`aclose`.
        retractions: the session's retraction check (design.md#retractions).
        skills: the names among ``tools`` that are skills (the allowlist entry ``literature_*`` gives them).
    """

    def __init__(self, tools: Mapping[str, Tool], allowlists: Mapping[str, Sequence[str]],
                 clients: Sequence[ApiClient] = (), retractions: RetractionCheck | None = None,
                 skills: Sequence[str] = ()) -> None:
        self._tools = dict(tools)
        self._skills = frozenset(skills)
        self._allowlists = {agent: tuple(names) for agent, names in allowlists.items()}
        self._clients = tuple(clients)
        self.retractions = retractions
        """The session's retraction check (design.md#retractions); None when ``tools.apis.retraction_check`` is off."""

    def names(self) -> list[str]:
        """Registered tool names, in registration order."""
        return list(self._tools)

    def get(self, name: str) -> Tool:
        """The tool called ``name``. Raises: KeyError naming the registered tools."""
        if name not in self._tools:
            known = ", ".join(self._tools) or "none"
            raise KeyError(f"tool '{name}' is not registered (registered: {known})")
        return self._tools[name]

    def for_agent(self, agent: str) -> dict[str, Tool]:
        """The tools ``agent`` may call, in its allowlist order (unregistered names are skipped).

        Raises:
            KeyError: ``agent`` is not a configured agent.
        """
        if agent not in self._allowlists:
            raise KeyError(f"unknown agent '{agent}' (known: {', '.join(self._allowlists)})")
        out: dict[str, Tool] = {}
        for entry in self._allowlists[agent]:
            if entry == SKILL_PATTERN:  # every skill tool of the session (design.md#skills)
                out.update((n, t) for n, t in self._tools.items() if n in self._skills and n not in out)
            elif entry in self._tools and entry not in out:
                out[entry] = self._tools[entry]
        return out

    def use_embedder(self, embedder: CorpusEmbedder) -> None:
        """Give the session's embedder to the tools that index with it (the local corpus: design.md#own-documents)."""
        for tool in self._tools.values():
            use = getattr(tool, "use_embedder", None)
            if use is not None:
                use(embedder)

    async def aclose(self) -> None:
        """Close every HTTP client (idempotent)."""
        for client in self._clients:
            await client.aclose()

    async def __aenter__(self) -> ToolRegistry:
        return self

    async def __aexit__(self, *_exc_info: object) -> None:
        await self.aclose()


def build_registry(config: CosciConfig, cache_dir: Path | None, *, policy: HttpPolicy | None = None,
                   environ: Mapping[str, str] | None = None) -> ToolRegistry:
    """Build the session's tools (see module docstring).

    Args:
        config: the validated session config (``tools``, ``session.corpus_path``, ``agents.*.tools``).
        cache_dir: folder of the session's HTTP response cache, e.g. ``<session_dir>/http_cache`` (created on
            first write); None disables the cache.
        policy: HTTP retry/timeout policy (default :class:`HttpPolicy`; tests pass tiny delays).
        environ: where API keys are read (default ``os.environ``): ``NCBI_API_KEY``, ``NCBI_EMAIL``,
            ``TAVILY_API_KEY``, ``BRAVE_API_KEY``, ``S2_API_KEY``, ``OPENALEX_API_KEY``.

    Raises:
        CorpusError: ``session.corpus_path`` is set but missing, empty or unreadable.
        SkillsError: ``tools.skills_path`` is set but is not a folder.
    """
    env = os.environ if environ is None else environ
    policy = policy or HttpPolicy()
    cache = ResponseCache(cache_dir) if cache_dir is not None else None
    offline = config.tools.offline

    def client(name: str, rate: float | None, *, web: bool = False, secret: str | None = None) -> ApiClient:
        made = ApiClient(name, rate, policy, cache, offline=offline, follow_redirects=not web,
                         keepalive=not web, secrets=[secret] if secret else [])
        clients.append(made)
        return made

    clients: list[ApiClient] = []
    context = BuildContext(config, env, client)
    tools = [tool for d in declarations() if (tool := _build(d, context)) is not None]
    _set_alternatives(tools, offline)
    skills = skill_tools(config.tools.skills_path, config.tools.skill_max_chars, {t.name for t in tools})
    allowlists = {agent: acfg.tools for agent, acfg in config.agents.items()}
    by_name = {t.name: t for t in tools}
    checkers = [(tool, kinds) for name, kinds in RETRACTION_CHECKERS
                if isinstance(tool := by_name.get(name), SearchTool)]
    check = RetractionCheck(checkers) if config.tools.apis.retraction_check else None
    by_name.update((s.name, s) for s in skills)
    return ToolRegistry(by_name, allowlists, clients, check, [s.name for s in skills])


def _build(declaration: ToolDeclaration, context: BuildContext) -> ToolBase | None:
    """The tool ``declaration`` builds; None when its builder declines. A plugin's tool that cannot be built is
    skipped with one warning line; a shipped tool's errors (e.g. :class:`~cosci.tools.corpus.CorpusError`) are
    raised."""
    if not declaration.origin:
        return builder(declaration)(context)
    try:
        made = builder(declaration)(context)
    except Exception as exc:  # a plugin's code may raise anything: one line, never a traceback
        # one form whether the module failed to import or the builder raised: "build <ref>: <Error>: <why>"
        reason = str(exc) if isinstance(exc, BuilderError) else \
            f"build {declaration.build}: {type(exc).__name__}: {exc}"
        skip(declaration.origin, f"tool '{declaration.name}': {reason}")
        return None
    if made is not None and (not isinstance(made, ToolBase) or made.name != declaration.name):
        skip(declaration.origin, f"tool '{declaration.name}': build {declaration.build} made no tool of that name")
        return None
    return made


def _set_alternatives(tools: Sequence[ToolBase], offline: bool) -> None:
    usable = {t.name for t in tools if not (offline and t.network)}
    searches = [name for name in search_order() if name in usable]
    for tool in tools:
        tool.alternatives = tuple(name for name in searches if name != tool.name)
