"""Helpers of the agent tests: run a task on its agent, seed tournament players, script a literature tool.

Every agent runs inside the ``runtime`` fixture (an open session on the scripted fake with offline tools);
tests script the fake's answers and assert on the stored rows, the :class:`TaskResult` and what was asked.
``config`` is the root fixture's config, composed by Hydra once per set of overrides (a test adds its own with
``@pytest.mark.overrides("debate.min_turns=2", ...)``) with only the data folder changed per test.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest

from cosci.agents import AgentDeps, BaseAgent
from cosci.config.schema import CosciConfig, PathsCfg
from cosci.domain import Task, TaskResult
from cosci.ids import hypothesis_id
from cosci.llm.embeddings.embedder import hash_embed
from cosci.llm.port.types import ToolSpec
from cosci.records import RecordHypothesis, RecordReview
from cosci.session.runtime import SessionRuntime
from cosci.tools.base import Tool, ToolResult
from tests.conftest import make_config
from tests.contract import CONTRACT
from tests.tournament.shipped import ELO

RunTask = Callable[..., Awaitable[tuple[Task, TaskResult]]]
AddPlayer = Callable[..., str]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "overrides(*overrides): Hydra overrides added to the test's config")


@pytest.fixture(scope="session")
def compose_config() -> Callable[..., CosciConfig]:
    """``make_config`` of ``tests/conftest.py``, memoised on the overrides (Hydra composes in ~0.4 s)."""
    cache: dict[tuple[str, ...], CosciConfig] = {}

    def compose(data_dir: Path, *overrides: str) -> CosciConfig:
        if overrides not in cache:
            cache[overrides] = make_config(data_dir, *overrides)
        return cache[overrides].model_copy(update={"paths": PathsCfg(data_dir=data_dir)})

    return compose


@pytest.fixture
def config(compose_config: Callable[..., CosciConfig], tmp_path: Path,
           request: pytest.FixtureRequest) -> CosciConfig:
    marker = request.node.get_closest_marker("overrides")
    return compose_config(tmp_path / "data", *(marker.args if marker else ()))


@pytest.fixture
def run_task(runtime: SessionRuntime) -> RunTask:
    """``await run_task(agent, action, key, target_id=..., payload=...)``: enqueue, then execute."""

    async def run(agent: str, action: str, key: str, **kw: Any) -> tuple[Task, TaskResult]:
        tid = runtime.store.tasks.enqueue(agent, action, key, **kw)
        assert tid is not None, f"task key {key!r} already used"
        task = runtime.store.tasks.get(tid)
        assert task is not None
        return task, await runtime.execute(task)

    return run


@pytest.fixture
async def planned(runtime: SessionRuntime, run_task: RunTask) -> SessionRuntime:
    """The runtime after goal parsing (the fake's research plan is stored on the session row)."""
    _, result = await run_task("goal_parsing", "ParseGoal", "goal_parsing::parse_goal")
    assert result.kind == "research_plan_parsed" and not result.detail["fallback"]
    return runtime


def hypothesis_record(statement: str, **fields: Any) -> RecordHypothesis:
    base: dict[str, Any] = {"title": statement.split(" to ")[0][:60], "statement": statement,
                            "mechanism": f"Mechanism of: {statement}", "entities": statement.split()[:2],
                            "anticipated_outcomes": "Reduced colony formation.",
                            "novelty_argument": "Untested.", **CONTRACT,
                            "citations": []}
    return RecordHypothesis.model_validate({**base, **fields})


@pytest.fixture
def add_player(runtime: SessionRuntime) -> AddPlayer:
    """Insert a hypothesis with its embedding (hash embedder), then set state, Elo and matches directly."""

    def add(statement: str, *, state: str = "in_tournament", elo: float = 1200.0, matches: int = 0,
            embed: bool = True, **fields: Any) -> str:
        rec = hypothesis_record(statement, **fields)
        hid = hypothesis_id(runtime.store.namespace, "literature", statement)
        assert runtime.store.hypotheses.insert(hid, rec, elo=elo, task_id=None)
        if embed:
            text = f"{rec.title}. {rec.statement} {rec.mechanism}"
            vec = hash_embed([text])[0]
            digest = hashlib.sha256(text.encode()).hexdigest()[:16]
            runtime.store.hypotheses.add_embedding(hid, "hash", vec, digest, len(runtime.deps.vectors))
            runtime.deps.vectors.add(hid, vec)
        with runtime.store.db.tx() as c:
            c.execute("UPDATE hypotheses SET state=?, matches_played=? WHERE id=?", (state, matches, hid))
        return hid

    return add


@pytest.fixture
def overview_ready(planned: SessionRuntime, add_player: AddPlayer) -> list[str]:
    """A planned session ready for its final overview: three reviewed players (Elo 1250, 1225, 1200; 3 matches
    each) and one pairwise verdict between the first two. Returns the three hypothesis ids, best first."""
    ids = [add_player(f"Drug {i} inhibits target {i} in leukemic stem cells", elo=1250.0 - 25 * i, matches=3)
           for i in range(3)]
    for i, hid in enumerate(ids):
        planned.store.hypotheses.add_review(hid, RecordReview(verdict="missing_piece", evidence=[], novelty=0.8,
                                                              notes=f"Review {i}."), task_id=f"T-review-{i}")
    planned.store.matches.apply("M-1", ids[0], ids[1], mode="pairwise", winner=ids[0], rule=ELO,
                                 rationale="Sharper experiment.\nbetter idea: 1", transcript=[], task_id=None)
    return ids


@dataclass
class ScriptedTool:
    """A literature tool that answers every call with ``text`` and ``urls`` and records its arguments."""

    name: str
    text: str
    urls: tuple[str, ...] = ()
    calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description="Search the literature.",
                        parameters={"type": "object", "properties": {"query": {"type": "string"}},
                                    "required": ["query"]})

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        self.calls.append(arguments)
        return ToolResult(self.text, self.urls, source=self.name)


@dataclass
class ToolsFor:
    """A tool source giving every agent the same tools (in place of the session's registry)."""

    tools: dict[str, Tool]

    def for_agent(self, agent: str) -> dict[str, Tool]:
        return dict(self.tools)


@pytest.fixture
def literature_tool() -> Callable[..., ScriptedTool]:
    """``literature_tool(name, text, urls)``: a :class:`ScriptedTool`."""
    return ScriptedTool


@pytest.fixture
def agent_with_tools(runtime: SessionRuntime) -> Callable[..., BaseAgent]:
    """``agent_with_tools(AgentClass, *tools)``: the agent on the runtime's dependencies, only ``tools``."""

    def make(agent_cls: type[BaseAgent], *tools: ScriptedTool) -> BaseAgent:
        deps: AgentDeps = replace(runtime.deps, tools=ToolsFor({t.name: t for t in tools}))
        return agent_cls(deps)

    return make
