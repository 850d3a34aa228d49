"""pubmed_search against recorded NCBI E-utilities bodies (tests/fixtures/pubmed, see its README)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import respx

from cosci.tools import pubmed
from cosci.tools.common import urls_in

ESEARCH = f"{pubmed.EUTILS}/esearch.fcgi"
EFETCH = f"{pubmed.EUTILS}/efetch.fcgi"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ESUMMARY = f"{pubmed.EUTILS}/esummary.fcgi"


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_parse_esearch_reads_ids_and_count() -> None:
    ids, count = pubmed.parse_esearch(json.loads(fixture_text("pubmed/esearch.json")))
    assert count == 603
    assert len(ids) == 20
    assert ids[:3] == ["36374290", "36370080", "36363931"]
    assert ids[-1] == "35475719"


@pytest.mark.parametrize("body", [{"esearchresult": {"ERROR": "Invalid query"}},
                                  {"error": "API rate limit exceeded"}, {"header": {}}, []])
def test_parse_esearch_rejects_errors(body: object) -> None:
    with pytest.raises(ValueError):
        pubmed.parse_esearch(body)


def test_parse_efetch_reads_both_articles() -> None:
    records = pubmed.parse_efetch(fixture_text("pubmed/efetch.xml"))
    assert [r.id for r in records] == ["11748933", "11700088"]
    first, second = records
    assert first.title.startswith("Is cryopreservation a homogeneous process? Ultrastructure and motility")
    assert first.title.endswith("spermatozoa of Diplodus puntazzo (Cetti).")
    assert first.abstract.startswith(
        "This study subdivides the cryopreservation procedure for Diplodus puntazzo")
    assert "(P < 0.001)" in first.abstract  # &lt; entities decoded
    assert first.abstract.endswith("to better understand the process of sperm damage.")
    assert first.journal == "Cryobiology"
    assert first.year == 2001
    assert first.doi == "10.1006/cryo.2001.2328"
    assert first.url == "https://pubmed.ncbi.nlm.nih.gov/11748933/"
    assert first.authors[:2] == ("Taddei AR", "Barbato F")
    assert second.title == "Proton MRI of (13)C distribution by J and chemical shift editing."
    assert second.journal == "Journal of magnetic resonance (San Diego, Calif. : 1997)"
    assert second.doi == "10.1006/jmre.2001.2429"
    assert second.year == 2001
    assert second.abstract.startswith("The sensitivity of (13)C NMR imaging can be considerably favored")


def test_parse_efetch_rejects_bad_xml() -> None:
    with pytest.raises(ValueError, match="malformed"):
        pubmed.parse_efetch("<PubmedArticleSet><PubmedArticle>")
    with pytest.raises(ValueError, match="PubmedArticleSet"):
        pubmed.parse_efetch("<eFetchResult><ERROR>Empty id list</ERROR></eFetchResult>")


def test_parse_esummary_reads_the_docsum() -> None:
    (record,) = pubmed.parse_esummary(json.loads(fixture_text("pubmed/esummary.json")))
    assert record.id == "27933103"
    assert record.title == "Programmatic conversion of crystal structures into 3D printable files using Jmol."
    assert record.journal == "Journal of cheminformatics"
    assert record.year == 2016
    assert record.doi == "10.1186/s13321-016-0181-z"
    assert record.url == "https://pubmed.ncbi.nlm.nih.gov/27933103/"
    assert record.authors[0] == "Scalfani VF"
    assert record.abstract == ""


@respx.mock
async def test_tool_runs_esearch_then_efetch(make_registry, monkeypatch) -> None:
    monkeypatch.setenv("NCBI_API_KEY", "test-ncbi-key")
    search = respx.get(ESEARCH).mock(return_value=httpx.Response(
        200, text=fixture_text("pubmed/esearch.json"), headers={"content-type": "application/json"}))
    fetch = respx.get(EFETCH).mock(return_value=httpx.Response(200, text=fixture_text("pubmed/efetch.xml"),
                                                               headers={"content-type": "text/xml"}))
    tool = make_registry().get("pubmed_search")
    result = await tool({"query": "Darwin[au]", "max_results": 5})

    assert not result.is_error
    assert result.source == "pubmed_search"
    sent = search.calls.last.request.url.params
    assert sent["term"] == "Darwin[au]" and sent["retmode"] == "json" and sent["retmax"] == "5"
    assert sent["api_key"] == "test-ncbi-key"
    fetched = fetch.calls.last.request.url.params
    assert fetched["id"] == "36374290,36370080,36363931,36342372,36315101"
    assert fetched["retmode"] == "xml" and fetched["db"] == "pubmed"
    assert result.text.startswith('PubMed: 2 of 603 results for "Darwin[au]".')
    assert "1. Is cryopreservation a homogeneous process?" in result.text
    assert "PMID: 11748933 | Journal: Cryobiology | Year: 2001 | DOI: 10.1006/cryo.2001.2328" in result.text
    assert result.urls == ("https://pubmed.ncbi.nlm.nih.gov/11748933/", "https://pubmed.ncbi.nlm.nih.gov/11700088/")
    assert result.urls == urls_in(result.text)


@respx.mock
async def test_efetch_failure_falls_back_to_esummary(make_registry) -> None:
    respx.get(ESEARCH).mock(return_value=httpx.Response(200, text=fixture_text("pubmed/esearch.json")))
    respx.get(EFETCH).mock(return_value=httpx.Response(200, text="<html>maintenance</html>"))
    respx.get(ESUMMARY).mock(return_value=httpx.Response(200, text=fixture_text("pubmed/esummary.json")))
    result = await make_registry().get("pubmed_search")({"query": "jmol"})
    assert not result.is_error
    assert "abstracts unavailable" in result.text
    assert "Programmatic conversion of crystal structures into 3D printable files using Jmol." in result.text
    assert result.urls == ("https://pubmed.ncbi.nlm.nih.gov/27933103/",)


@respx.mock
async def test_no_hits_is_not_an_error(make_registry) -> None:
    body = {"header": {"type": "esearch", "version": "0.3"},
            "esearchresult": {"count": "0", "retmax": "0", "retstart": "0", "idlist": []}}
    respx.get(ESEARCH).mock(return_value=httpx.Response(200, json=body))
    result = await make_registry().get("pubmed_search")({"query": "zzzz qqqq"})
    assert not result.is_error
    assert "no results" in result.text
    assert result.urls == ()


@respx.mock
async def test_bad_json_is_an_error_result(make_registry) -> None:
    respx.get(ESEARCH).mock(return_value=httpx.Response(200, text="<html>not json</html>"))
    result = await make_registry().get("pubmed_search")({"query": "fibrosis"})
    assert result.is_error and result.source == "pubmed_search"
    assert "not valid JSON" in result.text
    assert result.text.endswith("try europe_pmc_search, semantic_scholar_search, arxiv_search, "
                                "clinical_trials_search or crossref_lookup instead.")


@respx.mock
async def test_api_key_never_reaches_error_text_or_cache(make_registry, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("NCBI_API_KEY", "ncbi-secret-123")
    respx.get(ESEARCH).mock(return_value=httpx.Response(
        400, json={"error": "API key invalid", "api-key": "ncbi-secret-123", "type": "invalid"}))
    result = await make_registry().get("pubmed_search")({"query": "x"})
    assert result.is_error and "API key invalid" in result.text
    assert "ncbi-secret-123" not in result.text and "[redacted]" in result.text
    respx.get(ESEARCH).mock(return_value=httpx.Response(200, text=fixture_text("pubmed/esearch.json")))
    respx.get(EFETCH).mock(return_value=httpx.Response(200, text=fixture_text("pubmed/efetch.xml")))
    assert not (await make_registry().get("pubmed_search")({"query": "y"})).is_error
    stored = "".join(p.read_text() for p in (tmp_path / "http_cache").rglob("*.json"))
    assert stored and "ncbi-secret-123" not in stored
