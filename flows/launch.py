"""Run a session from the command line: prepare Prefect, show the estimate, run the flow, print the summary."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

from cosci.config.schema import CosciConfig
from cosci.errors import BudgetTooSmall, GoalRefused, SessionInterrupted
from cosci.session import warm
from cosci.session.summary import SessionSummary
from cosci.startup import mark
from cosci.supervisor.termination import StopReason
from flows.env import prepare
from flows.server import ensure_server, server_ready

NOISY = {
    "prefect": logging.CRITICAL,
    "alembic": logging.WARNING,
    "mlflow": logging.WARNING,
    "LiteLLM": logging.ERROR,
    "httpx": logging.WARNING,
    "faiss": logging.WARNING,
    "matplotlib": logging.WARNING,
    "docket": logging.ERROR,
    "uvicorn": logging.ERROR,
}
"""Loggers kept out of the researcher's terminal (task failures are in the record and the summary)."""


class Terminal(logging.StreamHandler):  # type: ignore[type-arg]
    """A handler that writes to the ``sys.stderr`` of the moment it emits, not the one of the moment it was
    made (as Python's last-resort handler does): a session run in-process under a replaced stderr (a test's
    capture, an embedding tool) leaves it installed, and a later warning would otherwise go to a closed
    stream as a ``--- Logging error ---`` traceback."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:  # StreamHandler.__init__ assigns it; the property wins
        pass


class LogFile(logging.FileHandler):
    """Prefect's chatter file: a record it cannot write (its folder gone, e.g. an earlier session's data folder
    deleted while this process runs on) is reported by logging's own error path, never raised into the task that
    logged it (``logging.FileHandler`` reopens a closed file outside its error handling)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            super().emit(record)
        except OSError:
            self.handleError(record)


def quiet_logging(log_file: Path | None = None) -> None:
    """Warnings and above from cosci on the terminal; Prefect's per-task state lines, its server's shutdown
    tracebacks (upstream PrefectHQ/prefect#18934) and library chatter go to ``log_file`` instead, if given."""
    logging.getLogger().setLevel(logging.WARNING)
    cosci_log = logging.getLogger("cosci")  # to stderr as "cosci: ...", not through Hydra's root handler on stdout
    if not cosci_log.handlers:
        console = Terminal()
        console.setFormatter(logging.Formatter("cosci: %(message)s"))
        cosci_log.addHandler(console)
        cosci_log.propagate = False
    for name, level in NOISY.items():
        logging.getLogger(name).setLevel(level)
    handler = LogFile(log_file) if log_file else logging.NullHandler()
    handler.setLevel(logging.WARNING)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in [n for n in logging.root.manager.loggerDict if n.split(".")[0] in ("prefect", "docket", "uvicorn")]:
        logger = logging.getLogger(name)
        for h in list(logger.handlers):
            logger.removeHandler(h)
        logger.propagate = False
        logger.setLevel(logging.WARNING)
        logger.addHandler(handler)


REFUSED_ADVICE = "state the goal otherwise in a new session (`cosci screen \"<goal>\"` checks a goal before a run)"
"""How to proceed after a refused goal: its session does not run again (``cosci resume`` refuses it)."""


def refusal(data_dir: Path, session_id: str) -> GoalRefused:
    """The error for a session whose goal safety screening refused: the verdict (categories, rationale and any
    advice of its own, e.g. for a language the screen cannot read) and how to proceed, :data:`REFUSED_ADVICE`."""
    from cosci.session.folder import SessionFolder

    with SessionFolder(data_dir, session_id).store() as store:
        verdict = store.safety.latest("goal")
    why = verdict.line() if verdict else "no verdict recorded"
    return GoalRefused(f"goal refused by safety screening, {why} (session {session_id} recorded as refused; it does "
                       f"not run again: {REFUSED_ADVICE})")


def load_screen(config: CosciConfig) -> None:
    """Load the offline safety screen (kept per process, :func:`cosci.safety.screen.screen_for`) before waiting for
    the Prefect server, so its load overlaps the server's start instead of delaying the goal screen, the session's
    first action (design.md#startup), and check the goal with it once (the result is not kept: the goal screen
    decides): a first check loads what it reads with, lingua's language models of the text's script and the gloss,
    holding the GIL for 0.4-3 s, and inside the goal screen that kept the session's event loop from sending the goal
    screen's own call (design.md#supervisor, "The session's start"). Nothing when screening is off."""
    from cosci.safety.classifier import screening_on
    from cosci.safety.screen import screen_for

    if screening_on(config) and config.safety is not None:
        screen = screen_for(config.safety)
        if config.session.goal:
            screen.check(config.session.goal, subject="goal")


