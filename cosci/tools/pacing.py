"""When a tool client may send: a per-API rate limit and the server's ``Retry-After`` (issue 5).

:class:`RateLimiter` spaces request starts (requests/s; reservations are taken in call order without a lock,
which is safe inside one event loop). :func:`parse_retry_after` reads ``Retry-After`` as delta-seconds or an
HTTP date (RFC 9110 section 10.2.3), in seconds.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from datetime import UTC, datetime


class RateLimiter:
    """At most ``rate_per_second`` request starts per second (reservations in call order; no lock needed)."""

    def __init__(self, rate_per_second: float | None) -> None:
        self.interval = 1.0 / rate_per_second if rate_per_second else 0.0
        self._next = 0.0

    async def wait(self) -> None:
        """Sleep until this caller's slot; returns at once when the limiter is idle."""
        if self.interval <= 0:
            return
        now = time.monotonic()
        start = max(now, self._next)
        self._next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds (delta-seconds or an HTTP date), or None when absent or malformed."""
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
