"""``europe_pmc_search``: the Europe PMC REST ``search`` endpoint (design.md#tools).

One request per search: ``search?query=...&resultType=core&format=json&pageSize=n``. Europe PMC covers PubMed,
PMC full texts, preprints (bioRxiv, medRxiv...), patents and agricultural literature. Each record's URL is its
Europe PMC page, ``https://europepmc.org/article/<source>/<id>``; it also keeps the hit's PMID and PMCID (merge by
identifier, design.md#tools) and a retraction flag from its publication types (design.md#retractions). Rate: 3
requests/s (politeness; Europe PMC publishes no hard limit).

Full text where it is open (design.md#full-text): for the first ``tools.fulltext_per_search`` hits that have a
PMCID and are open access or in Europe PMC's full-text collection (``isOpenAccess``/``inEPMC`` ``"Y"``), one more
request, ``<PMCID>/fullTextXML`` (:mod:`cosci.tools.jats`); the hit then shows the ``tools.fulltext_passages``
passages of its body that match the query best, and its whole body (up to ``tools.fulltext_max_chars``) is part of
the text its excerpts are checked against. An article Europe PMC does not serve (an ``errorBean``, HTTP 404) or a
failed request leaves the hit as it was, with its abstract.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote

from cosci.llm.port.types import ToolSpec
from cosci.tools.catalog import BuildContext
from cosci.tools.common import ApiSearch, LiteratureHit, clean, first_year, mapping, search_parameters
from cosci.tools.http import ApiClient, SourceError, parse_body
from cosci.tools.jats import FULLTEXT_URL, matching_passages, parse_fulltext

SEARCH_URL = "https://www.ebi.ac.uk/europepmc/webservices/rest/search"
RATE = 3.0
"""Requests/s sent to Europe PMC."""

SPEC = ToolSpec(
    name="europe_pmc_search",
    description=(
        "Search Europe PMC (PubMed/MEDLINE, PubMed Central full texts, and preprints such as bioRxiv and "
        "medRxiv) and get, for each article, its id, source, title, journal, year, DOI, Europe PMC URL and "
        "abstract. Good for recent preprints and open-access papers. Accepts keywords, quoted phrases and "
        "AND/OR."
    ),
    parameters=search_parameters("Europe PMC query, e.g. 'senolytic therapy idiopathic pulmonary fibrosis'."),
)


def article_url(source: str, ident: str) -> str:
    """The Europe PMC page of a record."""
    return f"https://europepmc.org/article/{quote(source, safe='')}/{quote(ident, safe='')}"


def pub_types(item: dict[str, Any]) -> tuple[str, ...]:
    """The publication types of a hit, lower-cased: ``pubTypeList.pubType`` (``resultType=core``) or the
    ``;``-separated ``pubType`` (``resultType=lite``)."""
    listed = mapping(item.get("pubTypeList")).get("pubType")
    if isinstance(listed, str):
        listed = [listed]
    if not isinstance(listed, list):
        listed = str(item.get("pubType") or "").split(";")
    return tuple(t for t in (clean(x).lower() for x in listed) if t)


def retraction_of(types: tuple[str, ...]) -> tuple[str, str]:
    """``(flag, notice)`` from Europe PMC publication types (design.md#retractions): ``retracted publication`` is a
    retracted paper, ``retraction of publication`` / ``retraction notice`` the notice that retracts one."""
    if "retracted publication" in types:
        return "retracted", "Europe PMC publication type: retracted publication"
    notice = next((t for t in ("retraction of publication", "retraction notice") if t in types), "")
    return ("retraction_notice", f"Europe PMC publication type: {notice}") if notice else ("", "")


def _record(item: dict[str, Any]) -> LiteratureHit | None:
    ident, source = clean(item.get("id")), clean(item.get("source"))
    if not ident or not source:
        return None
    journal_info = mapping(item.get("journalInfo"))
    journal = mapping(journal_info.get("journal"))
    year = first_year(item.get("pubYear")) or first_year(journal_info.get("yearOfPublication"))
    authors = tuple(a.strip() for a in clean(item.get("authorString")).rstrip(".").split(",") if a.strip())
    others = [f"PMID:{pmid}" for pmid in [clean(item.get("pmid"))] if pmid.isdigit()]
    others += [f"PMCID:{pmcid}" for pmcid in [clean(item.get("pmcid")).upper()] if pmcid.startswith("PMC")]
    flag, notice = retraction_of(pub_types(item))
    return LiteratureHit(
        id=ident, id_label="Europe PMC id", source=source, url=article_url(source, ident),
        title=clean(item.get("title")), abstract=clean(item.get("abstractText")),
        journal=clean(journal.get("title") or item.get("journalTitle")), year=year, doi=clean(item.get("doi")),
        authors=authors, other_ids=tuple(others), retraction=flag, notice=notice)


def parse_search(data: Any) -> tuple[list[LiteratureHit], int]:
    """Records and ``hitCount`` from a ``resultType=core`` JSON body.

    Raises:
        ValueError: the body is not a Europe PMC search result.
    """
    if not isinstance(data, dict) or not isinstance(data.get("resultList"), dict):
        raise ValueError("Europe PMC body has no 'resultList'")
    items = data["resultList"].get("result", [])
    records = [r for r in (_record(i) for i in items if isinstance(i, dict)) if r is not None]
    try:
        total = int(data.get("hitCount", len(records)))
    except (TypeError, ValueError):
        total = len(records)
    return records, total


def open_pmcids(data: Any) -> dict[tuple[str, str], str]:
    """``{(source, id): PMCID}`` of the hits of a ``core`` body whose full text Europe PMC may serve (a PMCID, and
    ``isOpenAccess`` or ``inEPMC`` ``"Y"``)."""
    out: dict[tuple[str, str], str] = {}
    items = mapping(mapping(data).get("resultList")).get("result", [])
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        pmcid = clean(item.get("pmcid"))
        if pmcid.upper().startswith("PMC") and "Y" in (item.get("isOpenAccess"), item.get("inEPMC")):
            out[(clean(item.get("source")), clean(item.get("id")))] = pmcid
    return out


@dataclass(frozen=True)
class FullTextPolicy:
    """How much full text a search reads (``tools.fulltext_*``, ``tools.passage_words``; design.md#full-text):
    ``per_search`` hits (0: none), ``passages`` shown per hit of at most ``passage_words`` words, ``max_chars``
    of body kept per hit."""

    per_search: int
    passages: int
    passage_words: int
    max_chars: int


class EuropePmcSearch(ApiSearch):
    """The ``europe_pmc_search`` tool (see module docstring)."""

    spec = SPEC
    label = "Europe PMC"
    fetch_kinds = ("PMID", "PMCID", "DOI")

    def __init__(self, client: ApiClient, *, default_max_results: int = 5, offline: bool = False,
                 fulltext: FullTextPolicy | None = None) -> None:
        super().__init__(client, default_max_results=default_max_results, offline=offline)
        self.fulltext = fulltext or FullTextPolicy(0, 1, 200, 0)

    async def with_full_text(self, rec: LiteratureHit, pmcid: str, query: str) -> LiteratureHit:
        """``rec`` with the passages of its full text matching ``query`` and its body; ``rec`` itself when Europe
        PMC serves none or the request fails (see module docstring)."""
        try:
            resp = await self.client.request("GET", FULLTEXT_URL.format(pmcid=quote(pmcid, safe="")))
            full = parse_fulltext(resp.text)
        except (SourceError, ValueError):
            return rec
        if full is None:
            return rec
        policy = self.fulltext
        shown = tuple(f"[{title or 'Body'}] {text}" for title, text in
                      matching_passages(full, query, policy.passages, policy.passage_words))
        return replace(rec, passages=shown, full_text=full.text[:policy.max_chars])

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        """One record (title, abstract...) by PMID, PMCID or DOI through the ``search`` endpoint (core)."""
        query = {"PMID": f"EXT_ID:{value} AND SRC:MED", "PMCID": f"PMCID:{value}", "DOI": f'DOI:"{value}"'}[kind]
        records, _, _ = await self.search(query, 1)
        return records[0] if records else None

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        resp = await self.client.request("GET", SEARCH_URL, params={
            "query": query, "resultType": "core", "format": "json", "pageSize": max_results})
        data = resp.json()
        records, total = parse_body(parse_search, data)
        pmcids = open_pmcids(data)
        read = 0
        for i, rec in enumerate(records[:max_results]):
            pmcid = pmcids.get((rec.source, rec.id))
            if pmcid and read < self.fulltext.per_search:
                read += 1
                records[i] = await self.with_full_text(rec, pmcid, _plain(query))
        with_text = sum(1 for r in records if r.full_text)
        return records, total, f"open-access full text of {with_text} read" if with_text else ""


def _plain(query: str) -> str:
    """The words of a query without Europe PMC's field syntax (``PMCID:``, ``DOI:"…"``), to rank passages by."""
    return " ".join(w for w in query.replace('"', " ").split() if ":" not in w and w not in ("AND", "OR", "NOT"))


def build(ctx: BuildContext) -> EuropePmcSearch:
    """The session's Europe PMC search."""
    t = ctx.config.tools
    policy = FullTextPolicy(t.fulltext_per_search, t.fulltext_passages, t.passage_words, t.fulltext_max_chars)
    return EuropePmcSearch(ctx.client("Europe PMC", RATE), default_max_results=ctx.max_results, offline=ctx.offline,
                           fulltext=policy)
