"""The configuration's error (:class:`ConfigError`), apart from the loader so the goal rules can raise it, and
Hydra's messages as one line (:func:`hydra_one_line`)."""

from __future__ import annotations

import difflib
import re
import types
import typing
from typing import Any

from cosci.text import one_line

EVERY_KEY = "`python -m cosci.run --cfg job` prints every key"
NEAR_CHOICE = 0.75
"""difflib's ratio a preset name must reach to be guessed: one or two keystrokes off (``fak``, ``opnai``, ``sonet``:
0.86-0.91); difflib's own cutoff, 0.6, guessed ``openai`` for ``models=nope`` (fresh-user trial; design.md#cli)."""


class ConfigError(ValueError):
    """A configuration that cannot run; ``str(err)`` is one readable line naming the key and the rule."""


def hydra_one_line(text: str) -> str:
    """A multi-line Hydra message on one line, without Hydra's stack-trace hint and config search path. Hydra's
    "Could not override 'k'. To append to your config use +k=v" becomes "k: unknown key": cosci's schema refuses
    the appended key too, so the hint led nowhere (fresh-user report). "In 'config': Could not find 'models/fak'
    Available options in 'models': claude45 fake ..." becomes the override, the group's choices as a list and the
    nearest one, ``models=fak: no such choice in the group 'models'; choose from claude45, fake, ... (did you mean
    models=fake?)`` (fresh-user trial: the words ran together with no punctuation; design.md#cli)."""
    text = text.replace("Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.", "")
    text = one_line(re.sub(r"\s*Config search path:.*$", "", one_line(text)))
    if m := re.fullmatch(r"Could not override '([^']+)'\. To append to your config use \+\S.*", text):
        return unknown_key_line(m.group(1))
    if m := re.fullmatch(r"In '[^']+': Could not find '(.+)/([^'/]+)' Available options in '[^']+': (.+)", text):
        group, name, options = m[1], m[2], m[3].split()
        near = difflib.get_close_matches(name, options, n=1, cutoff=NEAR_CHOICE)
        guess = f" (did you mean {group}={near[0]}?)" if near else ""
        return f"{group}={name}: no such choice in the group '{group}'; choose from {', '.join(options)}{guess}"
    return text


def unknown_key_line(key: str) -> str:
    """The one line for an unknown ``key`` (dotted, as the user typed it), the same from every door (a run, a
    config file, a resume): ``run.budgt: unknown key; did you mean run.budget_usd? (`python -m cosci.run --cfg job`
    prints every key)``; the guess is the nearest field of the section the key is in, when one is near (fresh-user
    trial: a resume said only "unknown key"; design.md#cli)."""
    near = _nearest(key)
    return f"{key}: unknown key{f'; did you mean {near}?' if near else ''} ({EVERY_KEY})"


def unknown_in_schema(key: str) -> str | None:
    """:func:`unknown_key_line` if the dotted ``key`` names no field of the config schema, else None (also None
    where the schema cannot tell: under a free-form mapping, e.g. a table of values)."""
    return unknown_key_line(key) if _walk(key) is not None else None


def _walk(key: str) -> tuple[list[str], type] | None:
    """``(the parts up to the first unknown one, the model it is missing from)``, or None when every part is known
    (or the schema cannot tell)."""
    from pydantic import BaseModel

    from cosci.config.schema import CosciConfig

    model: Any = CosciConfig
    parts = key.split(".")
    i = 0
    while i < len(parts):
        if parts[i] not in model.model_fields:
            return parts[: i + 1], model
        kind = model.model_fields[parts[i]].annotation
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        if typing.get_origin(kind) is dict and len(args) == 2:  # a mapping keyed by name (agents, tiers)
            i, kind = i + 1, args[1]
        elif typing.get_origin(kind) in (typing.Union, types.UnionType) and len(args) == 1:  # Optional[Model]
            kind = args[0]
        if not (isinstance(kind, type) and issubclass(kind, BaseModel)):
            return None
        model, i = kind, i + 1
    return None


def _nearest(key: str) -> str | None:
    """``key`` with its first unknown part replaced by the nearest field there, or None."""
    found = _walk(key)
    if found is None:
        return None
    parts, model = found
    near = difflib.get_close_matches(parts[-1], list(model.model_fields), n=1)  # type: ignore[attr-defined]
    return ".".join([*parts[:-1], near[0], *key.split(".")[len(parts):]]) if near else None
