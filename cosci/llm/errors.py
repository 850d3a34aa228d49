"""cosci's LLM error hierarchy: provider errors are mapped here at the gateway, once.

``TransientLLMError`` (rate limit, overloaded, 5xx, timeout, connection) is retried by the gateway with
backoff; ``PermanentLLMError`` never is. ``StructuredOutputError`` covers a model answer that is not a valid
record (empty, truncated, invalid arguments, or no record call). Each error carries the model and, for rate
limits, the provider's ``retry_after`` in seconds (the shape DSPy's ``utils/exceptions.py`` uses).
"""

from __future__ import annotations

from cosci.errors import CosciError


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
    """Retrying cannot help (bad request, authentication, context window)."""

    kind = "bad_request"


class AuthFailed(PermanentLLMError):
    kind = "auth"


class ModelUnavailable(PermanentLLMError):
    """The model does not exist or cannot be reached for this key; the degradation chain may step down."""

    kind = "model_unavailable"


class BudgetExceeded(CosciError):
    """An admission would push spending past the session cap or the agent's share (design.md#budget).

    Attributes:
        scope: ``"session"`` (the whole cap, reserve included) or ``"agent"`` (this agent's share).
    """

    kind = "budget"

    def __init__(self, message: str, *, scope: str, agent: str) -> None:
        super().__init__(message)
        self.scope = scope
        self.agent = agent


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
