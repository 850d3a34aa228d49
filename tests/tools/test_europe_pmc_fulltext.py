"""Open-access full text from Europe PMC ``fullTextXML`` (JATS), against the recorded bodies in
tests/fixtures/europepmc_fulltext (README there: PMC13261293, a JATS 1.4 case report with DOCTYPE; PMC13244564, a
one-line letter without DOCTYPE; an ``errorBean`` "not open access" envelope, recorded from the
``supplementaryFiles`` endpoint because no real ``fullTextXML`` error body was found, and with no recorded HTTP
status, so it is served here with 200 and, separately, a bare 404 is tried).

The recorded search (europepmc/search_core.json) has one hit with a PMCID in Europe PMC (PMC12124214, ``inEPMC``
"Y"); its own full text was not recorded, so its fullTextXML request is answered with PMC13261293's real body: the
assertions are about what cosci does with a real JATS answer, not about that article."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
import respx

from cosci.agents.article import Article
from cosci.tools import europe_pmc
from cosci.tools.jats import FULLTEXT_URL, matching_passages, parse_fulltext

CASE = "europepmc_fulltext/fulltextxml_PMC13261293.xml"
DISCUSSION = ("This concept explains why removal or effective treatment of the pulmonary lesion frequently results "
              "in regression of the clinical signs associated with HO")


def test_jats_bodies_become_sections(recorded: Callable[[str], str]) -> None:
    case = parse_fulltext(recorded(CASE))
    assert case is not None
    titles = [t for t, _ in case.sections]
    assert titles[:3] == ["Introduction", "Case History", "Discussion"] and "References" not in titles
    discussion = dict(case.sections)["Discussion"]
    assert DISCUSSION in discussion and "Halliwell and Ackerman 1974" in discussion
    assert "Brodey 1971" in case.text and "Brodey, R. S." not in case.text  # the reference list is back matter
    letter = parse_fulltext(recorded("europepmc_fulltext/fulltextxml_PMC13244564.xml"))
    assert letter is not None and "type 2 diabetes mellitus" in letter.text
    error = recorded("europepmc_fulltext/error_not_open_access_PMC3040717_supplementaryFiles.xml")
    assert parse_fulltext(error) is None
    with pytest.raises(ValueError, match="not XML"):
        parse_fulltext("<html><body>Service unavailable")


def test_passages_are_the_sections_matching_the_query(recorded: Callable[[str], str]) -> None:
    case = parse_fulltext(recorded(CASE))
    assert case is not None
    best = matching_passages(case, "removal pulmonary lesion regression clinical signs", 2, 200)
    assert len(best) == 2 and best[0][0] == "Discussion" and DISCUSSION in best[0][1]
    assert all(len(p.split()) <= 200 for _, p in best)
    assert matching_passages(case, "graphene superconductivity", 3, 200) == []


@respx.mock
async def test_a_search_hit_with_a_pmcid_carries_its_full_text(make_registry, recorded) -> None:
    respx.get(europe_pmc.SEARCH_URL).mock(return_value=httpx.Response(200, text=recorded("europepmc/search_core.json")))
    full = respx.get(FULLTEXT_URL.format(pmcid="PMC12124214")).mock(
        return_value=httpx.Response(200, text=recorded(CASE)))
    result = await make_registry().get("europe_pmc_search")({"query": "pulmonary lesion regression", "max_results": 5})
    assert not result.is_error and full.call_count == 1  # only the hit with a PMCID in Europe PMC
    assert result.text.startswith('Europe PMC: 5 of 5059039 results for "pulmonary lesion regression" '
                                  "(open-access full text of 1 read).")
    assert "Full text (open access), the passages matching the query:\n   - [Discussion] " in result.text
    record = next(r for r in result.records if "PMID:39709208" in r.ids)
    assert DISCUSSION in record.text and len(record.text) > 10_000
    assert all(DISCUSSION not in r.text for r in result.records if r is not record)


@respx.mock
@pytest.mark.parametrize("answer", ["error_bean", "404"])
async def test_an_article_europe_pmc_does_not_serve_keeps_its_abstract(make_registry, recorded, answer) -> None:
    respx.get(europe_pmc.SEARCH_URL).mock(return_value=httpx.Response(200, text=recorded("europepmc/search_core.json")))
    error = recorded("europepmc_fulltext/error_not_open_access_PMC3040717_supplementaryFiles.xml")
    respx.get(FULLTEXT_URL.format(pmcid="PMC12124214")).mock(
        return_value=httpx.Response(200, text=error) if answer == "error_bean" else httpx.Response(404))
    result = await make_registry().get("europe_pmc_search")({"query": "cancer", "max_results": 5})
    assert not result.is_error and result.text.startswith('Europe PMC: 5 of 5059039 results for "cancer".')
    assert "Full text" not in result.text


@respx.mock
async def test_no_full_text_is_read_when_the_config_says_none(make_registry, configure, recorded) -> None:
    respx.get(europe_pmc.SEARCH_URL).mock(return_value=httpx.Response(200, text=recorded("europepmc/search_core.json")))
    result = await make_registry(configure(fulltext_per_search=0)).get("europe_pmc_search")({"query": "cancer"})
    assert not result.is_error and "Full text" not in result.text  # respx would fail any fullTextXML request


@respx.mock
async def test_the_observation_article_text_is_the_full_text_when_there_is_one(make_registry, recorded) -> None:
    respx.get(europe_pmc.SEARCH_URL).mock(return_value=httpx.Response(200, text=recorded("europepmc/search_core.json")))
    respx.get(FULLTEXT_URL.format(pmcid="PMC12124214")).mock(return_value=httpx.Response(200, text=recorded(CASE)))
    result = await make_registry().get("europe_pmc_search")({"query": "pulmonary lesion regression"})
    record = next(r for r in result.records if "PMID:39709208" in r.ids)
    prompt = Article(record, "independent").prompt_text()  # what the observation review reads
    assert DISCUSSION in prompt and prompt.index("Case History") < prompt.index(DISCUSSION)
