"""``arxiv_search``: the arXiv API Atom feed at ``export.arxiv.org/api/query`` (design.md#tools).

One request per search, sorted by relevance. A plain keyword query becomes ``all:w1 AND all:w2 ...``; a query
that already uses arXiv's field prefixes (``ti:``, ``au:``, ``abs:``, ``cat:``, ``all:``...) or boolean
operators is sent as written. The Atom feed is parsed with the standard library. arXiv asks for at most one
request every 3 seconds, so the rate is 1/3 request/s. arXiv reports a bad query as a feed whose single entry
is an error; that becomes an error result.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from cosci.llm.port.types import ToolSpec
from cosci.tools.catalog import BuildContext
from cosci.tools.common import ApiSearch, LiteratureHit, clean, first_year, search_parameters
from cosci.tools.http import parse_body

API_URL = "https://export.arxiv.org/api/query"
RATE = 1.0 / 3.0
"""Requests/s sent to arXiv (its terms: one request every three seconds)."""

NS = {"atom": "http://www.w3.org/2005/Atom", "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
      "arxiv": "http://arxiv.org/schemas/atom"}
_FIELD_RE = re.compile(r"\b(ti|au|abs|co|jr|cat|rn|id|all):|\b(AND|OR|ANDNOT)\b")

SPEC = ToolSpec(
    name="arxiv_search",
    description=(
        "Search arXiv preprints (physics, mathematics, computer science, quantitative biology, statistics) "
        "and get, for each paper, its arXiv id, title, authors, year, arXiv URL and abstract. Plain keywords "
        "must all match; arXiv syntax such as ti:, au:, abs:, cat: and AND/OR is also accepted."
    ),
    parameters=search_parameters("arXiv query, e.g. 'protein language model fitness prediction'."),
)


def build_query(query: str) -> str:
    """The ``search_query`` for ``query`` (see module docstring)."""
    if _FIELD_RE.search(query):
        return query
    words = re.findall(r"[\w\-]+", query)
    return " AND ".join(f"all:{w}" for w in words) or f'all:"{query}"'


def _text(entry: ET.Element, path: str) -> str:
    node = entry.find(path, NS)
    return clean("".join(node.itertext())) if node is not None else ""


def _record(entry: ET.Element) -> LiteratureHit:
    raw_id = _text(entry, "atom:id")
    arxiv_id = raw_id.rsplit("/abs/", 1)[-1] if "/abs/" in raw_id else raw_id
    url = next((link.get("href", "") for link in entry.iterfind("atom:link", NS)
                if link.get("rel") == "alternate" and link.get("href")), "") or f"https://arxiv.org/abs/{arxiv_id}"
    names = (_text(a, "atom:name") for a in entry.iterfind("atom:author", NS))
    authors = tuple(name for name in names if name)
    return LiteratureHit(
        id=arxiv_id, id_label="arXiv", url=url, title=_text(entry, "atom:title"),
        abstract=_text(entry, "atom:summary"), journal=_text(entry, "arxiv:journal_ref"),
        year=first_year(_text(entry, "atom:published")), doi=_text(entry, "arxiv:doi"), authors=authors)


def parse_feed(xml_text: str) -> tuple[list[LiteratureHit], int | None]:
    """Records and ``opensearch:totalResults`` from an arXiv Atom feed.

    Raises:
        ValueError: malformed XML, not an Atom feed, or arXiv's error entry (its message is kept).
    """
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise ValueError(f"arXiv feed is malformed ({exc})") from None
    if root.tag != f"{{{NS['atom']}}}feed":
        raise ValueError(f"arXiv answer is not an Atom feed (root <{root.tag}>)")
    entries = root.findall("atom:entry", NS)
    for entry in entries:
        if "/api/errors" in _text(entry, "atom:id"):
            raise ValueError(f"arXiv rejected the query: {_text(entry, 'atom:summary') or 'unknown error'}")
    total_text = _text(root, "opensearch:totalResults")
    total = int(total_text) if total_text.isdigit() else None
    return [_record(e) for e in entries], total


class ArxivSearch(ApiSearch):
    """The ``arxiv_search`` tool (see module docstring)."""

    spec = SPEC
    label = "arXiv"
    fetch_kinds = ("arXiv",)

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        """One arXiv record (title, abstract...) by id through the API's ``id_list``."""
        resp = await self.client.request("GET", API_URL, params={"id_list": value, "max_results": 1})
        records, _ = parse_feed(resp.text)
        return records[0] if records else None

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        params: dict[str, Any] = {"search_query": build_query(query), "start": 0, "max_results": max_results,
                                  "sortBy": "relevance", "sortOrder": "descending"}
        resp = await self.client.request("GET", API_URL, params=params)
        records, total = parse_body(parse_feed, resp.text)
        return records, total, ""


def build(ctx: BuildContext) -> ArxivSearch:
    """The session's arXiv search."""
    return ArxivSearch(ctx.client("arXiv", RATE), default_max_results=ctx.max_results, offline=ctx.offline)
