"""The structured records models write through tool calls (design.md#prompts).

Each record is defined once, here, as a pydantic model; :func:`tool_schema` turns it into the JSON schema sent
as the tool's ``parameters``. Field names, enums and ranges follow the record tools of design.md#prompts
(record_research_plan, record_hypothesis, record_review, record_system_feedback).
Where cosci adds a field to a review (verification's weakest assumption and kill experiment, observation results,
the comparison with the nearest prior work) it is optional, so a model following the plain schema still validates.
``record_hypothesis`` carries one required addition, the falsification contract (``decisive_experiment``,
``predicted_result``, ``refuting_result``; ``docs/design.md#falsification``): a hypothesis says what would prove it
wrong.

:class:`TournamentVerdict` is not a tool: it constrains the embedded model's tournament answer (design.md#local:
SmolLM2 does not follow the free-text ``better idea: N`` format).
"""

from __future__ import annotations

import copy
from functools import cache, lru_cache
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.json_schema import SkipJsonSchema

ExcerptStatus = Literal["verified", "misquoted"]
"""An item's excerpt says what the text its source returned says (verified), or its URL names a source a tool
returned but the excerpt is not a faithful quote of it (misquoted: a real paper, a wrong quote); an item whose
identifier no tool returned is dropped as unseen (``docs/design.md#excerpt-verification``). Set by cosci, never by
the model: the field is left out of the tool schema and overwritten whatever the model sends. Stores written
before this distinction say ``unverified`` for misquoted."""
SupportVerdict = Literal["supported", "partially_supported", "not_supported", "contradicted"]
"""The support check's answer for one claim (``docs/design.md#claim-statuses``)."""

HypothesisMode = Literal[
    "literature", "debate", "combine", "simplify", "out_of_box", "feasibility", "assumption", "feedback_driven"
]
Verdict = Literal["already_explained", "other_more_likely", "missing_piece", "neutral", "disproved"]
ReviewMode = Literal["full", "verification", "observation", "simulation"]


class Record(BaseModel):
    """Base of the record tools: ``tool_name`` and ``tool_description`` are what the model sees."""

    model_config = ConfigDict(extra="ignore")
    tool_name: ClassVar[str]
    tool_description: ClassVar[str]


class RecordResearchPlan(Record):
    tool_name: ClassVar[str] = "record_research_plan"
    tool_description: ClassVar[str] = "Record the structured research plan parsed from the scientist's goal."

    objective: str = Field(min_length=1, description="Atomic statement of what to investigate.")
    preferences: list[str] = Field(description="What the scientist values in a hypothesis.")
    constraints: list[str] = Field(default_factory=list, description="Explicit limits on scope or methodology.")
    idea_attributes: list[str] = Field(description="3-6 adjectives describing a strong hypothesis for this goal.")
    domain_hint: str | None = Field(default=None, description="The scientific field, if clear.")
    notes: str | None = Field(default=None, description="Anything else worth keeping from the goal.")


class VerifiedItem(BaseModel):
    """Base of the items a model cites a source with (:class:`Citation`, :class:`Evidence`): the fields cosci sets
    when it checks the item against the sources tools returned (left out of the tool schema;
    ``docs/design.md#excerpt-verification``)."""

    model_config = ConfigDict(extra="ignore")
    status: SkipJsonSchema[str | None] = None
    """An :data:`ExcerptStatus` set by cosci (whatever a model sends is overwritten, never a validation error)."""
    source_id: SkipJsonSchema[str | None] = None
    mismatch: SkipJsonSchema[str | None] = None
    """Why a misquoted excerpt is not verified (``number: the source has '40', the excerpt '90'``)."""
    retraction: SkipJsonSchema[str | None] = None
    """Set by cosci: ``retracted``, ``retraction_notice`` or ``corrected`` when the literature says so of its source
    (``docs/design.md#retractions``); a retracted source is never counted as supporting evidence."""
    retraction_notice: SkipJsonSchema[str | None] = None
    """Where the flag comes from (``Crossref updated-by: retraction 10.x/y``)."""


class Citation(VerifiedItem):
    support: SkipJsonSchema[str | None] = None
    """Set by cosci for a verified quote: the support check's verdict on it against the hypothesis
    (``supported``, ``partially_supported``, ``not_supported``, ``contradicted``), ``unchecked`` (a failed call,
    a verdict resting on no quote), or None (no tier can judge; ``docs/design.md#grounded-debate-hypotheses``)."""
    support_note: SkipJsonSchema[str | None] = None
    """Why: the check's sentence, or why it could not answer."""
    url: str = Field(min_length=1, description="URL of the source, exactly as returned by a search tool.")
    title: str = Field(default="", description="Title of the source.")
    excerpt: str | None = Field(default=None, description="A short verbatim quote supporting the hypothesis.")
    doi: str | None = Field(default=None, description="DOI, if known.")
    year: int | None = Field(default=None, description="Publication year, if known.")


