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

import hydra
from hydra._internal.utils import get_args_parser
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf import DictConfig

from cosci.config.load import ConfigError, compose, one_line, validate
from cosci.errors import CosciError
from cosci.llm.routing import Router
from cosci.paths import conf_dir

_PRINT_ONLY_FLAGS = ("cfg", "help", "hydra_help", "info", "shell_completion")


def expand_sweep(overrides: Sequence[str]) -> list[list[str]]:
    """Expand Hydra sweep overrides (``a=1,2 b=x,y``) into one override list per job, as Hydra's basic sweeper.

    Raises:
        ConfigError: an override Hydra cannot parse.
    """
    try:
        parsed = OverridesParser.create().parse_overrides(list(overrides))
    except HydraException as exc:
        raise ConfigError(one_line(str(exc))) from None
    axes = []
    for ov in parsed:
        if ov.is_sweep_override():
            key = ov.get_key_element()
            axes.append([f"{key}={v}" for v in ov.sweep_string_iterator()])
        else:
            axes.append([ov.input_line])
    return [list(job) for job in itertools.product(*axes)]


def prevalidate(overrides: Sequence[str], multirun: bool) -> None:
    """Compose and validate every job of the invocation before Hydra writes anything.

    Raises:
        ConfigError: the first job whose config is invalid.
    """
    jobs = expand_sweep(overrides) if multirun else [list(overrides)]
    for job in jobs:
        config = validate(compose(job), require_goal=True)
        if not config.session.resume:
            Router(config).check_keys()


@hydra.main(config_path=str(conf_dir()), config_name="config", version_base="1.3")
def _job(cfg: DictConfig) -> float | None:
    from flows.launch import run_session  # heavy imports (prefect, mlflow) only for real runs

    config = validate(cfg, require_goal=True)
    hc = HydraConfig.get()
    if config.session.resume:  # continue a session on its own frozen config (the other overrides do not apply)
        from cosci.cli import frozen_config, open_session

        record = open_session(config.paths.data_dir, config.session.resume)
        row, frozen = record.sessions.get(), frozen_config(record, [])
        record.close()
        summary = run_session(frozen, overrides=row.overrides, choices={"models": row.models_choice},
                              resume_id=config.session.resume)
    else:
        summary = run_session(config, overrides=list(hc.overrides.task), choices=dict(hc.runtime.choices))
    return summary.top_elo


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point; exits 2 with one line on a configuration or input error."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = get_args_parser().parse_args(argv)
    os.environ["HYDRA_FULL_ERROR"] = "1"  # let errors reach us, so we can print one line instead of Hydra's block
    try:
        if not any(getattr(args, flag, None) for flag in _PRINT_ONLY_FLAGS):
            prevalidate(args.overrides, bool(args.multirun))
        sys.argv = [sys.argv[0], *argv]
        _job()
    except (ConfigError, CosciError) as exc:
        print(f"cosci: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except HydraException as exc:
        print(f"cosci: {one_line(str(exc))}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        print("cosci: interrupted; resume with `cosci resume <session id>`", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
