"""A reference manager's export as the researcher's corpus: BibTeX, RIS or CSL JSON with attached PDFs
(design.md#reference-managers; ``session.corpus_path``).

Zotero and Mendeley export a library as one file naming each item's attachments. An export file is recognised by
its ending (``.bib``/``.bibtex``: BibTeX, read by ``bibtexparser`` v2; ``.ris``: RIS, read by ``rispy``) or, for a
``.json`` file, by its content: a JSON array of objects is CSL JSON (a JSON Lines corpus has one object per line).
Each entry becomes an :class:`Entry` (key, title, DOI, year, authors, venue, abstract, URL, attached PDFs):

* BibTeX ``file`` field, ``;``-separated, each attachment as Zotero writes it (``Full Text PDF:files/12/a.pdf:
  application/pdf``), as Mendeley writes it (``:C\\:/papers/a.pdf:pdf``) or as a bare path;
* RIS ``L1`` (file attachments) lines;
* CSL JSON ``file`` (the BibTeX form) or ``attachments`` (paths) keys, which Better BibTeX may write.

A relative attachment path is read from the export's folder. :func:`linked_records` makes the corpus records: one
per page of each attached PDF (:mod:`cosci.tools.documents`), carrying the entry's DOI and title, so a citation of
``a.pdf#page=3`` names its paper (design.md#reference-managers); an entry without a readable PDF gives one record of
its title and abstract. An attachment that is missing or no PDF is named in one warning; an export file none of
whose entries can be read is a one-line :class:`ReferenceExportError` naming ``session.corpus_path``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosci.errors import CosciError
from cosci.tools.common import LiteratureHit, clean, first_year
from cosci.tools.documents import PDF_SUFFIXES, DocumentError, cached_extract

log = logging.getLogger(__name__)

BIBTEX_SUFFIXES = (".bib", ".bibtex")
RIS_SUFFIXES = (".ris",)
CSL_SUFFIXES = (".json",)
EXPORT_SUFFIXES = BIBTEX_SUFFIXES + RIS_SUFFIXES
"""Endings that always name an export file (a ``.json`` file is one when it holds a JSON array)."""
_ESCAPED_COLON = "\x00"


class ReferenceExportError(CosciError):
    """An export file cannot be read; ``str(err)`` is one line naming ``session.corpus_path`` and the file."""


@dataclass(frozen=True)
class Entry:
    """One bibliographic entry of an export (fields "" when the export gives none)."""

    key: str
    title: str
    doi: str = ""
    year: int | None = None
    authors: tuple[str, ...] = ()
    journal: str = ""
    abstract: str = ""
    url: str = ""
    files: tuple[Path, ...] = ()


def is_export(path: Path) -> bool:
    """Whether ``path`` is a reference manager's export (see module docstring; a ``.json`` file is read up to its
    first character that is not white space)."""
    suffix = path.suffix.lower()
    if suffix in EXPORT_SUFFIXES:
        return True
    if suffix not in CSL_SUFFIXES:
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            head = fh.read(4096).lstrip("\ufeff \t\r\n")
    except OSError:
        return False
    return head.startswith("[")


@contextmanager
def _quiet(name: str) -> Iterator[None]:
    """The parser's own log lines off (a failed block is said once, in cosci's line)."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def _attachments(field: str, base: Path) -> tuple[Path, ...]:
    """The paths of a BibTeX/CSL ``file`` field (Zotero, Mendeley or bare forms), resolved against ``base``."""
    out: list[Path] = []
    for part in field.replace("\\:", _ESCAPED_COLON).split(";"):
        pieces = part.split(":")
        described = len(pieces) >= 3 and not re.fullmatch(r"[A-Za-z]", pieces[0])  # description:path:mime
        raw = ":".join(pieces[1:-1]) if described else part
        raw = raw.replace(_ESCAPED_COLON, ":").strip()
        if raw:
            out.append(_resolve(raw, base))
    return tuple(out)


