"""How a declared tool is built: the builder a declaration names, and what it may read (design.md#tools).

A tool is declared as data (``cosci/tools/tools.yaml``, or a plugin's ``tools.yaml``: :mod:`cosci.literature`,
docs/plugins.md); its ``build`` names a function of its module, ``build(ctx: BuildContext) -> tool | None`` (None
when the tool cannot be offered: ``web_search`` without a key, ``local_corpus_search`` without
``session.corpus_path``). :func:`builder` imports that function when a session builds its tools
(:func:`cosci.tools.registry.build_registry`), the only place tool code is imported.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol, cast

from cosci.config.schema import CosciConfig
from cosci.literature import ToolDeclaration
from cosci.tools.common import ToolBase
from cosci.tools.http import ApiClient


class ClientFactory(Protocol):
    """Makes the session's HTTP clients (one per API; the registry closes them): a polite client for API ``name``
    at ``rate`` requests/s (None: unpaced); ``web``: no redirects followed, no keep-alive (web_fetch re-checks
    every hop); ``secret`` is kept out of errors and logs."""

    def __call__(self, name: str, rate: float | None, *, web: bool = False,
                 secret: str | None = None) -> ApiClient: ...


@dataclass(frozen=True)
class BuildContext:
    """What a builder may read.

    Attributes:
        config: the validated session config.
        env: where API keys are read (``os.environ`` unless a test passes its own).
        client: makes an HTTP client (see :class:`ClientFactory`).
    """

    config: CosciConfig
    env: Mapping[str, str]
    client: ClientFactory

    @property
    def offline(self) -> bool:
        """``tools.offline``: network tools answer "unavailable (offline mode)" and make no request."""
        return self.config.tools.offline

    @property
    def max_results(self) -> int:
        """``tools.max_results``: hits per search unless the model asks for another number."""
        return self.config.tools.max_results


Builder = Callable[[BuildContext], ToolBase | None]


class BuilderError(ValueError):
    """A declared builder that cannot be imported or is not callable; ``str`` is one line naming the reference."""


def builder(declaration: ToolDeclaration) -> Builder:
    """The function ``declaration.build`` names, imported now.

    Raises:
        BuilderError: its module does not import (any error it raises), or the name is missing or not callable.
    """
    try:
        found = pkgutil.resolve_name(declaration.build)
    except Exception as exc:  # a plugin's module may raise anything at import: one line, never a traceback
        raise BuilderError(f"build {declaration.build}: {type(exc).__name__}: {exc}") from None
    if not callable(found):
        raise BuilderError(f"build {declaration.build} is not a function")
    return cast(Builder, found)
