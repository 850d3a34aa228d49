"""``crossref_lookup``: DOI metadata from the Crossref REST API, and its update notices (design.md#tools,
design.md#retractions).

A query that is a DOI (``10.xxxx/...``, bare or as a ``doi.org`` link) is one ``GET /works/{doi}``; any other query
is a bibliographic search, ``GET /works?query.bibliographic=...&rows=n``. ``tools.apis.crossref_mailto`` is sent as
``mailto`` (Crossref's polite pool); null sends none (the public pool). Rate: 1 request/s (politeness; the public
pool allows more). An unknown DOI is HTTP 404 with a plain-text ``Resource not found.``.

Retraction flags (:func:`updates_of`): ``updated-by`` lists the notices published about this work (``type``
``retraction``, ``withdrawal`` or ``removal``: retracted; ``correction``, ``corrigendum``, ``erratum``,
``partial_retraction``: corrected); ``update-to`` lists the works this record updates (a ``retraction`` there makes
this record a retraction notice); a ``relation`` key that contains ``retract`` is read the same way
(``is-retracted-by``: retracted, any other: a retraction notice). Other update types (an expression of concern,
a new version) carry no flag.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from cosci.llm.port.types import ToolSpec
from cosci.tools.base import stronger_flag
from cosci.tools.catalog import BuildContext
from cosci.tools.common import ApiSearch, LiteratureHit, clean, first_year, search_parameters
from cosci.tools.http import ApiClient, parse_body

WORKS_URL = "https://api.crossref.org/works"
RATE = 1.0
"""Requests/s sent to Crossref."""
RETRACTING = ("retraction", "withdrawal", "removal")
CORRECTING = ("correction", "corrigendum", "erratum", "partial_retraction")
_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)

SPEC = ToolSpec(
    name="crossref_lookup",
    description=(
        "Look up a DOI in Crossref (the registry of DOIs) and get the work's authoritative title, journal, year, "
        "authors and abstract, and whether it was retracted or corrected. A query that is not a DOI is a "
        "bibliographic search (title, authors, journal)."
    ),
    parameters=search_parameters("A DOI such as '10.1073/pnas.1414271111', or a title and authors."),
)


def as_doi(query: str) -> str | None:
    """The bare DOI ``query`` is, or None."""
    m = _DOI.match(query.strip())
    return m.group(1).rstrip(".,;") if m else None


def _first(value: Any) -> str:
    return clean(value[0]) if isinstance(value, list) and value else clean(value if isinstance(value, str) else "")


def _year(item: dict[str, Any]) -> int | None:
    for key in ("issued", "published", "published-print", "published-online", "created"):
        parts = item.get(key, {}).get("date-parts") if isinstance(item.get(key), dict) else None
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            return first_year(parts[0][0])
    return None


def updates_of(item: dict[str, Any]) -> tuple[str, str]:
    """``(flag, notice)`` from a work's ``updated-by``, ``update-to`` and ``relation`` (see module docstring)."""
    flag, notice = "", ""

    def note(kind: str, text: str) -> None:
        nonlocal flag, notice
        if stronger_flag(kind, flag) == kind and kind != flag:
            flag, notice = kind, text

    for upd in item.get("updated-by") or []:
        kind = str(upd.get("type", "")).lower() if isinstance(upd, dict) else ""
        doi = clean(upd.get("DOI")) if isinstance(upd, dict) else ""
        if kind in RETRACTING:
            note("retracted", f"Crossref updated-by: {kind} {doi}".strip())
        elif kind in CORRECTING:
            note("corrected", f"Crossref updated-by: {kind} {doi}".strip())
    for upd in item.get("update-to") or []:
        kind = str(upd.get("type", "")).lower() if isinstance(upd, dict) else ""
        if kind in RETRACTING:
            note("retraction_notice", f"Crossref update-to: {kind} of {clean(upd.get('DOI'))}".strip())
    relation = item.get("relation")
    for key in relation if isinstance(relation, dict) else {}:
        if "retract" in key.lower():
            note("retracted" if key.lower() == "is-retracted-by" else "retraction_notice", f"Crossref relation: {key}")
    return flag, notice


def work(item: dict[str, Any]) -> LiteratureHit | None:
    """One Crossref work as a hit (None without a ``DOI``)."""
    doi = clean(item.get("DOI"))
    if not doi:
        return None
    authors = tuple(" ".join(p for p in (clean(a.get("given")), clean(a.get("family"))) if p) or clean(a.get("name"))
                    for a in item.get("author") or [] if isinstance(a, dict))
    flag, notice = updates_of(item)
    return LiteratureHit(
        id=doi, id_label="DOI", url=f"https://doi.org/{doi}", title=_first(item.get("title")),
        abstract=clean(item.get("abstract")), journal=_first(item.get("container-title")), year=_year(item),
        doi=doi, authors=tuple(a for a in authors if a), retraction=flag, notice=notice)


def parse_work(data: Any) -> LiteratureHit | None:
    """The hit of a ``/works/{doi}`` body. Raises: ValueError when it is not a ``work`` message."""
    if not isinstance(data, dict) or data.get("message-type") != "work" or not isinstance(data.get("message"), dict):
        raise ValueError("Crossref body is not a 'work' message")
    return work(data["message"])


def parse_works(data: Any) -> tuple[list[LiteratureHit], int | None]:
    """Hits and ``total-results`` of a ``/works`` list body. Raises: ValueError when it is not a ``work-list``."""
    message = data.get("message") if isinstance(data, dict) else None
    if data.get("message-type") != "work-list" or not isinstance(message, dict):  # type: ignore[union-attr]
        raise ValueError("Crossref body is not a 'work-list' message")
    hits = [h for h in (work(i) for i in message.get("items") or [] if isinstance(i, dict)) if h is not None]
    total = message.get("total-results")
    return hits, total if isinstance(total, int) else None


class CrossrefLookup(ApiSearch):
    """The ``crossref_lookup`` tool (see module docstring)."""

    spec = SPEC
    label = "Crossref"
    fetch_kinds = ("DOI",)

    def __init__(self, client: ApiClient, mailto: str | None, *, default_max_results: int = 5,
                 offline: bool = False) -> None:
        super().__init__(client, default_max_results=default_max_results, offline=offline)
        self.polite = {"mailto": mailto} if mailto else {}

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        """The work with DOI ``value`` (``GET /works/{doi}``).

        Raises:
            SourceError: unknown DOI (HTTP 404), the source failed, or the body is not a work.
        """
        resp = await self.client.request("GET", f"{WORKS_URL}/{quote(value, safe='/')}", params=self.polite)
        return parse_body(parse_work, resp.json())

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        doi = as_doi(query)
        if doi is not None:
            hit = await self.lookup("DOI", doi)
            return ([hit] if hit else []), None, ""
        resp = await self.client.request("GET", WORKS_URL, params={
            "query.bibliographic": query, "rows": max_results, **self.polite})
        hits, total = parse_body(parse_works, resp.json())
        return hits, total, ""


def build(ctx: BuildContext) -> CrossrefLookup:
    """The session's Crossref lookup (``mailto`` from ``tools.apis.crossref_mailto``)."""
    return CrossrefLookup(ctx.client("Crossref", RATE), ctx.config.tools.apis.crossref_mailto,
                          default_max_results=ctx.max_results, offline=ctx.offline)
