"""Identifiers of the records tools return, and of the URLs models cite (design.md#grounding).

A citation or an evidence item names its source by URL (design.md#prompts: "the url exactly as a tool returned it").
Models often write another form of the same record: the DOI link instead of the PubMed page, the Europe PMC
page of a PubMed article, an arXiv ``/pdf/`` link or a versioned id. Both sides are reduced to keys — the
normalised URL plus ``PMID:``, ``PMCID:``, ``DOI:``, ``arXiv:`` identifiers — and a citation matches a record
when they share a key. Only the records a tool returned carry keys: a URL printed inside a page is no record.
"""

from __future__ import annotations

import re
from typing import Protocol
from urllib.parse import unquote, urlsplit, urlunsplit

from cosci.tools.base import Source


class LiteratureHit(Protocol):
    """The fields of :class:`cosci.tools.common.LiteratureHit` read here (structural: common.py imports this
    module)."""

    @property
    def id(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def url(self) -> str: ...

    @property
    def id_label(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def abstract(self) -> str: ...

    @property
    def doi(self) -> str: ...

_PUBMED = re.compile(r"pubmed\.ncbi\.nlm\.nih\.gov/(\d+)")
_EPMC = re.compile(r"europepmc\.org/(?:article|abstract)/(MED|PMC)/(PMC)?(\d+)", re.IGNORECASE)
_PMC = re.compile(r"/pmc/articles/(PMC\d+)", re.IGNORECASE)
_DOI = re.compile(r"(?:doi\.org/|doi:\s*)(10\.\d{4,9}/\S+)", re.IGNORECASE)
_ARXIV = re.compile(r"arxiv\.org/(?:abs|pdf)/([\w.\-/]+?)(?:v\d+)?(?:\.pdf)?$", re.IGNORECASE)
_VERSION = re.compile(r"v\d+$")


def normalise_url(url: str) -> str:
    """Compare URLs loosely: lower-case scheme and host, no fragment, no trailing slash, ``http`` = ``https``."""
    try:
        p = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    scheme = "https" if p.scheme.lower() in ("http", "https") else p.scheme.lower()
    return urlunsplit((scheme, p.netloc.lower().removeprefix("www."), p.path.rstrip("/"), p.query, ""))


def doi_key(doi: str) -> str:
    """``DOI:<doi>`` lower-cased, without a ``https://doi.org/`` prefix or trailing punctuation."""
    bare = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", doi.strip(), flags=re.IGNORECASE)
    return "DOI:" + bare.rstrip(".,;").lower()


def url_keys(url: str) -> set[str]:
    """Keys of a cited URL: the normalised URL and the identifiers its form reveals."""
    keys = {normalise_url(url)}
    text = unquote(url.strip())
    if m := _PUBMED.search(text):
        keys.add(f"PMID:{m.group(1)}")
    if m := _EPMC.search(text):
        keys.add(f"PMID:{m.group(3)}" if m.group(1).upper() == "MED" else f"PMCID:PMC{m.group(3)}")
    if m := _PMC.search(text):
        keys.add(f"PMCID:{m.group(1).upper()}")
    if m := _DOI.search(text):
        keys.add(doi_key(m.group(1)))
    if m := _ARXIV.search(text.rstrip("/")):
        keys.add(f"arXiv:{_VERSION.sub('', m.group(1))}")
    return keys


def citation_keys(url: str, doi: str | None = None) -> set[str]:
    """Keys of a citation or evidence item (its URL, plus its ``doi`` field when given)."""
    return url_keys(url) | ({doi_key(doi)} if doi and doi.strip() else set())


def source_keys(record: Source) -> set[str]:
    """Keys of a record a tool returned: its URL's keys and its identifiers."""
    return (url_keys(record.url) if record.url else set()) | set(record.ids)


def literature_ids(rec: LiteratureHit) -> tuple[str, ...]:
    """Identifiers of a search hit, most specific first (PMID / PMCID / arXiv / corpus id, then DOI)."""
    ids: list[str] = []
    label, source = rec.id_label, rec.source.upper()
    if rec.id:
        if label == "PMID" or source == "MED":
            ids.append(f"PMID:{rec.id}")
        elif source == "PMC" or rec.id.upper().startswith("PMC"):
            ids.append(f"PMCID:{rec.id if rec.id.upper().startswith('PMC') else 'PMC' + rec.id}")
        elif label == "arXiv":
            ids.append(f"arXiv:{_VERSION.sub('', rec.id)}")
        elif source:
            ids.append(f"EPMC:{source}/{rec.id}")
        else:
            ids.append(f"corpus:{rec.id}")
    if rec.doi:
        ids.append(doi_key(rec.doi))
    return tuple(ids)


def to_source(rec: LiteratureHit, tool: str) -> Source:
    """A search hit as a :class:`Source` (its full abstract is the text excerpts are checked against)."""
    text = "\n".join(part for part in (rec.title, rec.abstract) if part)
    return Source(url=rec.url, text=text, title=rec.title, ids=literature_ids(rec), tool=tool)
