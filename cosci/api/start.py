"""Starting a session: prepare -> pre-flight -> run, each step a plain function with a typed result.

:func:`prepare` composes and validates the configuration (Hydra composes, pydantic validates, once);
:func:`preflight` runs every pre-flight rule (:mod:`cosci.session.preflight`) and returns the notices to say;
:func:`run` runs the session to its end on the Prefect flow (``flows/launch.py``, the engine) and returns its
summary. Nothing is written before :func:`run`; a refusal is a one-line exception (design.md#service).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cosci.config.load import compose, validate
from cosci.config.schema import CosciConfig
from cosci.session import preflight as rules
from cosci.session.summary import SessionSummary


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
            words (one line naming the key).
    """
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
    """
    rules.check_config(prepared.config)
    rules.check_parallel_tracking(prepared.config, parallel)
    return Checked(prepared, tuple(rules.notices([prepared.config])))


def run(checked: Checked, *, ui: bool = True) -> SessionSummary:
    """Run a new session to its end on the Prefect flow; its summary is printed to stdout and returned.

    Args:
        ui: show the live progress line on stderr (off for ``cosci eval``'s many sessions).

    Raises:
        GoalRefused: safety screening refused the goal (the session is recorded as refused; exit status 3).
        MissingApiKey, UnknownModel: a tier's model cannot be called (checked while the Prefect server boots).
        KeyboardInterrupt: the session was interrupted (its state is kept; ``resume`` continues it).
    """
    from flows.launch import run_session  # the engine: Prefect and MLflow load only for a real run

    prepared = checked.prepared
    return run_session(prepared.config, overrides=list(prepared.overrides), choices=dict(prepared.choices) or None,
                       ui=ui)


def start(goal: str | None = None, overrides: Sequence[str] = (), *, data_dir: str | Path | None = None,
          ui: bool = True) -> SessionSummary:
    """:func:`prepare`, :func:`preflight` and :func:`run` in one call (the notices are not said)."""
    return run(preflight(prepare(goal, overrides, data_dir=data_dir)), ui=ui)
