"""``clinical_trials_search``: ClinicalTrials.gov API v2 ``studies`` (design.md#tools).

One request per search: ``GET https://clinicaltrials.gov/api/v2/studies?query.term=...&pageSize=n&countTotal=true
&fields=...`` (the ``fields`` list keeps the answer to what a hit shows). Each hit is a study: NCT id, title,
conditions, interventions, phases, overall status, start date, lead sponsor and brief summary; its URL is
``https://clinicaltrials.gov/study/<NCT id>``. ClinicalTrials.gov publishes no rate limit: 1 request/s
(politeness). Whether a repurposing candidate is already in trials is the first question a clinician asks.
"""

from __future__ import annotations

import re
from typing import Any

from cosci.llm.port.types import ToolSpec
from cosci.tools.catalog import BuildContext
from cosci.tools.common import ApiSearch, LiteratureHit, clean, first_year, mapping, search_parameters
from cosci.tools.http import parse_body

STUDIES_URL = "https://clinicaltrials.gov/api/v2/studies"
RATE = 1.0
"""Requests/s sent to ClinicalTrials.gov."""
FIELDS = ("NCTId,BriefTitle,OverallStatus,Phase,StudyType,Condition,InterventionName,LeadSponsorName,"
          "BriefSummary,StartDate,CompletionDate")

SPEC = ToolSpec(
    name="clinical_trials_search",
    description=(
        "Search ClinicalTrials.gov registered studies and get, for each, its NCT id, title, conditions, "
        "interventions, phase, status (recruiting, completed, terminated...), start date, sponsor and summary. "
        "Use it to learn whether a drug or intervention is already in trials for a condition."
    ),
    parameters=search_parameters("Condition and/or intervention, e.g. 'metformin glioblastoma'."),
)


def _names(values: Any) -> list[str]:
    return [clean(v) for v in values if clean(v)] if isinstance(values, list) else []


def study(item: dict[str, Any]) -> LiteratureHit | None:
    """One study of ``studies[]`` (or of ``/studies/{nct}``) as a hit; None without an NCT id."""
    proto = mapping(item.get("protocolSection"))
    ident = mapping(proto.get("identificationModule"))
    nct = clean(ident.get("nctId"))
    if not nct:
        return None
    status = mapping(proto.get("statusModule"))
    start = clean(mapping(status.get("startDateStruct")).get("date"))
    design = mapping(proto.get("designModule"))
    interventions = [clean(i.get("name")) for i in mapping(proto.get("armsInterventionsModule")).get(
        "interventions") or [] if isinstance(i, dict) and clean(i.get("name"))]
    facts = [
        ("Conditions", ", ".join(_names(mapping(proto.get("conditionsModule")).get("conditions")))),
        ("Interventions", ", ".join(interventions)),
        ("Phase", ", ".join(_names(design.get("phases")))),
        ("Status", clean(status.get("overallStatus"))),
        ("Start date", start),
        ("Why stopped", clean(status.get("whyStopped"))),
        ("Sponsor", clean(mapping(mapping(proto.get("sponsorCollaboratorsModule")).get("leadSponsor")).get("name"))),
    ]
    summary = clean(mapping(proto.get("descriptionModule")).get("briefSummary"))
    text = ". ".join(f"{k}: {v}" for k, v in facts if v) + (f". Summary: {summary}" if summary else "")
    return LiteratureHit(id=nct, id_label="NCT", url=f"https://clinicaltrials.gov/study/{nct}",
                         title=clean(ident.get("briefTitle") or ident.get("officialTitle")), abstract=text,
                         year=first_year(start), abstract_label="Study")


def parse_studies(data: Any) -> tuple[list[LiteratureHit], int | None]:
    """Hits and ``totalCount`` (present with ``countTotal=true``) of a ``/studies`` body.

    Raises:
        ValueError: no ``studies`` list.
    """
    if not isinstance(data, dict) or not isinstance(data.get("studies"), list):
        raise ValueError("ClinicalTrials.gov body has no 'studies' list")
    hits = [h for h in (study(s) for s in data["studies"] if isinstance(s, dict)) if h is not None]
    total = data.get("totalCount")
    return hits, total if isinstance(total, int) else None


class ClinicalTrialsSearch(ApiSearch):
    """The ``clinical_trials_search`` tool (see module docstring)."""

    spec = SPEC
    label = "ClinicalTrials.gov"
    fetch_kinds = ("NCT",)

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        """One study by NCT id (``GET /studies/{nct}``); anything but ``NCT`` and 8 digits is no study."""
        if not re.fullmatch(r"NCT\d{8}", value.strip().upper()):
            return None
        resp = await self.client.request("GET", f"{STUDIES_URL}/{value.strip().upper()}")
        data = resp.json()
        return study(data) if isinstance(data, dict) else None

    async def search(self, query: str, max_results: int) -> tuple[list[LiteratureHit], int | None, str]:
        resp = await self.client.request("GET", STUDIES_URL, params={
            "query.term": query, "pageSize": max_results, "countTotal": "true", "fields": FIELDS})
        hits, total = parse_body(parse_studies, resp.json())
        return hits, total, ""


def build(ctx: BuildContext) -> ClinicalTrialsSearch:
    """The session's ClinicalTrials.gov search."""
    return ClinicalTrialsSearch(ctx.client("ClinicalTrials.gov", RATE), default_max_results=ctx.max_results,
                                offline=ctx.offline)
