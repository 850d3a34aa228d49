"""The researcher's own documents as passages: PDF, Markdown, HTML and plain text (design.md#own-documents).

A document becomes :class:`Passage` records of at most ``passage_words`` words, split at paragraph, then sentence
boundaries, never across a PDF page: a passage of a PDF carries its page number (1-based), one of another file
has none (its ``number`` counts passages instead). Extraction:

* PDF: ``pypdf`` (``PdfReader.pages[i].extract_text()``), its text layer only. A PDF with no text on any page is
  *textless* (a scan without OCR): it yields no passage and the caller names it (:attr:`Extracted.textless`).
* HTML (``.html``/``.htm``): ``trafilatura`` (main text, boilerplate removed), else every text node (``lxml``).
* Markdown (``.md``/``.markdown``): ``markdown-it-py`` tokens, the text of each block without its markup.
* Plain text (``.txt``): paragraphs are blank-line separated.

What a file yields is cached under ``cache_dir`` by the SHA-256 of its bytes (plus :data:`EXTRACTOR_VERSION` and
``passage_words``), so a corpus is extracted once and a changed file, and only it, is extracted again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

PDF_SUFFIXES = (".pdf",)
HTML_SUFFIXES = (".html", ".htm")
MARKDOWN_SUFFIXES = (".md", ".markdown")
TEXT_SUFFIXES = (".txt",)
DOCUMENT_SUFFIXES = PDF_SUFFIXES + HTML_SUFFIXES + MARKDOWN_SUFFIXES + TEXT_SUFFIXES
EXTRACTOR_VERSION = 1
"""Bumped when extraction or splitting changes, so cached passages of the old kind are not reused."""
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")
_PARAGRAPH = re.compile(r"\n\s*\n")


class DocumentError(Exception):
    """A document cannot be read; ``str(err)`` names the file and the reason in one line."""


@dataclass(frozen=True)
class Passage:
    """One passage of a document.

    Attributes:
        number: the PDF page (1-based) for a PDF, else the passage's place in the document (1-based).
        text: the passage, whitespace collapsed, at most ``passage_words`` words (one longer sentence is cut).
    """

    number: int
    text: str


@dataclass(frozen=True)
class Extracted:
    """What one document yields: ``title`` ("" when it names none), ``passages``, whether numbers are ``paged``
    (PDF pages), and ``textless`` (a PDF without a text layer: no passage)."""

    title: str
    passages: tuple[Passage, ...]
    paged: bool
    textless: bool = False


def split(text: str, passage_words: int) -> list[str]:
    """``text`` as passages of at most ``passage_words`` words, cut at paragraphs, then at sentences."""
    out: list[str] = []
    current: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        for sentence in _SENTENCE_END.split(" ".join(paragraph.split())):
            words = sentence.split()
            while len(words) > passage_words:  # one very long "sentence" (a table, a list): cut it
                if current:
                    out.append(" ".join(current))
                    current = []
                out.append(" ".join(words[:passage_words]))
                words = words[passage_words:]
            if current and len(current) + len(words) > passage_words:
                out.append(" ".join(current))
                current = []
            current += words
        if current and len(current) >= passage_words // 2:  # a paragraph end is a good place to stop
            out.append(" ".join(current))
            current = []
    if current:
        out.append(" ".join(current))
    return [p for p in out if p]


def _pdf(path: Path, passage_words: int) -> Extracted:
    try:
        from pypdf import PdfReader  # imported when a PDF is read, not at session start
        from pypdf.errors import PyPdfError
    except ImportError:
        raise DocumentError(f"{path.name}: pypdf is not installed (`make setup` installs it)") from None

    pdf_log = logging.getLogger("pypdf")  # its repair warnings ("EOF marker not found") would be lines of their own
    level = pdf_log.level
    pdf_log.setLevel(logging.ERROR)
    try:
        reader = PdfReader(path)
        pages = [page.extract_text() or "" for page in reader.pages]
        meta = reader.metadata
        title = str(meta.title or "") if meta is not None else ""
    except (PyPdfError, OSError, ValueError, KeyError, TypeError) as exc:
        raise DocumentError(f"{path.name}: not a readable PDF ({type(exc).__name__}: {exc})") from None
    finally:
        pdf_log.setLevel(level)
    passages = tuple(Passage(i, p) for i, page in enumerate(pages, 1) for p in split(page, passage_words))
    return Extracted(" ".join(title.split()), passages, paged=True, textless=not passages)


def _html(raw: str) -> str:
    import trafilatura

    text = trafilatura.extract(raw, include_comments=False, include_tables=True)
    if text:
        return str(text).replace("\n", "\n\n")
    from lxml import html as lxml_html

    try:
        return "\n\n".join(t.strip() for t in lxml_html.fromstring(raw).itertext() if t.strip())
    except (ValueError, TypeError):  # lxml's ParserError is a ValueError: an empty or broken page
        return ""


def _markdown(raw: str) -> str:
    from markdown_it import MarkdownIt

    blocks = []
    for token in MarkdownIt("commonmark").parse(raw):
        if token.type == "inline" and token.children is not None:
            blocks.append("".join(c.content if c.type != "softbreak" else " " for c in token.children))
        elif token.type in ("code_block", "fence"):
            blocks.append(token.content)
    return "\n\n".join(blocks)


def _html_title(raw: str) -> str:
    m = re.search(r"<title[^>]*>(.*?)</title>", raw, re.IGNORECASE | re.DOTALL)
    return " ".join(re.sub(r"<[^>]+>", " ", m.group(1)).split()) if m else ""


def extract(path: Path, passage_words: int) -> Extracted:
    """The passages of one document (see module docstring), not cached.

    Raises:
        DocumentError: the file cannot be read or is not a PDF its suffix says it is.
    """
    suffix = path.suffix.lower()
    if suffix in PDF_SUFFIXES:
        return _pdf(path, passage_words)
    try:
        raw = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise DocumentError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None
    if suffix in HTML_SUFFIXES:
        title, text = _html_title(raw), _html(raw)
    elif suffix in MARKDOWN_SUFFIXES:
        heading = re.search(r"^#\s+(.+)$", raw, re.MULTILINE)
        title, text = (heading.group(1).strip() if heading else ""), _markdown(raw)
    else:
        title, text = "", raw
    parts = split(text, passage_words)
    return Extracted(title, tuple(Passage(i, p) for i, p in enumerate(parts, 1)), paged=False)


def _cache_file(cache_dir: Path, digest: str, passage_words: int) -> Path:
    return cache_dir / f"{digest}-v{EXTRACTOR_VERSION}-w{passage_words}.json"


def _load(file: Path) -> Extracted | None:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        return Extracted(str(data["title"]), tuple(Passage(int(n), str(t)) for n, t in data["passages"]),
                         paged=bool(data["paged"]), textless=bool(data["textless"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _save(file: Path, doc: Extracted) -> None:
    data = {"title": doc.title, "paged": doc.paged, "textless": doc.textless,
            "passages": [[p.number, p.text] for p in doc.passages]}
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        tmp = file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, file)
    except OSError as exc:  # a read-only data folder costs a re-extraction next time, nothing else
        log.debug("corpus cache not written (%s): %s", file, exc)


def content_hash(path: Path) -> str:
    """SHA-256 (hex) of the file's bytes. Raises: DocumentError when it cannot be read."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise DocumentError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None
    return digest.hexdigest()


