"""``web_search``: general web search through Tavily or Brave (design.md#tools).

Registered only when ``TAVILY_API_KEY`` (preferred) or ``BRAVE_API_KEY`` is set: a tool the model cannot use
must not be offered (design.md#tools). Tavily: ``POST https://api.tavily.com/search``
with ``Authorization: Bearer <key>``, results ``[{title, url, content, ...}]``. Brave:
``GET https://api.search.brave.com/res/v1/web/search`` with ``X-Subscription-Token``, results under
``web.results[{title, url, description, ...}]``. Rate: 1 request/s (Brave's free plan limit; polite for
Tavily). Keys go in headers, never in the cache key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from cosci.llm.port.types import ToolSpec
from cosci.tools.catalog import BuildContext
from cosci.tools.common import ApiSearch, LiteratureHit, clean, first_year, search_parameters
from cosci.tools.http import ApiClient, parse_body

TAVILY_URL = "https://api.tavily.com/search"
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
RATE = 1.0
"""Requests/s sent to the web search API."""
Backend = Literal["tavily", "brave"]

SPEC = ToolSpec(
    name="web_search",
    description=(
        "Search the general web and get, for each hit, its title, URL and a snippet. Use it for what the "
        "literature databases miss: clinical trials, drug labels, datasets, protocols, news, institutional "
        "pages. Prefer pubmed_search, europe_pmc_search or arxiv_search for papers; web_fetch reads a hit."
    ),
    parameters=search_parameters("Web query, e.g. 'ClinicalTrials.gov metformin glioblastoma phase 2'."),
)


def backend_from_env(environ: Mapping[str, str]) -> tuple[Backend, str] | None:
    """The backend and key to use: Tavily when ``TAVILY_API_KEY`` is set, else Brave, else None."""
    tavily, brave = environ.get("TAVILY_API_KEY", "").strip(), environ.get("BRAVE_API_KEY", "").strip()
    if tavily:
        return "tavily", tavily
    if brave:
        return "brave", brave
    return None


def _records(items: Any, snippet_field: str) -> list[LiteratureHit]:
    if not isinstance(items, list):
        raise ValueError("web search body has no result list")
    records = []
    for item in items:
        if not isinstance(item, dict) or not item.get("url"):
            continue
        date = item.get("published_date") or item.get("page_age") or item.get("age")
        records.append(LiteratureHit(id="", title=clean(item.get("title")), url=str(item["url"]).strip(),
                                        abstract=clean(item.get(snippet_field)), year=first_year(date),
                                        abstract_label="Snippet"))
    return records


def parse_tavily(data: Any) -> list[LiteratureHit]:
    """Records from a Tavily ``/search`` JSON body. Raises: ValueError when it has no ``results``."""
    return _records(data.get("results") if isinstance(data, dict) else None, "content")


def parse_brave(data: Any) -> list[LiteratureHit]:
    """Records from a Brave web search JSON body (``web.results``; none when ``web`` is absent)."""
    if not isinstance(data, dict):
        raise ValueError("Brave body is not a JSON object")
    web = data.get("web")
    return _records(web.get("results", []) if isinstance(web, dict) else [], "description")


class WebSearch(ApiSearch):
    """The ``web_search`` tool over one backend (see module docstring)."""

    spec = SPEC

    def __init__(self, client: ApiClient, backend: Backend, api_key: str, *, default_max_results: int = 5,
                 offline: bool = False) -> None:
        super().__init__(client, default_max_results=default_max_results, offline=offline)
        self.backend = backend
        self.api_key = api_key
        self.label = "Web search (Tavily)" if backend == "tavily" else "Web search (Brave)"

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        if self.backend == "tavily":
            resp = await self.client.request(
                "POST", TAVILY_URL, headers={"Authorization": f"Bearer {self.api_key}"},
                json_body={"query": query, "max_results": max_results, "search_depth": "basic"})
            records = parse_body(parse_tavily, resp.json())
        else:
            resp = await self.client.request(
                "GET", BRAVE_URL, params={"q": query, "count": max_results},
                headers={"X-Subscription-Token": self.api_key, "Accept": "application/json"})
            records = parse_body(parse_brave, resp.json())
        return records, None, ""


def build(ctx: BuildContext) -> WebSearch | None:
    """The session's web search over the backend a key is set for; None without a key (not offered)."""
    backend = backend_from_env(ctx.env)
    if backend is None:
        return None
    name, key = backend
    return WebSearch(ctx.client(name, RATE, secret=key), name, key, default_max_results=ctx.max_results,
                     offline=ctx.offline)
