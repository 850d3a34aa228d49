"""The hypothesis-match judge: one structured call scoring a hypothesis 0-5 against the ground truth.

The rubric is in ``prompts/eval/match_rubric.md``, included by ``prompts/eval/hypothesis_match.md`` (a 0-5 matched
score after MOOSE-Chem's, arXiv 2410.07076, wording ours): 5 same main idea with all key components and mechanism; 4
same idea and mechanism, one key component missing or different; 3 same direction with at least one key component or
the mechanism; 2 one shared component, different idea; 1 same field only; 0 unrelated or empty. The score is
absolute, not pairwise, so one order suffices. The judge runs on a different model from generation where the config
has one (:func:`judge_tier`). Every hypothesis, the pipeline's and the baseline's alike, reaches the judge as the
same fields (:class:`JudgedHypothesis`: title, statement, mechanism, anticipated outcomes) rendered by one function
(:func:`judge_text`) under a neutral id chosen by the caller (design.md#eval-fairness). An answer that is not a
valid record with an integer score in 0..5 (out of range, malformed, no tool call), or a call that fails, is
recorded as invalid with its reason; it never raises.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from pydantic import Field

from cosci.config.schema import CosciConfig
from cosci.errors import CosciError
from cosci.llm.errors import BudgetExceeded, LLMError, StructuredOutputError
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, LLMPort, Route, TextBlock
from cosci.prompts import render
from cosci.records import Record
from cosci.safety.quoting import quote_hypothesis, quote_untrusted

MATCH_SCALE = (0, 5)
"""The rubric's score range, inclusive."""


@dataclass(frozen=True)
class JudgedHypothesis:
    """What the judge sees of one hypothesis, whichever system wrote it (design.md#eval-fairness): the pipeline's
    ``title``, ``statement``, ``mechanism`` and ``anticipated_outcomes``, or the baseline's fields of the same
    names (asked with the same descriptions). Entities, novelty argument and citations are not shown."""

    title: str
    statement: str
    mechanism: str
    anticipated_outcomes: str


JUDGED_FIELDS = (("title", "Title"), ("statement", "Statement"), ("mechanism", "Mechanism"),
                 ("anticipated_outcomes", "Anticipated outcomes"))
"""(field of :class:`JudgedHypothesis`, the label the judge reads), in the order shown."""


def judge_text(h: JudgedHypothesis) -> str:
    """The one rendering of a hypothesis for the judge: one ``Label: value`` line per field of
    :data:`JUDGED_FIELDS`, whitespace collapsed (so line breaks in one system's fields do not set it apart); an
    empty field shows as ``(none)``."""
    return "\n".join(f"{label}: {' '.join(str(getattr(h, name)).split()) or '(none)'}"
                     for name, label in JUDGED_FIELDS)


class RecordMatchScore(Record):
    tool_name: ClassVar[str] = "record_match_score"
    tool_description: ClassVar[str] = "Record the 0-5 match score of the proposed hypothesis. Ends your turn."

    score: int = Field(ge=MATCH_SCALE[0], le=MATCH_SCALE[1], description="Match score from the rubric, 0 to 5.")
    rationale: str = Field(default="", description="Key components that match and those that do not.")


def rubric() -> str:
    """The judge's rubric as the judge reads it (``prompts/eval/match_rubric.md``), for the report's header."""
    return render("eval.match_rubric")


@dataclass(frozen=True)
class JudgeScore:
    """One judge verdict: ``score`` in 0..5, or None with ``error`` saying why the answer was invalid."""

    score: int | None
    rationale: str = ""
    error: str | None = None

    @property
    def valid(self) -> bool:
        return self.score is not None


def judge_tier(config: CosciConfig, explicit: str | None = None) -> str:
    """The tier the judge calls: ``explicit`` if given, else the first tier (degradation order first) whose
    model differs from ``generation.literature``'s, else generation's own tier (e.g. ``models=local``, where
    every tier is the one embedded model).

    Raises:
        CosciError: ``explicit`` is not a tier of the configured models.
    """
    tiers = config.models.tiers
    if explicit is not None:
        if explicit not in tiers:
            raise CosciError(f"--judge-tier: '{explicit}' is not a tier of models '{config.models.name}' "
                             f"({', '.join(tiers)})")
        return explicit
    gen_tier = config.tier_of("generation", "literature")
    order = list(dict.fromkeys([*config.models.degradation, *tiers]))
    return next((t for t in order if tiers[t].model != tiers[gen_tier].model), gen_tier)


JUDGE_MAX_OUTPUT_TOKENS = 1024
"""Output cap of a judge call, tokens: a score and a two-sentence rationale need far less; a small cap also keeps
the budget's upper-bound admission estimate (full max output) small."""


def judge_route(config: CosciConfig, tier: str) -> Route:
    """The judge's route: ``tier``'s model, agent ``eval``, mode ``judge``, no thinking, at most
    :data:`JUDGE_MAX_OUTPUT_TOKENS` output tokens."""
    route = Router(config).route("generation", "literature", tier=tier)
    return replace(route, agent="eval", mode="judge", max_iterations=1, thinking_tokens=0,
                   max_output_tokens=min(route.max_output_tokens, JUDGE_MAX_OUTPUT_TOKENS),
                   timeout_seconds=config.retry.call_timeout_seconds)


async def judge_match(port: LLMPort, route: Route, truth: str, hypothesis: JudgedHypothesis, *,
                      hypothesis_id: str, task_id: str | None = None) -> JudgeScore:
    """Score ``hypothesis`` (rendered by :func:`judge_text`) against ``truth`` (the published hypothesis), 0-5.

    Both texts are quoted as untrusted data; ``hypothesis_id`` is the id the judge reads (callers pass a neutral
    one that does not name the system). Returns an invalid :class:`JudgeScore` (never raises) when the
    answer is not a valid record (score outside 0-5, malformed, missing) or the call fails (LLM error, budget).
    """
    user = render("eval.hypothesis_match",
                  ground_truth=quote_untrusted(truth, "ground-truth"),
                  hypothesis=quote_hypothesis(judge_text(hypothesis), hypothesis_id))
    spec = CallSpec(route=route, action="JudgeHypothesisMatch", task_id=task_id,
                    system=[TextBlock(render("_safety_preamble"), cache=True)],
                    messages=[{"role": "user", "content": user}])
    try:
        rec, _ = await call_record(port, spec, RecordMatchScore)
    except (StructuredOutputError, LLMError, BudgetExceeded) as exc:
        return JudgeScore(None, error=f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
    return JudgeScore(rec.score, rec.rationale)
