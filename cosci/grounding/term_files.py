"""Term files: YAML mappings of lists of case-insensitive patterns under ``conf/`` (the overclaim guards,
``docs/design.md#claim-statuses``, and the falsification check, ``docs/design.md#falsification``).

Owns reading a file and compiling its patterns, each wrapped in word boundaries; every failure is one error line
that names the config key (``metareview.overclaim_terms``...) and the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from cosci.errors import CosciError
from cosci.paths import conf_dir


def read_term_file(name: str, key: str, lists: tuple[str, ...], error: type[CosciError]) -> dict[str, Any]:
    """The mapping in term file ``name`` (relative to ``conf/`` or absolute), named by config ``key``.

    Args:
        lists: the keys the file is to hold (named in the error when it is not a mapping).
        error: the error class raised.

    Raises:
        error: the file is missing, is not YAML, or is not a mapping.
    """
    path = Path(name) if Path(name).is_absolute() else conf_dir() / name
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise error(f"{key}: cannot read {path} ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        names = [f"`{n}`" for n in lists]
        raise error(f"{key}: {path} needs {', '.join(names[:-1])} and {names[-1]} lists")
    return data


def compile_patterns(items: object, key: str, where: str, error: type[CosciError]) -> tuple[re.Pattern[str], ...]:
    """The patterns of list ``where`` of a term file, case-insensitive, wrapped in word boundaries.

    Raises:
        error: not a list of strings, or a pattern is not a regular expression.
    """
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise error(f"{key}: {where} must be a list of patterns")
    try:
        return tuple(re.compile(rf"\b(?:{i})\b", re.IGNORECASE) for i in items)
    except re.error as exc:
        raise error(f"{key}: {where}: bad pattern ({exc})") from None
