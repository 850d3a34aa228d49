"""arxiv_search against the recorded arXiv Atom feed (tests/fixtures/arxiv/query.xml)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
import respx

from cosci.tools import arxiv
from cosci.tools.common import urls_in


def test_parse_feed_reads_entries(recorded: Callable[[str], str]) -> None:
    records, total = arxiv.parse_feed(recorded("arxiv/query.xml"))
    assert total == 214881
    assert [r.id for r in records] == ["2202.12139v1", "2405.13786v1", "2005.14124v2"]
    first, second, third = records
    assert first.title == ("Testing Deep Learning Models: A First Comparative Study of Multiple Testing "
                           "Techniques")
    assert first.url == "https://arxiv.org/abs/2202.12139v1"
    assert first.year == 2022
    assert first.authors == ("Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker")
    assert first.abstract.startswith("Deep Learning (DL) has revolutionized the capabilities of vision-based")
    assert first.doi == "10.1109/ICSTW55395.2022.00035"
    assert second.authors[0] == "Aurora Ramírez"  # UTF-8 kept
    assert second.year == 2024
    assert third.title == "Active Fuzzing for Testing and Securing Cyber-Physical Systems"
    assert third.url == "https://arxiv.org/abs/2005.14124v2"
    assert third.year == 2020


def test_parse_feed_reports_arxiv_error_entries() -> None:
    feed = ('<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/api/errors#incorrect_id_format'
            '</id><title>Error</title><summary>incorrect id format for 1234</summary></entry></feed>')
    with pytest.raises(ValueError, match="incorrect id format"):
        arxiv.parse_feed(feed)
    with pytest.raises(ValueError, match="not an Atom feed"):
        arxiv.parse_feed("<html/>")


@pytest.mark.parametrize(("query", "expected"), [
    ("protein language model", "all:protein AND all:language AND all:model"),
    ("ti:transformer AND cat:q-bio.BM", "ti:transformer AND cat:q-bio.BM"),
    ("au:Hinton", "au:Hinton"),
])
def test_build_query(query: str, expected: str) -> None:
    assert arxiv.build_query(query) == expected


@respx.mock
async def test_tool_reads_the_feed(make_registry, recorded) -> None:
    route = respx.get(arxiv.API_URL).mock(return_value=httpx.Response(
        200, text=recorded("arxiv/query.xml"),
        headers={"content-type": "application/atom+xml; charset=utf-8"}))
    result = await make_registry().get("arxiv_search")({"query": "testing"})
    assert not result.is_error and result.source == "arxiv_search"
    params = route.calls.last.request.url.params
    assert params["search_query"] == "all:testing" and params["max_results"] == "5"
    assert result.text.startswith('arXiv: 3 of 214881 results for "testing".')
    assert "Authors: Aurora Ramírez, Mario Berrios, José Raúl Romero, Robert Feldt" in result.text
    assert result.urls == ("https://arxiv.org/abs/2202.12139v1", "https://arxiv.org/abs/2405.13786v1",
                           "https://arxiv.org/abs/2005.14124v2")
    assert result.urls == urls_in(result.text)
