"""One observation of ``cosci eval``: the pipeline's and the baseline's answer sets for one item and seed, judged
together, turned into one metrics row per system (design.md#eval-fairness).

- **Same fields, one format, shuffled.** The top-k of each system reach the judge as
  :class:`~cosci.eval.judge.JudgedHypothesis` rendered by :func:`~cosci.eval.judge.judge_text`, interleaved in
  one order shuffled by ``random.Random("<item id>::<seed>")`` (a rerun shows them in the same order), each under
  a neutral id (``hypothesis-<position>``) that names neither the system nor its rank.
- **Missing, not zero.** A system whose run failed (a session that raised, a baseline call without a valid
  record) is a *missing* observation: ``missing`` is true, ``error`` says why, every metric is NaN (spend the
  run reported is kept for the record); the report leaves it out of every mean and paired difference and counts it.
- **Calls from the transcripts.** Every attempt the eval's gateways make is appended to ``calls.jsonl``; a
  baseline row's ``calls`` is the number of attempts recorded under its task id.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from cosci.config.schema import CosciConfig
from cosci.domain import Call
from cosci.eval import baseline as bl
from cosci.eval.judge import JudgedHypothesis, JudgeScore, judge_match, judge_route
from cosci.eval.metrics import TOP_KS, inspiration_recall, match_metrics, recall
from cosci.eval.moose_chem import Item
from cosci.eval.report import METRICS
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.gateway.adapter import Gateway
from cosci.tools.corpus import LocalCorpus

BASELINE_ACTION = "SingleCallBaseline"
"""The ``action`` of the baseline's call in the transcripts."""


@dataclass(frozen=True)
class Answer:
    """One ranked hypothesis of a system: its id (pipeline store id, or ``B<rank>``), what the judge sees, and
    the corpus record ids it cites."""

    id: str
    fields: JudgedHypothesis
    cited: list[str]


@dataclass(frozen=True)
class SystemRun:
    """One system's answer set for an item and seed: ``answers`` best first, or ``error`` when the run failed
    (then the observation is missing). ``spend``: ``cost_usd`` (USD), ``tokens``, ``wall_seconds`` as far as
    known; ``extra``: further row fields (``session_id``, ``retrieved``, ``retrieval_recall``, ``calls``)."""

    system: str
    answers: list[Answer]
    error: str | None = None
    spend: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def missing(self) -> bool:
        return self.error is not None


def judging_order(item_id: str, seed: int, runs: Sequence[SystemRun], k: int = max(TOP_KS)
                  ) -> list[tuple[str, int, Answer]]:
    """``(system, 1-based rank, answer)`` for the top-``k`` of every run that is not missing, shuffled by
    ``random.Random(f"{item_id}::{seed}")`` (string seeds hash with SHA-512: the same order in every process)."""
    entries = [(r.system, rank, a) for r in runs if not r.missing for rank, a in enumerate(r.answers[:k], 1)]
    random.Random(f"{item_id}::{seed}").shuffle(entries)
    return entries


