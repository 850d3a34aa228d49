"""``cosci eval moose-chem``: one cosci session per item and seed, the single-call baseline, the metrics.

For each selected item and each seed 1..K: a session on ``conf/eval/moose_chem.yaml`` plus the user's overrides,
with ``session.goal`` = the item's research question, ``session.background`` = its background survey (quoted
into every agent's system prompt), ``session.corpus_path`` = the chosen corpus (synthetic ids/URLs) and
``run.seed`` = the seed; network tools are off (the experiment's ``tools.offline`` and allowlists). Then the
baseline for the same item and seed (:mod:`cosci.eval.baseline`), then the judge on the top-k of both, interleaved
in a shuffled order, then the metrics (:mod:`cosci.eval.observe`); a session that fails is a missing observation,
not a crash of the evaluation. The whole evaluation is one MLflow
parent run with one child per session (:mod:`cosci.tracking.eval_runs`); the report
(:mod:`cosci.eval.report`) is written under ``<data_dir>/eval/<name>/report/`` and logged on the parent.
Judge and baseline calls are kept in ``calls.jsonl`` beside it, the judge's verdicts in ``judgements.jsonl``.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cosci.config.load import compose, validate
from cosci.config.schema import CosciConfig
from cosci.errors import CosciError
from cosci.eval import baseline as bl
from cosci.eval.judge import JudgedHypothesis, judge_tier
from cosci.eval.metrics import TOP_KS, cited_ids
from cosci.eval.moose_chem import Item, inspiration_ids, load_corpus, load_items, write_corpus
from cosci.eval.observe import Answer, Scorer, SystemRun
from cosci.eval.report import judge_section, write_report
from cosci.store import SessionStore
from cosci.tools.corpus import LocalCorpus

EVAL_CONFIG = "moose_chem"
INACTIVE = ("rejected", "retired", "quarantined")


@dataclass(frozen=True)
class EvalOptions:
    """What ``cosci eval moose-chem`` was asked: items (``"N"`` or ids), corpus size, seeds, baseline
    (``single-call`` or ``none``), judge tier (None = automatic), baseline retrieval budget (None = derived),
    and the Hydra overrides for every session."""

    items: str | None = None
    corpus: int = 150
    seeds: int = 1
    baseline: str = "single-call"
    judge_tier: str | None = None
    top_n: int | None = None
    overrides: Sequence[str] = field(default_factory=tuple)


@dataclass
class EvalResult:
    folder: Path
    rows: list[dict[str, Any]]
    overall: dict[str, float]
    parent_run_id: str | None


def base_config(overrides: Sequence[str]) -> CosciConfig:
    """The eval's session config: ``+eval=moose_chem`` (``conf/eval/moose_chem.yaml``) then ``overrides``.

    Raises:
        ConfigError: a bad override (one line naming the key).
    """
    return validate(compose([f"+eval={EVAL_CONFIG}", *overrides]))


def item_config(base: CosciConfig, item: Item, seed: int, corpus_path: Path) -> CosciConfig:
    """``base`` with the item's question, background survey, the corpus and the seed set."""
    data = base.model_dump(mode="json")
    data["session"].update(goal=item.background_question, background=item.background_survey,
                           corpus_path=str(corpus_path), resume=None)
    data["run"]["seed"] = seed
    return validate(data, require_goal=True)


def ranked_hypotheses(store_path: Path, session_id: str) -> list[Answer]:
    """The session's leaderboard, best Elo first (ties by id; rejected, retired, quarantined left out), each
    hypothesis with the fields the judge sees and its cited corpus record ids."""
    store = SessionStore.open(store_path, session_id)
    try:
        hyps = [h for h in store.hypotheses.all() if h.state not in INACTIVE]
    finally:
        store.close()
    hyps.sort(key=lambda h: (-h.elo, h.id))
    return [Answer(h.id, JudgedHypothesis(h.title, h.statement, h.mechanism, h.anticipated_outcomes),
                   cited_ids(h.citations)) for h in hyps]


def run_eval(opts: EvalOptions, *, on_row: Any = None) -> EvalResult:
    """Run the evaluation (module docstring); returns its rows, overall means and parent run id.

    Raises:
        ConfigError, BenchmarkError, MissingApiKey, CosciError: before any session starts (the session service's
            pre-flight of the base configuration, :func:`cosci.api.preflight`).
    """
    from cosci import api

    base = api.preflight(api.prepare(config=base_config(opts.overrides), overrides=opts.overrides)).prepared.config
    items, corpus_records = load_items(opts.items), load_corpus(opts.corpus)
    tier = judge_tier(base, opts.judge_tier)
    n = opts.top_n or bl.retrieval_budget(base)
    name = time.strftime(f"moose-chem-%Y%m%d-%H%M%S-c{opts.corpus}")
    folder = base.paths.data_dir / "eval" / name
    corpus_path = write_corpus(corpus_records, folder / f"corpus_{opts.corpus}.jsonl")
    corpus = LocalCorpus.load(corpus_path)
    scorer = Scorer(base, folder / "calls.jsonl", tier)
    tracker = _Tracker.start(base, name, opts, tier, n, len(items))
    rows: list[dict[str, Any]] = []
    try:
        for item in items:
            truth = inspiration_ids(item, corpus_records)
            for seed in range(1, opts.seeds + 1):
                for row in _observe(item, seed, truth, base, corpus_path, corpus, scorer, opts, n, tracker):
                    rows.append(row)
                    if on_row:
                        on_row(row)
        gen_model = base.models.tiers[base.tier_of("generation", "literature")].model
        header = (f"# cosci eval moose-chem: {len(items)} items x {opts.seeds} seeds, corpus {opts.corpus}, "
                  f"models {base.models.name} (generation {gen_model}, "
                  f"judge {base.models.tiers[tier].model}), baseline top-n {n}\n\n"
                  + judge_section(base.models.tiers[tier].model, max(TOP_KS)))
        overall = write_report(rows, folder / "report", header)
    except BaseException:
        tracker.finish(folder / "report", {}, failed=True)
        raise
    tracker.finish(folder / "report", overall)
    return EvalResult(folder, rows, overall, tracker.parent)


