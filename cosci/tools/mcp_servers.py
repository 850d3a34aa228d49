"""MCP tool servers as sources: ``mcp_tool_search`` and the tools it loads (design.md#mcp-servers).

``tools.mcp_servers`` lists servers (a ``command`` started over stdio, or a streamable HTTP ``url``) with an
allowlist of tool names or shell patterns (``allow``). The agents see one tool, ``mcp_tool_search``: it searches
the allowed tools' names and descriptions (Okapi BM25, ``rank-bm25``) and *loads* the best matches into the calling
tool loop (:attr:`~cosci.tools.base.ToolResult.offers`), so twenty servers with hundreds of tools cost one tool
definition in the prompt until the agent picks some. A loaded tool is ``mcp_<server>_<tool>``; its definition
carries its parameters without their descriptions, and its description says only where it comes from: a server's
own words reach the model inside the search's result, quoted as untrusted text like every tool result.

Servers are listed at the first search (after the goal passed screening), concurrently, each within
``tools.mcp_timeout_seconds``; a server that cannot be started, exits at once or does not answer is named in one
warning and skipped for the session. With ``tools.offline`` the HTTP servers are skipped (said once); a stdio
server is a local program and stays. Each call opens its own connection (a stdio server is started for it) under
the same time limit: no connection outlives the call, so no server state crosses tasks or a kill and resume.

A tool's answer is read as JSON (the structured content, else the text content). Records are the JSON objects
in it that have a title or an abstract and an identifier — ``doi``, ``pmid``, ``pmcid``, ``arxiv`` or a web
``url`` — shown to the model as literature records and returned as citable :class:`~cosci.tools.base.Source`
records with their identifiers (citations, excerpt checks and the retraction check read them). An answer longer
than ``tools.mcp_max_chars``, or one that is not JSON, is refused: one warning per server tool and kind, and an
error result the loop passes on. MCP calls have no price: they cost the session nothing from its budget and count
against the loop's iterations and time limits only.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import logging
import re
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from rank_bm25 import BM25Okapi

from cosci.config.schema import McpServerCfg
from cosci.llm.port.types import ToolSpec
from cosci.tools.base import ToolResult
from cosci.tools.catalog import BuildContext
from cosci.tools.common import (
    ArgumentError,
    ToolBase,
    max_results_argument,
    query_argument,
    search_parameters,
)
from cosci.tools.corpus import tokenize
from cosci.tools.mcp_records import literature_objects, record
from cosci.tools.sources import to_source

log = logging.getLogger(__name__)

SPEC = ToolSpec(
    name="mcp_tool_search",
    description=(
        "Find tools of the researcher's MCP tool servers (databases and services beyond the built-in searches) by "
        "what they do, and load the best matches: each tool found is listed with its parameters and can be called "
        "by its name from your next step. Use a few keywords about the data you need."),
    parameters=search_parameters("What the tool should do, e.g. 'gene variant annotation'."),
)
DESCRIPTION_CHARS = 300
"""A tool's description shown in the search result, characters (a server may write pages)."""
MAX_RECORDS = 20
"""Records read from one answer (the search tools' cap, ``MAX_RESULTS_CAP``)."""
_NAME = re.compile(r"[^a-z0-9_]+")


@dataclass(frozen=True)
class ServerTool:
    """One allowed tool of a server: its ``name`` as the server gives it, ``description`` and JSON ``schema``."""

    server: McpServerCfg
    name: str
    description: str
    schema: dict[str, Any]

    @property
    def tool_name(self) -> str:
        """``mcp_<server>_<tool>`` (lower case, ``[a-z0-9_]``, at most 64 characters: the providers' limit)."""
        return f"mcp_{self.server.name}_{_NAME.sub('_', self.name.lower()).strip('_')}"[:64]


