"""A provider host that cannot be reached at all (docs/design.md#unreachable-hosts).

LiteLLM reports a name that does not resolve, or a connection refused, as an ``InternalServerError`` or an
``APIConnectionError`` with status 500 (measured offline with LiteLLM 1.110: ``anthropic/``, ``openai/`` with an
``api_base``, ``ollama_chat/``, ``openrouter/``), which the retry table would retry like a flaky server. The cause is in
its exception chain: ``httpx.ConnectError`` over aiohttp's ``ClientConnectorDNSError`` over ``socket.gaierror`` (the
name), or aiohttp's ``ClientConnectorError`` over ``ConnectionRefusedError`` (the port). :func:`unreachable` finds it
there, never in the message's words.
"""

from __future__ import annotations

import socket

CHECK = "check the network, a proxy (HTTPS_PROXY) and the tier's api_base"
"""What to check, the end of the one line a session or ``cosci check`` prints."""


def chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes (``__cause__``, else ``__context__``), outermost first, each once."""
    out: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and all(cur is not seen for seen in out):
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def unreachable(exc: BaseException) -> tuple[str, str] | None:
    """``(host, why)`` when ``exc`` (a LiteLLM exception) was caused by a name that does not resolve or a refused
    connection, else None (a timeout, a 5xx, a 429 are not: their retries stay). ``host`` is ``host:port`` from
    aiohttp's connector error, or ``""`` when the chain does not name it; ``why`` is the reason in plain words."""
    causes = chain(exc)
    why = ""
    for cause in causes:
        if isinstance(cause, socket.gaierror):
            why = f"its name does not resolve ({cause.strerror or cause})"
            break
        if isinstance(cause, ConnectionRefusedError):
            why = "it refused the connection"
            break
    if not why:
        return None
    named = ((getattr(c, "host", None), getattr(c, "port", None)) for c in causes)  # aiohttp's ClientConnectorError
    host = next((f"{h}:{p}" for h, p in named if isinstance(h, str) and p is not None), "")
    return host, why


def message(host: str, why: str, api_base: str | None = None) -> str:
    """The one line: which host, what happened, what to check."""
    where = host or api_base or "the provider's host"
    return f"cannot reach {where}: {why}; {CHECK}" + (f" (now {api_base})" if api_base else "")
