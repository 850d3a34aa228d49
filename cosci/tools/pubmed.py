"""``pubmed_search``: PubMed through NCBI E-utilities (design.md#tools).

Two requests per search: ``esearch.fcgi`` (``retmode=json``) for the PMIDs by relevance, then ``efetch.fcgi``
(PubMed XML) for title, abstract, journal, year and DOI. When efetch fails or its XML cannot be read,
``esummary.fcgi`` (JSON) still gives titles, journals, years and DOIs (no abstracts). ``NCBI_API_KEY`` is
sent when set (10 requests/s instead of 3, NCBI's published limits); ``NCBI_EMAIL`` too, with ``tool=cosci``,
as NCBI asks. Parsers are pure functions over the bodies (tests replay recorded NCBI responses).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from cosci.llm.port.types import ToolSpec
from cosci.tools.catalog import BuildContext
from cosci.tools.common import ApiSearch, LiteratureHit, clean, first_year, search_parameters
from cosci.tools.http import ApiClient, SourceError, parse_body

EUTILS = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
RATE_NO_KEY = 3.0
"""Requests/s allowed by NCBI without an API key."""
RATE_WITH_KEY = 10.0
"""Requests/s allowed by NCBI with an API key."""

SPEC = ToolSpec(
    name="pubmed_search",
    description=(
        "Search PubMed (biomedical and life-science literature, MEDLINE) and get, for each article, its "
        "PMID, title, journal, year, DOI, PubMed URL and abstract. Use concise keyword queries; PubMed "
        "syntax such as field tags ([ti], [au], [mh]) and AND/OR is accepted."
    ),
    parameters=search_parameters(
        "PubMed query, e.g. 'KRAS G12C inhibitor resistance' or 'fibrosis[ti] AND YAP'."),
)


def pubmed_url(pmid: str) -> str:
    """The PubMed landing page of ``pmid``."""
    return f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"


def parse_esearch(data: Any) -> tuple[list[str], int]:
    """PMIDs and the total hit count from an esearch JSON body.

    Raises:
        ValueError: the body is not an esearch result or reports an error.
    """
    if not isinstance(data, dict):
        raise ValueError("esearch body is not a JSON object")
    if "error" in data:
        raise ValueError(f"esearch error: {data['error']}")
    result = data.get("esearchresult")
    if not isinstance(result, dict):
        raise ValueError("esearch body has no 'esearchresult'")
    if "ERROR" in result:
        raise ValueError(f"esearch error: {result['ERROR']}")
    ids = [str(i) for i in result.get("idlist", [])]
    try:
        count = int(result.get("count", len(ids)))
    except (TypeError, ValueError):
        count = len(ids)
    return ids, count


def _text(elem: ET.Element | None) -> str:
    return clean("".join(elem.itertext())) if elem is not None else ""


def _abstract(article: ET.Element) -> str:
    parts = []
    for node in article.iterfind(".//Abstract/AbstractText"):
        text = _text(node)
        label = node.get("Label")
        if text:
            parts.append(f"{label}: {text}" if label else text)
    return " ".join(parts)


def _year(article: ET.Element) -> int | None:
    pub_date = ".//Article/Journal/JournalIssue/PubDate"
    for path in (f"{pub_date}/Year", f"{pub_date}/MedlineDate", ".//Article/ArticleDate/Year"):
        year = first_year(_text(article.find(path)))
        if year:
            return year
    return None


def _doi(article: ET.Element) -> str:
    for node in article.iterfind(".//PubmedData/ArticleIdList/ArticleId"):
        if node.get("IdType") == "doi" and _text(node):
            return _text(node)
    for node in article.iterfind(".//Article/ELocationID"):
        if node.get("EIdType") == "doi" and _text(node):
            return _text(node)
    return ""


def _authors(article: ET.Element) -> tuple[str, ...]:
    names = []
    for author in article.iterfind(".//Article/AuthorList/Author"):
        last, initials = _text(author.find("LastName")), _text(author.find("Initials"))
        name = f"{last} {initials}".strip() or _text(author.find("CollectiveName"))
        if name:
            names.append(name)
    return tuple(names)


def parse_efetch(xml_text: str) -> list[LiteratureHit]:
    """Records from an efetch PubMed XML body (``PubmedArticleSet``), in document order.

    Raises:
        ValueError: the body is not well-formed XML or not a PubmedArticleSet.
    """
    try:
        root = ET.fromstring(xml_text)  # expat >= 2.4.1 refuses entity-expansion bombs
    except ET.ParseError as exc:
        raise ValueError(f"efetch XML is malformed ({exc})") from None
    if root.tag != "PubmedArticleSet":
        raise ValueError(f"efetch XML root is <{root.tag}>, not <PubmedArticleSet>")
    records = []
    for article in root.iterfind("PubmedArticle"):
        pmid = _text(article.find("MedlineCitation/PMID"))
        if not pmid:
            continue
        records.append(LiteratureHit(
            id=pmid, id_label="PMID", url=pubmed_url(pmid),
            title=_text(article.find(".//Article/ArticleTitle")), abstract=_abstract(article),
            journal=_text(article.find(".//Article/Journal/Title")), year=_year(article), doi=_doi(article),
            authors=_authors(article)))
    return records


def parse_esummary(data: Any) -> list[LiteratureHit]:
    """Records (no abstracts) from an esummary JSON body, in ``uids`` order.

    Raises:
        ValueError: the body is not an esummary result.
    """
    result = data.get("result") if isinstance(data, dict) else None
    if not isinstance(result, dict):
        raise ValueError("esummary body has no 'result'")
    records = []
    for uid in result.get("uids", []):
        doc = result.get(str(uid))
        if not isinstance(doc, dict):
            continue
        doi = next((clean(a.get("value")) for a in doc.get("articleids", [])
                    if isinstance(a, dict) and a.get("idtype") == "doi"), "")
        authors = tuple(clean(a.get("name")) for a in doc.get("authors", [])
                        if isinstance(a, dict) and a.get("name"))
        records.append(LiteratureHit(
            id=str(uid), id_label="PMID", url=pubmed_url(str(uid)), title=clean(doc.get("title")),
            journal=clean(doc.get("fulljournalname") or doc.get("source")),
            year=first_year(doc.get("pubdate")) or first_year(doc.get("sortpubdate")), doi=doi,
            authors=authors))
    return records


class PubmedSearch(ApiSearch):
    """The ``pubmed_search`` tool (see module docstring)."""

    spec = SPEC
    label = "PubMed"
    fetch_kinds = ("PMID",)

    def __init__(self, client: ApiClient, *, api_key: str | None = None, email: str | None = None,
                 default_max_results: int = 5, offline: bool = False) -> None:
        super().__init__(client, default_max_results=default_max_results, offline=offline)
        self.common: dict[str, str] = {"db": "pubmed", "tool": "cosci"}
        if api_key:
            self.common["api_key"] = api_key
        if email:
            self.common["email"] = email

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        """One PubMed record (title, abstract...) by PMID through efetch."""
        if not value.isdigit():
            return None
        fetched = await self.client.request("GET", f"{EUTILS}/efetch.fcgi", params={
            **self.common, "id": value, "retmode": "xml"})
        return next((r for r in parse_efetch(fetched.text) if r.id == value), None)

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        resp = await self.client.request("GET", f"{EUTILS}/esearch.fcgi", params={
            **self.common, "term": query, "retmode": "json", "retmax": max_results, "sort": "relevance"})
        ids, total = parse_body(parse_esearch, resp.json())
        if not ids:
            return [], total, ""
        ids = ids[:max_results]
        note = ""
        try:
            fetched = await self.client.request("GET", f"{EUTILS}/efetch.fcgi", params={
                **self.common, "id": ",".join(ids), "retmode": "xml"})
            records = parse_efetch(fetched.text)
        except (SourceError, ValueError) as first:
            try:
                from_summary = await self.client.request("GET", f"{EUTILS}/esummary.fcgi", params={
                    **self.common, "id": ",".join(ids), "retmode": "json"})
                records = parse_esummary(from_summary.json())
            except (SourceError, ValueError):
                raise SourceError(f"efetch failed ({first})", getattr(first, "kind", "failed")) from None
            note = "abstracts unavailable: efetch failed, titles from esummary"
        order = {pmid: i for i, pmid in enumerate(ids)}
        records.sort(key=lambda r: order.get(r.id, len(order)))
        return records, total, note


def build(ctx: BuildContext) -> PubmedSearch:
    """The session's PubMed search (``NCBI_API_KEY`` raises the rate; ``NCBI_EMAIL`` is sent when set)."""
    key = ctx.env.get("NCBI_API_KEY", "").strip() or None
    client = ctx.client("PubMed", RATE_WITH_KEY if key else RATE_NO_KEY, secret=key)
    return PubmedSearch(client, api_key=key, email=ctx.env.get("NCBI_EMAIL") or None,
                        default_max_results=ctx.max_results, offline=ctx.offline)
