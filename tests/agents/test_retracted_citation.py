"""A generation loop whose tools return a retracted paper (design.md#retractions): the hypothesis's citation is
marked in the record, the leaderboard and the HTML report, and the overview's claim map never counts it as a
source.

The tools are the real ``europe_pmc_search`` and ``crossref_lookup`` over respx-replayed recorded bodies
(tests/fixtures; README there): the Europe PMC hit whose ``pubType`` says "retraction of publication" (a real
retraction notice), and for the session's Crossref check the recorded PNAS work whose ``updated-by`` entry is a
correction. No real Crossref body of a retracted paper exists, so the second test changes only that entry's
documented ``type`` value to ``retraction``. The model's answers are scripted here."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import httpx
import respx

from cosci.agents import AgentDeps
from cosci.agents.generation import GenerationAgent
from cosci.agents.overview import OverviewMaterial, latest_reviews
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.records import Evidence, RecordReview
from cosci.report.render import write_report
from cosci.session.runtime import SessionRuntime
from cosci.tools import crossref, europe_pmc
from cosci.tools.base import Tool
from cosci.tools.http import ApiClient, HttpPolicy
from cosci.tools.retractions import RetractionCheck
from tests.contract import CONTRACT

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
POLICY = HttpPolicy(attempts=1, base_delay_seconds=0.001, max_delay_seconds=0.01, rate_limits=False)

HYP = {"title": "Psychological flexibility and wellbeing after cancer",
       "statement": "Psychological flexibility predicts wellbeing in people living with and beyond cancer.",
       "mechanism": "Acceptance lowers experiential avoidance, which improves functioning.",
       "entities": ["ACT"], "anticipated_outcomes": "Higher flexibility, higher wellbeing.",
       "novelty_argument": "Not tested in survivors.", **CONTRACT}


@dataclass
class ToolsWithCheck:
    """The session registry's two faces an agent uses: tools by agent, and the retraction check."""

    tools: dict[str, Tool]
    retractions: RetractionCheck

    def for_agent(self, agent: str) -> dict[str, Tool]:
        return dict(self.tools)


def body(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def agent(runtime: SessionRuntime) -> tuple[GenerationAgent, RetractionCheck]:
    epmc = europe_pmc.EuropePmcSearch(ApiClient("Europe PMC", None, POLICY, None))
    cref = crossref.CrossrefLookup(ApiClient("Crossref", None, POLICY, None), None)
    check = RetractionCheck([(cref, ("DOI",)), (epmc, ("PMID", "PMCID", "DOI"))])
    deps: AgentDeps = replace(runtime.deps, tools=ToolsWithCheck({epmc.name: epmc}, check))
    return GenerationAgent(deps), check


async def generate(planned: SessionRuntime, fake: FakeBackend, citations: list[dict[str, str]]) -> str:
    gen, _ = agent(planned)
    fake.script(FakeReply.record("europe_pmc_search", query="psychological flexibility cancer"), agent="generation")
    fake.script(FakeReply.record("record_hypothesis", **HYP, citations=citations), agent="generation")
    tid = planned.store.tasks.enqueue("generation", "CreateInitialHypotheses", "g0")
    task = planned.store.tasks.get(tid)
    assert task is not None
    result = await gen.execute(task)
    assert result.kind == "hypothesis_created"
    return result.hypothesis_ids[0]


@respx.mock
async def test_a_retraction_notice_from_the_search_is_marked_everywhere(planned: SessionRuntime,
                                                                         fake: FakeBackend) -> None:
    respx.get(europe_pmc.SEARCH_URL).mock(return_value=httpx.Response(
        200, text=body("europepmc_fulltext/search_hit_retraction_of_publication.json")))
    respx.get(url__startswith=crossref.WORKS_URL).mock(return_value=httpx.Response(
        404, text=body("crossref/error_404_resource_not_found.txt")))
    url = "https://europepmc.org/article/MED/40517245"
    excerpt = "Overexpression of LncRNA PIK3CD-AS1 promotes expression of LATS1"
    hid = await generate(planned, fake, [{"url": url, "title": "t", "excerpt": excerpt},
                                         {"url": "https://pubmed.ncbi.nlm.nih.gov/40517245/", "excerpt": excerpt}])
    h = planned.store.hypotheses.get(hid)
    assert h is not None
    (cited,) = h.citations  # the PubMed page names the same record (PMID): one citation
    assert (cited["status"], cited["retraction"]) == ("verified", "retraction_notice")
    assert cited["retraction_notice"] == "Europe PMC publication type: retraction of publication"
    assert (h.grounding, h.retracted_citations) == ("ungrounded", 1)  # a retracted source grounds nothing

    material = OverviewMaterial(planned.store, [h], latest_reviews(planned.store, [h]))
    assert material.sources == {}  # the claim map has no such source to count as support
    summary = material.retraction_summary()
    assert [s["source_id"] for s in summary["retracted_sources"]] == ["PMID:40517245"]

    html = write_report(planned.store, planned.home.path).read_text(encoding="utf-8")
    assert '<span class="mark bad retracted"' in html and "retraction notice</span>" in html
    assert "1 retracted</span>" in html  # the leaderboard's grounding cell

    evidence = Evidence(claim="c", url=url, excerpt=excerpt, status="verified", source_id="PMID:40517245",
                        retraction="retraction_notice", retraction_notice=cited["retraction_notice"])
    review = RecordReview(verdict="missing_piece", evidence=[evidence], notes="rests on the notice")
    planned.store.hypotheses.add_review(hid, review, task_id="t-review")
    material = OverviewMaterial(planned.store, [h], latest_reviews(planned.store, [h]))
    block = material.block(h, "quoted", "")
    assert "Flag: the latest review's main evidence is retracted" in block
    assert "Retracted sources (never evidence, do not cite them as support)" in block
    assert [r["hypothesis_id"] for r in material.retraction_summary()["reviews_on_retracted_evidence"]] == [hid]


@respx.mock
async def test_the_session_check_marks_a_retracted_doi_once(planned: SessionRuntime, fake: FakeBackend) -> None:
    respx.get(europe_pmc.SEARCH_URL).mock(return_value=httpx.Response(200, text=body("europepmc/search_core.json")))
    work = json.loads(body("crossref/work_10.1073_pnas.1414271111_updated_by_correction.json"))
    work["message"]["updated-by"][0]["type"] = "retraction"  # see module docstring
    doi_route = respx.get(f"{crossref.WORKS_URL}/10.1111/bjhp.12807").mock(
        return_value=httpx.Response(200, json=work))
    url = "https://europepmc.org/article/MED/40468710"
    excerpt = "psychological flexibility, the key construct in the Acceptance and Commitment Therapy (ACT) model"
    hid = await generate(planned, fake, [{"url": url, "title": "t", "excerpt": excerpt}])
    h = planned.store.hypotheses.get(hid)
    assert h is not None
    (cited,) = h.citations
    assert (cited["status"], cited["retraction"]) == ("verified", "retracted")
    assert cited["retraction_notice"] == "Crossref updated-by: retraction 10.1073/pnas.1507001112"
    assert doi_route.call_count == 1
    html = write_report(planned.store, planned.home.path).read_text(encoding="utf-8")
    assert "retracted</span>" in html and "Crossref updated-by: retraction" in html