def _resolve(raw: str, base: Path) -> Path:
    raw = raw.removeprefix("file://")
    path = Path(raw).expanduser()
    return path if path.is_absolute() else base / path


def _bibtex(text: str, base: Path) -> tuple[list[Entry], int]:
    import bibtexparser

    with _quiet("bibtexparser"):
        library = bibtexparser.parse_string(text)
    entries = []
    for e in library.entries:
        f = {k.lower(): clean(v.value) if k.lower() != "file" else str(v.value) for k, v in e.fields_dict.items()}
        authors = tuple(a.strip() for a in f.get("author", "").split(" and ") if a.strip())
        entries.append(Entry(key=e.key, title=re.sub(r"[{}]", "", f.get("title", "")), doi=f.get("doi", ""),
                             year=first_year(f.get("year") or f.get("date")), authors=authors,
                             journal=f.get("journal") or f.get("booktitle", ""), abstract=f.get("abstract", ""),
                             url=f.get("url", ""), files=_attachments(f.get("file", ""), base)))
    return entries, len(library.failed_blocks)


def _ris(text: str, base: Path) -> tuple[list[Entry], int]:
    import rispy

    with _quiet("rispy"):
        rows = rispy.loads(text)
    entries = []
    for i, r in enumerate(rows, 1):
        files = r.get("file_attachments1") or []
        files = [files] if isinstance(files, str) else files
        urls = [u for u in r.get("urls") or [] if str(u).startswith(("http://", "https://"))]
        entries.append(Entry(
            key=clean(r.get("id")) or f"ris{i}", title=clean(r.get("title") or r.get("primary_title")),
            doi=clean(r.get("doi")), year=first_year(r.get("year") or r.get("publication_year")),
            authors=tuple(clean(a) for a in r.get("authors") or r.get("first_authors") or []),
            journal=clean(r.get("journal_name") or r.get("secondary_title")), abstract=clean(r.get("abstract")),
            url=urls[0] if urls else "", files=tuple(_resolve(str(f), base) for f in files if str(f).strip())))
    return entries, 0


def _csl_author(a: Any) -> str:
    if not isinstance(a, dict):
        return clean(a)
    return clean(a.get("literal") or ", ".join(p for p in (a.get("family"), a.get("given")) if p))


def _csl(text: str, base: Path) -> tuple[list[Entry], int]:
    rows = json.loads(text)
    if not isinstance(rows, list):
        raise ValueError("not a JSON array of items")
    entries, skipped = [], 0
    for i, r in enumerate(rows, 1):
        if not isinstance(r, dict):
            skipped += 1
            continue
        issued: dict[str, Any] = r["issued"] if isinstance(r.get("issued"), dict) else {}
        attached = r.get("attachments") or []
        files = _attachments(str(r["file"]), base) if r.get("file") else tuple(
            _resolve(str(a.get("path", "") if isinstance(a, dict) else a), base) for a in attached)
        entries.append(Entry(
            key=clean(r.get("id")) or f"csl{i}", title=clean(r.get("title")), doi=clean(r.get("DOI")),
            year=first_year(json.dumps(issued.get("date-parts") or issued.get("raw") or "")),
            authors=tuple(_csl_author(a) for a in r.get("author") or []),
            journal=clean(r.get("container-title")), abstract=clean(r.get("abstract")),
            url=clean(r.get("URL")), files=files))
    return entries, skipped


