"""What a cycle needs in the process that runs it: the task, the harness, the gateway (docs/design.md#investigation).

Built from plain data in every process (a Ray worker included), so a cycle never depends on objects of the
process that started the investigation.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cosci.config.investigation import InvestigationConfig
from cosci.domain import CallRecord
from cosci.investigation.harness import Harness
from cosci.investigation.task import Task, load_task
from cosci.llm.budget import TokenBudget
from cosci.llm.gateway import Gateway
from cosci.llm.types import Route
from cosci.sandbox import Isolation

MODES = {"ideation": "idea", "execution": "attempt", "writer": "report"}
"""The one mode of each investigation agent (``investigation.agents.<agent>.modes``)."""


def open_harness(run_dir: Path, task_dir: Path, isolation: Isolation) -> tuple[Task, Harness]:
    """The run's task (from its frozen copy) and a harness whose staged views live in the run folder."""
    task = load_task(task_dir)
    return task, Harness(task, isolation, run_dir / "views")


def gateway(cfg: InvestigationConfig, budget: TokenBudget,
            recorder: Callable[[CallRecord], None]) -> tuple[Gateway, dict[str, Route]]:
    """A gateway over ``budget`` and the route of each investigation agent."""
    gw = Gateway(cfg.gateway_config(), budget, recorder)
    routes = {agent: gw.router.route(agent, mode) for agent, mode in MODES.items()}
    return gw, routes
