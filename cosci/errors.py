"""cosci's own error hierarchy, shared by every layer (no framework imports).

Each error's ``str()`` is one readable line. LLM-specific errors live in :mod:`cosci.llm.errors` and derive
from :class:`CosciError` too.
"""

from __future__ import annotations

import math


class CosciError(Exception):
    """Base of every error cosci raises on purpose; ``str(err)`` is one readable line."""


class MissingApiKey(CosciError):
    """A chosen model tier needs an API key that is not set in the environment."""

    def __init__(self, variable: str, model: str) -> None:
        super().__init__(f"{variable} is not set: models need it for {model} (export it, or pick models=local)")
        self.variable = variable
        self.model = model


class UnknownModel(CosciError):
    """A model tier names a model no LiteLLM provider serves (``models.tiers.<tier>.model``)."""

    def __init__(self, tier: str, model: str) -> None:
        super().__init__(f"models.tiers.{tier}.model: {model!r} names no LiteLLM provider; write provider/model "
                         "(e.g. anthropic/claude-sonnet-5, openai/gpt-6.1-terra, ollama_chat/qwen2.5:7b) or pick "
                         "models=local")
        self.tier = tier
        self.model = model


def _usd(amount: float) -> str:
    """USD as :func:`cosci.text.dollars` writes it (to the cent, a sum under a cent to two significant figures): the
    refusal and the estimate's line round alike. This floor imports nothing above it, so the format is repeated here;
    ``tests/llm/test_estimate.py`` checks the two agree."""
    if amount == 0 or abs(amount) >= 0.01:
        return f"{amount:.2f}"
    return f"{amount:.{1 - math.floor(math.log10(abs(amount)))}f}".rstrip("0")


def first_hypothesis_needs(floor_usd: float, expected_usd: float | None = None) -> str:
    """The one wording of the floor (what a session's first hypothesis needs, USD), said alike by `cosci estimate`'s
    line and the refusal below it (fresh-user trial: the same $0.13 was worded two ways): "a first hypothesis (the
    goal's parse, one generation and the overview) needs ~$X expected", or, when the floor is the upper bound of the
    largest of those calls (above ``expected_usd``, the three calls at their expected output), "... needs $X, the
    upper bound of its largest call (its whole max_output_tokens, which the budget holds before sending it; expected
    ~$Y)": the budget stop line's term (design.md#budget)."""
    head = "a first hypothesis (the goal's parse, one generation and the overview) needs "
    if expected_usd is None or floor_usd <= expected_usd:
        return f"{head}~${_usd(floor_usd)} expected"
    return (f"{head}${_usd(floor_usd)}, the upper bound of its largest call (its whole max_output_tokens, which the "
            f"budget holds before sending it; expected ~${_usd(expected_usd)})")


class BudgetTooSmall(CosciError):
    """``run.budget_usd`` cannot pay for a session's first hypothesis (the goal's parse, one generation, the final
    overview, as :func:`cosci.llm.gateway.estimate.estimate_session` prices them): refused before any session exists,
    as a run that would stop at once with nothing (design.md#budget). ``cosci estimate`` raises it too, after its
    estimate (``estimated``): the exit status a run of that configuration would have. ``expected_usd``: the three
    calls at their expected output (USD); a ``floor_usd`` above it is named an upper bound
    (:func:`first_hypothesis_needs`)."""

    def __init__(self, budget_usd: float, floor_usd: float, *, expected_usd: float | None = None,
                 estimated: bool = False) -> None:
        tail = ("a run of this configuration is refused" if estimated
                else "`cosci estimate` prices a whole session; nothing was run")
        super().__init__(f"run.budget_usd=${_usd(budget_usd)} is too small: "
                         f"{first_hypothesis_needs(floor_usd, expected_usd)}; raise run.budget_usd to "
                         f"${_usd(floor_usd)} or more ({tail})")
        self.budget_usd = budget_usd
        self.floor_usd = floor_usd


class ServerUnreachable(CosciError):
    """A tier's local server (``api_base`` on this machine) refuses connections: nothing listens there."""

    def __init__(self, tier: str, api_base: str, model: str = "") -> None:
        start = "`ollama serve`" if model.startswith("ollama") else "the model's server"
        super().__init__(f"models.tiers.{tier}.api_base: nothing listens at {api_base} (connection refused); start "
                         f"{start} or set api_base to where it listens")
        self.tier = tier
        self.api_base = api_base


class DataDirUnusable(CosciError):
    """``paths.data_dir`` cannot be created or written (sessions, MLflow and Prefect all live under it)."""


class SessionNotFound(CosciError):
    """No session with this id exists under the data directory."""


class StoreDamaged(CosciError):
    """A session's store file is not a sound SQLite database (random bytes, truncated, empty, no session row):
    the command touches nothing (design.md#store)."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"the store of {session_id} is damaged ({reason}); nothing was changed")
        self.session_id = session_id
        self.reason = reason


class IllegalTransition(CosciError):
    """A hypothesis state change the state machine (design.md#states) does not allow."""


class GoalRefused(CosciError):
    """Safety screening refused the research goal or a researcher's feedback text (design.md#safety): exit status 3."""

    exit_code = 3


class SessionFailed(CosciError):
    """The session cannot go on (its goal could not be parsed, or its process lost what a task needs): the
    supervisor stops at once, the session is marked ``failed`` and its flow run ends Failed (design.md#supervisor)."""


class SessionInterrupted(KeyboardInterrupt):
    """A session stopped by Ctrl-C (or SIGTERM) whose summary was printed, ending with how to resume it: the entry
    points exit 130 and say nothing more (a bare "cosci: interrupted" after the resume line read as a second failure
    in the fresh-user trial; design.md#resume). A KeyboardInterrupt, so a caller catching that still does."""

    def __init__(self, session_id: str, *, said: bool = True) -> None:
        super().__init__(session_id)
        self.session_id = session_id
        self.said = said
        """Whether the summary (with its resume line) was printed; False: the caller says it was interrupted."""


def interrupt_line(exc: KeyboardInterrupt) -> str | None:
    """What an entry point says for ``exc``: None after a session's printed summary, else ``interrupted``."""
    return None if isinstance(exc, SessionInterrupted) and exc.said else "interrupted"
