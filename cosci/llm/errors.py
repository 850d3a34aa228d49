"""cosci's LLM error hierarchy: provider errors are mapped here at the gateway, once.

``TransientLLMError`` (rate limit, overloaded, 5xx, timeout, connection) is retried by the gateway with
backoff; ``PermanentLLMError`` never is. ``StructuredOutputError`` covers a model answer that is not a valid
record (empty, truncated, invalid arguments, or no record call). Each error carries the model and, for rate
limits, the provider's ``retry_after`` in seconds (the shape DSPy's ``utils/exceptions.py`` uses).
"""

from __future__ import annotations

from cosci.errors import CosciError
from cosci.text import dollars


class LLMError(CosciError):
    """Base of provider-call errors.

    Attributes:
        model: the LiteLLM model string called.
        retry_after: seconds the provider asked us to wait, if it said (HTTP ``Retry-After``).
    """

    kind = "llm_error"

    def __init__(self, message: str, *, model: str = "", retry_after: float | None = None) -> None:
        super().__init__(f"{model}: {message}" if model else message)
        self.model = model
        self.retry_after = retry_after


class TransientLLMError(LLMError):
    """Worth retrying after a pause."""


class RateLimited(TransientLLMError):
    kind = "rate_limit"


class Overloaded(TransientLLMError):
    kind = "overloaded"


class ServerError(TransientLLMError):
    kind = "server_error"


class CallTimeout(TransientLLMError):
    kind = "timeout"


class ConnectionFailed(TransientLLMError):
    kind = "connection"


class PermanentLLMError(LLMError):
    """Retrying cannot help (bad request, authentication, model, request too large).

    ``repeats``: every later call of the same mode would meet it too (the request's form, the key, the model or the
    account's limit is wrong, not this request's content), so it ends the session ``failed``
    (docs/design.md#permanent-errors).
    """

    kind = "bad_request"
    repeats = True


class AuthFailed(PermanentLLMError):
    kind = "auth"


class ModelUnavailable(PermanentLLMError):
    """The model does not exist or cannot be reached for this key; the degradation chain may step down."""

    kind = "model_unavailable"


class RequestTooLarge(PermanentLLMError):
    """The request can never be served at this size (OpenAI's 429 "Request too large ... tokens per min", Anthropic's
    413 ``request_too_large``): waiting does not help, so it is not retried. The message names the size."""

    kind = "request_too_large"


class InputRejected(PermanentLLMError):
    """This request's content was refused (its context window exceeded, a content policy): another task's input
    may pass, so the session goes on (the task fails)."""

    kind = "input_rejected"
    repeats = False


class HostUnreachable(PermanentLLMError):
    """The provider's host cannot be reached at all: its name does not resolve or it refuses the connection
    (:mod:`cosci.llm.gateway.unreachable`). Tried ``retry.unreachable_attempts`` times (a resolver's or a
    restarting server's blip), then it ends the session ``failed``: every later call would meet it
    (docs/design.md#unreachable-hosts).

    Attributes:
        host: ``host:port`` the connection was refused at or whose name did not resolve.
    """

    kind = "unreachable"

    def __init__(self, message: str, *, model: str = "", host: str = "") -> None:
        super().__init__(message, model=model)
        self.host = host

    def session_line(self, session_id: str) -> str:
        """The one line a session that met it ends with: the host, why and what to check first (a fresh user's read
        "goal_parsing/ParseGoal failed: HostUnreachable: <model>: ..." below the summary), then the model and the
        record's state; a resume is named only for once the host answers (design.md#unreachable-hosts)."""
        text = str(self).removeprefix(f"{self.model}: ")
        return (f"{text} (model {self.model}); session {session_id} is recorded as failed: once the host answers,"
                f" `cosci resume {session_id}` continues it")


class StreamTimeout(CallTimeout):
    """A streamed call went idle or missed its deadline; tried again at most ``retry.stream_timeout_attempts``
    times in all (its deadline already allows the whole answer; docs/design.md#long-calls)."""


def repeats(exc: BaseException) -> bool:
    """Whether ``exc`` is a permanent provider error every later call of its mode would meet."""
    return isinstance(exc, PermanentLLMError) and exc.repeats


class BudgetError(CosciError):
    """A call the budget did not admit (design.md#budget); raised only by :mod:`cosci.llm.budget`.

    Attributes:
        scope: ``"session"`` (the whole cap, reserve included) or ``"agent"`` (this agent's share).
        agent: the agent that asked.
        left_usd: USD of the limit the check held the call against that was not yet spent (the cap, or the working
            money), when a USD check refused it; ``None`` for the token cap.
        cost_usd: what the call would have taken of it, USD: its hold or its upper bound (``measure``).
        measure: ``"hold"`` or ``"upper bound"``; ``""`` when ``left_usd`` is ``None``.
    """

    kind = "budget"

    def __init__(self, message: str, *, scope: str, agent: str, left_usd: float | None = None,
                 cost_usd: float = 0.0, measure: str = "") -> None:
        super().__init__(message)
        self.scope = scope
        self.agent = agent
        self.left_usd, self.cost_usd, self.measure = left_usd, cost_usd, measure


class BudgetExceeded(BudgetError):
    """An admission would push spending past the session cap or the agent's share even with no call in flight: the
    money ran out (design.md#budget)."""

    def stop_line(self) -> str:
        """Why the session stopped, in words, for a session-scope refusal: the next call did not fit in what was left
        (money may still be unspent: a stop is not "the budget is spent"; second fresh-user trial, design.md#budget).
        The token cap's refusal is its own message."""
        if self.left_usd is None:
            return str(self)
        return (f"the next {self.agent} call would not fit in the ${dollars(max(self.left_usd, 0.0))} left;"
                f" its {self.measure} was ${dollars(self.cost_usd)}")


class BudgetBusy(BudgetError):
    """The call fits the budget, but not beside the calls in flight: wait for their settlement and try again (the
    gateway waits up to ``budget.admission_wait_seconds``, then the supervisor defers the task; design.md#budget).
    ``scope``: ``"session"`` (the cap: the holds, expected cost + tail reserve, or the worst case at upper bounds)
    or ``"agent"`` (the agent's share and what it may borrow, at expected cost)."""


class StructuredOutputError(CosciError):
    """The model's answer is not a valid record. ``tool`` names the record expected."""

    kind = "invalid_output"

    def __init__(self, message: str, *, tool: str) -> None:
        super().__init__(f"{tool}: {message}")
        self.tool = tool


class EmptyArguments(StructuredOutputError):
    kind = "empty_arguments"


class TruncatedArguments(StructuredOutputError):
    kind = "truncated_arguments"


class InvalidArguments(StructuredOutputError):
    kind = "invalid_arguments"


class NoRecordCall(StructuredOutputError):
    kind = "no_tool_call"


class ToolLoopExhausted(StructuredOutputError):
    """The tool loop used every iteration without the terminal record tool being called (design.md#prompts)."""

    kind = "tool_loop_exhausted"


RETRYABLE_ACTION_ERRORS: tuple[type[Exception], ...] = (TransientLLMError, StructuredOutputError)
"""Errors after which a whole agent action is worth another attempt (a fresh sample may be valid)."""


CALL_FAILED: tuple[type[CosciError], ...] = (LLMError, StructuredOutputError, BudgetExceeded)
"""The errors after which an agent with a fallback takes it (the goal as the plan, the fallback overview, an
unchecked claim...): the call ended without a usable answer and will not be retried there. :class:`BudgetBusy` is
deliberately not one: the call fits once calls in flight settle, so it propagates and the task runner defers the
task (design.md#budget)."""