class RecordHypothesis(Record):
    tool_name: ClassVar[str] = "record_hypothesis"
    tool_description: ClassVar[str] = "Record ONE hypothesis. Calling this tool ends your turn: it is your answer."

    title: str = Field(min_length=1, description="A short title.")
    statement: str = Field(min_length=1, description="The hypothesis in one sentence.")
    mechanism: str = Field(min_length=1, description="The detailed causal story.")
    entities: list[str] = Field(description="Named actors: genes, proteins, drugs, organisms, cell types.")
    anticipated_outcomes: str = Field(description="What we would observe if the hypothesis is true.")
    novelty_argument: str = Field(description="Why this is new relative to the literature.")
    citations: list[Citation] = Field(description="Sources found with the search tools that support it.")
    decisive_experiment: str = Field(description="The one experiment that decides it, in one short sentence: system, "
                                                 "intervention, readout.")
    predicted_result: str = Field(description="The result of that experiment if it holds: a measurable quantity and "
                                              "its direction or threshold, one short sentence.")
    refuting_result: str = Field(description="The result that would refute it: a measurable quantity and a direction "
                                             "or threshold, one short sentence (never 'may differ').")
    mode: HypothesisMode = Field(default="literature", description="The mode that produced the hypothesis.")
    parent_ids: list[str] = Field(default_factory=list, description="Ids of hypotheses this one evolves.")


class Assumption(BaseModel):
    model_config = ConfigDict(extra="ignore")
    assumption: str = Field(min_length=1, description="One atomic assumption the hypothesis rests on.")
    plausibility: Literal["plausible", "uncertain", "implausible"] = Field(description="How plausible it is.")
    rationale: str = Field(default="", description="Why.")


class Evidence(VerifiedItem):
    claim: str = Field(min_length=1, description="The claim this evidence supports or contradicts.")
    url: str = Field(min_length=1, description="URL of the source, exactly as returned by a search tool.")
    excerpt: str = Field(default="", description="A verbatim short quote from the source.")


class Observation(BaseModel):
    model_config = ConfigDict(extra="ignore")
    observation: str = Field(min_length=1, description="An observation reported in the article.")
    explained: Literal["yes", "partly", "no"] = Field(description="Would we see this if the hypothesis were true?")
    reasoning: str = Field(default="", description="The causal argument.")


class PriorWorkComparison(BaseModel):
    """How the hypothesis stands against one record of its nearest prior work (``docs/design.md#prior-work``)."""

    model_config = ConfigDict(extra="ignore")
    source: str = Field(min_length=1, description="The record's URL (or its Source id), as listed under prior work.")
    differs: bool = Field(description="True if the hypothesis differs from what this record already reports.")
    how: str = Field(default="", description="One sentence: how it differs, or what the record already states.")


class RecordReview(Record):
    tool_name: ClassVar[str] = "record_review"
    tool_description: ClassVar[str] = "Record your review of the hypothesis. Calling this tool ends your turn."

    verdict: Verdict = Field(description="Exactly one verdict on the hypothesis.")
    mode: ReviewMode = Field(default="full", description="The reflection mode of the review.")
    novelty: float | None = Field(default=None, ge=0, le=1, description="Novelty, 0-1.")
    correctness: float | None = Field(default=None, ge=0, le=1, description="Correctness, 0-1.")
    testability: float | None = Field(default=None, ge=0, le=1, description="Testability, 0-1.")
    feasibility: float | None = Field(default=None, ge=0, le=1, description="Feasibility, 0-1.")
    assumptions: list[Assumption] = Field(default_factory=list, description="Atomic assumptions (verification).")
    evidence: list[Evidence] = Field(description="Every claim with a url and a verbatim excerpt.")
    notes: str = Field(default="", description="The analysis, in prose.")
    weakest_assumption: str | None = Field(default=None, description="The assumption most likely to fail.")
    kill_experiment: str | None = Field(default=None, description="The experiment that would most cheaply refute it.")
    observations: list[Observation] = Field(default_factory=list, description="Article observations (observation).")
    prior_work: list[PriorWorkComparison] = Field(
        default_factory=list, description="One item per record listed under nearest prior work (full reviews).")


class RecordSystemFeedback(Record):
    tool_name: ClassVar[str] = "record_system_feedback"
    tool_description: ClassVar[str] = "Record the meta-review of all reviews and debates. Ends your turn."

    common_weaknesses: list[str] = Field(description="Recurring critiques across hypotheses.")
    common_strengths: list[str] = Field(description="What reviewers consistently praise.")
    suggested_focus_areas: list[str] = Field(description="Where future generation should concentrate.")
    narrative: str = Field(min_length=1, description="A 1-2 paragraph synthesis.")


