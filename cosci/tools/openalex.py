"""``openalex_search``: the OpenAlex ``works`` search (design.md#tools).

Registered only when ``OPENALEX_API_KEY`` is set: OpenAlex requires a key since February 2026 (a free key buys about
1,000 searches a day), and a tool the model cannot use is not offered. One request per search:
``GET https://api.openalex.org/works?search=...&per_page=n&api_key=...``. Requests sent count against
``tools.apis.openalex_max_calls`` per session (per registry: a resumed session starts a new count); once it is
used up the tool answers "unavailable" without sending. Rate: 1 request/s (politeness). Each hit keeps its
OpenAlex work id, DOI, PMID and PMCID (``ids``), its abstract rebuilt from ``abstract_inverted_index``, and
``is_retracted`` as a retraction flag (design.md#retractions).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from cosci.llm.port.types import ToolSpec
from cosci.tools.catalog import BuildContext
from cosci.tools.common import ApiSearch, LiteratureHit, clean, first_year, mapping, search_parameters
from cosci.tools.http import ApiClient, SourceError, parse_body

WORKS_URL = "https://api.openalex.org/works"
RATE = 1.0
"""Requests/s sent to OpenAlex."""
KEY_ENV = "OPENALEX_API_KEY"

SPEC = ToolSpec(
    name="openalex_search",
    description=(
        "Search OpenAlex (an open index of scholarly works in all fields) and get, for each work, its OpenAlex id, "
        "title, venue, year, DOI, URL and abstract. Plain keywords."
    ),
    parameters=search_parameters("OpenAlex query, e.g. 'CRISPR base editing off-target'."),
)


def _tail(url: Any, pattern: str) -> str:
    m = re.search(pattern, str(url or ""), re.IGNORECASE)
    return m.group(1) if m else ""


def abstract_text(index: Any) -> str:
    """The abstract from an ``abstract_inverted_index`` (word -> positions), "" when absent."""
    if not isinstance(index, dict):
        return ""
    placed = sorted((pos, word) for word, spots in index.items() if isinstance(spots, list)
                    for pos in spots if isinstance(pos, int))
    return clean(" ".join(word for _, word in placed))


def work(item: dict[str, Any]) -> LiteratureHit | None:
    """One OpenAlex work as a hit (None without a ``W…`` id)."""
    ident = _tail(item.get("id"), r"openalex\.org/(W\d+)")
    if not ident:
        return None
    ids = mapping(item.get("ids"))
    doi = _tail(item.get("doi") or ids.get("doi"), r"doi\.org/(10\.\S+)")
    pmid = _tail(ids.get("pmid"), r"(\d+)/?$")
    pmcid = _tail(ids.get("pmcid"), r"(?:PMC)?(\d+)/?$")
    others = ([f"PMID:{pmid}"] if pmid else []) + ([f"PMCID:PMC{pmcid}"] if pmcid else [])
    source = mapping(mapping(item.get("primary_location")).get("source"))
    authors = tuple(clean(mapping(a.get("author")).get("display_name")) for a in item.get("authorships") or []
                    if isinstance(a, dict) and mapping(a.get("author")).get("display_name"))
    retracted = item.get("is_retracted") is True
    return LiteratureHit(
        id=ident, id_label="OpenAlex", url=f"https://openalex.org/{ident}",
        title=clean(item.get("title") or item.get("display_name")), abstract=abstract_text(
            item.get("abstract_inverted_index")), journal=clean(source.get("display_name")),
        year=first_year(item.get("publication_year")), doi=doi, authors=authors, other_ids=tuple(others),
        retraction="retracted" if retracted else "", notice="OpenAlex is_retracted: true" if retracted else "")


def parse_works(data: Any) -> tuple[list[LiteratureHit], int | None]:
    """Hits and ``meta.count`` from a ``/works`` list body.

    Raises:
        ValueError: no ``results`` list.
    """
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise ValueError("OpenAlex body has no 'results' list")
    hits = [h for h in (work(i) for i in data["results"] if isinstance(i, dict)) if h is not None]
    count = mapping(data.get("meta")).get("count")
    return hits, count if isinstance(count, int) else None


class OpenAlexSearch(ApiSearch):
    """The ``openalex_search`` tool (see module docstring)."""

    spec = SPEC
    label = "OpenAlex"
    fetch_kinds = ("DOI", "OpenAlex")

    def __init__(self, client: ApiClient, api_key: str, max_calls: int, *, default_max_results: int = 5,
                 offline: bool = False) -> None:
        super().__init__(client, default_max_results=default_max_results, offline=offline)
        self.api_key = api_key
        self.max_calls = max_calls

    async def _get(self, url: str, params: dict[str, Any]) -> Any:
        if self.client.requests_sent >= self.max_calls:
            raise SourceError(f"the session's {self.max_calls} OpenAlex requests "
                              "(tools.apis.openalex_max_calls) are used up", "unavailable")
        resp = await self.client.request("GET", url, params={**params, "api_key": self.api_key})
        return resp.json()

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        """One work by DOI or OpenAlex id (``GET /works/{id}``)."""
        ident = f"https://doi.org/{value}" if kind == "DOI" else value
        data = await self._get(f"{WORKS_URL}/{quote(ident, safe=':/')}", {})  # no '?' or '#' from a DOI
        return work(data) if isinstance(data, dict) else None

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        data = await self._get(WORKS_URL, {"search": query, "per_page": max_results})
        hits, total = parse_body(parse_works, data)
        return hits, total, ""


def build(ctx: BuildContext) -> OpenAlexSearch | None:
    """The session's OpenAlex search; None without ``OPENALEX_API_KEY`` (not offered)."""
    key = ctx.env.get(KEY_ENV, "").strip()
    if not key:
        return None
    return OpenAlexSearch(ctx.client("OpenAlex", RATE, secret=key), key, ctx.config.tools.apis.openalex_max_calls,
                          default_max_results=ctx.max_results, offline=ctx.offline)
