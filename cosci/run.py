"""``python -m cosci.run``: the Hydra app that composes, validates and runs one session (or a sweep).

Usage (Hydra grammar): ``python -m cosci.run experiment=oncology models=opus run.budget_usd=10``,
``--cfg job`` to print the composed config, ``-m`` to sweep (``models=local,fake run.seed=1,2``).

Before Hydra creates any output folder, every job's overrides are composed and validated; a bad override exits
with status 2 and one line on stderr naming the key and the rule, and nothing is written or called.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import hydra
from hydra._internal.utils import get_args_parser
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import DictConfig

from cosci import api
from cosci.api.start import BEFORE_ANY_SESSION, absent, remove_new
from cosci.config.load import ConfigError, compose, hydra_argv, hydra_one_line, validate, with_goal_hint
from cosci.config.schema import CosciConfig
from cosci.errors import CosciError, GoalRefused
from cosci.launchers import check_launcher, quiet_schema_warning
from cosci.paths import conf_dir
from cosci.session.preflight import notices
from cosci.startup import mark, pause_collector, resume_collector
from cosci.text import one_line

_PRINT_ONLY_FLAGS = ("cfg", "help", "hydra_help", "info", "shell_completion")


def expand_sweep(overrides: Sequence[str]) -> list[list[str]]:
    """Expand Hydra sweep overrides (``a=1,2 b=x,y``) into one override list per job, as Hydra's basic sweeper.

    Under another sweeper (``hydra/sweeper=optuna``, ...) that sweeper chooses the jobs and its sweep syntax
    (``interval(0, 1)``) is not the basic one's: only what every job shares (the overrides without a sweep) is
    returned, and each job is validated again when it starts.

    Raises:
        ConfigError: an override Hydra cannot parse.
    """
    try:
        parsed = OverridesParser.create().parse_overrides(list(overrides))
    except HydraException as exc:
        raise ConfigError(with_goal_hint(hydra_one_line(str(exc)), overrides)) from None
    sweeper = next((ov.value() for ov in parsed if ov.key_or_group == "hydra/sweeper"), "basic")
    if sweeper != "basic":
        return [[ov.input_line or "" for ov in parsed if not ov.is_sweep_override()]]
    axes = []
    for ov in parsed:
        if ov.is_sweep_override():
            key = ov.get_key_element()
            axes.append([f"{key}={v}" for v in ov.sweep_string_iterator()])
        else:
            axes.append([ov.input_line or f"{ov.get_key_element()}={ov.get_value_element_as_str()}"])
    return [list(job) for job in itertools.product(*axes)]


def prevalidate(overrides: Sequence[str], multirun: bool) -> list[CosciConfig]:
    """Compose and validate every job of the invocation and run the service's pre-flight on each
    (:func:`cosci.api.preflight`) before Hydra writes anything; the notices are said once, for all jobs.

    Raises:
        ConfigError: the first job whose config is invalid, or a parallel sweep on a SQLite MLflow store, or
            a launcher whose plugin or SLURM commands are missing (:func:`cosci.launchers.check_launcher`).
        MissingApiKey: a job's models need a key that is not set. CosciError: another pre-flight rule.
    """
    jobs = expand_sweep(overrides) if multirun else [list(overrides)]
    configs = []
    for job in jobs:
        if multirun:
            check_launcher(job)
        checked = api.preflight(api.prepare(None, job), parallel=multirun and parallel_launcher(job))
        configs.append(checked.prepared.config)
    # a model shutting down within 30 days, and who decides safety: once (design.md#catalogue, #safety-measured)
    for line in notices(configs):
        print(line, file=sys.stderr)
    return configs


def parallel_launcher(job: Sequence[str]) -> bool:
    """Whether a job's overrides pick a launcher that runs sessions at the same time."""
    return any(o.startswith("hydra/launcher=") and o.split("=", 1)[1] not in ("basic", "") for o in job)


def _sweep_context(hc: Any, data_dir: Path) -> None:
    """In a multirun job: find the sweep's MLflow parent run; give parallel jobs their own Prefect home."""
    from hydra.types import RunMode

    if hc.mode != RunMode.MULTIRUN:
        return
    from cosci.tracking import PARENT_ENV, PARENT_FILE

    parent_file = Path(hc.sweep.dir).expanduser().resolve() / PARENT_FILE
    if PARENT_ENV not in os.environ and parent_file.is_file():
        os.environ[PARENT_ENV] = parent_file.read_text(encoding="utf-8").strip()
    launcher = str(hc.runtime.choices.get("hydra/launcher", "basic"))
    if launcher != "basic" and "PREFECT_API_URL" not in os.environ and "PREFECT_HOME" not in os.environ:
        os.environ["PREFECT_HOME"] = str(data_dir / "prefect" / f"job-{os.getpid()}")


