"""The single-call baseline (``cosci eval --baseline single-call``, design.md#eval).

One call of the generation model (``generation.literature``'s route) with the same research question, the
same background survey and the same corpus retrieval budget as the pipeline: the BM25 top-n corpus records
for the question (:func:`retrieval_budget`), asked for k hypotheses at once with their citations. Each hypothesis
has the fields the judge sees of a pipeline hypothesis (title, statement, mechanism, anticipated outcomes), asked
with the descriptions of the pipeline's own record (:class:`cosci.records.RecordHypothesis`). Its hypotheses are
scored by the same metrics as the pipeline's leaderboard, in the order the model gave them.

**One call** (design.md#eval-fairness): the record is asked in exactly one request (:func:`one_call_record`), never
with :func:`cosci.llm.port.structured.call_record`'s second, forced call on a thinking route. An answer without a
valid record is a failed baseline (the observation is missing), not a retry. The gateway's retries of transient
errors are further attempts of that one request; the report counts them from the transcripts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, TypeVar

from pydantic import BaseModel, Field

from cosci.config.schema import CosciConfig
from cosci.eval.judge import JudgedHypothesis
from cosci.eval.moose_chem import id_of_url
from cosci.llm.errors import BudgetExceeded, LLMError, StructuredOutputError
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import parse_record, record_tool
from cosci.llm.port.thinking import forced_keeps_thinking, thinks_when_forced
from cosci.llm.port.types import CallSpec, LLMPort, LLMResponse, Route, TextBlock
from cosci.prompts import render
from cosci.records import Record, RecordHypothesis
from cosci.safety.quoting import quote_untrusted
from cosci.tools.common import LiteratureHit
from cosci.tools.corpus import LocalCorpus

_ASKED = {name: f.description for name, f in RecordHypothesis.model_fields.items()}
"""The pipeline record's field descriptions: the baseline is asked for each field in the same words."""


class BaselineHypothesis(BaseModel):
    title: str = Field(min_length=1, description=_ASKED["title"])
    statement: str = Field(min_length=1, description=_ASKED["statement"])
    mechanism: str = Field(min_length=1, description=_ASKED["mechanism"])
    anticipated_outcomes: str = Field(description=_ASKED["anticipated_outcomes"])
    citations: list[str] = Field(default_factory=list, description="URLs of the given papers that inspired it.")


class RecordHypotheses(Record):
    tool_name: ClassVar[str] = "record_hypotheses"
    tool_description: ClassVar[str] = "Record the hypotheses, best first. Calling this tool ends your turn."

    hypotheses: list[BaselineHypothesis] = Field(min_length=1, description="The hypotheses, best first.")


@dataclass(frozen=True)
class BaselineAnswer:
    """The baseline's hypotheses (best first), each with the corpus record ids it cites; ``retrieved`` are the
    ids of the records shown; ``error`` is set (and ``hypotheses`` empty) when the call failed."""

    hypotheses: list[tuple[JudgedHypothesis, list[str]]]
    retrieved: list[str]
    error: str | None = None


def retrieval_budget(config: CosciConfig) -> int:
    """Records the baseline is shown: what one generation tool loop can read, ``tools.max_results`` x the
    search iterations of ``generation.literature`` (``max_iterations`` - 1, the last one records), at least
    ``tools.max_results``."""
    iters = config.agents["generation"].modes["literature"].max_iterations or 1  # set for every tool loop
    return config.tools.max_results * max(1, iters - 1)


def retrieve(corpus: LocalCorpus, question: str, n: int) -> list[LiteratureHit]:
    """The BM25 top-``n`` corpus records for ``question`` (fewer only if fewer share a term with it)."""
    return corpus.search(question, n)


ANSWER_TOKENS = 4096
"""Output tokens for the k hypotheses, beyond the thinking budget (k = 5 records of a few hundred tokens)."""


def baseline_route(config: CosciConfig) -> Route:
    """generation.literature's route (same model, thinking budget and timeout), agent ``eval``, mode
    ``baseline``, output capped at thinking + :data:`ANSWER_TOKENS` tokens (the mode's cap, sized for a tool
    loop, would make the budget's upper-bound admission estimate of one call needlessly large)."""
    route = Router(config).route("generation", "literature")
    return replace(route, agent="eval", mode="baseline",
                   max_output_tokens=min(route.max_output_tokens, route.thinking_tokens + ANSWER_TOKENS))


def _cited(urls: list[str], shown: set[str]) -> list[str]:
    ids = (id_of_url(u) or (u.strip() if u.strip() in shown else None) for u in urls)
    return list(dict.fromkeys(i for i in ids if i))


R = TypeVar("R", bound=Record)


async def one_call_record(port: LLMPort, spec: CallSpec, record: type[R]) -> tuple[R, LLMResponse]:
    """``record`` asked in one request: the record tool forced where that keeps the route's thinking (thinking
    off, or a reasoning model that thinks on a forced call), else ``tool_choice="auto"`` with thinking on and the
    prompt's instruction to call the tool. No second call (design.md#eval-fairness).

    Raises:
        StructuredOutputError subclasses (no record call, empty, truncated or invalid arguments); LLM errors.
    """
    tool = record_tool(record)
    if spec.thinking_tokens > 0 and not thinks_when_forced(spec.route):
        call = replace(spec, tools=[tool], tool_choice="auto")
    else:
        call = replace(spec, tools=[tool], tool_choice=record.tool_name)
        call.thinking = spec.thinking and forced_keeps_thinking(spec.route)
    resp = await port.complete(call)
    return parse_record(resp, record), resp


async def run_baseline(port: LLMPort, route: Route, *, question: str, background: str,
                       records: list[LiteratureHit], k: int, task_id: str | None = None) -> BaselineAnswer:
    """Ask for ``k`` hypotheses in one call (:func:`one_call_record`); never raises (a failed call or an answer
    without a valid record gives an answer with ``error``)."""
    quoted = [quote_untrusted(f"{r.url}\nTitle: {r.title}\n{r.abstract}", r.id) for r in records]
    user = render("eval.baseline", question=" ".join(question.split()),
                  background=quote_untrusted(background, "background-survey"), records=quoted, k=k)
    spec = CallSpec(route=route, action="SingleCallBaseline", task_id=task_id,
                    system=[TextBlock(render("_safety_preamble"), cache=True)],
                    messages=[{"role": "user", "content": user}])
    shown = [r.id for r in records]
    try:
        rec, _ = await one_call_record(port, spec, RecordHypotheses)
    except (StructuredOutputError, LLMError, BudgetExceeded) as exc:
        return BaselineAnswer([], shown, error=f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
    hyps = [(JudgedHypothesis(h.title, h.statement, h.mechanism, h.anticipated_outcomes),
             _cited(h.citations, set(shown))) for h in rec.hypotheses[:k]]
    return BaselineAnswer(hyps, shown)
