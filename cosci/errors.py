"""cosci's own error hierarchy, shared by every layer (no framework imports).

Each error's ``str()`` is one readable line. LLM-specific errors live in :mod:`cosci.llm.errors` and derive
from :class:`CosciError` too.
"""

from __future__ import annotations


class CosciError(Exception):
    """Base of every error cosci raises on purpose; ``str(err)`` is one readable line."""


class MissingApiKey(CosciError):
    """A chosen model tier needs an API key that is not set in the environment."""

    def __init__(self, variable: str, model: str) -> None:
        super().__init__(f"{variable} is not set: models need it for {model} (export it, or pick models=local)")
        self.variable = variable
        self.model = model


class SessionNotFound(CosciError):
    """No session with this id exists under the data directory."""


class IllegalTransition(CosciError):
    """A hypothesis state change the state machine (seed 004) does not allow."""


class GoalRefused(CosciError):
    """Safety screening refused the research goal or a researcher's feedback text (issue 15): exit status 3."""

    exit_code = 3


class SessionFailed(CosciError):
    """The session cannot go on (its goal could not be parsed, or its process lost what a task needs): the
    supervisor stops at once, the session is marked ``failed`` and its flow run ends Failed (issue 12)."""
