"""A literature tool is declared once, as data (design.md#tools, design.md#plugins): a throwaway tool declared
here, and nowhere else, is in the registry, config validation, the default allowlists, the search and failover
order, and the identifiers a cited URL reveals; the scripted fake searches in that order too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cosci import literature
from cosci.config.load import ConfigError, compose, validate
from cosci.literature import ToolDeclaration, UrlForm
from cosci.llm.fake.content import session_autopilot
from cosci.llm.fake.types import FakeCall
from cosci.llm.port.types import ToolSpec
from cosci.tools.catalog import BuildContext
from cosci.tools.common import LiteratureHit, SearchTool, search_parameters
from cosci.tools.http import HttpPolicy
from cosci.tools.registry import build_registry
from cosci.tools.sources import url_keys

NAME = "echo_search"
ALTERNATIVES = ("pubmed_search, europe_pmc_search, semantic_scholar_search, clinical_trials_search or "
                "crossref_lookup")


class EchoSearch(SearchTool):
    """Answers every query with one paper whose id is the query's length."""

    spec = ToolSpec(name=NAME, description="Echo papers for a test: one hit per query, id = the query's length.",
                    parameters=search_parameters("Anything."))
    label = "Echo"
    network = False
    fetch_kinds = ("ECHO",)

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        n = str(len(query))
        return [LiteratureHit(id=n, id_label="ECHO", title=f"On {query}", url=f"https://echo.example/paper/{n}",
                              abstract=query)], 1, ""


def build(ctx: BuildContext) -> EchoSearch:
    return EchoSearch(default_max_results=ctx.max_results, offline=ctx.offline)


@pytest.fixture
def echo() -> Iterator[ToolDeclaration]:
    declaration = literature.declare(ToolDeclaration(
        name=NAME, rank=15, build=f"{__name__}:build", url_forms=(UrlForm("ECHO", r"echo\.example/paper/(?P<id>\d+)"),),
        agents=("generation", "reflection")))
    yield declaration
    literature.withdraw(NAME)


def test_the_declared_tools_are_the_shipped_ones_in_one_order() -> None:
    assert literature.tool_names() == ("local_corpus_search", "pubmed_search", "europe_pmc_search",
                                       "semantic_scholar_search", "openalex_search", "arxiv_search",
                                       "clinical_trials_search", "crossref_lookup", "web_search", "mcp_tool_search",
                                       "web_fetch")
    assert literature.search_order(articles=True) == ("local_corpus_search", "pubmed_search", "europe_pmc_search",
                                                      "semantic_scholar_search", "openalex_search", "arxiv_search",
                                                      "crossref_lookup")
    assert literature.default_tools("ranking") == ()


@pytest.mark.usefixtures("echo")
def test_a_new_tool_is_known_to_config_validation_and_the_default_allowlists() -> None:
    config = validate(compose([]))
    assert NAME in config.agents["generation"].tools and NAME in config.agents["reflection"].tools
    assert NAME not in config.agents["evolution"].tools and config.agents["ranking"].tools == []
    only = validate(compose([f"agents.evolution.tools=[{NAME},web_fetch]"]))
    assert only.agents["evolution"].tools == [NAME, "web_fetch"]
    with pytest.raises(ConfigError, match=rf"unknown tool 'nope' \(known: default, .*{NAME}"):
        validate(compose(["agents.generation.tools=[default,nope]"]))


@pytest.mark.usefixtures("echo")
def test_a_new_tool_takes_its_rank_in_the_search_order() -> None:
    assert literature.search_order(articles=True)[:3] == ("local_corpus_search", NAME, "pubmed_search")
    assert literature.search_order()[-1] == "web_search"
    call = FakeCall(model="cosci-fake/strong", agent="generation", mode="literature", action=None, task_id=None,
                    messages=[{"role": "user", "content": "Find papers."}], tools=["pubmed_search", NAME],
                    tool_choice="auto", thinking=None)
    assert session_autopilot(call, {}, seed=0, n=1).tool_calls[0][0] == NAME  # the fake searches in that order


@pytest.mark.usefixtures("echo")
async def test_a_new_tool_is_built_offered_and_suggested(tmp_path: Path) -> None:
    config = validate(compose([]))
    policy = HttpPolicy(attempts=1, base_delay_seconds=0.001, max_delay_seconds=0.01, rate_limits=False)
    async with build_registry(config, tmp_path / "cache", policy=policy, environ={}) as registry:
        assert registry.names()[0] == NAME  # the first search registered: no corpus, rank 15
        assert NAME in registry.for_agent("generation") and NAME not in registry.for_agent("evolution")
        failed: Any = await registry.get("arxiv_search")({})
        assert failed.text.endswith(f"try {NAME}, {ALTERNATIVES} instead.")
        result = await registry.get(NAME)({"query": "abc"})
    assert result.records[0].ids == ("ECHO:3",)
    assert "ECHO:3" in url_keys("https://echo.example/paper/3/")


def test_a_name_is_declared_once(echo: ToolDeclaration) -> None:
    with pytest.raises(ValueError, match="declared twice"):
        literature.declare(ToolDeclaration(name=NAME, rank=99, build=f"{__name__}:build"))
    literature.declare(echo)  # the same declaration again is no change
    with pytest.raises(ValueError, match="no group 'id'"):
        UrlForm("ECHO", r"echo\.example/(\d+)")


@pytest.mark.parametrize(("data", "says"), [
    ({"x_search": {"rank": 5}}, "needs rank and build"),
    ({"x_search": {"rank": 5, "build": "pkg.mod"}}, "not 'package.module:function'"),
    ({"x_search": {"rank": "first", "build": "pkg.mod:build"}}, "rank 'first' is not a whole number"),
    ({"x_search": {"rank": 5, "build": "pkg.mod:build", "url_forms": [{"kind": "X", "pattern": "x/(\\d+)"}]}},
     "no group 'id'"),
    ({"x_search": {"rank": 5, "build": "pkg.mod:build", "agents": "generation"}}, "agents is not a list"),
    ({"x_search": {"rank": 5, "build": "pkg.mod:build", "colour": "red"}}, "and only"),
    (["x_search"], "not a mapping"),
])
def test_a_malformed_declaration_is_one_line_naming_the_file_and_tool(data: object, says: str) -> None:
    with pytest.raises(ValueError) as err:
        literature.parse(data, "plugin/tools.yaml")
    assert str(err.value).startswith("plugin/tools.yaml: ") and says in str(err.value) and "\n" not in str(err.value)


def test_the_shipped_declarations_name_builders_in_their_own_modules() -> None:
    shipped = literature.read(literature.SHIPPED)
    assert [d.name for d in shipped] == list(literature.tool_names())
    assert all(d.build.startswith("cosci.tools.") and d.build.endswith(":build") for d in shipped)
