"""Open-access full text from Europe PMC's ``fullTextXML`` (JATS): its body as sections, and the passages that
match a query (design.md#full-text).

``GET https://www.ebi.ac.uk/europepmc/webservices/rest/<PMCID>/fullTextXML`` answers a JATS ``<article>`` (with or
without a DOCTYPE; the DTD is never loaded) or, for an article it does not serve, an ``<errorBean>`` envelope. The
body's ``<sec>`` elements become sections named by their ``<title>`` (nested sections by their own titles; text
directly under ``<body>`` is a section without a title); paragraphs, lists and table captions are kept, the
reference list and back matter are not. :func:`matching_passages` cuts each section into passages of at most
``passage_words`` words (:func:`cosci.tools.documents.split`) and ranks them against the query with Okapi BM25
(``rank-bm25``, the local corpus's tokens): the passages shown to the model. The whole body is what excerpts are
checked against.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from rank_bm25 import BM25Okapi

from cosci.tools.corpus import tokenize
from cosci.tools.documents import split

FULLTEXT_URL = "https://www.ebi.ac.uk/europepmc/webservices/rest/{pmcid}/fullTextXML"
_BLOCKS = ("p", "list-item", "caption", "disp-quote", "def")
"""Elements whose text is a paragraph of a section."""
_SKIP = ("sec", "ref-list", "fn-group", "table", "graphic", "media", "alternatives")
"""Elements inside a section whose text is not the section's own paragraphs (nested sections are their own)."""


@dataclass(frozen=True)
class FullText:
    """An article's body: ``sections`` as ``(title, text)`` in document order (paragraphs joined by blank lines)."""

    sections: tuple[tuple[str, str], ...]

    @property
    def text(self) -> str:
        """The whole body, section titles included, as one text (what excerpts are checked against)."""
        return "\n\n".join(f"{title}\n\n{body}" if title else body for title, body in self.sections)


def _text(el: ET.Element) -> str:
    return " ".join("".join(el.itertext()).split())


def _paragraphs(el: ET.Element) -> list[str]:
    out: list[str] = []
    for child in el:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag in _BLOCKS:
            if text := _text(child):
                out.append(text)
        elif tag not in _SKIP and tag != "title":
            out += _paragraphs(child)
    return out


def _sections(el: ET.Element, out: list[tuple[str, str]]) -> None:
    title_el = el.find("title")
    title = _text(title_el) if title_el is not None and el.tag == "sec" else ""
    paragraphs = _paragraphs(el)
    if paragraphs:
        out.append((title, "\n\n".join(paragraphs)))
    for sec in el.findall("sec"):
        _sections(sec, out)


def parse_fulltext(body: bytes | str) -> FullText | None:
    """The body of a ``fullTextXML`` answer, or None: an ``<errorBean>`` (not open access), no ``<body>``, or
    no text in it.

    Raises:
        ValueError: the answer is not XML.
    """
    try:
        root = ET.fromstring(body.encode("utf-8") if isinstance(body, str) else body)
    except ET.ParseError as exc:
        raise ValueError(f"Europe PMC full text is not XML ({exc})") from None
    found = root.find("body") if root.tag == "article" else None
    if found is None:
        return None
    sections: list[tuple[str, str]] = []
    _sections(found, sections)
    return FullText(tuple(sections)) if sections else None


def matching_passages(full: FullText, query: str, n: int, passage_words: int) -> list[tuple[str, str]]:
    """The ``n`` passages (``(section title, passage)``) of ``full`` that match ``query`` best by BM25, best first;
    only passages sharing a term with the query."""
    passages = [(title, p) for title, body in full.sections for p in split(body, passage_words)]
    terms = tokenize(query)
    if not passages or not terms:
        return []
    index = BM25Okapi([tokenize(f"{t} {p}") or ["<empty>"] for t, p in passages])
    scores = index.get_scores(terms)
    order = sorted(range(len(passages)), key=lambda i: -scores[i])
    hits = [i for i in order if any(t in index.doc_freqs[i] for t in terms)]
    return [passages[i] for i in hits[:n]]
