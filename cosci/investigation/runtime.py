"""What a cycle needs in the process that runs it: the task, the harness, the gateway (docs/design.md#investigation).

Built from plain data in every process (a Ray worker included), so a cycle never depends on objects of the
process that started the investigation.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from cosci.config.investigation import InvestigationConfig
from cosci.domain import Call
from cosci.investigation.harness import Harness
from cosci.investigation.task import Task, load_task
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.gateway.adapter import Gateway
from cosci.llm.port.types import Route
from cosci.sandbox import Isolation

T = TypeVar("T")
MODES = {"ideation": "idea", "execution": "attempt", "writer": "report"}
"""The one mode of each investigation agent (``investigation.agents.<agent>.modes``)."""


def open_harness(run_dir: Path, task_dir: Path, isolation: Isolation) -> tuple[Task, Harness]:
    """The run's task (from its frozen copy) and a harness whose staged views live in the run folder."""
    task = load_task(task_dir)
    return task, Harness(task, isolation, run_dir / "views")


def gateway(cfg: InvestigationConfig, budget: TokenBudget,
            recorder: Callable[[Call], None]) -> tuple[Gateway, dict[str, Route]]:
    """A gateway over ``budget`` and the route of each investigation agent."""
    gw = Gateway(cfg.gateway_config(), budget, recorder)
    routes = {agent: gw.router.route(agent, mode) for agent, mode in MODES.items()}
    return gw, routes


_LOOP: asyncio.AbstractEventLoop | None = None
_LOOP_LOCK = threading.Lock()


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on this process's one background event loop and wait for it.

    Cycles run in threads (the thread task runner) or in Ray worker processes; LiteLLM keeps a process-wide
    logging worker bound to one event loop, and an ``asyncio.run`` per thread made it log errors about a changed
    loop on every call. One loop per process, shared by every cycle it runs, avoids that.
    """
    global _LOOP
    with _LOOP_LOCK:
        if _LOOP is None or _LOOP.is_closed():
            _LOOP = asyncio.new_event_loop()
            threading.Thread(target=_LOOP.run_forever, name="cosci-investigation-loop", daemon=True).start()
        loop = _LOOP
    return asyncio.run_coroutine_threadsafe(coro, loop).result()
