"""The service's boundary checks: each argument of a public call checked for its type and value before anything
is read or written, so misuse from Python is one :class:`~cosci.errors.CosciError` line naming the argument as
Python spells it (``prefer``), never a TypeError, AttributeError or a database's IntegrityError from deep inside
(design.md#service). The command line names the same arguments as its flags (``--prefer``): a
:class:`~cosci.api.Session` opened with ``flags=True`` says them so (:func:`cosci.session.researcher.flag`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cosci.errors import CosciError

Name = Callable[[str], str]
"""How a refusal names an argument: :func:`argument` from Python, :func:`cosci.session.researcher.flag` on the
command line."""


def argument(name: str) -> str:
    """A Python argument's own name (the command line's ``--measure`` is ``measures``)."""
    return {"measure": "measures"}.get(name, name)


def _kind(value: Any) -> str:
    return type(value).__name__


def text(name: str, value: Any, *, optional: bool = False) -> None:
    """Raises CosciError unless ``value`` is a str (or None when ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise CosciError(f"{name} must be a string{' or None' if optional else ''} (got {_kind(value)} {value!r})")


def texts(name: str, value: Any) -> None:
    """Raises CosciError unless ``value`` is a list or tuple of str (a bare string would be read letter by letter)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise CosciError(f"{name} must be a list of strings (got {_kind(value)} {value!r})")
    for item in value:
        if not isinstance(item, str):
            raise CosciError(f"{name} must be a list of strings (got {_kind(item)} {item!r} in it)")


def path(name: str, value: Any, *, optional: bool = True) -> None:
    """Raises CosciError unless ``value`` is a str or a path (os.PathLike), or None when ``optional``."""
    if value is None and optional:
        return
    if not isinstance(value, (str, os.PathLike)):
        raise CosciError(f"{name} must be a path (str or pathlib.Path){' or None' if optional else ''} "
                         f"(got {_kind(value)} {value!r})")


def choice(name: str, value: Any, options: Sequence[str], *, optional: bool = False) -> None:
    """Raises CosciError unless ``value`` is one of ``options`` exactly (case counts: ``"A"`` is not ``"a"``), or
    None when ``optional``."""
    if value is None and optional:
        return
    if not isinstance(value, str) or value not in options:
        raise CosciError(f"{name} must be one of {', '.join(options)} (got {value!r}); nothing was recorded")


def score(name: str, value: Any) -> str | None:
    """A 1-5 score as the text typed (``4`` -> ``"4"``); None stays None.

    Raises:
        CosciError: a bool, a float or any other type than int or str (the value itself is checked by
            :func:`cosci.session.researcher.rate`).
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise CosciError(f"{name} must be an int 1-5 (got {_kind(value)} {value!r}); nothing was recorded")
    return str(value)


def data_dir(value: Any) -> Path | None:
    """``data_dir`` checked (:func:`path`) and made a Path."""
    path("data_dir", value)
    return None if value is None else Path(value)