class RecordSafetyVerdict(Record):
    """The safety classifier's verdict (the classifier runs on the mini tier; design.md#safety)."""

    tool_name: ClassVar[str] = "record_safety_verdict"
    tool_description: ClassVar[str] = "Record your safety verdict on the screened text. Ends your turn."

    decision: Literal["allow", "flag", "block"] = Field(
        description="allow: ordinary research; flag: dual-use, keep with a mark; block: a path to serious harm."
    )
    categories: list[str] = Field(default_factory=list, description="Hazard categories from the given list.")
    rationale: str = Field(default="", description="One or two sentences: why this decision.")


class Overclaim(BaseModel):
    model_config = ConfigDict(extra="ignore")
    claim: str = Field(min_length=1, description="The overview's sentence, quoted.")
    why: str = Field(min_length=1, description="Why the cited material does not support it as written.")
    severity: Literal["low", "medium", "high"] = Field(description="How much it would mislead a scientist.")


class RecordAudit(Record):
    """The blind, independent audit of the final overview (``docs/design.md#claim-statuses``)."""

    tool_name: ClassVar[str] = "record_audit"
    tool_description: ClassVar[str] = "Record your audit of the overview. Calling this tool ends your turn."

    overclaims: list[Overclaim] = Field(description="Claims stated more strongly than their sources allow.")
    missing_caveats: list[str] = Field(description="Caveats the overview should state and does not.")
    overall_score: float = Field(ge=0, le=1, description="1 = every claim supported as written, 0 = unreliable.")
    summary: str = Field(min_length=1, description="The audit in 2-4 sentences.")


class RecordCitations(Record):
    """The sources a debate hypothesis rests on, chosen from a short search after the debate
    (``docs/design.md#grounded-debate-hypotheses``)."""

    tool_name: ClassVar[str] = "record_citations"
    tool_description: ClassVar[str] = "Record the sources that support the hypothesis. Ends your turn."

    citations: list[Citation] = Field(description="Sources from the search results, each with a verbatim excerpt.")


class ClaimVerdict(BaseModel):
    """The support check's answer for one claim."""

    model_config = ConfigDict(extra="ignore")
    verdict: SupportVerdict = Field(description="What the quoted sources say about the claim.")
    excerpt: str = Field(description="The words of a quoted source this verdict rests on, copied verbatim (\"\" when "
                                     "no source speaks to the claim).")
    why: str = Field(default="", description="One sentence: why this verdict.")


@cache
def claim_check_record(n: int) -> type[Record]:
    """The ``record_claim_checks`` tool for a batch of ``n`` claims: one required field per claim, ``c1`` ...
    ``cn`` (fixed fields rather than a list, so a schema-constrained model must answer every claim)."""
    fields: dict[str, Any] = {f"c{i}": (ClaimVerdict, Field(description=f"Your verdict on claim C{i}."))
                              for i in range(1, n + 1)}
    model = create_model(f"RecordClaimChecks{n}", __base__=Record, **fields)
    model.tool_name = "record_claim_checks"
    model.tool_description = "Record one verdict per claim. Calling this tool ends your turn."
    return model


class TournamentVerdict(BaseModel):
    """A constrained tournament answer: the rationale, then which hypothesis is better (1 or 2)."""

    model_config = ConfigDict(extra="ignore")
    rationale: str = Field(min_length=1, description="The comparison, in prose.")
    better_idea: Literal[1, 2] = Field(description="1 if hypothesis 1 is better, 2 if hypothesis 2 is.")


def tool_schema(record: type[BaseModel]) -> dict[str, Any]:
    """JSON schema of a record, with ``$defs`` inlined (some providers and llama.cpp reject ``$ref``): a copy of the
    one made for the class, which callers may change. Made once per class: pydantic's schema generation ran for
    every record call, about 3 % of the session's event loop on the concurrency bench (bench/README.md, "The loop")."""
    return copy.deepcopy(_tool_schema(record))


@lru_cache(maxsize=512)
def _tool_schema(record: type[BaseModel]) -> dict[str, Any]:
    schema = record.model_json_schema()
    defs = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return inline(defs[node["$ref"].rsplit("/", 1)[-1]])
            # drop schema annotations named "title" (strings), never a property called "title" (a dict)
            return {k: inline(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    return inline(schema)


class RecordCheck(Record):
    """The record of ``cosci check``'s one minimal call per (model, request form): two values the prompt names,
    echoed back, so a valid answer shows tool use and structured output work with thinking as configured."""

    tool_name: ClassVar[str] = "record_check"
    tool_description: ClassVar[str] = "Record the word and the number you were given."

    word: str = Field(description="The word given in the request.")
    number: int = Field(description="The number given in the request.")

