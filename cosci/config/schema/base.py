"""Typed, validated session configuration: the rules every section shares (strict models, upper bounds, names).

Hydra composes ``conf/``; :func:`cosci.config.load.validate` turns the composed tree into plain data once and
validates it into :class:`CosciConfig`. After that, code receives these objects, never a ``DictConfig``.
Every default lives in ``conf/*.yaml``, its reason in ``docs/design.md``; the models here only state the
rules (ranges, units, cross-field checks). All models forbid unknown keys.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
# Upper bounds (design.md#defaults): a value beyond these is a typo, not a plan. Each is far above any value in conf/ or
# design.md#defaults, and below what would exhaust the machine, a provider or the store.
MAX_SECONDS = 30 * 24 * 3600
"""Longest wall clock or job limit: 30 days, seconds."""
MAX_CALL_SECONDS = 24 * 3600
"""Longest single call or timeout: one day, seconds."""
MAX_COUNT = 1_000_000
"""Largest match or task count used as a threshold or period."""
MAX_ATTEMPTS = 50
"""Most attempts of one provider call or one task (the retry table goes up to 8: design.md#retries)."""
MAX_TOKENS = 1_000_000
"""Largest token count of one call or context window, tokens."""
MAX_ELO = 10_000.0
"""Largest Elo rating, window or gap, Elo points."""
MAX_SEED = 2**63 - 1
"""Seeds are non-negative and fit a signed 64-bit integer (SQLite, numpy)."""
AGENT_NAMES = ("goal_parsing", "generation", "reflection", "ranking", "evolution", "proximity", "metareview")
"""The seven agents, in pipeline order (design.md#supervisor)."""
OPTIONAL_AGENTS = ("safety",)
"""Agents a config may add: ``safety``, the safety classifier (design.md#safety)."""
SafetyDecision = Literal["allow", "flag", "block"]


_NUMBERS = (int, float, int | None, float | None)


class _Strict(BaseModel):
    """Unknown keys, NaN and infinity are refused; so is a boolean given for a number (``run.concurrency=true``
    was taken as 1: pydantic's lax mode reads ``True`` as the integer 1)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_boolean_numbers(cls, value: object, info: ValidationInfo) -> object:
        field = cls.model_fields.get(info.field_name or "")
        if isinstance(value, bool) and field is not None and field.annotation in _NUMBERS:
            raise ValueError(f"expected a number, got {str(value).lower()}")
        return value


PROJECT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""``session.project``, ``session.name`` and ``tracking.experiment_name``: a folder name on any file system (no
separator, no leading dot, no space), at most 64 characters (MLflow keeps an experiment's artifacts in a folder of
its name: ``session.name=../../etc`` wrote outside the data folder)."""


INTERPOLATION = re.compile(r"\$\{[^{}]+\}")
"""One OmegaConf interpolation, as ``tracking.experiment_name``'s default ``${session.name}`` reads unresolved."""


def folder_name(value: object, what: str, example: str) -> object:
    """``value`` checked as a :data:`PROJECT_NAME` (a whole number, as Hydra reads ``=2026``, taken as its digits).

    Raises:
        ValueError: the rule in words (pydantic's own message quotes the regex), naming ``what`` and ``example``.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str) and INTERPOLATION.fullmatch(value):
        return value  # an unresolved config (a launcher's): the key it names is checked itself, and so is its value
    if not isinstance(value, str) or not PROJECT_NAME.fullmatch(value):
        shown = repr(value) if isinstance(value, str) else f"{value!r} ({type(value).__name__})"
        raise ValueError(f"{shown} is not {what}: use 1-64 letters, digits, '.', '_' or '-', starting "
                         f"with a letter or a digit (e.g. {example})")
    return value
