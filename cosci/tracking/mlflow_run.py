"""One MLflow run per session (design.md#tracking): params, config artifacts, step metrics, and the results at the end.

- params: a flattened small config (:func:`flat_params`); the full resolved config and the Hydra overrides are
  artifacts (params are immutable and truncated past 6000 characters, design.md#tracking);
- tags: session id, models choice, experiment, goal, and at the end the stop reason; a sweep's child carries
  ``mlflow.parentRunId`` from ``COSCI_MLFLOW_PARENT_RUN_ID`` (set by the sweep callback, design.md#deployment);
- step metrics every ``tracking.log_every_tasks`` tasks: top-1 Elo, mean top-5 Elo, hypotheses, matches, USD
  spent (total and per agent), tokens;
- safety (:meth:`SessionTracker.log_safety`): ``safety_flags`` / ``safety_blocks`` / ``safety_screen_hits`` /
  ``safety_disagreements``, the goal's decision, who decided and every screen hit as tags, and
  ``safety/verdicts.json``; a withheld overview never reaches the run;
- at the end: ``overview.md``, ``leaderboard.parquet`` (id, title, Elo, matches, state, cluster, parents),
  ``matches.parquet``, ``elo_trajectory.png``, and ``report.html`` (design.md#report: the file written at
  finalisation, byte for byte);
- LLM calls as traces (``tracking.traces``, :mod:`cosci.tracking.traces`): finished tasks' calls at every step
  metrics flush, the rest when the run ends (finished, interrupted or failed);
- ``claims.json`` and the grounding metrics (:func:`cosci.grounding.report.grounding_metrics`:
  ``evidence_proposed/_verified/_misquoted/_unseen``, ``claims_total``, ``claims_<status>``, ``audit_agreement``,
  ``audit_score``).

A resumed session continues its run (the run id is kept on the session row). The client API is used rather
than MLflow's global "active run", so concurrent sessions in one process cannot interfere.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import mlflow
from mlflow.entities import Metric, Param
from mlflow.tracking import MlflowClient

from cosci.config.schema import CosciConfig
from cosci.grounding.report import claims_document, grounding_metrics
from cosci.stats import SessionStats
from cosci.store import SafetyVerdict, SessionStore
from cosci.store.standing import shown_verdict
from cosci.tournament.judge_stats import session_judge_stats
from cosci.tracking import PARENT_ENV, SWEEP_OVERRIDES_ENV, artifact_location, tracking_uri
from cosci.tracking.artifacts import bt_png, elo_trajectory_png, leaderboard_frame, matches_frame
from cosci.tracking.stores import experiment_id, relocate_artifacts, seed_store
from cosci.tracking.traces import TraceLogger

log = logging.getLogger(__name__)
MAX_METRICS_PER_BATCH = 1000
"""MLflow's limit on metrics in one ``log_batch`` call (MLflow REST API docs, "Request Limits")."""


def flat_params(config: CosciConfig, models_choice: str) -> dict[str, str]:
    """The small config logged as params: the knobs a researcher compares sessions by."""
    c = config
    params: dict[str, Any] = {
        "experiment": c.session.name,
        "models": models_choice,
        "run.concurrency": c.run.concurrency,
        "run.max_hypotheses": c.run.max_hypotheses,
        "run.wall_clock_seconds": c.run.wall_clock_seconds,
        "run.budget_usd": c.run.budget_usd,
        "run.n_initial": c.run.n_initial,
        "run.seed": c.run.seed,
        "generation.debate_share": c.generation.debate_share,
        "ranking.k_factor_new": c.ranking.k_factor_new,
        "ranking.k_factor_warm": c.ranking.k_factor_warm,
        "debate.min_turns": c.debate.min_turns,
        "debate.max_turns": c.debate.max_turns,
        "evolution.min_mature": c.evolution.min_mature,
        "evolution.top_k": c.evolution.top_k,
        "termination.elo_stability_eps": c.termination.elo_stability_eps,
        "vectors.dedup_cosine_threshold": c.vectors.dedup_cosine_threshold,
        "vectors.cluster_threshold": c.vectors.cluster_threshold,
    }
    params.update({f"tier.{name}": entry.model for name, entry in c.models.tiers.items()})
    return {k: str(v)[:500] for k, v in params.items()}


