"""``local_corpus_search``: BM25 search over the researcher's own corpus (design.md#tools; ``session.corpus_path``).

The corpus is a JSONL file (``.jsonl``/``.ndjson``/``.json`` with one object per line), a Parquet file, or a
folder holding such files (searched recursively, in name order). Each record has ``title`` and/or
``abstract`` (also read: ``summary``, ``text``), optional ``url``, ``year``, ``id``, ``journal``, ``doi``.
Records with neither a title nor an abstract are skipped, as are lines that are not JSON objects. The corpus
is loaded and indexed once, at registry build time (Okapi BM25 over lower-cased word tokens of title and
abstract, ``rank-bm25``). It makes no network request, so it is the offline way to ground a session.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rank_bm25 import BM25Okapi

from cosci.errors import CosciError
from cosci.literature import ToolDeclaration
from cosci.llm.port.types import ToolSpec
from cosci.tools.catalog import BuildContext, register
from cosci.tools.common import LiteratureHit, SearchTool, clean, first_year, search_parameters

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
PARQUET_SUFFIXES = (".parquet", ".pq")
_TOKEN_RE = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset(["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "of", "on",
                       "or", "the", "to", "with"])

SPEC = ToolSpec(
    name="local_corpus_search",
    description=(
        "Search the researcher's own local collection of papers (titles and abstracts supplied for this "
        "session) and get, for each matching record, its id, title, year, URL and abstract. Works offline. "
        "Use plain keywords; records are ranked by keyword relevance (BM25)."
    ),
    parameters=search_parameters("Keywords, e.g. 'organoid drug screening colorectal'."),
)


class CorpusError(CosciError):
    """``session.corpus_path`` cannot be used; ``str(err)`` is one line naming the key."""


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without common English stop words."""
    return [t for t in _TOKEN_RE.findall(text.lower()) if t not in STOPWORDS]


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    suffixes = JSONL_SUFFIXES + PARQUET_SUFFIXES
    return sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in suffixes)


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
        self.index = BM25Okapi([tokenize(f"{r.title} {r.abstract}") or ["<empty>"] for r in records])

    @classmethod
    def load(cls, path: str | Path) -> LocalCorpus:
        """Read and index the corpus at ``path``.

        Raises:
            CorpusError: the path does not exist, holds no JSONL/Parquet file, cannot be read, or has no
                records.
        """
        root = Path(path).expanduser()
        if not root.exists():
            raise CorpusError(f"session.corpus_path: {root} does not exist "
                              "(give a JSONL or Parquet file, or a folder of them)")
        files = _files(root)
        if not files:
            raise CorpusError(f"session.corpus_path: {root} holds no .jsonl, .json, .ndjson or .parquet file")
        records: list[LiteratureHit] = []
        skipped = 0
        for file in files:
            try:
                for i, row in enumerate(_rows(file), 1):
                    record = _record(row, f"{file.stem}:{i}")
                    if record is not None:
                        records.append(record)
                    else:
                        skipped += 1
            except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
                raise CorpusError(f"session.corpus_path: cannot read {file} ({exc})") from None
        corpus = cls(records, root)
        corpus.skipped = skipped
        return corpus

    def search(self, query: str, max_results: int) -> list[LiteratureHit]:
        """The best ``max_results`` records for ``query`` (only records sharing a term with it)."""
        terms = tokenize(query)
        if not terms:
            return []
        scores = self.index.get_scores(terms)
        order = sorted(range(len(self.records)), key=lambda i: -scores[i])
        hits = (i for i in order if any(t in self.index.doc_freqs[i] for t in terms))
        return [self.records[i] for _, i in zip(range(max_results), hits, strict=False)]


class LocalCorpusSearch(SearchTool):
    """The ``local_corpus_search`` tool (see module docstring)."""

    spec = SPEC
    label = "Local corpus"
    network = False
    fetch_kinds = ("corpus", "DOI")

    def __init__(self, corpus: LocalCorpus, *, default_max_results: int = 5) -> None:
        super().__init__(default_max_results=default_max_results)
        self.corpus = corpus

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        """One corpus record by its id (``corpus:<id>``) or DOI."""
        if kind == "corpus":
            return next((r for r in self.corpus.records if r.id == value), None)
        return next((r for r in self.corpus.records if r.doi and r.doi.lower() == value.lower()), None)

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        records = await asyncio.to_thread(self.corpus.search, query, max_results)
        return records, None, ""


def build(ctx: BuildContext) -> LocalCorpusSearch | None:
    """The search of ``session.corpus_path``, loaded and indexed now; None when it is not set.

    Raises:
        CorpusError: the path is missing, empty or unreadable.
    """
    path = ctx.config.session.corpus_path
    return LocalCorpusSearch(LocalCorpus.load(path), default_max_results=ctx.max_results) if path else None


DECLARATION = register(ToolDeclaration(name=SPEC.name, rank=10), build)
"""First in the search order: the researcher's own papers, offline (design.md#tools)."""
