"""Starting a session: prepare -> pre-flight -> run, each step a plain function with a typed result.

:func:`prepare` composes and validates the configuration (Hydra composes, pydantic validates, once);
:func:`preflight` runs every pre-flight rule (:mod:`cosci.session.preflight`) and returns the notices to say;
:func:`run` runs the session to its end on the Prefect flow (``flows/launch.py``, the engine) and returns its
summary. Nothing is written before :func:`run`; a refusal is a one-line exception (design.md#service).
"""

from __future__ import annotations

import asyncio
import contextvars
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from cosci.api import arguments as check
from cosci.config.load import compose, validate
from cosci.config.schema import CosciConfig
from cosci.errors import BudgetTooSmall, CosciError, MissingApiKey, ServerUnreachable, UnknownModel
from cosci.session import preflight as rules
from cosci.session.summary import SessionSummary

T = TypeVar("T")

BEFORE_ANY_SESSION = (MissingApiKey, UnknownModel, ServerUnreachable, BudgetTooSmall)
"""Errors a run meets before it creates a session: its model check needs LiteLLM, whose import (3 s) overlaps
the Prefect server's boot, so they come after the server wrote its home; :func:`remove_new` takes it back."""


def absent(data_dir: Path) -> list[Path]:
    """The folders a run may create before its session exists that do not exist yet (outermost first)."""
    return [p for p in (data_dir, data_dir / "prefect", data_dir / "hydra") if not p.exists()]


def remove_new(paths: list[Path]) -> None:
    """Stop cosci's own Prefect server if it runs in a folder this run created, then delete the folders this run
    created (``paths``, from :func:`absent`): a refused run leaves the data folder as it found it (bad input
    writes nothing, design.md#resume)."""
    if "flows.server" in sys.modules:
        sys.modules["flows.server"].stop_server(within=paths)
    for path in reversed(paths):
        shutil.rmtree(path, ignore_errors=True)


_WORKER: ThreadPoolExecutor | None = None
"""The one worker thread :func:`outside_loop` runs calls on, kept for the process's life (see there)."""


def outside_loop(call: Callable[[], T]) -> T:
    """``call()``, in a worker thread when this thread runs an event loop (a Jupyter kernel's cell, an async
    caller): the engine runs its flow with ``asyncio.run``, which refuses to start inside a running loop. The
    context variables go along (Prefect's settings context among them, as ``asyncio.to_thread`` does). The
    session's own Ctrl-C handler is then not installed (signals reach the main thread only); ``pause``/``abort``
    from another process still stop it (design.md#service).

    The worker is one thread kept for the process's life, not one per call: the temporary Prefect server the first
    run starts is ended by the kernel when the thread that started it exits (``PR_SET_PDEATHSIG`` follows the
    thread), so a thread per call left a notebook's second run with a dead server ("did not start")."""
    global _WORKER
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        loop = False
    else:
        loop = True
    if not loop:  # called outside the except block: the session's errors keep their own causes (a LiteLLM error's
        return call()  # transport error, design.md#unreachable-hosts), not "no running event loop"
    if _WORKER is None:
        _WORKER = ThreadPoolExecutor(1, thread_name_prefix="cosci-session")
    return _WORKER.submit(contextvars.copy_context().run, call).result()  # the caller's context variables go along


@dataclass(frozen=True)
class Prepared:
    """A validated configuration and what it was composed from.

    ``overrides``: the Hydra overrides, recorded with the session (``cosci resume`` reads them back);
    ``choices``: Hydra's group choices (``{"models": "fake"}``), empty when composed outside a Hydra app (the
    models preset's own name is recorded then)."""

    config: CosciConfig
    overrides: tuple[str, ...]
    choices: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Checked:
    """A configuration that passed every pre-flight rule; ``notices``: the lines to say before the run (a model
    shutting down within 30 days, a tier unable to decide safety verdicts), each one line of text."""

    prepared: Prepared
    notices: tuple[str, ...]