class SessionTracker:
    """The MLflow run of one session; an :class:`~cosci.supervisor.loop.Observer`."""

    def __init__(self, client: MlflowClient, run_id: str, uri: str, every: int = 5) -> None:
        self.client, self.run_id, self.uri, self.every = client, run_id, uri, every
        self._last: SessionStats | None = None
        self._last_step = self._logged_step = -1
        self.traces: TraceLogger | None = None
        self.store: SessionStore | None = None

    @classmethod
    def start(
        cls, config: CosciConfig, store: SessionStore, overrides: list[str], models_choice: str
    ) -> SessionTracker:
        uri = tracking_uri(config)
        config.paths.data_dir.mkdir(parents=True, exist_ok=True)
        seed_store(uri)
        try:  # a moved or copied data folder writes into itself
            relocate_artifacts(uri, config.paths.data_dir)
        except sqlite3.Error as exc:  # the artifacts then go where the store says
            log.warning("MLflow artifact locations not moved to %s: %s", config.paths.data_dir, exc)
        client = MlflowClient(tracking_uri=uri)
        name = config.tracking.experiment_name
        exp_id = experiment_id(client, name, artifact_location(uri, config.paths.data_dir, name))
        row = store.sessions.get()
        if row.mlflow_run_id:
            client.update_run(row.mlflow_run_id, status="RUNNING")
            resumes = store.logs.events("session_resumed")
            changed = resumes[-1]["payload"].get("changed", {}) if resumes else {}
            if changed:  # params are immutable in MLflow: a resume's changed keys go to a tag and an artifact
                prior = client.get_run(row.mlflow_run_id).data.tags.get("cosci.resume_overrides", "")
                line = " ".join(f"{k}={v}" for k, v in sorted(changed.items()))
                client.set_tag(row.mlflow_run_id, "cosci.resume_overrides",
                               "\n".join(filter(None, [prior, line]))[-4000:])
                name = f"config/config-resume-{time.strftime('%Y%m%d-%H%M%S')}.json"
                client.log_text(row.mlflow_run_id, config.model_dump_json(indent=2), name)
            return cls(client, row.mlflow_run_id, uri, config.tracking.log_every_tasks)._with_traces(config, store)
        tags = {
            "cosci.session_id": store.session_id,
            "cosci.models": models_choice,
            "cosci.experiment": config.session.name,
            "cosci.goal": (config.session.goal or "")[:4000],
        }
        if config.session.project:  # a project's sessions are found by this tag across experiments (design.md#projects)
            tags["cosci.project"] = config.session.project
        if parent := os.environ.get(PARENT_ENV):
            tags["mlflow.parentRunId"] = parent
            tags["cosci.sweep_overrides"] = os.environ.get(SWEEP_OVERRIDES_ENV, " ".join(overrides))[:4000]
        run = client.create_run(exp_id, run_name=store.session_id, tags=tags)
        tracker = cls(client, run.info.run_id, uri, config.tracking.log_every_tasks)
        store.sessions.update(mlflow_run_id=tracker.run_id)
        client.log_batch(tracker.run_id, params=[Param(k, v) for k, v in flat_params(config, models_choice).items()])
        client.log_text(tracker.run_id, config.model_dump_json(indent=2), "config/config.json")
        client.log_text(tracker.run_id, "\n".join(overrides) + "\n", "config/overrides.txt")
        return tracker._with_traces(config, store)

    def _with_traces(self, config: CosciConfig, store: SessionStore) -> SessionTracker:
        self.store = store
        if config.tracking.traces:
            self.traces = TraceLogger(self.client, self.uri, self.run_id)
        return self

    def flush_traces(self, final: bool = False) -> int:
        """Write the traces of the calls not traced yet (see :mod:`cosci.tracking.traces`); returns spans.

        A failure is logged and never ends the session: the calls stay in the record and the next flush (or the
        resumed run) traces them.
        """
        if self.traces is None or self.store is None:
            return 0
        try:
            return self.traces.flush(self.store, final=final)
        except Exception as exc:
            log.warning("MLflow traces not written now: %s: %s", type(exc).__name__, " ".join(str(exc).split())[:300])
            return 0

    def on_progress(self, stats: SessionStats, step: int) -> None:
        """Log step metrics every ``tracking.log_every_tasks`` finished tasks (and the last step at the end)."""
        self.on_steps([(stats, step)])

    def on_steps(self, steps: Sequence[tuple[SessionStats, int]]) -> None:
        """:meth:`on_progress` for several steps at once, in order: their metrics in one batch, one trace flush."""
        if not steps:
            return
        self._last, self._last_step = steps[-1]
        self._log_steps([(stats, step) for stats, step in steps if step % self.every == 0])

    def _log_steps(self, steps: Sequence[tuple[SessionStats, int]]) -> None:
        if not steps:
            return
        now = int(time.time() * 1000)
        metrics = [Metric(k, v, now, step) for stats, step in steps for k, v in stats.metrics().items()]
        for i in range(0, len(metrics), MAX_METRICS_PER_BATCH):
            self.client.log_batch(self.run_id, metrics=metrics[i:i + MAX_METRICS_PER_BATCH])
        self._logged_step = steps[-1][1]
        self.flush_traces()

    def finish(self, store: SessionStore, summary: Mapping[str, Any], *, elo_initial: float,
               report: Path | None = None) -> None:
        """Log the last step and the results, and close the run (FINISHED).

        Args:
            record: the session's store (leaderboard, matches, Elo journal, claims, judge statistics).
            summary: the end-of-session summary as plain data (``SessionSummary.to_dict()``): ``stop_reason``,
                ``overview_path``, ``top_elo`` (Elo points), ``spent_usd`` (USD), ``hypotheses``, ``matches``,
                ``elapsed_seconds`` (s); logged as ``summary.json``.
            elo_initial: the Elo rating every hypothesis starts from (``ranking.elo_initial``, Elo points).
            report: the session's ``report.html`` (design.md#report), logged byte for byte when it exists.
        """
        if self._last is not None and self._last_step != self._logged_step:
            self._log_steps([(self._last, self._last_step)])
        run = self.run_id
        self.client.log_text(run, Path(summary["overview_path"]).read_text(encoding="utf-8"), "overview.md")
        self.client.log_dict(run, dict(summary), "summary.json")
        if (claims := claims_document(store)) is not None:  # the overview's claim map, support check and audit
            self.client.log_dict(run, claims, "claims.json")
        if report is not None and report.is_file():
            self.client.log_artifact(run, str(report))
        with tempfile.TemporaryDirectory() as tmp:  # binary artifacts (parquet, PNG) need files
            folder = Path(tmp)
            leaderboard_frame(store).write_parquet(folder / "leaderboard.parquet")
            matches_frame(store).write_parquet(folder / "matches.parquet")
            elo_trajectory_png(store, elo_initial, folder / "elo_trajectory.png")
            bt_png(store, folder / "bt_scores.png")
            self.client.log_artifacts(run, tmp)
        self.flush_traces(final=True)
        self.client.set_tag(self.run_id, "cosci.stop_reason", summary["stop_reason"])
        self.log_cache_shares(store)
        self.client.log_batch(
            self.run_id,
            metrics=[
                Metric(f"final_{k}", float(v), int(time.time() * 1000), 0)
                for k, v in (
                    ("top1_elo", summary["top_elo"]),
                    ("spent_usd", summary["spent_usd"]),
                    ("hypotheses", summary["hypotheses"]),
                    ("matches", summary["matches"]),
                    ("wall_seconds", summary["elapsed_seconds"]),
                )
            ]
            + [Metric(k, v, int(time.time() * 1000), 0) for k, v in grounding_metrics(store).items()]
            + [Metric(k, v, int(time.time() * 1000), 0) for k, v in session_judge_stats(store).metrics().items()],
        )
        self.client.set_terminated(self.run_id, status="FINISHED")

    def log_safety(self, store: SessionStore) -> None:
        """Safety screening on the run (docs/design.md#safety-screen): metrics ``safety_flags`` / ``safety_blocks``
        (counts of decisions), ``safety_screen_hits`` (verdicts with a term or screen hit, a flag, a block or a
        disagreement) and ``safety_disagreements``; tags ``cosci.safety`` (on / off), ``cosci.safety.goal`` (the
        goal's decision), ``cosci.safety.decided_by`` (``screen`` on a tier unable to classify, else
        ``classifier``), ``cosci.safety.hits`` (one entry per hit: subject, decision, what matched) and
        ``cosci.safety.disagreements``; and the verdicts as ``safety/verdicts.json`` (a withheld overview's text
        is kept out of MLflow, and so are a quarantined hypothesis's rationale and matched terms:
        :func:`cosci.store.standing.shown_verdict`)."""
        counts = store.safety.counts()
        held = {h.id for h in store.hypotheses.all(states=("quarantined",))}
        verdicts = [shown_verdict(v, held) for v in store.safety.all()]
        hits = [v for v in verdicts if v.hit]
        disagreements = [v for v in hits if v.disagreement]
        now = int(time.time() * 1000)
        self.client.log_batch(self.run_id, metrics=[
            Metric("safety_flags", float(counts.get("flag", 0)), now, 0),
            Metric("safety_blocks", float(counts.get("block", 0)), now, 0),
            Metric("safety_screen_hits", float(len(hits)), now, 0),
            Metric("safety_disagreements", float(len(disagreements)), now, 0)])
        off = not counts and bool(store.logs.events("safety_disabled"))
        self.client.set_tag(self.run_id, "cosci.safety", "off" if off else "on")
        goal = store.safety.latest("goal")
        if goal is not None:
            self.client.set_tag(self.run_id, "cosci.safety.goal", goal.decision)
            self.client.set_tag(self.run_id, "cosci.safety.decided_by", goal.screen.get("decided_by", "classifier"))
        if hits:
            self.client.set_tag(self.run_id, "cosci.safety.hits", _tag_value("; ".join(_hit(v) for v in hits)))
        if disagreements:
            self.client.set_tag(self.run_id, "cosci.safety.disagreements",
                                _tag_value("; ".join(_hit(v) for v in disagreements)))
        self.client.log_text(self.run_id, json.dumps([asdict(v) for v in verdicts], indent=2), "safety/verdicts.json")

    def log_cache_shares(self, store: SessionStore) -> None:
        """Metrics ``cache_read_share`` (all calls) and ``cache_read_share.<agent>``: input tokens read from the
        provider's prompt cache over all input tokens (design.md#caching)."""
        shares = store.logs.cache_read_shares()
        if shares:
            now = int(time.time() * 1000)
            self.client.log_batch(self.run_id, metrics=[
                Metric("cache_read_share" if agent == "total" else f"cache_read_share.{agent}", share, now, 0)
                for agent, share in sorted(shares.items())])

    def interrupted(self) -> None:
        """Mark the run KILLED (Ctrl-C); ``cosci resume`` sets it RUNNING again and continues it."""
        with contextlib.suppress(Exception):  # tracking must not turn a clean stop into an error
            self.flush_traces(final=True)
        with contextlib.suppress(Exception):
            self.client.set_terminated(self.run_id, status="KILLED")

    def fail(self) -> None:
        """Mark the run failed (a session error). A killed process leaves it RUNNING; resume continues it."""
        with contextlib.suppress(Exception):  # the original error matters more
            self.flush_traces(final=True)
        with contextlib.suppress(Exception):
            self.client.set_terminated(self.run_id, status="FAILED")


__all__ = ["SessionTracker", "flat_params", "mlflow"]


def _hit(v: SafetyVerdict) -> str:
    """One entry of ``cosci.safety.hits``: subject (and id), decision, and what the screen matched."""
    who = f"{v.subject} {v.subject_id}" if v.subject_id else v.subject
    return f"{who}: {v.decision}{' (acted)' if v.acted else ''} - {v.screen.get('line') or v.line()}"


def _tag_value(text: str) -> str:
    """A tag value within MLflow's limit (5000 characters)."""
    return text if len(text) <= 5000 else text[:4990] + " [...]"
