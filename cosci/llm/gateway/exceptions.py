"""Provider exceptions in cosci's error hierarchy (:mod:`cosci.llm.errors`; docs/design.md#retries,
docs/design.md#permanent-errors).

Owns the one mapping from a LiteLLM or provider exception to a transient or permanent
:class:`~cosci.llm.errors.LLMError`, with the provider's own message (:mod:`.error_text`) and its ``Retry-After``;
the gateway, the embedding calls and the batch gateway all map through :func:`map_exception`.
"""

from __future__ import annotations

from typing import Any

import litellm
from litellm.exceptions import MidStreamFallbackError

from cosci.llm import errors as E
from cosci.llm.gateway.error_text import is_too_large, provider_message
from cosci.llm.gateway.unreachable import message, unreachable
from cosci.net import parse_retry_after


def _retry_after(exc: Exception) -> float | None:
    """Seconds from a ``Retry-After`` / ``retry-after-ms`` header on a LiteLLM exception, if any."""
    headers: Any = (getattr(exc, "litellm_response_headers", None)
                    or getattr(getattr(exc, "response", None), "headers", None))
    if not headers:
        return None
    try:
        if ms := headers.get("retry-after-ms"):
            return float(ms) / 1000.0
        return parse_retry_after(headers.get("retry-after"))
    except (TypeError, ValueError, AttributeError):
        return None


def map_exception(exc: Exception, model: str, tier: str | None = None) -> E.LLMError:  # noqa: C901 - one branch per kind
    """Turn a LiteLLM/provider exception into cosci's hierarchy (transient vs permanent), with the provider's own
    message (:func:`cosci.llm.gateway.error_text.provider_message`). A request refused for its size is
    :class:`~cosci.llm.errors.RequestTooLarge`, never retried, even when the provider says so with a 429. A field
    LiteLLM will not send to ``model`` (a thinking form the model does not take) names the setting that sent it,
    ``models.tiers.<tier>.thinking`` (``tier``: the route's tier, when known). A host that cannot be reached at all
    is :class:`~cosci.llm.errors.HostUnreachable` (:mod:`.unreachable`)."""
    if isinstance(exc, E.LLMError):
        return exc
    if found := unreachable(exc):  # a name that does not resolve, a refused port: not a flaky server
        return E.HostUnreachable(message(*found), model=model, host=found[0])
    msg = provider_message(str(getattr(exc, "message", exc)))[:500]
    status = getattr(exc, "status_code", None)
    kw: dict[str, Any] = {"model": model, "retry_after": _retry_after(exc)}
    if is_too_large(status, msg):
        return E.RequestTooLarge(msg, model=model)
    if isinstance(exc, litellm.UnsupportedParamsError):  # refused before it left: the tier's form, not the request
        setting = f"models.tiers.{tier}.thinking" if tier else "the tier's thinking setting"
        said = msg.split(" To drop these")[0]  # LiteLLM's advice is for its own users (drop_params), not cosci's
        return E.PermanentLLMError(f"{said} (cosci: set {setting} to the form this model's provider documents, or "
                                   "off: docs/configuration.md)", **kw)
    if isinstance(exc, litellm.ContextWindowExceededError | litellm.ContentPolicyViolationError):
        return E.InputRejected(msg, model=model)
    if isinstance(exc, MidStreamFallbackError):  # a stream cut off before its stop reason: the connection
        return E.ConnectionFailed(msg, **kw)
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return E.RateLimited(msg, **kw)
    if status == 529 or "overloaded" in msg.lower() or isinstance(exc, litellm.ServiceUnavailableError):
        return E.Overloaded(msg, **kw)
    if isinstance(exc, litellm.Timeout):
        return E.CallTimeout(msg, **kw)
    if isinstance(exc, TimeoutError):  # our own deadline (asyncio.timeout) expired
        return E.CallTimeout(msg or "no complete answer before the call's deadline", **kw)
    if isinstance(exc, litellm.APIConnectionError):
        return E.ConnectionFailed(msg, **kw)
    if isinstance(exc, litellm.NotFoundError):
        return E.ModelUnavailable(msg, **kw)
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError):
        return E.AuthFailed(msg, **kw)
    if isinstance(exc, litellm.InternalServerError) or (isinstance(status, int) and status >= 500):
        return E.ServerError(msg, **kw)
    return E.PermanentLLMError(msg, **kw)
