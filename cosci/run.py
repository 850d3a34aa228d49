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
from typing import Any, NoReturn

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
from cosci.errors import CosciError, GoalRefused, interrupt_line
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


def _job_body(cfg: DictConfig) -> float | None:
    from hydra.types import RunMode

    try:
        return _run_job(cfg)
    except (ConfigError, CosciError) as exc:
        if HydraConfig.get().mode == RunMode.MULTIRUN:  # a sweep records the failed job and goes on
            raise
        raise JobError(exc) from exc


_job = hydra.main(config_path=str(conf_dir()), config_name="config", version_base="1.3")(_job_body)


def single_job(hydra_args: Sequence[str]) -> bool:
    """Run a single run's Hydra job as ``@hydra.main`` does (its compose in run mode, the job's output folder and
    ``.hydra`` files, logging, the callbacks), less the compose ``@hydra.main`` makes first only to read
    ``hydra.mode`` (none in cosci's config, so a single run's mode is run): about one compose of CPU
    (design.md#startup). Returns False, running nothing, when ``hydra_args`` hold a Hydra flag or set ``hydra.mode``:
    ``@hydra.main`` handles those."""
    if any(a.startswith("-") or a.lstrip("+~").startswith("hydra.mode") for a in hydra_args):
        return False
    from hydra._internal.hydra import Hydra
    from hydra._internal.utils import (
        create_automatic_config_search_path,
        detect_calling_file_or_module_from_task_function,
        detect_task_name,
    )
    from hydra.core.global_hydra import GlobalHydra

    calling_file, calling_module = detect_calling_file_or_module_from_task_function(_job_body)
    app = Hydra.create_main_hydra2(
        task_name=detect_task_name(calling_file, calling_module),
        config_search_path=create_automatic_config_search_path(calling_file, calling_module, str(conf_dir())))
    try:
        app.run(config_name="config", task_function=_job_body, overrides=[*hydra_args, "hydra.mode=RUN"])
    finally:
        GlobalHydra.instance().clear()
    return True


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


class EarlyServer:
    """cosci's Prefect server booted for a run before its config is composed (:func:`boot_early`): the data folder
    it was booted for, the folders the boot created (:func:`cosci.api.start.absent`), and whether the boot set
    ``PREFECT_HOME`` (taken back with the server when the composed config names another data folder)."""

    def __init__(self, data_dir: Path, new_paths: list[Path], home_set: bool) -> None:
        self.data_dir, self.new_paths, self.home_set = data_dir, new_paths, home_set
        self.home = Path(os.environ.get("PREFECT_HOME", data_dir))

    def drop(self) -> None:
        """Stop the server and delete the folders its boot created (a refused run leaves nothing behind)."""
        from flows.server import stop_server

        stop_server(within=[self.home])
        remove_new(self.new_paths)
        if self.home_set:
            os.environ.pop("PREFECT_HOME", None)


def boot_early(overrides: Sequence[str]) -> EarlyServer | None:
    """Boot cosci's Prefect server for a single new run as soon as the command line is read, before Hydra composes
    and validates its config (design.md#startup): the server's boot (its own process, on the other core) is the
    longer of the two paths to the first model call, and composing and validating took about 0.2 s before it.

    The data folder is the one every command finds (:func:`cosci.api.data_folder`: the command line's
    ``paths.data_dir=``, ``COSCI_DATA_DIR``, the layer files, ``./data``); the caller compares it with the validated
    config's and :meth:`EarlyServer.drop` s the server when they differ, or when the config is refused (the folders
    the boot created are deleted: bad input leaves nothing behind). Returns None, booting nothing, when the Prefect
    home exists already (a server started there before a refusal could write to its database and log: bad input
    writes nothing), for a resumed session (its lock comes first, ``flows.launch.run_session``), a server of the
    user's (``PREFECT_API_URL``) or one this process already runs, a data folder given through an interpolation,
    or a folder the boot cannot use (the run then boots after validation, as before, and says the error there)."""
    from cosci.errors import CosciError

    keys = [o.lstrip("+~").split("=", 1) for o in overrides]
    from flows.server import running

    if os.environ.get("PREFECT_API_URL") or running() or any(k[0] == "session.resume" for k in keys):
        return None  # a server of the user's or one this process runs for something else is left alone
    given = [k[1].strip("'\"") for k in keys if k[0] == "paths.data_dir" and len(k) == 2]
    if given and "$" in given[-1]:
        return None
    home_set = "PREFECT_HOME" not in os.environ
    try:
        data_dir = api.data_folder(given[-1] if given else None)
        if Path(os.environ.get("PREFECT_HOME") or data_dir / "prefect").exists() or not data_dir.parent.is_dir():
            return None  # (a data folder in no existing folder is refused by the pre-flight, with nothing made)
        new_paths = absent(data_dir)
        from flows.server import boot_server

        boot_server(data_dir)
    except (CosciError, OSError):
        if home_set:
            os.environ.pop("PREFECT_HOME", None)
        return None
    return EarlyServer(data_dir, new_paths, home_set)


