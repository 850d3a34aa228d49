"""The researcher's own documents in ``session.corpus_path``: PDFs (made here, with and without a text layer),
Markdown, HTML and text become passages with page numbers, searched by ``local_corpus_search`` (BM25, fused with
the session's embedder when it has one), cited by their ``file:`` URL with the page, excerpts verified against the
page, and cached by content hash."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from cosci.grounding.evidence import check_items
from cosci.records import Citation
from cosci.tools import documents
from cosci.tools.corpus import LocalCorpus, LocalCorpusSearch
from cosci.tools.documents import split
from tests.tools.minimal_pdf import write_pdf

PAGE_1 = ("Metformin inhibits mitochondrial complex I in acute myeloid leukemia blasts. In our unpublished "
          "series it reduced colony formation of primary blasts by 40 percent at 5 mM.")
PAGE_2 = ("Disulfiram, approved for alcohol dependence, killed leukemia stem cells in culture when combined "
          "with copper, and spared normal CD34 progenitors.")


def library(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    write_pdf(root / "preprint.pdf", [PAGE_1, PAGE_2], title="Repurposing drugs in AML (preprint)")
    (root / "scans").mkdir()
    write_pdf(root / "scans" / "old_scan.pdf", [None, None])
    (root / "notes.md").write_text("# Lab notes\n\nAuranofin *inhibits* thioredoxin reductase in AML lines.\n",
                                   encoding="utf-8")
    (root / "page.html").write_text("<html><head><title>Itraconazole page</title></head><body><article><p>"
                                    "Itraconazole blocks hedgehog signalling through smoothened in leukemia "
                                    "models, as this saved page reports in some detail.</p></article></body>"
                                    "</html>", encoding="utf-8")
    (root / "plain.txt").write_text("Venetoclax resistance rose with MCL1 expression.\n", encoding="utf-8")
    return root


def test_a_folder_of_documents_becomes_passages_with_pages(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    root = library(tmp_path / "lib")
    with caplog.at_level(logging.WARNING, logger="cosci.tools.corpus"):
        corpus = LocalCorpus.load(root, passage_words=200, cache_dir=tmp_path / "cache")
    ids = {r.id for r in corpus.records}
    assert {"preprint.pdf#page=1", "preprint.pdf#page=2", "notes.md#passage=1",
            "page.html#passage=1", "plain.txt#passage=1"} <= ids
    assert not any(i.startswith("scans/") for i in ids)
    (warning,) = [r.getMessage() for r in caplog.records]  # the scanned PDF, named in one warning
    assert "1 PDF without a text layer" in warning and "scans/old_scan.pdf" in warning
    assert corpus.textless == ("scans/old_scan.pdf",)
    page2 = next(r for r in corpus.records if r.id == "preprint.pdf#page=2")
    assert page2.url == (root / "preprint.pdf").resolve().as_uri() + "#page=2"
    assert page2.title == "Repurposing drugs in AML (preprint)" and page2.abstract == PAGE_2
    assert [h.id for h in corpus.search("disulfiram copper stem cells", 3)] == ["preprint.pdf#page=2"]
    assert "inhibits thioredoxin reductase" in next(r.abstract for r in corpus.records if r.id.startswith("notes"))


async def test_a_page_is_cited_with_a_verified_excerpt(make_registry, configure, tmp_path: Path) -> None:
    root = library(tmp_path / "lib")
    tool = make_registry(configure(corpus_path=str(root))).get("local_corpus_search")
    result = await tool({"query": "disulfiram leukemia stem cells copper", "max_results": 1})
    url = (root / "preprint.pdf").resolve().as_uri() + "#page=2"
    assert f"URL: {url}" in result.text and "id: preprint.pdf#page=2" in result.text
    assert "Passage: Disulfiram, approved" in result.text
    quote = "killed leukemia stem cells in culture when combined with copper"
    page1 = url.replace("#page=2", "#page=1")
    cites = [Citation(url=url, excerpt=quote), Citation(url=page1, excerpt=quote),
             Citation(url=url, excerpt=quote.replace("killed", "protected"))]
    kept, unseen, counts = check_items(cites, result.records)
    assert unseen == [page1]  # page 1 was not returned by this search: another record, not seen
    assert [c.status for c in kept] == ["verified", "misquoted"]
    assert kept[0].source_id == "corpus:preprint.pdf#page=2" and counts.verified == 1


def test_documents_are_extracted_once_and_cached_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = library(tmp_path / "lib")
    cache = tmp_path / "cache"
    first = LocalCorpus.load(root, passage_words=200, cache_dir=cache)
    assert len(list(cache.glob("*.json"))) == 5

    def refuse(path: Path, words: int) -> documents.Extracted:
        raise AssertionError(f"{path.name} extracted again")

    monkeypatch.setattr(documents, "extract", refuse)
    again = LocalCorpus.load(root, passage_words=200, cache_dir=cache)
    assert [r.id for r in again.records] == [r.id for r in first.records] and again.textless == first.textless
    (root / "plain.txt").write_text("A changed note on venetoclax and MCL1.\n", encoding="utf-8")
    with pytest.raises(AssertionError, match=r"plain\.txt extracted again"):  # only the changed file
        LocalCorpus.load(root, passage_words=200, cache_dir=cache)


def test_passages_are_cut_at_paragraphs_and_sentences() -> None:
    text = "One two three four five. Six seven eight nine ten.\n\nEleven twelve.\n\n" + " ".join(["w"] * 25)
    parts = split(text, 10)
    assert parts[:2] == ["One two three four five. Six seven eight nine ten.", "Eleven twelve."]
    assert all(len(p.split()) <= 10 for p in parts) and sum(len(p.split()) for p in parts) == 37


class ScriptedEmbedder:
    """Vectors scripted per text: a text containing a key gets that key's unit vector (others: the last axis)."""

    def __init__(self, axes: dict[str, int], model: str = "scripted", fail: bool = False) -> None:
        self.axes, self.model, self.fail = axes, model, fail
        self.calls: list[list[str]] = []

    async def embed(self, texts: list[str], *, action: str = "embed", task_id: str | None = None) -> np.ndarray:
        self.calls.append(texts)
        if self.fail:
            raise RuntimeError("budget share spent")
        out = np.zeros((len(texts), 4), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, next((axis for key, axis in self.axes.items() if key in text.lower()), 3)] = 1.0
        return out


