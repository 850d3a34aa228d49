"""Literature and web tools for the tool loop, behind a registry with per-agent allowlists (design.md#tools).

Start at :func:`cosci.tools.registry.build_registry`. Modules: ``base`` (the Tool/ToolResult contract),
``catalog`` (what a builder reads, and the import of the builder a declaration names), ``registry`` (the
session's tools, per-agent allowlists), ``http`` (polite async clients: retries, byte cap, offline mode),
``pacing`` (rate limits, Retry-After), ``cache`` (the on-disk response cache), ``common`` (records, result text,
errors), ``ssrf`` (web_fetch's URL guard), and one module per tool, ending with its ``build`` (``pubmed``,
``arxiv``, ``corpus``, …). The tools are declared as data in ``tools.yaml`` (:mod:`cosci.literature`, docs/plugins.md).
Nothing is imported here, so ``cosci.tools.base`` stays light.
"""
