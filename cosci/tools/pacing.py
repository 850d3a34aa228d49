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

    async def wait(self) -> float:
        """Sleep until this caller's slot; returns at once when the limiter is idle. Returns the slot's start
        (``time.monotonic()`` seconds; 0.0 when unlimited), for :meth:`refund`."""
        if self.interval <= 0:
            return 0.0
        now = time.monotonic()
        start = max(now, self._next)
        self._next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)
        return start

    def refund(self, start: float) -> None:
        """Give back the slot that began at ``start`` for a request that never reached the API (it could not
        connect: a name that does not resolve, a refused connection), unless a later caller has reserved one since.
        Without it, on a machine without network every novelty search waited out each API's interval between
        queries that failed at once (arXiv's 3 s among them: 5.7 s per full review, bench/README.md "The eighth
        stop")."""
        if self.interval > 0 and self._next == start + self.interval:
            self._next = start
