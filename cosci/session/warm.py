"""The session's first-task imports, done in a thread while the session process waits for the Prefect server and
for the creation of its flow run (design.md#startup).

A session process spends those waits idle (the server boots on the other core; the flow run's creation is HTTP
requests to it), then imports, in the flow body and its first task, the agents with their prompts, the shipped
tools, the live progress line and what LiteLLM's first completion loads lazily (its tokenizer, the proxy's types,
its provider config map): about 0.6 s of CPU measured here after the server answered. :func:`start` imports them
in a daemon thread beside those waits; :func:`wait` (the flow body's first step) joins it, so no module is ever
imported by the thread and the flow body at the same time.

Two threads importing at once can meet Python's import-lock deadlock detection, which raises in one of them
instead of waiting. The thread's modules are cosci's agents and LiteLLM's, which nothing imports in the window
where the thread runs: the caller imports Prefect's flow-run modules before it starts the thread
(``flows.launch.prepare_flow_run``). An error in the thread is logged at debug level and dropped: the flow body then
imports what is missing itself, as it did before.
"""

from __future__ import annotations

import contextlib
import logging
import threading

log = logging.getLogger(__name__)

WAIT_SECONDS = 120.0
"""How long :func:`wait` joins the thread at most (its imports take about a second here; a machine so loaded that
they take longer than this goes on, and the flow body waits on each module it needs in Python's import lock)."""

_THREAD: list[threading.Thread] = []


def first_task_imports() -> None:
    """Import the agents (:func:`cosci.agents.agent_classes`, with their prompts and the vector store), the shipped
    tools' builders (the session's tool registry imports every declared tool's; a plugin's are left to it), the live
    progress line, and warm LiteLLM's first completion (:func:`cosci.llm.gateway.providers.warm_first_call`)."""
    from cosci.agents import agent_classes
    from cosci.literature import declarations
    from cosci.llm.gateway.providers import warm_first_call
    from cosci.tools.catalog import BuilderError, builder

    agent_classes()
    for declaration in declarations():
        if not declaration.origin:
            with contextlib.suppress(BuilderError):
                builder(declaration)
    import cosci.ui.progress  # noqa: F401 - a researcher's terminal run shows it from the flow body's start

    warm_first_call()


def _run() -> None:
    try:
        first_task_imports()
    except Exception as exc:  # a warm-up only: the flow body imports what is missing itself
        log.debug("the session's first-task imports in the background failed: %s", exc)


def start() -> None:
    """Start the imports in a daemon thread (one at a time: a call while one runs does nothing)."""
    if _THREAD and _THREAD[0].is_alive():
        return
    _THREAD.clear()
    thread = threading.Thread(target=_run, name="cosci-warm-imports", daemon=True)
    _THREAD.append(thread)
    thread.start()


def wait(timeout: float = WAIT_SECONDS) -> None:
    """Join the thread :func:`start` started, if any, for at most ``timeout`` seconds."""
    if _THREAD:
        _THREAD[0].join(timeout)
        if not _THREAD[0].is_alive():
            _THREAD.clear()
