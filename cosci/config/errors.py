"""The configuration's error (:class:`ConfigError`), apart from the loader so the goal rules can raise it."""

from __future__ import annotations


class ConfigError(ValueError):
    """A configuration that cannot run; ``str(err)`` is one readable line naming the key and the rule."""
