"""The single-call baseline (``cosci eval --baseline single-call``, design.md#eval).

One call of the generation model (``generation.literature``'s route) with the same research question, the
same background survey and the same corpus retrieval budget as the pipeline: the BM25 top-n corpus records
for the question (:func:`retrieval_budget`), asked for k hypotheses at once with their citations. Its
hypotheses are scored by the same metrics as the pipeline's leaderboard, in the order the model gave them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from pydantic import BaseModel, Field

from cosci.config.schema import CosciConfig
from cosci.eval.moose_chem import id_of_url
from cosci.llm.errors import BudgetExceeded, LLMError, StructuredOutputError
from cosci.llm.gateway.routing import Router
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, LLMPort, Route, TextBlock
from cosci.prompts import render
from cosci.records import Record
from cosci.safety.quoting import quote_untrusted
from cosci.tools.common import LiteratureHit
from cosci.tools.corpus import LocalCorpus


class BaselineHypothesis(BaseModel):
    title: str = Field(description="A short title.")
    statement: str = Field(min_length=1, description="The hypothesis: materials, mechanism, expected outcome.")
    citations: list[str] = Field(default_factory=list, description="URLs of the given papers that inspired it.")


class RecordHypotheses(Record):
    tool_name: ClassVar[str] = "record_hypotheses"
    tool_description: ClassVar[str] = "Record the hypotheses, best first. Calling this tool ends your turn."

    hypotheses: list[BaselineHypothesis] = Field(min_length=1, description="The hypotheses, best first.")


@dataclass(frozen=True)
class BaselineAnswer:
    """The baseline's hypotheses (best first), each with the corpus record ids it cites; ``retrieved`` are the
    ids of the records shown; ``error`` is set (and ``hypotheses`` empty) when the call failed."""

    hypotheses: list[tuple[str, list[str]]]
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


async def run_baseline(port: LLMPort, route: Route, *, question: str, background: str,
                       records: list[LiteratureHit], k: int, task_id: str | None = None) -> BaselineAnswer:
    """Ask for ``k`` hypotheses in one call; never raises (a failed call gives an answer with ``error``)."""
    quoted = [quote_untrusted(f"{r.url}\nTitle: {r.title}\n{r.abstract}", r.id) for r in records]
    user = render("eval.baseline", question=" ".join(question.split()),
                  background=quote_untrusted(background, "background-survey"), records=quoted, k=k)
    spec = CallSpec(route=route, action="SingleCallBaseline", task_id=task_id,
                    system=[TextBlock(render("_safety_preamble"), cache=True)],
                    messages=[{"role": "user", "content": user}])
    shown = [r.id for r in records]
    try:
        rec, _ = await call_record(port, spec, RecordHypotheses)
    except (StructuredOutputError, LLMError, BudgetExceeded) as exc:
        return BaselineAnswer([], shown, error=f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}")
    hyps = [(f"{h.title}\n{h.statement}", _cited(h.citations, set(shown))) for h in rec.hypotheses[:k]]
    return BaselineAnswer(hyps, shown)
