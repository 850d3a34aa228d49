"""The signal an action gives when it reaches a model call (design.md#supervisor, "An action starts when the one
before it reached its call").

The Supervisor starts each action that may call with its own :class:`asyncio.Event` in :data:`REACHED` (a context
variable: the action's asyncio task, and every task it creates, sees its own), and the gateway sets it as a call
attempt asks for its call slot (:func:`reached_call`), before its admission and request. Outside a Supervisor's
action (a command's gateway, a test) the variable is unset and the signal does nothing.
"""

from __future__ import annotations

import asyncio
from contextvars import ContextVar

REACHED: ContextVar[asyncio.Event | None] = ContextVar("cosci_call_reached", default=None)
"""The running action's "reached a call" event, or None outside a Supervisor's action."""


def reached_call() -> None:
    """Tell the Supervisor the running action has reached a model call (it now waits for a call slot or sends)."""
    if (event := REACHED.get()) is not None:
        event.set()


__all__ = ["REACHED", "reached_call"]
