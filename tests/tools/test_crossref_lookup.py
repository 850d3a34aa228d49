"""crossref_lookup against recorded Crossref bodies (tests/fixtures/crossref; README there names each request):
a work, a work with an ``updated-by`` correction, work lists (normal and empty), a 404 and a 400.

No real Crossref body of a retracted paper or of a retraction notice exists; the PNAS record's ``updated-by`` has
the same structure, so the retraction cases below change only its documented ``type`` value (``retraction``) or
move the same entry to ``update-to``."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest
import respx

from cosci.tools import crossref

PNAS = "crossref/work_10.1073_pnas.1414271111_updated_by_correction.json"


def test_a_work_and_its_correction(recorded: Callable[[str], str]) -> None:
    hit = crossref.parse_work(json.loads(recorded(PNAS)))
    assert hit is not None
    assert hit.title == ("Developing functional musculoskeletal tissues through hypoxia and lysyl oxidase-induced "
                         "collagen cross-linking")
    assert (hit.journal, hit.year, hit.url) == ("Proceedings of the National Academy of Sciences", 2014,
                                                "https://doi.org/10.1073/pnas.1414271111")
    assert (hit.retraction, hit.notice) == ("corrected", "Crossref updated-by: correction 10.1073/pnas.1507001112")


def test_a_work_without_notices(recorded: Callable[[str], str]) -> None:
    hit = crossref.parse_work(json.loads(recorded("crossref/work_10.1016_j.xgen.2025.100814.json")))
    assert hit is not None and hit.doi == "10.1016/j.xgen.2025.100814" and hit.retraction == ""


def test_retraction_types_on_the_recorded_structure(recorded: Callable[[str], str]) -> None:
    message = json.loads(recorded(PNAS))["message"]
    (entry,) = message["updated-by"]
    retracted = {**message, "updated-by": [{**entry, "type": "retraction"}]}
    assert crossref.updates_of(retracted) == ("retracted", "Crossref updated-by: retraction 10.1073/pnas.1507001112")
    both = {**message, "updated-by": [entry, {**entry, "type": "retraction"}]}
    assert crossref.updates_of(both)[0] == "retracted"  # the stronger flag wins
    notice = {**message, "updated-by": [], "update-to": [{**entry, "type": "retraction"}]}
    assert crossref.updates_of(notice)[0] == "retraction_notice"


def test_work_lists(recorded: Callable[[str], str]) -> None:
    hits, total = crossref.parse_works(json.loads(recorded("crossref/works_query_ecology_rows2.json")))
    assert total == 586628 and len(hits) == 2
    assert crossref.parse_works(json.loads(recorded("crossref/works_query_title_no_results.json"))) == ([], 0)
    (top,), _ = crossref.parse_works(json.loads(recorded("crossref/works_query_title_paperqa_rows1.json")))
    assert top.doi == "10.1093/jamiaopen/ooae021"  # the recorded top hit is not the title asked for
    with pytest.raises(ValueError):
        crossref.parse_works(json.loads(recorded("crossref/error_400_validation_failure.json")))


def test_a_doi_query_is_a_lookup() -> None:
    assert crossref.as_doi("https://doi.org/10.1073/pnas.1414271111") == "10.1073/pnas.1414271111"
    assert crossref.as_doi("PaperQA retrieval agent") is None


@respx.mock
async def test_doi_lookup_sends_mailto(make_registry, recorded, base_config) -> None:
    apis = base_config.tools.apis.model_copy(update={"crossref_mailto": "lab@example.org"})
    route = respx.get(f"{crossref.WORKS_URL}/10.1073/pnas.1414271111").mock(
        return_value=httpx.Response(200, text=recorded(PNAS)))
    result = await make_registry(apis=apis).get("crossref_lookup")({"query": "10.1073/pnas.1414271111"})
    assert route.calls.last.request.url.params["mailto"] == "lab@example.org"
    assert not result.is_error
    assert "Notice: CORRECTED (Crossref updated-by: correction 10.1073/pnas.1507001112)" in result.text
    assert result.records[0].retraction == "corrected"


@respx.mock
async def test_search_empty_and_errors(make_registry, recorded) -> None:
    tool = make_registry().get("crossref_lookup")
    respx.get(crossref.WORKS_URL).mock(return_value=httpx.Response(
        200, text=recorded("crossref/works_query_title_no_results.json")))
    empty = await tool({"query": "abs12032jsdafn"})
    assert not empty.is_error and empty.text.startswith('Crossref: no results for "abs12032jsdafn"')
    assert "mailto" not in respx.calls.last.request.url.params  # crossref_mailto: null
    respx.get(f"{crossref.WORKS_URL}/10.48550/arxiv.2312.07559").mock(return_value=httpx.Response(
        404, text=recorded("crossref/error_404_resource_not_found.txt")))
    missing = await tool({"query": "10.48550/arxiv.2312.07559"})
    assert missing.is_error and "HTTP 404 from api.crossref.org: Resource not found." in missing.text
    respx.get(f"{crossref.WORKS_URL}/10.1234/x").mock(return_value=httpx.Response(429))
    limited = await tool({"query": "10.1234/x"})
    assert limited.is_error and "crossref_lookup is unavailable: HTTP 429 from api.crossref.org after 3" in limited.text


async def test_offline_it_answers_unavailable(make_registry) -> None:
    result = await make_registry(offline=True).get("crossref_lookup")({"query": "10.1234/x"})
    assert result.is_error and result.text.startswith("crossref_lookup is unavailable (offline mode)")
