"""``semantic_scholar_search``: the Semantic Scholar Graph API ``paper/search`` (design.md#tools).

One request per search: ``GET /graph/v1/paper/search?query=...&limit=n&fields=...``. A key is optional
(``S2_API_KEY``, sent as ``x-api-key``, never in the cache key or an error). Rate: 1 request/s, the rate of an
introductory key; without a key the shared pool often answers HTTP 429, which the HTTP client retries with
exponential backoff and ``Retry-After`` (tenacity, :mod:`cosci.tools.http`) and then reports as unavailable.
An empty search is HTTP 200 ``{"total": 0, "offset": 0}`` with no ``data`` key. Each hit keeps its S2 paper id and
the identifiers ``externalIds`` gives (DOI, PMID, PMCID, arXiv), so the same paper from PubMed or Europe PMC is
one record (design.md#tools: merge by identifier).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from cosci.llm.port.types import ToolSpec
from cosci.tools.catalog import BuildContext
from cosci.tools.common import ApiSearch, LiteratureHit, clean, first_year, mapping, search_parameters
from cosci.tools.http import ApiClient, parse_body

API = "https://api.semanticscholar.org/graph/v1"
SEARCH_URL = f"{API}/paper/search"
RATE = 1.0
"""Requests/s sent to Semantic Scholar (an introductory key's limit; also polite for the keyless pool)."""
FIELDS = "paperId,externalIds,url,title,abstract,venue,year,authors,journal,publicationTypes"
KEY_ENV = "S2_API_KEY"
_LOOKUP_PREFIX = {"DOI": "DOI:", "PMID": "PMID:", "arXiv": "ARXIV:", "S2": ""}

SPEC = ToolSpec(
    name="semantic_scholar_search",
    description=(
        "Search Semantic Scholar (the largest general index of papers across all fields, with citation data) and "
        "get, for each paper, its S2 id, title, venue, year, DOI and other ids, URL and abstract. Plain keywords."
    ),
    parameters=search_parameters("Semantic Scholar query, e.g. 'gut microbiome checkpoint inhibitor response'."),
)


def paper(item: dict[str, Any]) -> LiteratureHit | None:
    """One Graph API paper object as a hit (None without ``paperId``)."""
    ident = clean(item.get("paperId"))
    if not ident:
        return None
    ext = mapping(item.get("externalIds"))
    others = [f"PMID:{clean(ext['PubMed'])}"] if clean(ext.get("PubMed")) else []
    others += [f"PMCID:PMC{clean(ext['PubMedCentral']).removeprefix('PMC')}"] if clean(ext.get("PubMedCentral")) else []
    others += [f"arXiv:{clean(ext['ArXiv'])}"] if clean(ext.get("ArXiv")) else []
    authors = tuple(clean(a.get("name")) for a in item.get("authors") or [] if isinstance(a, dict) and a.get("name"))
    journal = clean(mapping(item.get("journal")).get("name")) or clean(item.get("venue"))
    return LiteratureHit(
        id=ident, id_label="S2", url=clean(item.get("url")) or f"https://www.semanticscholar.org/paper/{ident}",
        title=clean(item.get("title")), abstract=clean(item.get("abstract")), journal=journal,
        year=first_year(item.get("year")), doi=clean(ext.get("DOI")), authors=authors, other_ids=tuple(others))


def parse_search(data: Any) -> tuple[list[LiteratureHit], int | None]:
    """Hits and ``total`` from a ``paper/search`` body (no ``data`` key: no hits).

    Raises:
        ValueError: the body is not a search answer (no ``total``, or ``data`` not a list).
    """
    if not isinstance(data, dict) or "total" not in data:
        raise ValueError("Semantic Scholar body has no 'total'")
    items = data.get("data", [])
    if not isinstance(items, list):
        raise ValueError("Semantic Scholar 'data' is not a list")
    hits = [h for h in (paper(i) for i in items if isinstance(i, dict)) if h is not None]
    try:
        return hits, int(data["total"])
    except (TypeError, ValueError):
        return hits, None


class SemanticScholarSearch(ApiSearch):
    """The ``semantic_scholar_search`` tool (see module docstring)."""

    spec = SPEC
    label = "Semantic Scholar"
    fetch_kinds = ("S2", "DOI", "PMID", "arXiv")

    def __init__(self, client: ApiClient, api_key: str = "", *, default_max_results: int = 5,
                 offline: bool = False) -> None:
        super().__init__(client, default_max_results=default_max_results, offline=offline)
        self.headers = {"x-api-key": api_key} if api_key else {}

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        """One paper by S2 id, DOI, PMID or arXiv id (``GET /paper/{id}``); a 404 is a failed fetch."""
        ident = quote(_LOOKUP_PREFIX[kind] + value, safe=":/")
        resp = await self.client.request("GET", f"{API}/paper/{ident}", params={"fields": FIELDS},
                                         headers=self.headers)
        data = resp.json()
        return paper(data) if isinstance(data, dict) else None

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        resp = await self.client.request("GET", SEARCH_URL, headers=self.headers, params={
            "query": query, "limit": max_results, "fields": FIELDS})
        hits, total = parse_body(parse_search, resp.json())
        return hits, total, ""


def build(ctx: BuildContext) -> SemanticScholarSearch:
    """The session's Semantic Scholar search (with ``S2_API_KEY`` when set)."""
    key = ctx.env.get(KEY_ENV, "").strip()
    return SemanticScholarSearch(ctx.client("Semantic Scholar", RATE, secret=key or None), key,
                                 default_max_results=ctx.max_results, offline=ctx.offline)
