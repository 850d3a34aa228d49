"""local_corpus_search over JSONL and Parquet corpora written in tmp_path; registry-time path errors."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cosci.tools.common import urls_in
from cosci.tools.corpus import CorpusError, LocalCorpus
from tests.tools.minimal_pdf import write_pdf

RECORDS = [
    {"id": "c1", "title": "YAP/TAZ mechanotransduction in lung fibrosis",
     "abstract": "Matrix stiffness activates YAP in fibroblasts and sustains pulmonary fibrosis.",
     "url": "https://example.org/papers/c1", "year": 2019},
    {"id": "c2", "title": "Senolytics in idiopathic pulmonary fibrosis",
     "abstract": "Dasatinib plus quercetin cleared senescent cells in a first-in-human pilot.",
     "url": "https://example.org/papers/c2", "year": "2019-01"},
    {"id": "c3", "title": "Organoid drug screens in colorectal cancer",
     "abstract": "Patient-derived organoids predicted response to chemotherapy.",
     "url": "https://example.org/papers/c3"},
    {"id": "c4", "title": "", "abstract": ""},  # skipped: nothing to search
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n\n", encoding="utf-8")
    return path


def write_parquet(path: Path, rows: list[dict]) -> Path:
    table = pa.table({"id": [r["id"] for r in rows], "title": [r["title"] for r in rows],
                      "abstract": [r["abstract"] for r in rows], "url": [r.get("url") for r in rows],
                      "year": [int(str(r["year"])[:4]) if r.get("year") else None for r in rows]})
    pq.write_table(table, path)
    return path


def test_jsonl_corpus_is_searched_by_relevance(tmp_path: Path) -> None:
    corpus = LocalCorpus.load(write_jsonl(tmp_path / "c.jsonl", RECORDS))
    assert len(corpus.records) == 3
    hits = corpus.search("YAP stiffness fibroblasts", 5)
    assert [h.id for h in hits] == ["c1"]
    hits = corpus.search("pulmonary fibrosis", 5)
    assert [h.id for h in hits][:2] in (["c1", "c2"], ["c2", "c1"])
    assert "c3" not in [h.id for h in hits]
    assert corpus.search("the of and", 5) == []
    assert corpus.search("quantum chromodynamics", 5) == []


def test_parquet_corpus_and_folder(tmp_path: Path) -> None:
    folder = tmp_path / "library"
    (folder / "sub").mkdir(parents=True)
    write_parquet(folder / "part1.parquet", RECORDS[:2])
    write_jsonl(folder / "sub" / "part2.jsonl", RECORDS[2:])
    (folder / "notes.csv").write_text("ignored", encoding="utf-8")
    corpus = LocalCorpus.load(folder)
    assert sorted(r.id for r in corpus.records) == ["c1", "c2", "c3"]
    (hit,) = corpus.search("organoid chemotherapy", 1)
    assert hit.id == "c3" and hit.url == "https://example.org/papers/c3"
    assert LocalCorpus.load(folder / "part1.parquet").records[1].year == 2019


async def test_tool_answers_with_records_and_urls(make_registry, configure, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", RECORDS)
    tool = make_registry(configure(corpus_path=str(path))).get("local_corpus_search")
    result = await tool({"query": "senescent cells fibrosis", "max_results": 1})
    assert not result.is_error and result.source == "local_corpus_search"
    assert result.text.startswith('Local corpus: 1 results for "senescent cells fibrosis".')
    assert "1. Senolytics in idiopathic pulmonary fibrosis" in result.text
    assert "id: c2 | Year: 2019" in result.text
    assert result.urls == ("https://example.org/papers/c2",) == urls_in(result.text)
    missing = await tool({"query": "graphene"})
    assert not missing.is_error and "no results" in missing.text
    bad = await tool({"query": "   "})
    assert bad.is_error and "invalid arguments: 'query' must be a non-empty string" in bad.text


@pytest.mark.parametrize(("setup", "message"), [
    (lambda p: p / "absent.jsonl", "does not exist"),
    (lambda p: p, "holds no .jsonl"),
    (lambda p: p / "scan.pdf", "holds no searchable text (scan.pdf: no text layer)"),
    (lambda p: p / "broken.pdf", "broken.pdf: not a readable PDF"),
    (lambda p: write_jsonl(p / "empty.jsonl", [{"url": "https://x.org"}]), "holds no records"),
])
def test_unusable_corpus_path_fails_at_registry_build(make_registry, configure, tmp_path: Path, setup,
                                                       message: str) -> None:
    write_pdf(tmp_path / "scan.pdf", [None, None])  # only in the cases that name it: the others are not its folder
    (tmp_path / "broken.pdf").write_text("%PDF-1.4 not really", encoding="utf-8")
    path = setup(tmp_path)
    if path == tmp_path:
        for f in tmp_path.iterdir():
            f.unlink()
    with pytest.raises(CorpusError) as err:
        make_registry(configure(corpus_path=str(path)))
    text = str(err.value)
    assert text.startswith("session.corpus_path: ") and message in text
    assert "\n" not in text