class Scorer:
    """Judges and scores observations. Judge and baseline calls go through gateways with their own budgets (one
    per system and purpose, so each system's judge spend is known); every call attempt is appended to ``calls``
    (``calls.jsonl``) and every verdict (score, or invalid with its reason) to ``judgements.jsonl`` beside it."""

    def __init__(self, config: CosciConfig, calls: Path, tier: str) -> None:
        self.config, self.calls, self.tier = config, calls, tier
        self.attempts: Counter[str] = Counter()
        """Call attempts recorded per task id (the rows written to ``calls.jsonl``)."""

    def gateway(self) -> tuple[Gateway, TokenBudget]:
        budget = TokenBudget(cap_usd=self.config.run.budget_usd, shares={"eval": 1.0}, reserve_share=0.0)
        return Gateway(self.config, budget, recorder=self._record), budget

    def _record(self, rec: Call) -> None:
        self.attempts[rec.task_id or ""] += 1
        self.calls.parent.mkdir(parents=True, exist_ok=True)
        with self.calls.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(asdict(rec), default=str) + "\n")

    async def baseline(self, item: Item, seed: int, corpus: LocalCorpus, n: int, truth: Sequence[str]
                       ) -> SystemRun:
        """The single-call baseline of ``item`` and ``seed`` shown the BM25 top-``n`` records."""
        port, budget = self.gateway()
        task_id = f"eval::{item.id}::{seed}::baseline"
        started = time.perf_counter()
        answer = await bl.run_baseline(port, bl.baseline_route(self.config), question=item.background_question,
                                       background=item.background_survey,
                                       records=bl.retrieve(corpus, item.background_question, n), k=max(TOP_KS),
                                       task_id=task_id)
        spend = {"cost_usd": budget.total_spent_usd, "tokens": float(budget.spent_tokens),
                 "wall_seconds": time.perf_counter() - started}
        extra = {"retrieved": float(len(answer.retrieved)), "calls": float(self.attempts[task_id]),
                 "retrieval_recall": recall(truth, [answer.retrieved])}  # the baseline's recall ceiling
        answers = [Answer(f"B{i + 1}", h, cites) for i, (h, cites) in enumerate(answer.hypotheses)]
        return SystemRun("baseline", answers, answer.error, spend, extra)

    async def judge(self, item: Item, seed: int, runs: Sequence[SystemRun]
                    ) -> tuple[dict[str, list[JudgeScore]], dict[str, float]]:
        """Judge the top-k of every run that is not missing, in :func:`judging_order`; returns each system's
        verdicts by rank and what its judging cost (USD)."""
        route = judge_route(self.config, self.tier)
        gateways = {r.system: self.gateway() for r in runs if not r.missing}
        verdicts: dict[str, dict[int, JudgeScore]] = {s: {} for s in gateways}
        lines = []
        for pos, (system, rank, a) in enumerate(judging_order(item.id, seed, runs), 1):
            shown = f"hypothesis-{pos}"
            v = await judge_match(gateways[system][0], route, item.main_hypothesis, a.fields, hypothesis_id=shown,
                                  task_id=f"eval::{item.id}::{seed}::judge::{shown}")
            verdicts[system][rank] = v
            lines.append({"observation": f"{item.id}::{seed}::{system}", "system": system, "rank": rank,
                          "presented": pos, "shown_id": shown, "hypothesis": a.id, "score": v.score,
                          "valid": v.valid, "rationale": v.rationale, "error": v.error})
        self.calls.parent.mkdir(parents=True, exist_ok=True)
        with (self.calls.parent / "judgements.jsonl").open("a", encoding="utf-8") as fh:
            fh.writelines(json.dumps(x) + "\n" for x in sorted(lines, key=lambda x: (x["system"], x["rank"])))
        return ({s: [v[r] for r in sorted(v)] for s, v in verdicts.items()},
                {s: b.total_spent_usd for s, (_, b) in gateways.items()})

    async def observe(self, item: Item, seed: int, truth: Sequence[str], runs: Sequence[SystemRun]
                      ) -> list[dict[str, Any]]:
        """One row per run (module docstring): metrics of the runs that are not missing, NaN for those that are."""
        verdicts, judge_usd = await self.judge(item, seed, runs)
        rows = []
        for run in runs:
            row: dict[str, Any] = {"item": item.id, "seed": seed, "truth_inspirations": len(truth),
                                   "system": run.system, "missing": run.missing, "error": run.error,
                                   **dict.fromkeys(METRICS, math.nan), **run.spend, **run.extra}
            if run.missing:  # what the answer would have shown is not known: only the spend stays
                row.update(dict.fromkeys(set(METRICS) - set(run.spend), math.nan))
            else:
                row.update(inspiration_recall(truth, [a.cited for a in run.answers]))
                row.update(match_metrics([v.score for v in verdicts[run.system]]))
                row.update(hypotheses=float(len(run.answers)), judge_usd=judge_usd[run.system])
            rows.append(row)
        return rows


def progress_line(row: dict[str, Any]) -> str:
    """One line per observation for the terminal (``cosci eval`` prints it on stderr as rows arrive)."""
    head = f"eval: {row['item']} seed {row['seed']} {row['system']:8s}"
    if row.get("missing"):
        return f"{head} MISSING ({row.get('error')})"
    return (f"{head} recall {row['recall_any']:.2f} best-of-5 match {row['match_best_at_5']:.1f} "
            f"${row['cost_usd']:.4f} {row['wall_seconds']:.0f} s")
