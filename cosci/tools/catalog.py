"""How a tool module declares its tool: once, with :func:`register` (design.md#tools).

A tool module ends with::

    DECLARATION = register(ToolDeclaration(name=SPEC.name, rank=20, url_forms=(...)), build)

where ``build`` makes the session's tool from a :class:`BuildContext` (or returns None when the tool cannot be
offered: ``web_search`` without a key, ``local_corpus_search`` without ``session.corpus_path``). The declaration
goes to :mod:`cosci.literature` (names, order, identifier forms, default allowlists: what layers below the tools
read) and the builder stays here for :func:`cosci.tools.registry.build_registry`. Adding a tool is adding its
module; nothing else lists it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from cosci.config.schema import CosciConfig
from cosci.literature import ToolDeclaration, declare, withdraw
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
_BUILDERS: dict[str, Builder] = {}


def register(declaration: ToolDeclaration, build: Builder) -> ToolDeclaration:
    """Declare a tool (:func:`cosci.literature.declare`) and how to build it. Returns the declaration.

    Raises:
        ValueError: another tool has the same name.
    """
    declare(declaration)
    _BUILDERS[declaration.name] = build
    return declaration


def unregister(name: str) -> None:
    """Remove a tool's declaration and builder (a test's throwaway tool)."""
    withdraw(name)
    _BUILDERS.pop(name, None)


def builder(name: str) -> Builder:
    """The builder of a declared tool. Raises: KeyError when ``name`` was declared without one."""
    return _BUILDERS[name]
