"""The registry: conditional registration, per-agent allowlists (seed 004), suggestions, tool specs."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import respx

from cosci.tools.common import MAX_RESULTS_CAP, max_results_argument, urls_in
from cosci.tools.registry import build_registry
from cosci.tools.web_search import BRAVE_URL, TAVILY_URL

LITERATURE = {"web_fetch", "pubmed_search", "arxiv_search", "europe_pmc_search", "semantic_scholar_search",
              "clinical_trials_search", "crossref_lookup"}
"""The tools offered without keys or a corpus (openalex_search needs OPENALEX_API_KEY)."""


def corpus(tmp_path: Path) -> str:
    path = tmp_path / "corpus.jsonl"
    path.write_text(json.dumps({"title": "A", "abstract": "b c", "url": "https://example.org/a"}) + "\n")
    return str(path)


def test_default_registry_has_no_web_search_or_corpus(make_registry) -> None:
    registry = make_registry()
    assert registry.names() == ["pubmed_search", "europe_pmc_search", "semantic_scholar_search", "arxiv_search",
                                "clinical_trials_search", "crossref_lookup", "web_fetch"]
    with pytest.raises(KeyError, match="web_search"):
        registry.get("web_search")


@pytest.mark.parametrize("var", ["TAVILY_API_KEY", "BRAVE_API_KEY"])
def test_web_search_registered_only_with_a_key(make_registry, monkeypatch, var: str) -> None:
    monkeypatch.setenv(var, "test-key")
    registry = make_registry()
    assert "web_search" in registry.names()
    assert "web_search" in registry.for_agent("generation")


def test_allowlists_per_agent(make_registry, configure, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "test-key")
    registry = make_registry(configure(corpus_path=corpus(tmp_path)))
    full = LITERATURE | {"web_search", "local_corpus_search"}
    for agent in ("generation", "reflection", "evolution"):
        assert set(registry.for_agent(agent)) == full
    for agent in ("ranking", "proximity", "metareview", "goal_parsing"):
        assert registry.for_agent(agent) == {}
    with pytest.raises(KeyError, match="unknown agent"):
        registry.for_agent("critic")


def test_unregistered_names_are_silently_absent(make_registry) -> None:
    tools = make_registry().for_agent("generation")
    assert set(tools) == LITERATURE  # no key, no corpus: web_search and local_corpus_search left out


def test_specs_are_valid_tool_schemas(make_registry, configure, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "test-key")
    registry = make_registry(configure(corpus_path=corpus(tmp_path)))
    for name in registry.names():
        spec = registry.get(name).spec
        assert spec.name == name and len(spec.description) > 40
        params = spec.parameters
        assert params["type"] == "object" and params["additionalProperties"] is False
        key = "url" if name == "web_fetch" else "query"
        assert params["required"] == [key] and params["properties"][key]["type"] == "string"
        if key == "query":
            assert params["properties"]["max_results"]["type"] == "integer"


async def test_search_tools_reject_bad_arguments(make_registry) -> None:
    tool = make_registry().get("arxiv_search")
    for bad in ({}, {"query": ""}, {"query": 3}, {"query": "x", "max_results": "many"},
                {"query": "x", "max_results": True}, {"query": "x", "max_results": float("inf")},
                {"query": "x", "max_results": 2.5}):
        result = await tool(bad)
        assert result.is_error and result.source == "arxiv_search"
        assert result.text.startswith("arxiv_search failed: invalid arguments:")
        assert result.text.endswith("try pubmed_search, europe_pmc_search, semantic_scholar_search, "
                                    "clinical_trials_search or crossref_lookup instead.")


def test_max_results_argument() -> None:
    assert max_results_argument({}, 5) == 5
    assert max_results_argument({"max_results": "3"}, 5) == 3
    assert max_results_argument({"max_results": 500}, 5) == MAX_RESULTS_CAP
    assert max_results_argument({"max_results": 0}, 5) == 1
    assert max_results_argument({"max_results": 4.0}, 5) == 4


def test_urls_in_keeps_balanced_brackets_and_drops_punctuation() -> None:
    text = ("See https://doi.org/10.1016/S0140-6736(24)02600-X. Also (https://x.org/a), "
            "<https://y.org/b> and https://x.org/a again; https://z.org/c?q=1&r=2.")
    assert urls_in(text) == ("https://doi.org/10.1016/S0140-6736(24)02600-X", "https://x.org/a",
                             "https://y.org/b", "https://z.org/c?q=1&r=2")


async def test_web_search_sends_the_key_in_a_header_not_the_cache(make_registry, monkeypatch,
                                                                   tmp_path) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-secret")
    with respx.mock:
        route = respx.post(TAVILY_URL).mock(return_value=httpx.Response(503))
        result = await make_registry().get("web_search")({"query": "metformin glioblastoma"})
    assert result.is_error
    assert result.text.startswith("web_search is unavailable: HTTP 503 from api.tavily.com")
    sent = route.calls.last.request
    assert sent.headers["authorization"] == "Bearer tvly-secret"
    assert json.loads(sent.content)["query"] == "metformin glioblastoma"
    assert "tvly-secret" not in sent.content.decode()


async def test_brave_backend_query(make_registry, monkeypatch) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", "brave-secret")
    with respx.mock:
        route = respx.get(BRAVE_URL).mock(return_value=httpx.Response(401, text="unauthorized"))
        result = await make_registry().get("web_search")({"query": "crispr screen", "max_results": 3})
    request = route.calls.last.request
    assert request.headers["x-subscription-token"] == "brave-secret"
    assert request.url.params["q"] == "crispr screen" and request.url.params["count"] == "3"
    assert result.is_error and "HTTP 401" in result.text


async def test_registry_closes_its_clients(base_config, tmp_path) -> None:
    async with build_registry(base_config, tmp_path / "cache") as registry:
        assert registry.names()
    await registry.aclose()  # idempotent
