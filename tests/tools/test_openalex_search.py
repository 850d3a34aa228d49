"""openalex_search against recorded OpenAlex bodies (tests/fixtures/openalex; README there names each request).

No real body exists for an empty OpenAlex list (``meta.count: 0``) nor for a 401/403/429 of the 2026 ``api_key``
regime: the empty case is tested on the documented list schema (``meta`` plus an empty ``results``) built from
the recorded envelope with its one work removed, and the rate limit through the HTTP client's 429 handling
with no body; no field is invented."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest
import respx

from cosci.tools import openalex
from cosci.tools.sources import literature_ids


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENALEX_API_KEY", "oa-secret")


def test_parse_works_reads_the_recorded_list(recorded: Callable[[str], str]) -> None:
    hits, total = openalex.parse_works(json.loads(recorded("openalex/works_filter_title_search_paperqa.json")))
    assert total == 1
    (hit,) = hits
    assert (hit.id, hit.url) == ("W4389761608", "https://openalex.org/W4389761608")
    assert hit.title == "PaperQA: Retrieval-Augmented Generative Agent for Scientific Research"
    assert (hit.year, hit.doi, hit.journal) == (2023, "10.48550/arxiv.2312.07559", "arXiv (Cornell University)")
    assert hit.authors[0] == "Jakub Lála"
    assert hit.abstract.startswith("Large Language Models (LLMs) generalize well across language tasks, but suffer")
    assert hit.retraction == ""  # is_retracted: false


def test_a_single_work_keeps_its_identifiers(recorded: Callable[[str], str]) -> None:
    data = json.loads(recorded("openalex/work_doi_10.1016_j.xgen.2025.100814.json"))
    hit = openalex.work(data)
    assert hit is not None and hit.doi == "10.1016/j.xgen.2025.100814"
    ids = literature_ids(hit)
    assert ids[:2] == (f"OpenAlex:{hit.id}", "DOI:10.1016/j.xgen.2025.100814")
    assert "PMID:40120586" in ids
    flagged = openalex.work({**data, "is_retracted": True})  # the recorded work with the documented flag set
    assert flagged is not None and (flagged.retraction, flagged.notice) == ("retracted", "OpenAlex is_retracted: true")


def test_empty_list_on_the_documented_schema(recorded: Callable[[str], str]) -> None:
    data = json.loads(recorded("openalex/works_filter_title_search_paperqa.json"))
    data["results"], data["meta"]["count"] = [], 0
    assert openalex.parse_works(data) == ([], 0)


def test_registered_only_with_a_key(make_registry, monkeypatch) -> None:
    assert "openalex_search" in make_registry().names()
    monkeypatch.delenv("OPENALEX_API_KEY")
    assert "openalex_search" not in make_registry().names()


@respx.mock
async def test_tool_sends_the_key_as_api_key_and_never_shows_it(make_registry, recorded) -> None:
    route = respx.get(openalex.WORKS_URL).mock(return_value=httpx.Response(
        200, text=recorded("openalex/works_filter_title_search_paperqa.json")))
    result = await make_registry().get("openalex_search")({"query": "paperqa"})
    params = route.calls.last.request.url.params
    assert (params["search"], params["api_key"]) == ("paperqa", "oa-secret")
    assert not result.is_error and "oa-secret" not in result.text
    assert result.text.startswith('OpenAlex: 1 of 1 results for "paperqa".')


@respx.mock
async def test_unknown_doi_html_404_and_429(make_registry, recorded) -> None:
    tool = make_registry().get("openalex_search")
    respx.get(url__startswith=f"{openalex.WORKS_URL}/https://doi.org/").mock(return_value=httpx.Response(
        404, text=recorded("openalex/error_404_doi_not_in_openalex.html")))
    assert await tool.fetch("DOI:10.1046/j.1365-2699.2003.00795") is None  # type: ignore[attr-defined]
    respx.get(openalex.WORKS_URL).mock(return_value=httpx.Response(429))
    result = await tool({"query": "x"})
    assert result.is_error and "openalex_search is unavailable: HTTP 429 from api.openalex.org after 3" in result.text


@respx.mock
async def test_the_session_cap_stops_requests(make_registry, recorded, base_config) -> None:
    apis = base_config.tools.apis.model_copy(update={"openalex_max_calls": 1})
    route = respx.get(openalex.WORKS_URL).mock(return_value=httpx.Response(
        200, text=recorded("openalex/works_filter_title_search_paperqa.json")))
    tool = make_registry(apis=apis).get("openalex_search")
    assert not (await tool({"query": "a"})).is_error
    capped = await tool({"query": "b"})
    assert route.call_count == 1
    assert capped.is_error and "the session's 1 OpenAlex requests (tools.apis.openalex_max_calls) are used up" in (
        capped.text)


async def test_offline_it_answers_unavailable(make_registry) -> None:
    result = await make_registry(offline=True).get("openalex_search")({"query": "x"})
    assert result.is_error and result.text.startswith("openalex_search is unavailable (offline mode)")
