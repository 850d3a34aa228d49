"""When a tool client may send: a per-API rate limit (design.md#tools).

:class:`RateLimiter` spaces request starts (requests/s; reservations are taken in call order without a lock,
which is safe inside one event loop). The server's ``Retry-After`` is read by :func:`cosci.net.parse_retry_after`.
"""

from __future__ import annotations

import asyncio
import time


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
