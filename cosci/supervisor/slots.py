"""The Supervisor's slots: which claimed actions run at once (design.md#supervisor, "Actions without a call").

``run.concurrency`` slots hold the actions that may call a model. An action that makes no model call in this
session (:func:`no_call_actions`) is claimed beside them while fewer than ``run.concurrency − 1`` such actions run,
so it never keeps a slot's next call waiting: on the 1 s concurrency bench a new hypothesis's offline screen held
a slot for about 90 ms with no call (5.4 idle slot-seconds a session), the proximity updates 2.2 slot-seconds in
all, adding a hypothesis to the tournament about 20 ms (bench/README.md, "The loop"). At ``run.concurrency=1``
nothing runs beside the slot: one action at a time, in the queue's order, as before. Which action is claimed next
is unchanged: the best pending one (priority, then age) whenever a slot is free; only when every slot is busy is
the best pending action *without a call* claimed.

A slot is a model call, not an action (design.md#supervisor, "A slot is a model call"): the gateway holds one of
``run.concurrency`` call slots around each provider call (``Gateway.call_slot``), and the loop keeps up to
:func:`actions_at_once` actions that may call in flight (``run.concurrency + EXTRA_ACTIONS``), so an action's work
before and after its calls (its Prefect task run, its records) runs beside the other actions' calls instead of
holding a slot with no call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from cosci.config.schema import CosciConfig
from cosci.domain import Task
from cosci.store.tasks import Tasks

EXTRA_ACTIONS = 0
"""Actions that may call a model kept in flight beyond ``run.concurrency`` (their calls wait for a call slot). 0: with
2, the quiet 1 s bench met its ratios (1.12x, 7.18 calls in flight) by playing about a fifth more matches in a longer
wall, and the budget check's 90 % floor was missed (design.md#supervisor, "A slot is a model call"; bench/README.md
"Eighth pass")."""


def actions_at_once(concurrency: int) -> int:
    """Actions that may call a model in flight at once for ``run.concurrency`` = ``concurrency`` call slots:
    ``concurrency + EXTRA_ACTIONS``, but 1 at ``concurrency=1`` (the session is then one action at a time, in the
    queue's order: its reproducible record)."""
    return concurrency + EXTRA_ACTIONS if concurrency > 1 else 1


def no_call_actions(config: CosciConfig) -> tuple[str, ...]:
    """The actions that make no model call in a session of ``config``: ``AddToTournament`` (the hypothesis enters at
    its initial Elo), ``UpdateProximityGraph`` (clustering; at most an embedding of a hypothesis not embedded yet),
    and ``ScreenHypothesis`` when the offline screen decides alone and no model is asked about a hypothesis (a tier
    unable to classify and ``hypothesis`` not in ``safety.model_answer_on``: the demo's setting, design.md#demo)."""
    from cosci.safety.classifier import asks_model, screening_on  # not at import: rules (``cosci result``) import this

    actions = ["AddToTournament", "UpdateProximityGraph"]
    if screening_on(config) and not asks_model(config, "hypothesis"):
        actions.append("ScreenHypothesis")
    return tuple(actions)


class Slots:
    """Claims tasks for a session's loop (module docstring).

    Args:
        concurrency: ``run.concurrency``, the call slots (> 0); up to :func:`actions_at_once` actions that may
            call a model are in flight.
        no_call: the actions that make no model call (:func:`no_call_actions`).
    """

    def __init__(self, concurrency: int, no_call: tuple[str, ...]) -> None:
        self.concurrency, self.no_call = concurrency, no_call
        self.actions = actions_at_once(concurrency)
        """Actions that may call a model in flight at once (their calls share ``concurrency`` call slots)."""
        self.cap = concurrency - 1 if no_call else 0
        """Actions without a call that may run beside the slots at once."""
        self.beside: set[asyncio.Task[None]] = set()

    def used(self, inflight: set[asyncio.Task[None]]) -> int:
        """Actions in flight that may call a model: those not beside the slots."""
        self.beside &= inflight
        return len(inflight) - len(self.beside)

    def fill(self, inflight: set[asyncio.Task[None]], tasks: Tasks, owner: str,
             start: Callable[[Task], asyncio.Task[None]]) -> None:
        """Claim tasks (``tasks.claim`` for ``owner``) and ``start`` each into ``inflight`` until :attr:`actions`
        that may call are in flight and the room beside them is full, or nothing that fits is pending."""
        while True:
            free, room = self.used(inflight) < self.actions, len(self.beside) < self.cap
            if free:
                task = tasks.claim(owner)
            elif room:
                task = tasks.claim(owner, self.no_call)
            else:
                return
            if task is None:
                return
            running = start(task)
            inflight.add(running)
            if room and task.action in self.no_call:
                self.beside.add(running)


MATCH_ACTIONS = ("RunTournamentRound", "MatchBatch")
"""The actions that record matches: a match an evolved hypothesis wins against its parent retires the parent
(design.md#retired), which frees a place in the pool."""


def rounds_out(inflight: Iterable[asyncio.Task[Any]]) -> bool:
    """Whether an action of ``inflight`` (named ``agent/action``, as the Supervisor starts them) records matches
    (:data:`MATCH_ACTIONS`): the ``max_hypotheses`` stop waits for them, since a pool that reads complete may lose a
    retired parent when they land (design.md#supervisor, "The cap holds")."""
    return any(t.get_name().partition("/")[2] in MATCH_ACTIONS for t in inflight)


__all__ = ["EXTRA_ACTIONS", "MATCH_ACTIONS", "Slots", "actions_at_once", "no_call_actions", "rounds_out"]
