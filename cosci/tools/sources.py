"""Identifiers of the records tools return, and of the URLs models cite (design.md#grounding).

A citation or an evidence item names its source by URL (design.md#prompts: "the url exactly as a tool returned it").
Models often write another form of the same record: the DOI link instead of the PubMed page, the Europe PMC
page of a PubMed article, an arXiv ``/pdf/`` link or a versioned id. Both sides are reduced to keys — the
normalised URL plus ``PMID:``, ``PMCID:``, ``DOI:``, ``arXiv:`` identifiers — and a citation matches a record
when they share a key. Only the records a tool returned carry keys: a URL printed inside a page is no record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol
from urllib.parse import unquote, urlsplit, urlunsplit

from cosci.literature import url_identifiers
from cosci.tools.base import Source, stronger_flag


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

    @property
    def other_ids(self) -> tuple[str, ...]: ...

    @property
    def retraction(self) -> str: ...

    @property
    def notice(self) -> str: ...

    @property
    def full_text(self) -> str: ...

_DOI = re.compile(r"(?:doi\.org/|doi:\s*)(10\.\d{4,9}/\S+)", re.IGNORECASE)
_VERSION = re.compile(r"v\d+$")
_KIND = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")


def normalise_url(url: str) -> str:
    """Compare URLs loosely: lower-case scheme and host, no fragment, no trailing slash, ``http`` = ``https``.

    A ``file:`` URL keeps its fragment: there it names the page or passage of a document of the local corpus
    (``file:///…/paper.pdf#page=3``, design.md#own-documents), so page 3 and page 4 are two records."""
    try:
        p = urlsplit(url.strip())
    except ValueError:
        return url.strip()
    scheme = "https" if p.scheme.lower() in ("http", "https") else p.scheme.lower()
    fragment = p.fragment if scheme == "file" else ""
    return urlunsplit((scheme, p.netloc.lower().removeprefix("www."), p.path.rstrip("/"), p.query, fragment))


def doi_key(doi: str) -> str:
    """``DOI:<doi>`` lower-cased, without a ``https://doi.org/`` prefix or trailing punctuation."""
    bare = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", doi.strip(), flags=re.IGNORECASE)
    return "DOI:" + bare.rstrip(".,;").lower()


def url_keys(url: str) -> set[str]:
    """Keys of a cited URL: the normalised URL, a DOI it holds, and the identifiers the declared URL forms of the
    literature tools find in it (:func:`cosci.literature.url_identifiers`)."""
    text = unquote(url.strip())
    keys = {normalise_url(url)} | url_identifiers(text)
    if m := _DOI.search(text):
        keys.add(doi_key(m.group(1)))
    return keys


def citation_keys(url: str, doi: str | None = None) -> set[str]:
    """Keys of a citation or evidence item (its URL, plus its ``doi`` field when given)."""
    return url_keys(url) | ({doi_key(doi)} if doi and doi.strip() else set())


def source_keys(record: Source) -> set[str]:
    """Keys of a record a tool returned: its URL's keys and its identifiers."""
    return (url_keys(record.url) if record.url else set()) | set(record.ids)


def literature_ids(rec: LiteratureHit) -> tuple[str, ...]:
    """Identifiers of a search hit, most specific first (PMID / PMCID / arXiv / Europe PMC / corpus id, then DOI).

    A tool not named here gives its hits an ``id_label`` that is one word, e.g. ``"S2"``: its ids are then
    ``"S2:<id>"`` (the kind its ``fetch_kinds`` reads); ``"id"`` is the local corpus's label (``"corpus:<id>"``)."""
    ids: list[str] = []
    label, source = rec.id_label, rec.source.upper()
    if rec.id:
        if label == "PMID" or source == "MED":
            ids.append(f"PMID:{rec.id}")
        elif source == "PMC" or rec.id.upper().startswith("PMC"):
            ids.append(f"PMCID:{rec.id if rec.id.upper().startswith('PMC') else 'PMC' + rec.id}")
        elif label == "arXiv":
            ids.append(f"arXiv:{_VERSION.sub('', rec.id)}")
        elif label == "DOI":
            ids.append(doi_key(rec.id))
        elif source:
            ids.append(f"EPMC:{source}/{rec.id}")
        elif label != "id" and _KIND.fullmatch(label):  # another tool's own kind: its hits' id_label
            ids.append(f"{label}:{rec.id}")
        else:
            ids.append(f"corpus:{rec.id}")
    if rec.doi:
        ids.append(doi_key(rec.doi))
    return tuple(dict.fromkeys([*ids, *_other_keys(rec.other_ids)]))


def _other_keys(others: tuple[str, ...]) -> list[str]:
    """A hit's further identifiers as keys (a DOI lower-cased like :func:`doi_key`; empty values dropped)."""
    keys = []
    for other in others:
        kind, _, value = other.partition(":")
        if value:
            keys.append(doi_key(value) if kind == "DOI" else other)
    return keys


def to_source(rec: LiteratureHit, tool: str) -> Source:
    """A search hit as a :class:`Source`: its title, full abstract and open-access full text (when one was read) are
    the text excerpts are checked against (design.md#full-text). A passage of the researcher's own document
    (a ``file:`` URL) is checked against its own text only: its title is the file's name or metadata title, which is
    not on the page (design.md#own-documents)."""
    title = "" if rec.url.startswith("file:") else rec.title
    text = "\n".join(part for part in (title, rec.abstract, rec.full_text) if part)
    return Source(url=rec.url, text=text, title=rec.title, ids=literature_ids(rec), tool=tool,
                  retraction=rec.retraction, notice=rec.notice)


def identifier_keys(record: Source) -> set[str]:
    """The keys two records are merged on: the normalised URL and the identifiers (not the keys of the URLs a page
    prints). A page of a document (a ``file:`` URL with a fragment) keeps its paper's DOI out of them: the DOI names
    the paper, so its pages stay one record each and a PubMed hit of the same paper stays its own record
    (design.md#reference-managers)."""
    ids = set(record.ids)
    if record.url.startswith("file:") and "#" in record.url:
        ids = {i for i in ids if not i.startswith("DOI:")}
    return ({normalise_url(record.url)} if record.url else set()) | ids


def merge(first: Source, other: Source) -> Source:
    """One record from two records of the same paper (design.md#tools: merge by identifier).

    ``first`` keeps its URL, title and tool; identifiers are the union (``first``'s first, so its ``source_id``
    stands); the text is ``first``'s, followed by ``other``'s when it adds something (an excerpt quoted from either
    source's abstract verifies); the retraction flag is the stronger of the two, with its notice.
    """
    ids = tuple(dict.fromkeys((*first.ids, *other.ids)))
    text = first.text
    if other.text and other.text not in text:
        text = f"{text}\n\n{other.text}" if text else other.text
    flag = stronger_flag(first.retraction, other.retraction)
    notice = first.notice if flag == first.retraction and first.notice else other.notice
    return replace(first, ids=ids, text=text, title=first.title or other.title, retraction=flag,
                   notice=notice if flag else "")


def merge_records(records: Sequence[Source]) -> list[Source]:
    """``records`` with every group that shares an identifier key merged into one (in first-seen order)."""
    merged: list[Source] = []
    for record in records:
        keys = identifier_keys(record)
        hits = [i for i, m in enumerate(merged) if keys & identifier_keys(m)]
        if not hits:
            merged.append(record)
            continue
        into = merged[hits[0]]
        for i in hits[1:]:
            into = merge(into, merged[i])
        merged[hits[0]] = merge(into, record)
        for i in reversed(hits[1:]):
            del merged[i]
    return merged