def _observe(item: Item, seed: int, truth: Sequence[str], base: CosciConfig, corpus_path: Path,
             corpus: LocalCorpus, scorer: Scorer, opts: EvalOptions, n: int, tracker: _Tracker
             ) -> list[dict[str, Any]]:
    """The pipeline (and baseline) observations of one item and seed; a session that raises a
    :class:`~cosci.errors.CosciError` (no model call succeeded, the goal refused, ...) is a missing pipeline."""
    from cosci import api

    summary, error = None, None
    with tracker.child_env(f"item={item.id} seed={seed}"):
        try:  # each item's session through the service: its pre-flight, then the flow
            prepared = api.prepare(config=item_config(base, item, seed, corpus_path), overrides=opts.overrides)
            summary = api.run(api.preflight(prepared), ui=False)
        except CosciError as exc:
            error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
    pipe = SystemRun("pipeline", [], error, extra={"session_id": None}) if summary is None else SystemRun(
        "pipeline", ranked_hypotheses(Path(summary.store_path), summary.session_id),
        spend={"cost_usd": summary.spent_usd, "tokens": float(summary.tokens),
               "wall_seconds": summary.elapsed_seconds},
        extra={"session_id": summary.session_id})

    async def both() -> list[dict[str, Any]]:
        runs = [pipe]
        if opts.baseline != "none":
            runs.append(await scorer.baseline(item, seed, corpus, n, truth))
        return await scorer.observe(item, seed, truth, runs)

    rows = asyncio.run(both())
    if summary is not None:
        tracker.child_metrics(summary.mlflow_run_id, rows[0])
    return rows


class _Tracker:
    """The MLflow side of an evaluation (a no-op when ``tracking.enabled`` is false)."""

    def __init__(self, uri: str | None, parent: str | None) -> None:
        self.uri, self.parent = uri, parent

    @classmethod
    def start(cls, config: CosciConfig, name: str, opts: EvalOptions, tier: str, n: int, n_items: int) -> _Tracker:
        if not config.tracking.enabled:
            return cls(None, None)
        from cosci.tracking import artifact_root, tracking_uri
        from cosci.tracking.eval_runs import start_eval_parent

        uri = tracking_uri(config)
        config.paths.data_dir.mkdir(parents=True, exist_ok=True)
        exp = config.tracking.experiment_name
        params: dict[str, object] = {
                  "benchmark": "moose-chem", "items": n_items, "corpus": opts.corpus, "seeds": opts.seeds,
                  "baseline": opts.baseline, "baseline_top_n": n, "models": config.models.name,
                  "judge_tier": tier, "judge_model": config.models.tiers[tier].model,
                  "overrides": " ".join(opts.overrides)}
        parent = start_eval_parent(uri, exp, f"{artifact_root(config)}/{exp}", name,
                                   {"cosci.benchmark": "moose-chem"}, params)
        return cls(uri, parent)

    def child_env(self, label: str) -> Any:
        import contextlib

        from cosci.tracking import PARENT_ENV, SWEEP_OVERRIDES_ENV

        @contextlib.contextmanager
        def env() -> Any:
            if self.parent:
                os.environ[PARENT_ENV], os.environ[SWEEP_OVERRIDES_ENV] = self.parent, label
            try:
                yield
            finally:
                os.environ.pop(PARENT_ENV, None)
                os.environ.pop(SWEEP_OVERRIDES_ENV, None)

        return env()

    def child_metrics(self, run_id: str | None, row: dict[str, Any]) -> None:
        if self.uri and run_id:
            from cosci.tracking.eval_runs import log_child_metrics

            log_child_metrics(self.uri, run_id, {k: v for k, v in row.items() if isinstance(v, float)})

    def finish(self, report: Path, overall: dict[str, float], failed: bool = False) -> None:
        if self.uri and self.parent:
            from cosci.tracking.eval_runs import finish_eval_parent

            report.mkdir(parents=True, exist_ok=True)
            finish_eval_parent(self.uri, self.parent, report, overall, failed=failed)
