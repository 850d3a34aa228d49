"""HTTP details shared by the edges: the ``Retry-After`` header (LLM providers and literature APIs) and the
``/health`` probe (the Prefect server, an MLflow server).

A leaf module (httpx and the standard library only), so the LLM gateway, the tool clients, tracking and
``flows/`` use one reading of each instead of their own.
"""

from __future__ import annotations

import email.utils
from datetime import UTC, datetime

import httpx

from cosci.text import error_line


class Unreachable(Exception):
    """No server answered ``GET <base>/health`` (refused, timed out, or the URL is not one); ``str`` is one line."""


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds (delta-seconds or an HTTP date, RFC 9110 section 10.2.3), or None when absent or
    malformed. A date in the past gives 0."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))  # delta-seconds (fractions accepted)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def health_status(base_url: str, timeout_seconds: float) -> int:
    """The HTTP status of ``GET <base_url>/health`` (Prefect's API and MLflow's server both serve it).

    A plain ``http://`` URL (a run's own Prefect server, polled every 0.1 s while it boots) is asked without a
    certificate store: httpx loads the CA bundle for every new client otherwise, 30 ms of CPU a probe here against
    0.7 ms, for a connection that uses no TLS (design.md#supervisor, "The run's own Prefect server").

    Raises:
        Unreachable: nothing answered within ``timeout_seconds`` (seconds), or ``base_url`` is no URL; the message
            names the error (type and first line, at most 120 characters).
    """
    tls = not base_url.lower().startswith("http://")
    try:
        return httpx.get(f"{base_url.rstrip('/')}/health", timeout=timeout_seconds, verify=tls).status_code
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise Unreachable(f"{type(exc).__name__}: {error_line(exc, 120)}") from None
