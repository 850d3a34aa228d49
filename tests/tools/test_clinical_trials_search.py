"""clinical_trials_search against recorded ClinicalTrials.gov API v2 bodies (tests/fixtures/clinicaltrials; README
there names each request).

No real ClinicalTrials.gov body exists for an empty search (``totalCount: 0``) nor for an error: the empty case
uses the documented list schema (``studies`` plus ``totalCount``) with the recorded page's studies removed, and
the errors are statuses without a body; no field is invented."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import respx

from cosci.tools import clinical_trials as ct
from cosci.tools.sources import literature_ids, url_keys

PAGE = "clinicaltrials/search_query_intr_keytruda_fields_limit3.json"


def test_parse_studies_reads_the_recorded_page(recorded: Callable[[str], str]) -> None:
    hits, total = ct.parse_studies(json.loads(recorded(PAGE)))
    assert total == 2924 and hits[0].id == "NCT05431270" and len(hits) == 3
    first = hits[0]
    assert first.url == "https://clinicaltrials.gov/study/NCT05431270" and first.year == 2022
    assert "Conditions: Non Small Cell Lung Cancer, Pancreatic Ductal Adenocarcinoma" in first.abstract
    assert "Phase: PHASE1, PHASE2. Status: RECRUITING. Start date: 2022-08-11" in first.abstract
    assert "Interventions: Mavrostobart (PT199), Tislelizumab" in first.abstract
    assert literature_ids(first) == ("NCT:NCT05431270",)
    assert "NCT:NCT05431270" in url_keys("https://clinicaltrials.gov/study/NCT05431270")


def test_a_whole_study(recorded: Callable[[str], str]) -> None:
    hit = ct.study(json.loads(recorded("clinicaltrials/study_NCT00184067.json")))
    assert hit is not None and hit.id == "NCT00184067"
    assert "Status: TERMINATED. Start date: 2004-05. Why stopped: Primary PI left institution" in hit.abstract
    assert "Interventions: Montanide ISA 51" in hit.abstract and "Phase: PHASE2" in hit.abstract


def test_empty_page_on_the_documented_schema(recorded: Callable[[str], str]) -> None:
    data = json.loads(recorded(PAGE))
    data["studies"], data["totalCount"] = [], 0
    data.pop("nextPageToken", None)
    assert ct.parse_studies(data) == ([], 0)


@respx.mock
async def test_tool_query_and_answers(make_registry, recorded) -> None:
    tool = make_registry().get("clinical_trials_search")
    route = respx.get(ct.STUDIES_URL).mock(return_value=httpx.Response(200, text=recorded(PAGE)))
    result = await tool({"query": "Keytruda", "max_results": 3})
    params = route.calls.last.request.url.params
    assert (params["query.term"], params["pageSize"], params["countTotal"]) == ("Keytruda", "3", "true")
    assert "NCTId" in params["fields"]
    assert not result.is_error and result.text.startswith('ClinicalTrials.gov: 3 of 2924 results for "Keytruda".')
    assert "Study: Conditions:" in result.text


@respx.mock
async def test_error_statuses(make_registry) -> None:
    tool = make_registry().get("clinical_trials_search")
    respx.get(ct.STUDIES_URL).mock(side_effect=[httpx.Response(400), httpx.Response(429), httpx.Response(429),
                                                httpx.Response(429)])
    bad = await tool({"query": "x"})
    assert bad.is_error and bad.text.startswith("clinical_trials_search failed: HTTP 400 from clinicaltrials.gov")
    limited = await tool({"query": "y"})
    assert limited.is_error and "unavailable: HTTP 429 from clinicaltrials.gov after 3 attempts" in limited.text


async def test_offline_it_answers_unavailable(make_registry) -> None:
    result = await make_registry(offline=True).get("clinical_trials_search")({"query": "x"})
    assert result.is_error and result.text.startswith("clinical_trials_search is unavailable (offline mode)")