@hydra.main(config_path=str(conf_dir()), config_name="config", version_base="1.3")
def _job(cfg: DictConfig) -> float | None:
    from hydra.types import RunMode

    try:
        return _run_job(cfg)
    except (ConfigError, CosciError) as exc:
        if HydraConfig.get().mode == RunMode.MULTIRUN:  # a sweep records the failed job and goes on
            raise
        raise JobError(exc) from exc


_SESSIONS_RUN: list[str] = []
"""Sessions this process started from :func:`main` (only then may it end the process at once: ``main`` is also
called in-process by tests, whose other tests may have started cosci's temporary server)."""


def _run_job(cfg: DictConfig) -> float | None:
    mark("hydra job")
    config = validate(cfg, require_goal=True)
    hc = HydraConfig.get()
    _SESSIONS_RUN.append(config.session.resume or "new")
    _sweep_context(hc, config.paths.data_dir)
    if config.session.resume:  # continue a session on its own frozen config (the other overrides do not apply)
        resumed = api.open(config.session.resume, config.paths.data_dir).resume()
        for line in resumed.lines:  # a waiting process told to go on, or batches settled (as `cosci resume` says)
            print(line)
        return resumed.summary.top_elo if resumed.summary else None
    prepared = api.Prepared(config, tuple(hc.overrides.task), dict(hc.runtime.choices))
    return api.run(api.Checked(prepared, ())).top_elo  # checked by prevalidate before Hydra wrote anything


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point; exits 2 with one line on a configuration or input error (3: the goal was refused)."""
    mark("entry point")  # Python and the entry point's imports (Hydra, cosci.config)
    argv = list(sys.argv[1:] if argv is None else argv)
    args = get_args_parser().parse_intermixed_args(argv)  # Hydra's flags anywhere: `models=fake --cfg job k=v`
    os.environ["HYDRA_FULL_ERROR"] = "1"  # let errors reach us, so we can print one line instead of Hydra's block
    os.environ.setdefault("MLFLOW_LOGGING_LEVEL", "WARNING")  # a sweep's callback opens MLflow before the session
    quiet_schema_warning()
    code = 0
    new_paths: list[Path] = []
    _SESSIONS_RUN.clear()  # this call's sessions only
    try:
        pause_collector()  # until the session's runtime is open (flows/session.py), or this call ends
        if args.cfg and not args.multirun:  # printing the config composes it: a bad key or option said here
            compose(args.overrides)
        elif not any(getattr(args, flag, None) for flag in _PRINT_ONLY_FLAGS):
            configs = prevalidate(args.overrides, bool(args.multirun))
            mark("config")
            if not args.multirun and not configs[0].session.resume:  # valid: the Prefect server may boot now,
                from flows.server import boot_server  # while Hydra composes again and the libraries import

                new_paths = absent(configs[0].paths.data_dir)
                boot_server(configs[0].paths.data_dir)
        sys.argv = [sys.argv[0], *hydra_argv(argv)]  # the layer files under it; a tier fact made settable
        _job()
    except JobError as exc:  # raised by a single run's job, past Hydra's "Error executing job" line
        code = _report(exc.error, args.overrides)
        if isinstance(exc.error, BEFORE_ANY_SESSION):
            remove_new(new_paths)
            _SESSIONS_RUN.clear()  # it started none
    except (ConfigError, CosciError, HydraException) as exc:
        code = _report(exc, args.overrides)
    except KeyboardInterrupt:
        print("cosci: interrupted", file=sys.stderr)
        code = 130
    finally:
        resume_collector()
    if _SESSIONS_RUN and "flows.server" in sys.modules:  # leave at once if it ran on cosci's own server
        sys.modules["flows.server"].exit_now(code)
    if code:
        raise SystemExit(code)


class JobError(BaseException):
    """Carries a single run's error out of the Hydra job: Hydra catches ``Exception`` subclasses and prints
    "Error executing job with overrides: …" above our one line."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def _report(exc: BaseException, overrides: Sequence[str]) -> int:
    """Print ``exc`` as one line on stderr; returns the exit status (3: goal refused, else 2). ``overrides`` are the
    command line's without Hydra's flags (``--cfg job`` is not an override Hydra's grammar could read)."""
    if isinstance(exc, GoalRefused):  # safety screening refused the goal (design.md#safety)
        print(f"cosci: {exc}", file=sys.stderr)
        return GoalRefused.exit_code
    if isinstance(exc, HydraException):
        print(f"cosci: {with_goal_hint(hydra_one_line(str(exc)), overrides)}", file=sys.stderr)
    else:
        print(f"cosci: {one_line(str(exc))}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    main()