FLOW_RUN_MODULES = ("prefect.flow_engine", "prefect.task_engine", "prefect.utilities.visualization",
                    "fastapi.encoders", "anyio._core._sockets", "anyio._core._streams", "anyio._backends._asyncio")
"""What Prefect imports lazily while it creates a flow run and starts its first task (measured with
``python -X importtime`` on Prefect 3.9)."""


def prepare_flow_run() -> None:
    """Import :data:`FLOW_RUN_MODULES` in this thread before :func:`cosci.session.warm.start`: the flow run's
    creation then imports nothing beside the warm-up thread (two threads importing at once can meet Python's
    import-lock deadlock detection, design.md#startup). A module a later Prefect no longer has is skipped."""
    import importlib

    for name in FLOW_RUN_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            continue


def preload_model(config: CosciConfig) -> None:
    """Start loading the embedded model in its caller thread when a tier uses it, so its load overlaps the Prefect
    server's boot (design.md#startup). llama-cpp-python is imported here, in this thread and
    before :func:`warm.start`, so no two threads import at once (``cosci.session.warm``)."""
    local = config.models.local
    if local is None or not any(t.model.startswith("cosci-local/") for t in config.models.tiers.values()):
        return
    import cosci.llm.local.state_cache  # noqa: F401 - llama_cpp, imported by this thread (see above)
    from cosci.llm.local.model import LocalModelProvider

    provider = LocalModelProvider.instance()
    provider.configure(local, seed=config.run.seed)
    provider.preload()
    mark("model preload started")


def run_session(
    config: CosciConfig,
    *,
    overrides: list[str],
    choices: dict[str, Any] | None = None,
    resume_id: str | None = None,
    ui: bool = True,
) -> SessionSummary:
    """Run (or resume) one session to its end; with ``ui`` (a researcher's terminal) print its summary to stdout and
    the opening line, the pre-flight estimate and the live line to stderr. Without ``ui`` (a library call, a web
    worker, ``cosci eval``'s sessions) nothing is printed: the summary is returned; warnings still reach the
    ``cosci`` logger (stderr, ``cosci: ...``, unless the caller gave that logger a handler of its own).

    Terminal conventions (design.md#prompts): ``> log`` and ``| tee`` capture the summary (session id, stop reason,
    cost, paths); the pre-flight estimate, the live line and warnings stay on stderr.

    The pre-flight rules ran before (the session service, :mod:`cosci.api`); the model check alone runs here,
    while the Prefect server boots (design.md#service).

    Raises:
        CosciError: a missing API key, an unknown session, a session already running elsewhere.
        GoalRefused: safety screening refused the goal (design.md#safety; callers exit with status 3).
    """
    if resume_id:  # refuse at once if another process runs it (before the Prefect server starts)
        from cosci.session.folder import SessionFolder

        SessionFolder(config.paths.data_dir, resume_id).lock()
    home = prepare(config.paths.data_dir)
    # the server boots while the imports below run (before Prefect is imported: its URL is read at import); a
    # parallel sweep's jobs each have their own home
    ensure_server(home, wait=False)
    quiet_logging()  # before the imports below log anything (faiss, mlflow)
    from cosci.llm.gateway.estimate import estimate_session
    from cosci.llm.gateway.providers import check_models, check_servers
    from flows.session import session_flow

    mark("imports")
    quiet_logging(home / "prefect.log")

    models_choice = str((choices or {}).get("models") or config.models.name)
    estimate = None
    check_servers(config)  # a local server that is down: one line now, not minutes of retried calls
    if resume_id is None:
        check_models(config)  # before the estimate: a model that cannot be called is the one line printed
        priced = estimate_session(config)
        if priced.too_small:  # it would stop at once with nothing to show: refused before any session exists
            raise BudgetTooSmall(priced.budget_usd, priced.floor_usd, expected_usd=priced.floor_expected_usd)
        estimate = priced.line()  # printed once the goal screen passed (a refusal prints alone)
    mark("estimate")
    load_screen(config)
    mark("screen")
    prepare_flow_run()  # then the first task's imports beside the waits for the server and the flow run
    preload_model(config)
    warm.start()
    server_ready()
    mark("prefect server")
    data = asyncio.run(session_flow(config.model_dump(mode="json"), list(overrides), models_choice, resume_id, ui=ui,
                                    estimate=estimate if ui else None))
    summary = SessionSummary(**data)
    for line in summary.lines() if ui else ():
        print(line, flush=True)  # stdout, plain: paths must not be wrapped when the output is a file
    if summary.stop_reason == StopReason.REFUSED:  # one line naming the category; the caller exits 3 (design.md#safety)
        raise refusal(config.paths.data_dir, summary.session_id)
    if summary.stop_reason == StopReason.INTERRUPTED:  # its summary said how to resume: nothing more to say
        raise SessionInterrupted(summary.session_id, said=ui)
    return summary