def read_export(path: Path) -> list[Entry]:
    """The entries of one export file, those with a title or an attachment (a skipped or unparsable block is
    named in one warning).

    Raises:
        ReferenceExportError: the file cannot be read or yields no entry (one line).
    """
    suffix = path.suffix.lower()
    kind = "BibTeX" if suffix in BIBTEX_SUFFIXES else "RIS" if suffix in RIS_SUFFIXES else "CSL JSON"
    reader = _bibtex if kind == "BibTeX" else _ris if kind == "RIS" else _csl
    try:
        entries, failed = reader(path.read_text(encoding="utf-8", errors="replace"), path.parent)
    except Exception as exc:  # each parser has its own errors; any of them means the file is unreadable
        raise ReferenceExportError(f"session.corpus_path: {path.name} is not a readable {kind} export "
                                   f"({type(exc).__name__}: {' '.join(str(exc).split())[:200]})") from None
    kept = [e for e in entries if e.title or e.files]
    failed += len(entries) - len(kept)
    if not kept:
        raise ReferenceExportError(f"session.corpus_path: {path.name} holds no {kind} entry with a title "
                                   f"or an attached file ({failed} unreadable block{'s' * (failed != 1)})")
    if failed:
        log.warning("session.corpus_path: %s: %d %s block%s skipped (not a readable entry)", path.name, failed,
                    kind, "s" * (failed != 1))
    return kept


@dataclass
class Linked:
    """What an export gives the corpus: ``records``, the attached PDFs it read (``attached``: the corpus folder
    does not index them a second time), the PDFs without a text layer, and the attachments it could not read."""

    records: list[LiteratureHit]
    attached: set[Path]
    textless: list[str]
    unreadable: list[str]


def linked_records(export: Path, root: Path, passage_words: int, cache_dir: Path | None,
                   write: bool) -> Linked:
    """The corpus records of ``export`` (see module docstring); ``root`` is ``session.corpus_path`` (record ids are
    paths relative to it, or to the export's folder when it is the export itself).

    Raises:
        ReferenceExportError: the export cannot be read.
    """
    out = Linked([], set(), [], [])
    base = root if root.is_dir() else export.parent
    for entry in read_export(export):
        pages: list[LiteratureHit] = []
        for pdf in entry.files:
            if pdf.suffix.lower() not in PDF_SUFFIXES:
                continue  # a snapshot (HTML) or a note: the PDF is the paper
            if not pdf.is_file():
                out.unreadable.append(f"{entry.key}: {pdf.name} (not found)")
                continue
            try:
                doc, _ = cached_extract(pdf, passage_words, cache_dir, write=write)
            except DocumentError as exc:
                out.unreadable.append(f"{entry.key}: {exc}")
                continue
            out.attached.add(pdf.resolve())
            rel = pdf.resolve().relative_to(base.resolve()).as_posix() if pdf.resolve().is_relative_to(
                base.resolve()) else pdf.name
            if doc.textless:
                out.textless.append(rel)
            uri = pdf.resolve().as_uri()
            pages += [LiteratureHit(id=f"{rel}#page={p.number}", id_label="id", title=entry.title or doc.title or rel,
                                    abstract=p.text, url=f"{uri}#page={p.number}", abstract_label="Passage",
                                    doi=entry.doi, year=entry.year, journal=entry.journal, authors=entry.authors)
                      for p in doc.passages]
        if not pages and (entry.title or entry.abstract):
            url = entry.url if entry.url.startswith(("http://", "https://")) else (
                f"https://doi.org/{entry.doi}" if entry.doi else "")
            pages.append(LiteratureHit(id=entry.key, id_label="id", title=entry.title, abstract=entry.abstract,
                                       url=url, doi=entry.doi, year=entry.year, journal=entry.journal,
                                       authors=entry.authors))
        out.records += pages
    return out


def linked_exports(files: list[Path], root: Path, passage_words: int, cache_dir: Path | None,
                   write: bool) -> Linked:
    """:func:`linked_records` of every export among ``files``, together.

    Raises:
        ReferenceExportError: an export cannot be read.
    """
    out = Linked([], set(), [], [])
    for file in (f for f in files if is_export(f)):
        one = linked_records(file, root, passage_words, cache_dir, write)
        out.records += one.records
        out.attached |= one.attached
        out.textless += one.textless
        out.unreadable += one.unreadable
    return out
