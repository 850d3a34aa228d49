"""A session's frozen config: the snapshot kept in its store, with ``cosci resume`` overrides applied.

The snapshot is plain data (``sessions.config_snapshot``); this module merges ``key=value`` overrides onto it
with OmegaConf (allowed here: config loading is one of Hydra's edges) and validates the result again; without
overrides the snapshot is validated as the plain data it is (no OmegaConf to import, design.md#startup).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cosci.config.errors import unknown_in_schema
from cosci.config.load import ConfigError, validate
from cosci.config.renames import carry_over, old_key_message, old_value_message
from cosci.config.schema import CosciConfig


def check_resume_overrides(overrides: Sequence[str]) -> None:
    """Refuse overrides a resume cannot take.

    Raises:
        ConfigError: an override that is not ``key=value``, names a config group (``models=...``), a
            ``session.*`` key (the goal is fixed for a session), an old key (renamed or removed), or a key the
            schema does not have (:func:`~cosci.config.errors.unknown_in_schema`).
    """
    for override in overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        if "=" not in override or not key:
            raise ConfigError(f"resume overrides: {override!r} is not key=value")
        if "." not in key:
            raise ConfigError(f"{key}: a config group cannot change on resume; override keys of the session's "
                              f"frozen config instead (e.g. run.budget_usd=50), or start a new session")
        if key.startswith("session."):
            raise ConfigError(f"{key}: the research goal and its settings are fixed for a session; start a new "
                              f"session instead")
        if message := old_key_message(key) or old_value_message(key, override.split("=", 1)[1]):
            raise ConfigError(message)
        if message := unknown_in_schema(key):  # the line `cosci run` gives, its hint included (design.md#cli)
            raise ConfigError(message)


def frozen_config(snapshot: dict[str, Any], data_dir: Path, overrides: Sequence[str] = (), *,
                  lifecycle: bool = False) -> CosciConfig:
    """The session's frozen config snapshot with ``key=value`` overrides applied (validated again).

    Args:
        snapshot: the session row's ``config_snapshot`` (plain data); keys renamed or removed since it was
            frozen are carried over (:func:`cosci.config.renames.carry_over`).
        data_dir: the data folder the store was found in, which becomes ``paths.data_dir`` (not the one frozen
            at the start): a session copied or moved to another folder resumes there (design.md#resume).
        overrides: ``key=value`` strings, e.g. ``["run.budget_usd=50"]``.
        lifecycle: refuse a model past its shutdown date, and a tool no longer installed (a resume, which calls
            models and tools; design.md#catalogue, design.md#tools).

    A goal stored before bidirectional controls were refused is kept (``check_goal(stored=True)``, design.md#cli).

    Raises:
        ConfigError: see :func:`check_resume_overrides`, or the merged config fails validation.
    """
    check_resume_overrides(overrides)
    data_dir = Path(data_dir).resolve()
    if not overrides:  # plain data, validated as it is: no OmegaConf (nor Hydra) to import (design.md#startup)
        plain = carry_over(snapshot)
        plain.setdefault("paths", {})["data_dir"] = str(data_dir)
        return validate(plain, require_goal=True, lifecycle=lifecycle, frozen=True, tools=lifecycle)
    from omegaconf import DictConfig, OmegaConf

    base = OmegaConf.create(carry_over(snapshot))
    try:
        merged = OmegaConf.merge(base, OmegaConf.from_dotlist(list(overrides)))
    except Exception as exc:
        raise ConfigError(f"resume overrides: {' '.join(str(exc).split())}") from None
    assert isinstance(merged, DictConfig)
    merged.paths.data_dir = str(data_dir)
    return validate(merged, require_goal=True, lifecycle=lifecycle, frozen=True,
                    tools=lifecycle)
