"""``local_corpus_search``: BM25 search over the researcher's own corpus (design.md#tools; ``session.corpus_path``).

The corpus is a JSONL file (``.jsonl``/``.ndjson``/``.json`` with one object per line), a Parquet file, a
document (PDF, Markdown, HTML, plain text), or a folder holding any of these (searched recursively, in name
order). Each JSONL/Parquet record has ``title`` and/or ``abstract`` (also read: ``summary``, ``text``), optional
``url``, ``year``, ``id``, ``journal``, ``doi``; records with neither a title nor an abstract are skipped, as are
lines that are not JSON objects. A document gives one record per passage (:mod:`cosci.tools.documents`,
design.md#own-documents): id ``<path in the folder>#page=<n>`` (``#passage=<n>`` for a file without pages), URL
the file's ``file://`` URI with the same fragment (a PDF viewer opens that page: RFC 8118), the passage as its
text. A PDF without a text layer gives none and is named in one warning. The corpus is loaded and indexed once,
at registry build time (Okapi BM25 over lower-cased word tokens of title and abstract, ``rank-bm25``), and
embedded with the session's embedder once it is chosen (:mod:`cosci.tools.corpus_vectors`: searches then fuse
both orders); document passages and vectors are cached by content hash under ``<paths.data_dir>/corpus_index``,
written at the first search (after the goal passed screening: a refused goal builds no index).
It makes no network request of its own (a hosted embedder's calls go through the gateway), so it is the offline
way to ground a session.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from rank_bm25 import BM25Okapi

from cosci.config.schema import CosciConfig
from cosci.errors import CosciError
from cosci.llm.port.types import ToolSpec
from cosci.tools.catalog import BuildContext
from cosci.tools.common import LiteratureHit, SearchTool, clean, first_year, search_parameters
from cosci.tools.corpus_vectors import CorpusEmbedder, embed_records, fuse
from cosci.tools.documents import DOCUMENT_SUFFIXES, DocumentError, cached_extract, write_cache
from cosci.tools.references import EXPORT_SUFFIXES, ReferenceExportError, is_export, linked_exports

log = logging.getLogger(__name__)

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
PARQUET_SUFFIXES = (".parquet", ".pq")
_TOKEN_RE = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset(["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "of", "on",
                       "or", "the", "to", "with"])

SPEC = ToolSpec(
    name="local_corpus_search",
    description=(
        "Search the researcher's own local collection of papers (records with titles and abstracts, and passages "
        "of their own documents: PDF pages, notes) and get, for each matching record, its id, title, year, URL "
        "and abstract or passage. Works offline. Use plain keywords; records are ranked by keyword relevance "
        "(BM25)."
    ),
    parameters=search_parameters("Keywords, e.g. 'organoid drug screening colorectal'."),
)


CACHE_FOLDER = "corpus_index"
"""Under ``paths.data_dir``: document passages by content hash, shared by every session (design.md#own-documents)."""


class CorpusError(CosciError):
    """``session.corpus_path`` cannot be used; ``str(err)`` is one line naming the key."""


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without common English stop words."""
    return [t for t in _TOKEN_RE.findall(text.lower()) if t not in STOPWORDS]


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    suffixes = JSONL_SUFFIXES + PARQUET_SUFFIXES + DOCUMENT_SUFFIXES + EXPORT_SUFFIXES
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in suffixes
                  and not p.name.startswith("."))


def _passages(file: Path, root: Path, passage_words: int, cache_dir: Path | None,
              write: bool) -> tuple[list[LiteratureHit], bool]:
    """The passage records of one document and whether it is a PDF without a text layer.

    Raises:
        DocumentError: the document cannot be read.
    """
    doc, _ = cached_extract(file, passage_words, cache_dir, write=write)
    rel = file.name if root.is_file() else file.relative_to(root).as_posix()
    kind = "page" if doc.paged else "passage"
    uri = file.resolve().as_uri()
    title = doc.title or rel
    return [LiteratureHit(id=f"{rel}#{kind}={p.number}", id_label="id", title=title, abstract=p.text,
                          url=f"{uri}#{kind}={p.number}", abstract_label="Passage") for p in doc.passages], doc.textless


def _rows(path: Path) -> Iterator[Any]:
    if path.suffix.lower() in PARQUET_SUFFIXES:
        import pyarrow.parquet as pq  # heavy import, only for Parquet corpora

        yield from pq.read_table(path).to_pylist()
        return
    with path.open(encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.strip():
                try:
                    yield json.loads(line)
                except ValueError:
                    yield None


def _table_records(file: Path) -> tuple[list[LiteratureHit], int]:
    """The records of a JSONL or Parquet file and how many rows were skipped. Raises: CorpusError."""
    records: list[LiteratureHit] = []
    skipped = 0
    try:
        for i, row in enumerate(_rows(file), 1):
            record = _record(row, f"{file.stem}:{i}")
            if record is not None:
                records.append(record)
            else:
                skipped += 1
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise CorpusError(f"session.corpus_path: cannot read {file} ({exc})") from None
    return records, skipped


def _record(row: Any, fallback_id: str) -> LiteratureHit | None:
    if not isinstance(row, dict):
        return None
    title = clean(row.get("title"))
    abstract = clean(row.get("abstract") or row.get("summary") or row.get("text"))
    if not title and not abstract:
        return None
    url = clean(row.get("url"))
    return LiteratureHit(
        id=clean(row.get("id")) or fallback_id, id_label="id", title=title, abstract=abstract,
        url=url if url.startswith(("http://", "https://")) else "", year=first_year(row.get("year")),
        journal=clean(row.get("journal")), doi=clean(row.get("doi")))


class LocalCorpus:
    """An indexed corpus: ``records`` and their BM25 index."""

    def __init__(self, records: list[LiteratureHit], path: Path) -> None:
        if not records:
            raise CorpusError(f"session.corpus_path: {path} holds no records with a title or an abstract")
        self.records = records
        self.path = path
        self.skipped = 0  # rows that were not JSON objects with a title or an abstract
        self.textless: tuple[str, ...] = ()  # PDFs without a text layer (named in a warning at load)
        self.cache_dir: Path | None = None
        self.vectors: np.ndarray | None = None  # (n_records, dim) float32, once an embedder is attached
        self.embedder: CorpusEmbedder | None = None
        self.index = BM25Okapi([tokenize(f"{r.title} {r.abstract}") or ["<empty>"] for r in records])

    @classmethod
    def load(cls, path: str | Path, *, passage_words: int = 200, cache_dir: Path | None = None,
             write_cache: bool = True) -> LocalCorpus:
        """Read and index the corpus at ``path``.

        Args:
            passage_words: the longest document passage, words (``tools.passage_words``; the default is
                design.md#own-documents's).
            cache_dir: where document passages are cached by content hash (None: not cached).
            write_cache: False: read the cache but write nothing until :meth:`write_cache` (a session's corpus,
                whose goal may yet be refused).

        Raises:
            CorpusError: the path does not exist, holds no corpus file, a JSONL/Parquet file cannot be read, or
                there is no record (a folder of scanned PDFs only says so).
        """
        root = Path(path).expanduser()
        if not root.exists():
            raise CorpusError(f"session.corpus_path: {root} does not exist "
                              "(give a JSONL or Parquet file, a document, or a folder of them)")
        files = _files(root)
        if not files:
            raise CorpusError(f"session.corpus_path: {root} holds no .jsonl, .json, .ndjson or .parquet file, "
                              "no .bib or .ris export and no .pdf, .md, .html or .txt document")
        try:  # a reference manager's export links its PDFs to their entries (design.md#reference-managers)
            linked = linked_exports(files, root, passage_words, cache_dir, write_cache)
        except ReferenceExportError as exc:
            raise CorpusError(str(exc)) from None
        records, textless, unreadable, attached = linked.records, linked.textless, linked.unreadable, linked.attached
        skipped = 0
        for file in files:
            if is_export(file) or file.resolve() in attached:
                continue
            if file.suffix.lower() in DOCUMENT_SUFFIXES:
                try:
                    found, scanned = _passages(file, root, passage_words, cache_dir, write_cache)
                except DocumentError as exc:
                    unreadable.append(str(exc))
                    continue
                records += found
                if scanned:
                    textless.append(file.name if root.is_file() else file.relative_to(root).as_posix())
                continue
            kept, dropped = _table_records(file)
            records += kept
            skipped += dropped
        if not records and (textless or unreadable):
            raise CorpusError(f"session.corpus_path: {root} holds no searchable text ("
                              + "; ".join([*(f"{n}: no text layer" for n in textless), *unreadable]) + ")")
        _warn(root, textless, unreadable)
        corpus = cls(records, root)
        corpus.skipped = skipped
        corpus.textless = tuple(textless)
        corpus.cache_dir = cache_dir
        return corpus

    def write_cache(self) -> None:
        """Write the document passages a ``write_cache=False`` load left unwritten (no-op without a cache)."""
        if self.cache_dir is not None:
            write_cache(self.cache_dir)

    async def use_embedder(self, embedder: CorpusEmbedder) -> None:
        """Embed every record with the session's embedder (cached by content: :mod:`cosci.tools.corpus_vectors`);
        later searches fuse BM25 with cosine similarity. A failing embedder (a hosted model past its budget share)
        leaves the corpus on BM25 alone, said in one warning."""
        try:
            self.vectors = await embed_records(embedder, [f"{r.title}\n{r.abstract}" for r in self.records],
                                               self.cache_dir)
        except Exception as exc:  # any embedder failure: keyword search still works (design.md#own-documents)
            log.warning("session.corpus_path: not embedded with %s (%s); keyword search only", embedder.model, exc)
            return
        self.embedder = embedder

    def search(self, query: str, max_results: int, query_vector: np.ndarray | None = None) -> list[LiteratureHit]:
        """The best ``max_results`` records for ``query``: by BM25 among the records sharing a term with it, fused
        with the cosine order when the corpus is embedded and ``query_vector`` (``(dim,)``) is given."""
        terms = tokenize(query)
        if not terms:
            return []
        scores = self.index.get_scores(terms)
        order = sorted(range(len(self.records)), key=lambda i: -scores[i])
        hits = [i for i in order if any(t in self.index.doc_freqs[i] for t in terms)]
        if self.vectors is not None and query_vector is not None:
            return [self.records[i] for i in fuse(hits, self.vectors, query_vector, max_results)]
        return [self.records[i] for i in hits[:max_results]]


_WARNED: set[tuple[str, ...]] = set()
"""What was already said in this process (the entry point's check and the session both load the corpus)."""


def _warn(root: Path, textless: list[str], unreadable: list[str]) -> None:
    """One warning naming the PDFs without a text layer, one naming the documents that could not be read (each
    once per process)."""
    said = (str(root.resolve()), *textless, "|", *unreadable)
    if said in _WARNED:
        return
    _WARNED.add(said)
    if textless:
        log.warning("session.corpus_path: %d PDF%s without a text layer (scanned, no OCR) cannot be searched: %s",
                    len(textless), "" if len(textless) == 1 else "s", ", ".join(textless))
    if unreadable:
        log.warning("session.corpus_path: %d document%s skipped: %s", len(unreadable),
                    "" if len(unreadable) == 1 else "s", "; ".join(unreadable))


class LocalCorpusSearch(SearchTool):
    """The ``local_corpus_search`` tool (see module docstring)."""

    spec = SPEC
    label = "Local corpus"
    network = False
    fetch_kinds = ("corpus", "DOI")

    def __init__(self, corpus: LocalCorpus, *, default_max_results: int = 5) -> None:
        super().__init__(default_max_results=default_max_results)
        self.corpus = corpus
        self._pending: CorpusEmbedder | None = None
        self._embedding = asyncio.Lock()
        self._cached = False

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        """One corpus record by its id (``corpus:<id>``) or DOI."""
        if kind == "corpus":
            return next((r for r in self.corpus.records if r.id == value), None)
        return next((r for r in self.corpus.records if r.doi and r.doi.lower() == value.lower()), None)

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        if not self._cached:  # a search runs after the goal passed screening: its index may be built now
            self._cached = True
            await asyncio.to_thread(self.corpus.write_cache)
        if self._pending is not None:  # embedded at the first search, off the session's start-up path
            async with self._embedding:
                if self._pending is not None:
                    await self.corpus.use_embedder(self._pending)
                    self._pending = None
        vector = None
        if self.corpus.embedder is not None and tokenize(query):
            try:
                vector = (await self.corpus.embedder.embed([query], action="corpus_query"))[0]
            except Exception as exc:  # a failing embedder leaves this search to BM25
                log.info("local corpus query not embedded (%s)", exc)
        records = await asyncio.to_thread(self.corpus.search, query, max_results, vector)
        return records, None, ""

    def use_embedder(self, embedder: CorpusEmbedder) -> None:
        """Index the corpus with ``embedder`` at the first search (:meth:`LocalCorpus.use_embedder`)."""
        self._pending = embedder


def build(ctx: BuildContext) -> LocalCorpusSearch | None:
    """The search of ``session.corpus_path``, loaded and indexed now; None when it is not set.

    Raises:
        CorpusError: the path is missing, empty or unreadable.
    """
    if not ctx.config.session.corpus_path:
        return None
    return LocalCorpusSearch(load_corpus(ctx.config), default_max_results=ctx.max_results)


def load_corpus(config: CosciConfig) -> LocalCorpus:
    """The corpus of ``session.corpus_path`` (which must be set), documents cut at ``tools.passage_words``, read
    from the cache under ``<paths.data_dir>/corpus_index``; what is extracted now is written there at the first
    search (:meth:`LocalCorpusSearch.search`), after the goal passed screening: a refused goal builds nothing.

    Raises:
        CorpusError: the path is missing, empty or unreadable.
    """
    return LocalCorpus.load(str(config.session.corpus_path), passage_words=config.tools.passage_words,
                            cache_dir=config.paths.data_dir / CACHE_FOLDER, write_cache=False)
