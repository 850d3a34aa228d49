"""Sandbox backends: what runs a program isolated, chosen by ``investigation.sandbox`` (docs/design.md#plugins).

A backend is declared as data (``cosci/sandbox/sandboxes.yaml`` for the shipped ``bwrap``, a plugin's
``sandboxes.yaml`` under the entry-point group ``cosci.sandboxes``: :func:`cosci.plugins.sandboxes`); its
``build`` names an object with the :class:`Backend` methods, imported here when an investigation opens its
sandbox (:func:`isolation`), never when a config is validated. :mod:`.run` asks the backend named by the run's
:class:`~cosci.sandbox.bwrap.Isolation` for each command line (:func:`backend`).
"""

from __future__ import annotations

import functools
import pkgutil
from pathlib import Path
from typing import Protocol, cast

from cosci.plugins import sandboxes
from cosci.sandbox.bwrap import Isolation, Mount, NoIsolation

SHIPPED = "bwrap"
"""The backend ``investigation.sandbox`` names by default (docs/design.md#sandbox)."""


class Backend(Protocol):
    """How programs are isolated (docs/plugins.md "Adding a sandbox backend").

    ``command`` returns the command line that runs ``argv`` with: the interpreter running cosci and the system
    folders readable, the limits program (:func:`limits_program`) at ``bwrap.LIMITS_PATH``, each of ``mounts`` at
    its inside path (read-only unless writable), ``cwd`` as working folder,
    exactly ``env`` as environment, no network, and (run as root) the capabilities ``CAP_SETUID`` / ``CAP_SETGID``
    kept, which the limits program uses to become the sandbox user (:mod:`.identity`). ``tmp_bytes`` caps a
    private ``/tmp`` (0: the backend's default).
    """

    def probe(self) -> Isolation | None:
        """The isolation this backend gives on this machine (its ``tool`` is the backend's name), or None."""
        ...

    def command(self, mounts: list[Mount], argv: list[str], *, cwd: str, env: dict[str, str],
                tmp_bytes: int = 0) -> list[str]: ...


@functools.cache
def backend(name: str) -> Backend:
    """The backend declared as ``name``, imported once per process.

    Raises:
        NoIsolation: ``name`` is not declared, or its object does not import or lacks ``probe`` / ``command`` (one
            line naming the plugin).
    """
    declared = sandboxes().get(name)
    if declared is None:
        raise NoIsolation(f"investigation.sandbox: no sandbox backend '{name}' (declared: "
                          f"{', '.join(sandboxes())})")
    who = declared.origin or f"sandbox backend '{name}'"
    try:
        found = pkgutil.resolve_name(declared.build)
    except Exception as exc:  # a plugin's module may raise anything at import: one line, never a traceback
        raise NoIsolation(f"{who}: build {declared.build}: {type(exc).__name__}: {exc}") from None
    if not (callable(getattr(found, "probe", None)) and callable(getattr(found, "command", None))):
        raise NoIsolation(f"{who}: build {declared.build} has no probe() and command()")
    return cast(Backend, found)


def isolation(unsafe_no_sandbox: bool, name: str = SHIPPED) -> Isolation:
    """The isolation to run programs with: backend ``name``'s, when it works here.

    Raises:
        NoIsolation: the backend cannot be loaded, or does not work here and ``unsafe_no_sandbox`` is false.
    """
    found = backend(name).probe()
    if found is not None:
        return found
    if unsafe_no_sandbox:
        return Isolation("none")
    fix = ("install it (`apt-get install bubblewrap`, done by `make setup`)" if name == SHIPPED
           else "check the plugin that declares it")
    raise NoIsolation(f"no sandbox: {'bubblewrap (`bwrap`)' if name == SHIPPED else f'backend {name!r}'} is missing "
                      f"or cannot create namespaces here; {fix} or pass investigation.unsafe_no_sandbox=true to run "
                      "candidate programs without isolation")


def limits_program() -> Path:
    """The limits program (:mod:`.rlimits`) on the host: a backend shows it at ``bwrap.LIMITS_PATH``."""
    return Path(__file__).with_name("rlimits.py")
