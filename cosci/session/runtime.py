"""A session's runtime: its store, budget, gateway, tools, embedder, vector store and agents.

Its folder (layout, lock, store file) is :class:`cosci.session.folder.SessionFolder`. Nothing here imports
Prefect, MLflow or Hydra: the flow (``flows/session.py``) drives a runtime.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosci.agents import AgentDeps, BaseAgent, build_agents
from cosci.config.schema import CosciConfig
from cosci.domain import Task, TaskResult
from cosci.grounding.report import write_claims
from cosci.ids import id_namespace
from cosci.llm.batches.batch_gateway import BatchGateway
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.embeddings.embedder import Embedder
from cosci.llm.gateway.adapter import Gateway
from cosci.llm.gateway.cancelled import close_orphans, install_closing_executor
from cosci.llm.gateway.embedding_calls import EmbeddingCalls
from cosci.llm.gateway.providers import check_models
from cosci.llm.gateway.routing import Router
from cosci.safety.classifier import screening_on
from cosci.session.folder import SessionFolder, new_session_id
from cosci.session.preflight import FINISHED, RESUME_STARTING, finished_refusal
from cosci.session.projects import sync_project
from cosci.store import SessionStore
from cosci.tools.registry import ToolRegistry, build_registry
from cosci.tracking import check_tracking
from cosci.vectors.store import VectorStore

log = logging.getLogger(__name__)


OPEN_RUNTIMES: dict[str, SessionRuntime] = {}
"""The runtimes open in this process, by session id; filled and emptied by the session flow (flows/session.py)."""


def record_resume(store: SessionStore, config: CosciConfig) -> list[str]:
    """Mark a resumed session running (an aborting one stays aborting, so it ends at once; one paused while the
    resume started stays paused, so its process holds: :func:`paused_while_starting`); if its config
    changed (``cosci resume <id> key=value``), keep the new snapshot, budget and deadline on the session row and
    log what changed. Returns the changed keys."""
    before = store.sessions.get().config_snapshot
    after = json.loads(config.model_dump_json())
    changed = sorted(k for k in set(_flat(before)) | set(_flat(after)) if _flat(before).get(k) != _flat(after).get(k))
    # an abort requested while nothing ran stays: the loop stops at once and writes the overview
    status = store.sessions.status()
    if status != "aborting" and not (status == "paused" and paused_while_starting(store)):
        status = "running"
    fields: dict[str, Any] = {"status": status, "stop_reason": None}
    if changed:
        fields.update(config_snapshot=after, budget_usd=config.run.budget_usd, budget_tokens=config.run.budget_tokens,
                      wall_clock_seconds=config.run.wall_clock_seconds)
    store.sessions.update(**fields)
    store.logs.event("session_resumed", {"changed": {k: _flat(after).get(k) for k in changed}})
    return changed


def paused_while_starting(store: SessionStore) -> bool:
    """Whether a pause was asked after the newest resume read the session (:data:`~cosci.session.preflight.
    RESUME_STARTING`'s ``since``): the pause wins over that resume (design.md#resume). False without such a mark
    (a session opened by another door)."""
    marks = store.logs.events(RESUME_STARTING)
    if not marks:
        return False
    since = int(marks[-1]["payload"].get("since") or 0)
    return any(e["event"] == "external_pause" for e in store.logs.events_after(since, limit=10_000))


def _flat(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for k, v in data.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    return {prefix.rstrip("."): data}


@dataclass
class SessionRuntime:
    """Everything needed to execute the session's tasks, in this process."""

    config: CosciConfig
    session_id: str
    home: SessionFolder
    store: SessionStore
    budget: TokenBudget
    gateway: Gateway
    registry: ToolRegistry
    agents: dict[str, BaseAgent]
    deps: AgentDeps

    @classmethod
    async def open(cls, config: CosciConfig, *, session_id: str | None = None, overrides: list[str] | None = None,
                   models_choice: str = "") -> SessionRuntime:
        """Create a new session (``session_id=None``) or open an existing one to resume it.

        Raises:
            SessionNotFound: resuming an id that does not exist. SessionBusy: another process runs it.
            MissingApiKey, UnknownModel: a tier's model cannot be called (nothing is created).
            CosciError: the MLflow server of a tracked session does not answer (nothing is created).
        """
        Router(config).check_keys()  # before any work (design.md#resume)
        check_models(config)
        check_tracking(config)
        resuming = session_id is not None
        home = (SessionFolder.existing(config.paths.data_dir, session_id) if session_id is not None
                else SessionFolder(config.paths.data_dir, new_session_id()))
        sid = home.session_id
        home.lock()
        store = home.open_store()
        if not resuming:  # a resumed session keeps the namespace it started with (SessionStore.open)
            store.namespace = id_namespace(config.session.goal or "", config.run.seed)
        if not resuming:
            store.sessions.create(goal=config.session.goal or "", config_snapshot=json.loads(config.model_dump_json()),
                                   overrides=list(overrides or []), models_choice=models_choice or config.models.name,
                                   budget_usd=config.run.budget_usd, budget_tokens=config.run.budget_tokens,
                                   wall_clock_seconds=config.run.wall_clock_seconds)
            store.logs.event("session_started", {"goal": config.session.goal, "n_initial": config.run.n_initial,
                                                  "seed": config.run.seed, "namespace": store.namespace,
                                                  "budget_usd": config.run.budget_usd})
            if not screening_on(config):  # said once, at the start
                log.warning("safety screening is off (safety.enabled=false): neither the offline screen nor the "
                            "classifier screens the goal, hypotheses, feedback or the overview")
                store.logs.event("safety_disabled", {})
        elif (status := store.sessions.status()) in FINISHED:  # the service refused it already (preflight)
            store.close()
            home.unlock()
            raise finished_refusal(sid, status)
        else:
            record_resume(store, config)
        budget = TokenBudget(cap_usd=config.run.budget_usd,
                             shares={a: c.budget_share for a, c in config.agents.items()},
                             reserve_share=config.budget.reserve_share, cap_tokens=config.run.budget_tokens)
        budget.restore(store.logs.spend())
        install_closing_executor()  # a call cancelled by Ctrl-C leaves no "never awaited" warning (gateway/cancelled)
        # run.concurrency bounds the calls out at once, not the actions (design.md#supervisor)
        gateway = Gateway(config, budget, store.logs.add_call, calls=config.run.concurrency)
        gateway.sizer.restore(store.logs.output_lengths())
        registry = build_registry(config, home.http_cache)
        embedder = Embedder(list(config.models.embeddings.chain), EmbeddingCalls(gateway))
        chosen = [e["payload"].get("model") for e in store.logs.events("embedding_model")]
        if await embedder.choose() != (chosen[-1] if chosen else None):  # the model in the store (design.md#embeddings)
            store.logs.event("embedding_model", {"model": embedder.model})
        registry.use_embedder(embedder)  # the local corpus embeds at its first search (design.md#own-documents)
        ids, vecs = store.hypotheses.embeddings(embedder.model)
        vectors = VectorStore(vecs.shape[1] if len(ids) else embedder.dim)
        if len(ids):
            vectors.load(ids, vecs)
        sync_project(config, store)  # the project knows the session from its start (design.md#projects)
        deps = AgentDeps(config=config, store=store, llm=gateway, router=gateway.router, tools=registry,
                         embedder=embedder, vectors=vectors, batches=BatchGateway(gateway))
        return cls(config, sid, home, store, budget, gateway, registry, build_agents(deps), deps)

    @property
    def folder(self) -> Path:
        """The session's folder, ``<paths.data_dir>/sessions/<session id>``."""
        return self.home.path

    async def execute(self, task: Task) -> TaskResult:
        """Run one task on its agent (one attempt, counted on the task row)."""
        self.store.tasks.start_attempt(task.id)
        agent = self.agents.get(task.agent)
        if agent is None:
            raise ValueError(f"task {task.id}: no agent '{task.agent}'")
        return await agent.execute(task)

    def write_overview(self, text: str) -> Path:
        """Write ``final/overview.md`` (design.md#metareview: ``data/artifacts/<session_id>/final/overview.md``)."""
        path = self.home.overview_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        withheld = self.store.safety.withheld_overview()  # kept out of overview.md and MLflow (design.md#safety)
        if withheld:
            self.home.withheld_overview_path.write_text(withheld, encoding="utf-8")
        write_claims(self.store, path.parent)  # final/claims.json, the overview's claim map
        sync_project(self.config, self.store)  # its final ratings, verdicts and rejected directions
        self.home.vectors_file.parent.mkdir(exist_ok=True)
        if len(self.deps.vectors):
            self.deps.vectors.save(str(self.home.vectors_file))
        self.write_report()
        return path

    def write_report(self) -> Path | None:
        """Write ``final/report.html`` (design.md#report) from the store; a failure is logged, never fatal."""
        from cosci.report.render import write_report

        try:
            return write_report(self.store, self.folder, self.config.ranking.elo_initial)
        except Exception as exc:  # the overview and the store matter more than the page
            log.warning("report.html not written: %s: %s", type(exc).__name__, exc)
            return None

    async def close(self) -> None:
        sync_project(self.config, self.store)  # a paused or stopped session as it stands
        await self.registry.aclose()
        close_orphans()  # provider coroutines cancelled calls left unstarted (gateway/cancelled)
        self.store.close()
        self.home.unlock()
