"""Issue 14: tools return citable records (own URL, identifiers, text); a citation is checked against them.

Recorded bodies only (tests/fixtures): NCBI efetch/esearch, the arXiv feed; a web page served by respx.
"""

from __future__ import annotations

import httpx
import pytest
import respx

from cosci.grounding.evidence import check_items
from cosci.records import Citation, Evidence
from cosci.tools import arxiv
from cosci.tools.sources import url_keys
from tests.tools.test_web_fetch import PAGE, PINNED

EUTILS = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
ABSTRACT_START = ("This study subdivides the cryopreservation procedure for Diplodus puntazzo spermatozoa into "
                  "three key phases")


def mock_pubmed(recorded) -> None:
    respx.get(f"{EUTILS}/esearch.fcgi").mock(return_value=httpx.Response(
        200, text=recorded("pubmed/esearch.json"), headers={"content-type": "application/json"}))
    respx.get(f"{EUTILS}/efetch.fcgi").mock(return_value=httpx.Response(
        200, text=recorded("pubmed/efetch.xml"), headers={"content-type": "text/xml"}))


@pytest.mark.parametrize(("url", "key"), [
    ("https://pubmed.ncbi.nlm.nih.gov/11748933/", "PMID:11748933"),
    ("https://europepmc.org/article/MED/11748933", "PMID:11748933"),
    ("https://europepmc.org/article/PMC/PMC1234567", "PMCID:PMC1234567"),
    ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1234567/", "PMCID:PMC1234567"),
    ("https://doi.org/10.1006/CRYO.2001.2328", "DOI:10.1006/cryo.2001.2328"),
    ("https://arxiv.org/pdf/2405.13786v1", "arXiv:2405.13786"),
    ("http://arxiv.org/abs/2405.13786", "arXiv:2405.13786"),
    ("https://arxiv.org/pdf/2405.13786v2.pdf", "arXiv:2405.13786"),
    ("https://arxiv.org/abs/hep-th/9901001v3/", "arXiv:hep-th/9901001"),
    ("https://europepmc.org/abstract/med/11748933", "PMID:11748933"),
    ("https://europepmc.org/article/PMC/1234567", "PMCID:PMC1234567"),
    ("https://www.ncbi.nlm.nih.gov/pmc/articles/pmc1234567", "PMCID:PMC1234567"),
    ("https://pubmed.ncbi.nlm.nih.gov/%31%32/", "PMID:12"),
])
def test_cited_url_forms_name_the_record(url: str, key: str) -> None:
    assert key in url_keys(url)


@respx.mock
async def test_pubmed_records_carry_ids_and_full_abstracts(make_registry, recorded) -> None:
    mock_pubmed(recorded)
    result = await make_registry().get("pubmed_search")({"query": "Darwin[au]", "max_results": 5})
    first = result.records[0]
    assert first.url == "https://pubmed.ncbi.nlm.nih.gov/11748933/"
    assert first.ids == ("PMID:11748933", "DOI:10.1006/cryo.2001.2328") and first.source_id == "PMID:11748933"
    assert first.text.startswith("Is cryopreservation a homogeneous process?") and ABSTRACT_START in first.text

    copied = Citation(url="https://doi.org/10.1006/cryo.2001.2328", excerpt=ABSTRACT_START)  # the DOI form
    slipped = Citation(url=first.url, excerpt=ABSTRACT_START.replace("subdivides", "subdivide"))  # one letter
    paraphrased = Citation(url=first.url, excerpt="The authors split sperm freezing into three stages.")
    invented = Citation(url=first.url, excerpt="Cryopreservation doubled the fertilisation rate of sea bream.")
    never = Citation(url="https://pubmed.ncbi.nlm.nih.gov/99999999/", excerpt=ABSTRACT_START)
    kept, dropped, counts = check_items([copied, slipped, paraphrased, invented, never], result.records)
    assert [c.status for c in kept] == ["verified", "misquoted", "misquoted", "misquoted"]
    assert kept[1].mismatch == "wording: the source has 'subdivides', the excerpt 'subdivide'"
    assert {c.source_id for c in kept} == {"PMID:11748933"}
    assert dropped == [never.url]
    assert counts.to_dict() == {"proposed": 5, "verified": 1, "misquoted": 3, "unseen": 1}


@respx.mock
async def test_pubmed_fetch_reads_one_record_by_pmid(make_registry, recorded) -> None:
    route = respx.get(f"{EUTILS}/efetch.fcgi").mock(return_value=httpx.Response(
        200, text=recorded("pubmed/efetch.xml"), headers={"content-type": "text/xml"}))
    tool = make_registry().get("pubmed_search")
    record = await tool.fetch("PMID:11748933")
    assert record is not None and ABSTRACT_START in record.text
    assert route.calls.last.request.url.params["id"] == "11748933"
    assert await tool.fetch("arXiv:2405.13786") is None  # not a kind PubMed reads: no request
    assert route.call_count == 1


@respx.mock
async def test_arxiv_fetch_uses_id_list(make_registry, recorded) -> None:
    route = respx.get(arxiv.API_URL).mock(return_value=httpx.Response(200, text=recorded("arxiv/query.xml")))
    record = await make_registry().get("arxiv_search").fetch("arXiv:2202.12139")
    assert record is not None and record.ids[0].startswith("arXiv:") and record.text
    assert route.calls.last.request.url.params["id_list"] == "2202.12139"


@respx.mock
async def test_a_link_inside_a_fetched_page_is_not_a_citation_source(make_registry) -> None:
    respx.get(f"{PINNED}/article").mock(
        return_value=httpx.Response(200, text=PAGE, headers={"content-type": "text/html; charset=utf-8"}))
    result = await make_registry().get("web_fetch")({"url": "http://example.org/article"})
    assert "https://data.example.org/yap-study" in result.urls  # the model reads the link...
    assert [r.url for r in result.records] == ["http://example.org/article"]  # ...but only the page is a record
    page = Evidence(claim="YAP", url="http://example.org/article",
                    excerpt="Mechanical stiffness activates YAP in lung fibroblasts")
    link = Evidence(claim="data", url="https://data.example.org/yap-study",
                    excerpt="Mechanical stiffness activates YAP in lung fibroblasts")
    kept, dropped, _ = check_items([page, link], result.records)
    assert [(e.url, e.status) for e in kept] == [("http://example.org/article", "verified")]
    assert dropped == ["https://data.example.org/yap-study"]


async def test_offline_fetch_returns_none_without_a_request(make_registry) -> None:
    tool = make_registry(offline=True).get("pubmed_search")
    assert await tool.fetch("PMID:11748933") is None
