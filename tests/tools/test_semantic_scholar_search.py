"""semantic_scholar_search against recorded Graph API bodies (tests/fixtures/semanticscholar; README there names
each body's request): normal, empty (HTTP 200 without ``data``), 400/403/404 errors and the keyless pool's 429."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest
import respx

from cosci.tools import semantic_scholar as s2
from cosci.tools.sources import literature_ids


def test_parse_search_reads_the_recorded_page(recorded: Callable[[str], str]) -> None:
    hits, total = s2.parse_search(json.loads(recorded("semanticscholar/search_turing_fields_title.json")))
    assert total == 70499 and len(hits) == 100
    first = hits[0]
    assert first.id == "7cbc2a7843411a1768ab762930707af0a3c33a19"
    assert first.title.startswith("Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B")
    assert first.url == "https://www.semanticscholar.org/paper/7cbc2a7843411a1768ab762930707af0a3c33a19"
    assert hits[1].title == "Quantum theory, the Church\u2013Turing principle and the universal quantum computer"


def test_a_paper_keeps_every_identifier(recorded: Callable[[str], str]) -> None:
    hit = s2.paper(json.loads(recorded("semanticscholar/paper_doi_10.1016_j.xgen.2025.100814.json")))
    assert hit is not None
    assert (hit.journal, hit.year, hit.doi) == ("Cell Genomics", 2024, "10.1016/j.xgen.2025.100814")
    assert hit.authors[0] == "Michael Herger" and len(hit.authors) == 6
    assert literature_ids(hit) == ("S2:7e5d4466c8b85f93775fe183e1a318a3e65ac8e4", "DOI:10.1016/j.xgen.2025.100814",
                                   "PMID:40120586", "PMCID:PMC12008803")


def test_the_empty_answer_has_no_data_key(recorded: Callable[[str], str]) -> None:
    assert s2.parse_search(json.loads(recorded("semanticscholar/search_no_results.json"))) == ([], 0)


@pytest.mark.parametrize("body", [{"data": []}, [1], {"total": 1, "data": {}}])
def test_other_bodies_are_refused(body: object) -> None:
    with pytest.raises(ValueError):
        s2.parse_search(body)


@respx.mock
async def test_tool_sends_the_query_and_the_key(make_registry, recorded, monkeypatch) -> None:
    monkeypatch.setenv("S2_API_KEY", "s2-secret")
    route = respx.get(s2.SEARCH_URL).mock(return_value=httpx.Response(
        200, text=recorded("semanticscholar/search_turing_fields_title.json")))
    result = await make_registry().get("semantic_scholar_search")({"query": "turing", "max_results": 3})
    request = route.calls.last.request
    assert request.headers["x-api-key"] == "s2-secret"
    assert (request.url.params["query"], request.url.params["limit"]) == ("turing", "3")
    assert not result.is_error and result.text.startswith('Semantic Scholar: 3 of 70499 results for "turing".')
    assert result.records[0].ids == ("S2:7cbc2a7843411a1768ab762930707af0a3c33a19",)


@respx.mock
async def test_no_results_is_a_plain_answer(make_registry, recorded) -> None:
    respx.get(s2.SEARCH_URL).mock(return_value=httpx.Response(200, text=recorded(
        "semanticscholar/search_no_results.json")))
    result = await make_registry().get("semantic_scholar_search")({"query": "n0 r3sult s3arch t3rm"})
    assert not result.is_error and result.text.startswith('Semantic Scholar: no results for "n0 r3sult s3arch t3rm"')
    assert "x-api-key" not in respx.calls.last.request.headers  # no key set: none sent


@respx.mock
@pytest.mark.parametrize(("status", "body"), [(400, "error_400_unsupported_fields.json"),
                                              (403, "error_403_forbidden_bad_api_key.json")])
async def test_client_errors_are_error_results(make_registry, recorded, status: int, body: str) -> None:
    text = recorded(f"semanticscholar/{body}")
    respx.get(s2.SEARCH_URL).mock(return_value=httpx.Response(status, text=text))
    result = await make_registry().get("semantic_scholar_search")({"query": "x"})
    assert result.is_error
    assert result.text.startswith(f"semantic_scholar_search failed: HTTP {status} from api.semanticscholar.org: "
                                  f"{' '.join(text.split())}")


@respx.mock
async def test_429_is_retried_with_backoff_then_unavailable(make_registry, recorded) -> None:
    route = respx.get(s2.SEARCH_URL).mock(return_value=httpx.Response(
        429, text=recorded("semanticscholar/error_429_too_many_requests.json")))
    result = await make_registry().get("semantic_scholar_search")({"query": "x"})
    assert route.call_count == 3  # fast_policy.attempts: tenacity's backoff between them
    assert result.is_error and result.text.startswith(
        "semantic_scholar_search is unavailable: HTTP 429 from api.semanticscholar.org after 3 attempts")


@respx.mock
async def test_429_then_the_answer(make_registry, recorded) -> None:
    respx.get(s2.SEARCH_URL).mock(side_effect=[
        httpx.Response(429, text=recorded("semanticscholar/error_429_too_many_requests.json")),
        httpx.Response(200, text=recorded("semanticscholar/search_turing_fields_title.json"))])
    result = await make_registry().get("semantic_scholar_search")({"query": "turing", "max_results": 1})
    assert not result.is_error and "Megatron-Turing" in result.text


@respx.mock
async def test_lookup_by_doi_and_a_404(make_registry, recorded) -> None:
    tool = make_registry().get("semantic_scholar_search")
    respx.get(f"{s2.API}/paper/DOI:10.1016/j.xgen.2025.100814").mock(return_value=httpx.Response(
        200, text=recorded("semanticscholar/paper_doi_10.1016_j.xgen.2025.100814.json")))
    respx.get(f"{s2.API}/paper/DOI:10.1101/2024.04.01.587366").mock(return_value=httpx.Response(
        404, text=recorded("semanticscholar/error_404_paper_doi_not_found.json")))
    found = await tool.fetch("DOI:10.1016/j.xgen.2025.100814")  # type: ignore[attr-defined]
    assert found is not None and "PMID:40120586" in found.ids
    assert await tool.fetch("DOI:10.1101/2024.04.01.587366") is None  # type: ignore[attr-defined]


async def test_offline_it_answers_unavailable(make_registry) -> None:
    result = await make_registry(offline=True).get("semantic_scholar_search")({"query": "x"})
    assert result.is_error and result.text.startswith("semantic_scholar_search is unavailable (offline mode)")