def prepare(goal: str | None = None, overrides: Sequence[str] = (), *, data_dir: str | Path | None = None,
            given_as: str = "goal", config: CosciConfig | None = None) -> Prepared:
    """Compose and validate a session's configuration; nothing is written or called.

    Args:
        goal: the research goal, verbatim (never read by Hydra's override grammar); None: the overrides give it
            (``session.goal=``, ``session.goal_file=``, an experiment's goal).
        overrides: Hydra overrides, e.g. ``["experiment=demo", "models=fake"]``.
        data_dir: the data folder (added as ``paths.data_dir=``; later than ``overrides``, so it wins).
        given_as: how a refusal names ``goal`` (``--goal`` on the command line).
        config: an already validated configuration (``cosci eval`` derives one per item); ``overrides`` are then
            only recorded.

    Raises:
        ConfigError: an override Hydra cannot read, a value the schema refuses, a goal given twice, empty or not in
            words (one line naming the key). CosciError: an argument of another type (:mod:`cosci.api.arguments`).
    """
    check.text(given_as, goal, optional=True)
    check.texts("overrides", overrides)
    check.path("data_dir", data_dir)
    if config is not None and not isinstance(config, CosciConfig):
        raise CosciError(f"config must be a CosciConfig or None (got {type(config).__name__})")
    overrides = [*overrides, *([f"paths.data_dir={Path(data_dir).expanduser().resolve()}"] if data_dir else [])]
    if config is not None:
        return Prepared(config, tuple(overrides))
    if goal is None:
        return Prepared(validate(compose(overrides), require_goal=True), tuple(overrides))
    rules.check_goal_given(goal, overrides, given_as)
    cfg = compose(overrides)
    cfg.session.goal = goal
    return Prepared(validate(cfg, require_goal=True), tuple(overrides))


def preflight(prepared: Prepared, *, parallel: bool = False) -> Checked:
    """Run every pre-flight rule on a prepared configuration (:func:`cosci.session.preflight.check_config`).

    Args:
        parallel: the session is one job of a sweep whose jobs run at the same time.

    Raises:
        CosciError, ConfigError, MissingApiKey: the first rule that refuses, in one line; nothing is written.

    It prints only warnings about the user's own files, read here once (a local corpus's skipped rows, what reading
    it or the skills folder warns of: stderr, ``cosci: warning: ...``): they are said where the files are read, as
    the command line says them, not returned as notices.
    """
    if not isinstance(prepared, Prepared):
        raise CosciError(f"preflight takes what prepare() returns (got {type(prepared).__name__})")
    rules.check_config(prepared.config)
    rules.check_parallel_tracking(prepared.config, parallel)
    return Checked(prepared, tuple(rules.notices([prepared.config])))


def run(checked: Checked, *, ui: bool = True) -> SessionSummary:
    """Run a new session to its end on the Prefect flow; its summary is returned (and printed when ``ui``).

    Args:
        ui: a researcher's terminal (the default, as ``cosci run`` calls it): the opening line, the estimate and the
            live progress line on stderr, the summary on stdout. False (a library call, ``cosci eval``'s many
            sessions, the web UI): nothing is printed; warnings still reach the ``cosci`` logger.

    Called where an event loop runs (a notebook), the session runs in a worker thread (:func:`outside_loop`).

    Raises:
        GoalRefused: safety screening refused the goal (the session is recorded as refused; exit status 3).
        MissingApiKey, UnknownModel, ServerUnreachable: a tier's model cannot be called (checked while the Prefect
            server boots); the folders the run created are removed again (:func:`remove_new`).
        KeyboardInterrupt: the session was interrupted (its state is kept; ``resume`` continues it).
    """
    if not isinstance(checked, Checked):
        raise CosciError(f"run takes what preflight() returns (got {type(checked).__name__})")
    from flows.launch import run_session  # the engine: Prefect and MLflow load only for a real run

    prepared = checked.prepared
    new = absent(prepared.config.paths.data_dir)
    try:
        return outside_loop(lambda: run_session(prepared.config, overrides=list(prepared.overrides),
                                                choices=dict(prepared.choices) or None, ui=ui))
    except BEFORE_ANY_SESSION:  # refused before any session existed: the data folder as it was found
        remove_new(new)
        raise


def start(goal: str | None = None, overrides: Sequence[str] = (), *, data_dir: str | Path | None = None,
          ui: bool = True) -> SessionSummary:
    """:func:`prepare`, :func:`preflight` and :func:`run` in one call (the notices are not said; ``ui`` as
    :func:`run`'s)."""
    return run(preflight(prepare(goal, overrides, data_dir=data_dir)), ui=ui)