_UNWRITTEN: dict[Path, Extracted] = {}
"""Passages extracted in this process whose cache file is not written yet (:func:`cached_extract` with
``write=False``; :func:`write_cache` writes them): a later load in the process reads them from here."""


def cached_extract(path: Path, passage_words: int, cache_dir: Path | None, *,
                   write: bool = True) -> tuple[Extracted, bool]:
    """``(passages, from_cache)`` of ``path``: from ``cache_dir`` when its content was extracted before, else
    extracted now and cached (``cache_dir`` None: never cached). ``write=False`` reads the cache but writes nothing:
    what is extracted is kept in this process until :func:`write_cache` (a session's goal is screened first, and a
    refused goal builds nothing: design.md#own-documents).

    Raises:
        DocumentError: the file cannot be read.
    """
    if cache_dir is None:
        return extract(path, passage_words), False
    file = _cache_file(cache_dir, content_hash(path), passage_words)
    found = _load(file) if file.exists() else _UNWRITTEN.get(file)
    if found is not None:
        if write and file in _UNWRITTEN:
            _save(file, _UNWRITTEN.pop(file))
        return found, True
    doc = extract(path, passage_words)
    if write:
        _save(file, doc)
    else:
        _UNWRITTEN[file] = doc
    return doc, False


def write_cache(cache_dir: Path) -> int:
    """Write the cache files under ``cache_dir`` that loads with ``write=False`` left unwritten; returns how many."""
    files = [f for f in _UNWRITTEN if f.parent == cache_dir]
    for file in files:
        _save(file, _UNWRITTEN.pop(file))
    return len(files)


def documents(root: Path) -> Iterator[Path]:
    """The document files under ``root`` (recursively, in name order; hidden files skipped)."""
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix.lower() in DOCUMENT_SUFFIXES and not p.name.startswith("."):
            yield p
