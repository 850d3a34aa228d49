"""Literature and web tools for the tool loop, behind a registry with per-agent allowlists (design.md#tools).

Start at :func:`cosci.tools.registry.build_registry`. Modules: ``base`` (the Tool/ToolResult contract),
``catalog`` (how a tool module declares its tool, :mod:`cosci.literature`), ``registry`` (the session's tools,
per-agent allowlists), ``http`` (polite async clients: retries, byte cap, offline mode), ``pacing`` (rate
limits, Retry-After), ``cache`` (the on-disk response cache), ``common`` (records, result text, errors), ``ssrf``
(web_fetch's URL guard), and one module per tool, ending with its declaration (``pubmed``, ``arxiv``, ``corpus``,
…). Nothing is imported here, so ``cosci.tools.base`` stays light.
"""