def _keep_early(early: EarlyServer | None, config: CosciConfig | None) -> list[Path]:
    """The folders this run's boot created: the early server's if it was booted for ``config``'s data folder
    (a new single run), else none (the early server dropped) and, for a new single run, a boot now."""
    if early is not None and config is not None and early.data_dir == config.paths.data_dir:
        return early.new_paths
    if early is not None:
        early.drop()
    if config is None:
        return []
    from flows.server import boot_server

    new_paths = absent(config.paths.data_dir)
    boot_server(config.paths.data_dir)
    return new_paths


def _before_job(args: Any) -> list[Path]:
    """What runs before Hydra's job, for the parsed command line ``args``: the config printed by ``--cfg`` composed
    (its error said as it is), or every job validated (:func:`prevalidate`) with, for a single new run, its Prefect
    server booted (:func:`boot_early`, kept or replaced by :func:`_keep_early`). Returns the folders the boot
    created (deleted again if the run is refused before its session exists)."""
    if args.cfg and not args.multirun:  # printing the config composes it: a bad key or option said here
        compose(args.overrides)
        return []
    if any(getattr(args, flag, None) for flag in _PRINT_ONLY_FLAGS):
        return []
    early = None if args.multirun else boot_early(args.overrides)  # while Hydra composes and validates
    try:
        configs = prevalidate(args.overrides, bool(args.multirun))
    except BaseException:  # refused (or interrupted): the early server and the folders its boot made go
        if early is not None:
            early.drop()
        raise
    mark("config")
    new_run = not args.multirun and not configs[0].session.resume
    return _keep_early(early, configs[0] if new_run else None)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point; exits 2 with one line on a configuration or input error (3: the goal was refused)."""
    mark("entry point")  # Python and the entry point's imports (Hydra, cosci.config)
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = get_args_parser()
    parser.error = _flag_error  # type: ignore[method-assign]  # one line, not Hydra's usage block above it
    parser.allow_abbrev = False  # `--multi` is no `--multirun`, as `cosci` takes no abbreviation (design.md#cli)
    args = parser.parse_intermixed_args(argv)  # Hydra's flags anywhere: `models=fake --cfg job k=v`
    os.environ["HYDRA_FULL_ERROR"] = "1"  # let errors reach us, so we can print one line instead of Hydra's block
    os.environ.setdefault("MLFLOW_LOGGING_LEVEL", "WARNING")  # a sweep's callback opens MLflow before the session
    quiet_schema_warning()
    code = 0
    new_paths: list[Path] = []
    _SESSIONS_RUN.clear()  # this call's sessions only
    try:
        pause_collector()  # until the session's runtime is open (flows/session.py), or this call ends
        new_paths = _before_job(args)
        sys.argv = [sys.argv[0], *hydra_argv(argv)]  # the layer files under it; a tier fact made settable
        if args.multirun or not single_job(sys.argv[1:]):
            _job()
    except JobError as exc:  # raised by a single run's job, past Hydra's "Error executing job" line
        code = _report(exc.error, args.overrides)
        if isinstance(exc.error, BEFORE_ANY_SESSION):
            remove_new(new_paths)
            _SESSIONS_RUN.clear()  # it started none
    except (ConfigError, CosciError, HydraException) as exc:
        code = _report(exc, args.overrides)
    except KeyboardInterrupt as exc:
        if line := interrupt_line(exc):  # none after a session's summary, which ends with `cosci resume <id>`
            print(f"cosci: {line}", file=sys.stderr)
        code = 130
    finally:
        resume_collector()
    if _SESSIONS_RUN and "flows.server" in sys.modules:  # leave at once if it ran on cosci's own server
        sys.modules["flows.server"].exit_now(code)
    if code:
        raise SystemExit(code)


def _flag_error(message: str) -> NoReturn:
    """argparse's error on the command line's flags, as one line and exit 2 (Hydra's parser printed its seven-line
    usage block above it; ``--goal`` is `cosci run`'s flag, which a fresh user gave here): design.md#cli."""
    hint = "; a goal is `cosci run --goal \"...\"` or session.goal_file=PATH" if "--goal" in message.split() else ""
    print(f"cosci: {message} (see `python -m cosci.run --help`: it takes key=value overrides and Hydra's flags{hint})",
          file=sys.stderr)
    raise SystemExit(2)


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
