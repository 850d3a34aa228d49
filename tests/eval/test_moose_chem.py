"""The vendored MOOSE-Chem data: every true inspiration is in every corpus, ids are stable, bad selections
fail in one line."""

from __future__ import annotations

import json

import pytest

from cosci.eval.moose_chem import (
    CORPUS_SIZES,
    BenchmarkError,
    id_of_url,
    inspiration_ids,
    load_corpus,
    load_items,
    normalise_title,
    paper_id,
    write_corpus,
)
from cosci.paths import moose_chem_dir


def test_vendored_with_licence_and_source() -> None:
    root = moose_chem_dir()
    assert "MIT License" in (root / "LICENSE").read_text(encoding="utf-8")
    assert "8de57aa67263064c8264f9a59340812ff9ad7398" in (root / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("size", CORPUS_SIZES)
def test_every_inspiration_is_in_every_corpus(size: int) -> None:
    items, corpus = load_items(), load_corpus(size)
    assert len(items) == 34
    for item in items:
        assert len(inspiration_ids(item, corpus)) == len({normalise_title(t) for t in item.inspiration_titles})
    assert len({r.id for r in corpus}) == len(corpus)


def test_ids_are_stable_across_sizes_and_round_trip(tmp_path) -> None:
    small = {r.title: r.id for r in load_corpus(150)}
    large = {r.title: r.id for r in load_corpus(1000)}
    shared = set(small) & set(large)
    assert shared and all(small[t] == large[t] for t in shared)
    r = load_corpus(150)[0]
    assert id_of_url(r.url) == r.id == paper_id(r.title.upper() + " ")
    path = write_corpus(load_corpus(150)[:3], tmp_path / "c.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [set(row) for row in rows] == [{"id", "title", "abstract", "url"}] * 3


def test_item_selection() -> None:
    assert [i.id for i in load_items("2")] == ["moose-00", "moose-01"]
    assert [i.id for i in load_items("moose-03, moose-01")] == ["moose-03", "moose-01"]
    with pytest.raises(BenchmarkError, match="unknown item id 'moose-99'"):
        load_items("moose-99")
    with pytest.raises(BenchmarkError, match=r"outside 1\.\.34"):
        load_items("0")
    with pytest.raises(BenchmarkError, match="--corpus"):
        load_corpus(200)
