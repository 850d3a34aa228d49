"""The configuration's error (:class:`ConfigError`), apart from the loader so the goal rules can raise it, and
Hydra's messages as one line (:func:`hydra_one_line`)."""

from __future__ import annotations

import difflib
import re

from cosci.text import one_line


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
        return f"{m.group(1)}: unknown key (`python -m cosci.run --cfg job` prints every key)"
    if m := re.fullmatch(r"In '[^']+': Could not find '(.+)/([^'/]+)' Available options in '[^']+': (.+)", text):
        group, name, options = m[1], m[2], m[3].split()
        near = difflib.get_close_matches(name, options, n=1)
        guess = f" (did you mean {group}={near[0]}?)" if near else ""
        return f"{group}={name}: no such choice in the group '{group}'; choose from {', '.join(options)}{guess}"
    return text