def _bare(schema: Any) -> Any:
    """A JSON schema without its prose (``description``, ``title``, ``examples``): the server's words stay in the
    quoted search result."""
    if isinstance(schema, list):
        return [_bare(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in ("description", "title", "examples", "$comment"):
            continue
        named = key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, dict)
        out[key] = {n: _bare(s) for n, s in value.items()} if named else _bare(value)
    return out


class ServerError(Exception):
    """A stdio server failed; ``str(err)`` is one line, with the last line it wrote on its stderr."""


def _error_text(exc: BaseException) -> str:
    """The innermost error of an exception group, one line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, ServerError):
        return str(exc)
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}".rstrip(": ")


class Servers:
    """The session's MCP servers: their allowed tools, listed once, and the calls (see module docstring)."""

    def __init__(self, servers: list[McpServerCfg], timeout: float, max_chars: int, *, offline: bool) -> None:
        self.servers = servers
        self.timeout = timeout
        self.max_chars = max_chars
        self.offline = offline
        self._listed: list[ServerTool] | None = None
        self._lock = asyncio.Lock()
        self._warned: set[tuple[str, ...]] = set()

    def warn_once(self, key: tuple[str, ...], message: str, *args: object) -> None:
        """One warning per ``key`` and session."""
        if key not in self._warned:
            self._warned.add(key)
            log.warning(message, *args)

    @asynccontextmanager
    async def connect(self, server: McpServerCfg) -> AsyncIterator[Any]:
        """An open :class:`mcp.Client` to ``server``, its stderr kept out of the terminal (its last line names
        a failure)."""
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        if server.url is not None:
            async with Client(server.url, read_timeout_seconds=self.timeout) as client:
                yield client
            return
        command = server.command or []
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            params = StdioServerParameters(command=command[0], args=command[1:])
            try:
                async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=self.timeout) as client:
                    yield client
            except Exception as exc:
                errlog.seek(0)
                last = [line for line in errlog.read().splitlines() if line.strip()][-1:]
                raise ServerError(_error_text(exc) + (f" (its stderr: {last[0].strip()[:200]})" if last else "")
                                  ) from exc

    async def tools(self) -> list[ServerTool]:
        """Every allowed tool of every reachable server (listed at the first call; see module docstring)."""
        async with self._lock:
            if self._listed is None:
                found = await asyncio.gather(*(self._list(s) for s in self.servers))
                self._listed = [t for tools in found for t in tools]
            return self._listed

    async def _list(self, server: McpServerCfg) -> list[ServerTool]:
        if server.url is not None and self.offline:
            self.warn_once((server.name, "offline"), "tools.mcp_servers: server '%s' skipped: tools.offline is set "
                           "and it is reached over HTTP", server.name)
            return []
        try:
            async with asyncio.timeout(self.timeout), self.connect(server) as client:
                listed = (await client.list_tools()).tools
        except Exception as exc:  # a server that cannot start, exits or does not answer: skipped (module docstring)
            reason = "no answer within tools.mcp_timeout_seconds" if isinstance(exc, TimeoutError) else _error_text(exc)
            self.warn_once((server.name, "list"), "tools.mcp_servers: server '%s' skipped: %s", server.name, reason)
            return []
        allowed = [t for t in listed if any(fnmatch.fnmatchcase(t.name, p) for p in server.allow)]
        return [ServerTool(server, t.name, " ".join((t.description or "").split()),
                           dict(t.input_schema or {"type": "object", "properties": {}})) for t in allowed]

    async def call(self, tool: ServerTool, arguments: dict[str, Any]) -> tuple[str, bool]:
        """``(answer text, is_error)`` of one call (a fresh connection, within the time limit).

        Raises:
            TimeoutError, ServerError and the SDK's errors: the call did not complete.
        """
        async with asyncio.timeout(self.timeout), self.connect(tool.server) as client:
            result = await client.call_tool(tool.name, arguments)
        structured = result.structured_content
        if isinstance(structured, dict) and set(structured) == {"result"} and isinstance(structured["result"], str):
            text = structured["result"]  # a function returning a string, wrapped by the SDK
        elif structured is not None:
            text = json.dumps(structured, ensure_ascii=False)
        else:
            text = "\n".join(str(getattr(c, "text", "")) for c in result.content if getattr(c, "type", "") == "text")
        return text, bool(result.is_error)


