"""europe_pmc_search against the recorded Europe PMC ``resultType=core`` body (tests/fixtures/europepmc)."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest
import respx

from cosci.tools import europe_pmc
from cosci.tools.common import urls_in
from cosci.tools.jats import FULLTEXT_URL


def test_parse_search_reads_records(recorded: Callable[[str], str]) -> None:
    records, total = europe_pmc.parse_search(json.loads(recorded("europepmc/search_core.json")))
    assert total == 5059039
    assert [r.id for r in records] == ["39709209", "39709208", "40468710", "40464630", "40493882"]
    assert {r.source for r in records} == {"MED"}
    first = records[0]
    assert first.title == ("Abscopal response in a patient with fibrolamellar hepatocellular carcinoma "
                           "following radiotherapy.")
    assert first.journal == "Lancet (London, England)"
    assert first.year == 2025
    assert first.doi == "10.1016/s0140-6736(24)02600-x"
    assert first.url == "https://europepmc.org/article/MED/39709209"
    assert first.abstract == ""  # results 1 and 2 have no abstractText in the recording
    assert first.authors == ("Schoenfeld JD", "Haas-Kogan DA", "O'Neill AF")
    assert records[1].authors == ()  # result 2 has no authors
    third = records[2]
    assert third.title.startswith("The role of psychological flexibility in relation to health outcomes")
    assert third.abstract.startswith("Objective This study investigated whether psychological flexibility")
    assert "<h4>" not in third.abstract
    assert third.journal == "British journal of health psychology"
    assert third.doi == "10.1111/bjhp.12807"


@pytest.mark.parametrize("body", [{"hitCount": 0}, {"resultList": []}, [1, 2]])
def test_parse_search_rejects_other_bodies(body: object) -> None:
    with pytest.raises(ValueError):
        europe_pmc.parse_search(body)


@respx.mock
async def test_tool_sends_core_json_query(make_registry, recorded) -> None:
    route = respx.get(europe_pmc.SEARCH_URL).mock(
        return_value=httpx.Response(200, text=recorded("europepmc/search_core.json")))
    # hit 2's full text (test_europe_pmc_fulltext.py): not served here
    respx.get(FULLTEXT_URL.format(pmcid="PMC12124214")).mock(return_value=httpx.Response(404))
    result = await make_registry().get("europe_pmc_search")({"query": "cancer", "max_results": 5})
    assert not result.is_error and result.source == "europe_pmc_search"
    params = route.calls.last.request.url.params
    assert (params["query"], params["resultType"], params["format"], params["pageSize"]) == (
        "cancer", "core", "json", "5")
    assert result.text.startswith('Europe PMC: 5 of 5059039 results for "cancer".')
    line = "Europe PMC id: 40468710 | Source: MED | Journal: British journal of health psychology"
    assert line in result.text
    assert result.urls == tuple(f"https://europepmc.org/article/MED/{i}" for i in
                                ("39709209", "39709208", "40468710", "40464630", "40493882"))
    assert result.urls == urls_in(result.text)


@respx.mock
async def test_max_results_caps_the_records(make_registry, recorded) -> None:
    respx.get(europe_pmc.SEARCH_URL).mock(
        return_value=httpx.Response(200, text=recorded("europepmc/search_core.json")))
    respx.get(FULLTEXT_URL.format(pmcid="PMC12124214")).mock(return_value=httpx.Response(404))
    result = await make_registry().get("europe_pmc_search")({"query": "cancer", "max_results": 2})
    assert len(result.urls) == 2
    assert "3. " not in result.text


@respx.mock
async def test_unexpected_shapes_are_error_results(make_registry) -> None:
    body = {"resultList": {"result": None}}
    respx.get(europe_pmc.SEARCH_URL).mock(return_value=httpx.Response(200, json=body))
    result = await make_registry().get("europe_pmc_search")({"query": "cancer"})
    assert result.is_error and result.source == "europe_pmc_search"
    assert "the Europe PMC answer had an unexpected shape (TypeError" in result.text