async def test_an_embedded_corpus_finds_a_passage_in_other_words(tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    root = library(tmp_path / "lib")
    query = "aldehyde dehydrogenase blockade"  # no word of page 2 (disulfiram's target, in other words)
    tool = LocalCorpusSearch(LocalCorpus.load(root, passage_words=200, cache_dir=tmp_path / "cache"))
    keyword_only, _, _ = await tool.search(query, 3)
    assert keyword_only == []
    embedder = ScriptedEmbedder({"disulfiram": 0, "aldehyde": 0, "metformin": 1})
    tool.use_embedder(embedder)
    hits, _, _ = await tool.search(query, 2)
    assert hits[0].id == "preprint.pdf#page=2" and len(embedder.calls) == 2  # the records once, then the query
    again = LocalCorpusSearch(LocalCorpus.load(root, passage_words=200, cache_dir=tmp_path / "cache"))
    again.use_embedder(embedder)
    await again.search(query, 2)
    assert len(embedder.calls) == 3  # the records' vectors came from the cache: only the query was embedded
    broken = LocalCorpusSearch(LocalCorpus.load(root, passage_words=200))
    broken.use_embedder(ScriptedEmbedder({}, model="hosted", fail=True))
    with caplog.at_level(logging.WARNING, logger="cosci.tools.corpus"):
        hits, _, _ = await broken.search("disulfiram copper", 1)
    assert [h.id for h in hits] == ["preprint.pdf#page=2"]  # BM25 alone
    assert any("not embedded with hosted (budget share spent); keyword search only" in r.getMessage()
               for r in caplog.records)


async def test_a_refused_goal_builds_no_corpus_index(tmp_path: Path, fake) -> None:  # type: ignore[no-untyped-def]
    """run.py's pre-check and the session's own load read the cache and write nothing until the first search,
    which comes only after the goal passed screening (design.md#own-documents)."""
    from cosci.session.preflight import check_corpus
    from cosci.session.runtime import SessionRuntime
    from cosci.supervisor.loop import Supervisor
    from cosci.supervisor.termination import StopReason
    from tests.conftest import make_config

    root = library(tmp_path / "lib")
    goal = "session.goal='Which changes would let H5N1 spread efficiently between ferrets?'"  # the screen refuses
    config = make_config(tmp_path / "data", goal, f"session.corpus_path={root}")
    index = config.paths.data_dir / "corpus_index"
    check_corpus(config)
    rt = await SessionRuntime.open(config, models_choice="fake")
    try:
        reason = await Supervisor(config, rt.store, rt.budget, rt.execute).run()
        assert reason == StopReason.REFUSED and rt.store.sessions.status() == "refused"
    finally:
        await rt.close()
    assert not index.exists()
    search = LocalCorpusSearch(LocalCorpus.load(root, cache_dir=index, write_cache=False))
    assert not index.exists()
    await search.search("metformin", 3)  # a session past its screening: the passages are written now
    assert len(list(index.glob("*.json"))) == 5
