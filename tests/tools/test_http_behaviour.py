"""HTTP behaviour shared by the network tools: retries, Retry-After, cache, offline mode, no network."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import httpx
import pytest
import respx

from cosci.net import parse_retry_after
from cosci.tools import arxiv, europe_pmc, pubmed
from cosci.tools.cache import cache_key
from cosci.tools.http import ApiClient, HttpPolicy, SourceError
from cosci.tools.pacing import RateLimiter

NETWORK_CALLS = {
    "pubmed_search": {"query": "fibrosis"},
    "europe_pmc_search": {"query": "fibrosis"},
    "arxiv_search": {"query": "fibrosis"},
    "web_fetch": {"url": "https://example.org/"},
}


def corpus_file(tmp_path: Path) -> str:
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"title": "Fibrosis and YAP", "abstract": "YAP drives fibrosis.",
                                "url": "https://example.org/yap"}) + "\n", encoding="utf-8")
    return str(path)


@respx.mock
async def test_429_then_success_honours_retry_after(make_registry, configure, recorded) -> None:
    route = respx.get(europe_pmc.SEARCH_URL).mock(side_effect=[
        httpx.Response(429, headers={"Retry-After": "0.2"}, text="slow down"),
        httpx.Response(200, text=recorded("europepmc/search_core.json")),
    ])
    started = time.monotonic()
    search = make_registry(configure(fulltext_per_search=0)).get("europe_pmc_search")  # the search request alone
    result = await search({"query": "cancer"})
    assert not result.is_error
    assert route.call_count == 2
    assert time.monotonic() - started >= 0.2  # waited what the server asked, not the 1 ms backoff


@respx.mock
async def test_persistent_5xx_gives_an_error_result_after_bounded_attempts(make_registry) -> None:
    route = respx.get(arxiv.API_URL).mock(return_value=httpx.Response(503, text="down"))
    result = await make_registry().get("arxiv_search")({"query": "fuzzing"})
    assert route.call_count == 3  # fast_policy.attempts
    assert result.is_error and result.source == "arxiv_search"
    assert result.text.startswith(
        "arxiv_search is unavailable: HTTP 503 from export.arxiv.org after 3 attempts")
    assert ("try pubmed_search, europe_pmc_search, semantic_scholar_search, clinical_trials_search or "
            "crossref_lookup instead.") in result.text


@respx.mock
async def test_long_retry_after_is_not_waited_for(make_registry) -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(hours=1), usegmt=True)
    route = respx.get(f"{pubmed.EUTILS}/esearch.fcgi").mock(
        return_value=httpx.Response(429, headers={"Retry-After": when}))
    result = await make_registry().get("pubmed_search")({"query": "x"})
    assert route.call_count == 1
    assert result.is_error and "HTTP 429" in result.text and "Retry-After" in result.text


@respx.mock
async def test_read_timeouts_are_retried(make_registry, recorded) -> None:
    route = respx.get(arxiv.API_URL).mock(side_effect=[
        httpx.ReadTimeout("read timed out"), httpx.Response(200, text=recorded("arxiv/query.xml"))])
    result = await make_registry().get("arxiv_search")({"query": "testing"})
    assert not result.is_error and route.call_count == 2


@respx.mock
async def test_4xx_is_not_retried(make_registry) -> None:
    route = respx.get(europe_pmc.SEARCH_URL).mock(return_value=httpx.Response(400, text="bad query syntax"))
    result = await make_registry().get("europe_pmc_search")({"query": "((("})
    assert route.call_count == 1
    assert result.is_error
    assert result.text.startswith("europe_pmc_search failed: HTTP 400 from www.ebi.ac.uk: bad query syntax")


@respx.mock
async def test_cache_hit_makes_no_second_request(make_registry, recorded, tmp_path: Path) -> None:
    route = respx.get(arxiv.API_URL).mock(return_value=httpx.Response(200, text=recorded("arxiv/query.xml")))
    first = await make_registry().get("arxiv_search")({"query": "testing"})
    # a new registry over the same session dir
    again = await make_registry().get("arxiv_search")({"query": "testing"})
    assert route.call_count == 1
    assert again == first
    assert list((tmp_path / "http_cache").rglob("*.json"))
    await make_registry().get("arxiv_search")({"query": "testing", "max_results": 3})  # another request
    assert route.call_count == 2


@respx.mock
async def test_identical_concurrent_searches_send_one_request(make_registry, recorded) -> None:
    route = respx.get(arxiv.API_URL).mock(return_value=httpx.Response(200, text=recorded("arxiv/query.xml")))
    tool = make_registry().get("arxiv_search")
    first, second = await asyncio.gather(tool({"query": "testing"}), tool({"query": "testing"}))
    assert route.call_count == 1
    assert first == second and not first.is_error


@respx.mock
async def test_error_answers_are_not_cached(make_registry, recorded) -> None:
    route = respx.get(arxiv.API_URL).mock(side_effect=[
        httpx.Response(500), httpx.Response(500), httpx.Response(500),
        httpx.Response(200, text=recorded("arxiv/query.xml"))])
    assert (await make_registry().get("arxiv_search")({"query": "testing"})).is_error
    assert not (await make_registry().get("arxiv_search")({"query": "testing"})).is_error
    assert route.call_count == 4


async def test_offline_mode_answers_unavailable_without_requests(make_registry, configure, tmp_path,
                                                                 fake_dns) -> None:
    registry = make_registry(configure(corpus_path=corpus_file(tmp_path), offline=True))
    with respx.mock(assert_all_called=False) as router:
        catch_all = router.route().mock(return_value=httpx.Response(200, text="{}"))
        for name, arguments in NETWORK_CALLS.items():
            result = await registry.get(name)(arguments)
            assert result.is_error and result.source == name
            assert result.text.startswith(f"{name} is unavailable (offline mode)")
            assert result.text.endswith("try local_corpus_search instead.")
    assert catch_all.call_count == 0
    assert fake_dns == []  # not even a DNS lookup
    local = await registry.get("local_corpus_search")({"query": "YAP fibrosis"})
    assert not local.is_error and local.urls == ("https://example.org/yap",)


@respx.mock
async def test_no_network_gives_clear_unavailable_results(make_registry, configure, tmp_path) -> None:
    respx.route().mock(side_effect=httpx.ConnectError("[Errno -3] Temporary failure in name resolution"))
    registry = make_registry(configure(corpus_path=corpus_file(tmp_path)))
    for name in ("pubmed_search", "europe_pmc_search", "arxiv_search"):
        result = await registry.get(name)({"query": "fibrosis"})
        assert result.is_error and result.source == name
        assert result.text.startswith(f"{name} is unavailable: cannot connect (ConnectError: [Errno -3]")
        assert "; try local_corpus_search, " in result.text  # the corpus is suggested first (design.md#tools)
    fetched = await registry.get("web_fetch")({"url": "https://example.org/"})
    assert fetched.is_error and fetched.text.startswith("web_fetch is unavailable: cannot connect")


async def test_offline_client_refuses_before_anything(tmp_path: Path) -> None:
    client = ApiClient("PubMed", None, HttpPolicy(), None, offline=True)
    with pytest.raises(SourceError) as err:
        await client.request("GET", "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi")
    assert err.value.kind == "offline"
    assert client.requests_sent == 0


def test_cache_key_ignores_secrets_and_parameter_order() -> None:
    a = cache_key("GET", "https://x.org/s", {"term": "a", "db": "pubmed", "api_key": "one"})
    b = cache_key("get", "https://x.org/s", {"db": "pubmed", "term": "a", "api_key": "two"})
    assert a == b
    assert a != cache_key("GET", "https://x.org/s", {"db": "pubmed", "term": "b"})
    assert a != cache_key("POST", "https://x.org/s", {"db": "pubmed", "term": "a"})


@pytest.mark.parametrize(("value", "expected"), [("3", 3.0), ("0.5", 0.5), (None, None), ("soon", None)])
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value) == expected


def test_parse_retry_after_http_date() -> None:
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    seconds = parse_retry_after(when)
    assert seconds is not None and 25 <= seconds <= 30


async def test_rate_limiter_spaces_requests() -> None:
    limiter = RateLimiter(20.0)  # 50 ms apart
    started = time.monotonic()
    for _ in range(4):
        await limiter.wait()
    assert time.monotonic() - started >= 0.15 - 0.01
    unlimited = RateLimiter(None)
    started = time.monotonic()
    for _ in range(100):
        await unlimited.wait()
    assert time.monotonic() - started < 0.05


async def test_a_request_that_cannot_connect_gives_its_rate_slot_back() -> None:
    """Offline, a search's second query to arXiv (one request per 3 s) waited 3 s to fail at once again: a request
    that never reached the API does not hold the limiter (bench/README.md, "The eighth stop")."""
    limiter = RateLimiter(1.0 / 3.0)
    slot = await limiter.wait()
    limiter.refund(slot)
    started = time.monotonic()
    second = await limiter.wait()
    assert time.monotonic() - started < 0.5
    third_due = limiter._next
    limiter.refund(slot)  # a stale slot: a later caller has reserved since, so nothing changes
    assert limiter._next == third_due and second >= slot


@respx.mock
async def test_two_queries_that_cannot_connect_do_not_wait_for_the_api_s_interval() -> None:
    respx.route().mock(side_effect=httpx.ConnectError("[Errno -2] Name or service not known"))
    client = ApiClient("arXiv", 1.0 / 3.0, HttpPolicy(), None)
    started = time.monotonic()
    for query in ("a", "b"):
        with pytest.raises(SourceError) as err:
            await client.request("GET", "https://export.arxiv.org/api/query", params={"search_query": query})
        assert err.value.kind == "unavailable" and "cannot connect" in str(err.value)
    assert time.monotonic() - started < 1.0 and client.requests_sent == 2
    await client.aclose()
