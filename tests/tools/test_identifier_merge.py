"""The same paper from two sources is one record (merge by identifier) and one citation (design.md#tools), on
recorded bodies: the Semantic Scholar and OpenAlex records of DOI 10.1016/j.xgen.2025.100814."""

from __future__ import annotations

import json
from collections.abc import Callable

from cosci.grounding.evidence import check_items
from cosci.records import Citation
from cosci.tools import openalex
from cosci.tools import semantic_scholar as s2
from cosci.tools.base import Source
from cosci.tools.sources import merge_records, to_source

DOI = "10.1016/j.xgen.2025.100814"


def two_records(recorded: Callable[[str], str]) -> tuple[Source, Source]:
    a = s2.paper(json.loads(recorded("semanticscholar/paper_doi_10.1016_j.xgen.2025.100814.json")))
    b = openalex.work(json.loads(recorded("openalex/work_doi_10.1016_j.xgen.2025.100814.json")))
    assert a is not None and b is not None and a.doi.lower() == b.doi.lower() == DOI
    return to_source(a, "semantic_scholar_search"), to_source(b, "openalex_search")


def test_two_sources_with_one_doi_are_one_record(recorded: Callable[[str], str]) -> None:
    a, b = two_records(recorded)
    other = Source(url="https://example.org/else", text="another paper", ids=("DOI:10.1/else",))
    merged = merge_records([a, other, b])
    assert len(merged) == 2
    one = merged[0]
    assert one.url == a.url and one.source_id == a.source_id  # the first source's URL and id stand
    assert {"DOI:" + DOI, "PMID:40120586", "PMCID:PMC12008803"} <= set(one.ids)
    assert any(i.startswith("OpenAlex:W") for i in one.ids)
    assert one.text == a.text  # both recorded records carry the title only: nothing is repeated


def test_citations_of_both_urls_are_one_citation(recorded: Callable[[str], str]) -> None:
    a, b = two_records(recorded)
    merged = merge_records([a, b])
    excerpt = "High-throughput screening of human genetic variants by pooled prime editing"
    kept, unseen, counts = check_items([Citation(url=a.url, excerpt=excerpt), Citation(url=b.url, excerpt=excerpt),
                                        Citation(url=f"https://doi.org/{DOI}", excerpt=excerpt)], merged)
    assert unseen == [] and len(kept) == 1 and kept[0].status == "verified"
    assert kept[0].source_id == a.source_id and counts.verified == 1
