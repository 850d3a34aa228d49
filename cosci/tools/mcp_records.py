"""An MCP tool's JSON answer read as literature records (design.md#mcp-servers).

A record is a JSON object with a title or an abstract (:func:`literature_objects` finds them, depth-first) and an
identifier — ``doi``, ``pmid``, ``pmcid``, ``arxiv`` or a web ``url`` — read by :func:`record` into a
:class:`~cosci.tools.common.LiteratureHit`, the shape every literature tool returns.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from cosci.tools.common import LiteratureHit, clean, first_year

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)


def literature_objects(value: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """The JSON objects with a title or an abstract, depth-first (at most 6 levels)."""
    if depth > 6:
        return
    if isinstance(value, dict):
        keys = {str(k).lower() for k in value}
        if keys & {"title", "abstract", "summary"}:
            yield value
            return
        for v in value.values():
            yield from literature_objects(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            yield from literature_objects(v, depth + 1)


def record(item: dict[str, Any]) -> LiteratureHit | None:
    """One JSON object as a literature record; None when it has no identifier and no web URL (no citable record).
    Identifiers: ``doi``, ``pmid``/``pubmed_id``, ``pmcid``, ``arxiv``/``arxiv_id``; URL ``url``/``link``, else the
    DOI's or PubMed's page."""
    f = {str(k).lower(): v for k, v in item.items()}
    doi = _DOI_PREFIX.sub("", clean(f.get("doi")))
    pmid, pmcid = clean(f.get("pmid") or f.get("pubmed_id")), clean(f.get("pmcid"))
    arxiv = clean(f.get("arxiv") or f.get("arxiv_id"))
    url = clean(f.get("url") or f.get("link"))
    url = url if url.startswith(("http://", "https://")) else (
        f"https://doi.org/{doi}" if doi else f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid else
        f"https://arxiv.org/abs/{arxiv}" if arxiv else "")
    if not url:
        return None
    rid, label = (pmid, "PMID") if pmid else (arxiv, "arXiv") if arxiv else (doi, "DOI") if doi else ("", "id")
    authors: list[Any] = f["authors"] if isinstance(f.get("authors"), list) else []
    return LiteratureHit(
        id=rid, id_label=label, title=clean(f.get("title")), url=url,
        abstract=clean(f.get("abstract") or f.get("summary") or f.get("snippet") or f.get("text")),
        journal=clean(f.get("journal") or f.get("venue")), year=first_year(f.get("year") or f.get("date")),
        doi=doi, authors=tuple(clean(a if not isinstance(a, dict) else a.get("name")) for a in authors[:20]),
        other_ids=(f"PMCID:{pmcid}",) if pmcid else ())