class McpTool(ToolBase):
    """A loaded tool of a server (``mcp_<server>_<tool>``; see module docstring)."""

    network = False

    def __init__(self, tool: ServerTool, servers: Servers) -> None:
        super().__init__()
        self.tool = tool
        self.servers = servers
        schema = _bare(tool.schema)
        if schema.get("type") != "object":
            schema = {"type": "object", "properties": {}}
        self.spec = ToolSpec(name=tool.tool_name, parameters=schema, description=(
            f"Tool '{tool.name}' of the MCP server '{tool.server.name}', loaded by mcp_tool_search (what it does "
            "and its parameters are in that result). Cite the records it returns by their URL."))

    def refuse(self, kind: str, why: str) -> ToolResult:
        """An error result, said in one warning per server tool and kind."""
        where = f"{self.tool.server.name}/{self.tool.name}"
        self.servers.warn_once((where, kind), "tools.mcp_servers: %s: %s", where, why)
        return ToolResult(text=f"{self.name} failed: {why}; try another source.", is_error=True, source=self.name)

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            text, failed = await self.servers.call(self.tool, arguments)
        except TimeoutError:
            return self.refuse("timeout", f"no answer within tools.mcp_timeout_seconds "
                                          f"({self.servers.timeout:g} s)")
        except Exception as exc:  # the server failed or went away: the loop goes on (design.md#tools)
            return self.refuse("call", f"the call failed ({_error_text(exc)})")
        if len(text) > self.servers.max_chars:
            return self.refuse("size", f"answered {len(text):,} characters, over tools.mcp_max_chars "
                                       f"({self.servers.max_chars:,}); answer dropped")
        if failed:
            return ToolResult(text=f"{self.name} answered an error: {text[:2000]}", is_error=True, source=self.name)
        try:
            value = json.loads(text)
        except ValueError:
            return self.refuse("json", "answered text that is not JSON (records with identifiers are read from "
                                       "JSON only); answer dropped")
        hits = [h for h in (record(i) for i in literature_objects(value)) if h is not None][:MAX_RECORDS]
        head = f"{self.name} (MCP server '{self.tool.server.name}'): "
        if not hits:  # data without citable records: shown, never a citation source
            shown = json.dumps(value, ensure_ascii=False)[:8000]
            return ToolResult(text=head + f"no record with an identifier; the answer:\n{shown}", source=self.name)
        body = "\n\n".join(h.to_text(i) for i, h in enumerate(hits, 1))
        return self.result(head + f"{len(hits)} records.\n\n{body}", [to_source(h, self.name) for h in hits])


class McpToolSearch(ToolBase):
    """``mcp_tool_search``: finds and loads tools of the configured servers (see module docstring)."""

    spec = SPEC
    network = False

    def __init__(self, servers: Servers, *, default_max_results: int = 5) -> None:
        super().__init__()
        self.servers = servers
        self.default_max_results = default_max_results
        self._loaded: dict[str, McpTool] = {}

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            query = query_argument(arguments)
            n = max_results_argument(arguments, self.default_max_results)
        except ArgumentError as exc:
            return self.handle(exc)
        tools = await self.servers.tools()
        if not tools:
            return self.error("no MCP server could be reached this session", unavailable=True)
        terms = tokenize(query)
        docs = [tokenize(f"{t.name.replace('_', ' ')} {t.description}") or ["<empty>"] for t in tools]
        scores = BM25Okapi(docs).get_scores(terms)
        order = sorted((i for i in range(len(tools)) if set(terms) & set(docs[i])), key=lambda i: -scores[i])[:n]
        if not order:
            return ToolResult(text=f'mcp_tool_search: no tool matches "{query}" among {len(tools)}; try other '
                                   "keywords.", source=self.name)
        picked = [self._loaded.setdefault(tools[i].tool_name, McpTool(tools[i], self.servers)) for i in order]
        lines = [f'mcp_tool_search: {len(picked)} of {len(tools)} tools loaded for "{query}"; call them by name '
                 "from your next step."]
        for i, t in enumerate(picked, 1):
            lines.append(f"{i}. {t.name} (server '{t.tool.server.name}', tool '{t.tool.name}'): "
                         f"{_cut(t.tool.description)}\n   parameters: {_parameters(t.tool.schema)}")
        return ToolResult(text="\n".join(lines), source=self.name, offers=tuple(picked))


def _cut(text: str) -> str:
    return text if len(text) <= DESCRIPTION_CHARS else text[:DESCRIPTION_CHARS].rsplit(" ", 1)[0] + " …"


def _parameters(schema: dict[str, Any]) -> str:
    """``query (string, required): what to find; limit (integer)`` from a JSON schema's properties."""
    props: dict[str, Any] = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
    required = set(schema.get("required") or [])
    parts = []
    for name, p in list(props.items())[:20]:
        p = p if isinstance(p, dict) else {}
        what = ", ".join(x for x in (str(p.get("type", "any")), "required" if name in required else "") if x)
        note = f": {_cut(' '.join(str(p['description']).split()))[:120]}" if p.get("description") else ""
        parts.append(f"{name} ({what}){note}")
    return "; ".join(parts) or "none"


def build(ctx: BuildContext) -> McpToolSearch | None:
    """The search over ``tools.mcp_servers``; None when no server is configured."""
    cfg = ctx.config.tools
    if not cfg.mcp_servers:
        return None
    servers = Servers(list(cfg.mcp_servers), cfg.mcp_timeout_seconds, cfg.mcp_max_chars, offline=ctx.offline)
    return McpToolSearch(servers, default_max_results=ctx.max_results)

