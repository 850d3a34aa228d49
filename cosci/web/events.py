"""A session's events as Server-Sent Events (docs/web.md): the stream reads the session's own event log in its
store, so a session started from the terminal, or by another process, shows live as well as one started here.

Each new event row is sent as an ``event`` message carrying its line as HTML (htmx's SSE extension inserts it at the
top of the page's event list) with the row's sequence number as the message id, so a browser that reconnects
sends ``Last-Event-ID`` and misses nothing; after each batch a ``refresh`` message tells the page to fetch its live
figures and the leaderboard again. The store is polled every :data:`POLL_SECONDS`; once no process runs the
session (finished, paused or stopped) the stream sends what is left and ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from cosci.session.folder import SessionFolder
from cosci.web.views import event_line

POLL_SECONDS = 0.25
"""How often the event log is read (s): an event reaches the page within this plus the page's own work, under
the 2 s the web UI promises (design.md#web; measured in bench/README.md)."""
END_AFTER_POLLS = 8
"""Polls in a row with no new event and no process running the session before the stream ends (2 s: a session
started from the page takes its lock a moment after its folder appears)."""
HEARTBEAT_SECONDS = 15.0
"""A comment line this often keeps proxies and the browser from closing a quiet stream (s)."""


def message(event: str, data: str, id: int | None = None) -> str:
    """One Server-Sent Events message (``data`` on one line per line of it)."""
    head = f"id: {id}\n" if id is not None else ""
    body = "".join(f"data: {line}\n" for line in (data.splitlines() or [""]))
    return f"{head}event: {event}\n{body}\n"


def _read(folder: SessionFolder, after: int) -> tuple[list[dict[str, Any]], bool]:
    """The events after ``after`` and whether no process runs the session (its stream may end)."""
    with folder.store(read_only=True) as store:
        rows = store.logs.events_after(after)
    return rows, not folder.is_running()


async def stream(folder: SessionFolder, after: int, render: Callable[[dict[str, str]], str],
                 disconnected: Callable[[], Any]) -> AsyncIterator[str]:
    """The SSE messages of ``folder``'s events after sequence number ``after``.

    Args:
        render: an event line (:func:`cosci.web.views.event_line`) -> its HTML.
        disconnected: an awaitable check that the client left (the stream then stops).
    """
    last, quiet, idle = after, 0.0, 0
    yield "retry: 1000\n\n"  # a dropped connection is retried after 1 s
    while not await disconnected():
        rows, finished = await asyncio.to_thread(_read, folder, last)
        for e in rows:
            last = int(e["seq"])
            yield message("event", render(event_line(e)).replace("\n", " "), id=last)
        idle = idle + 1 if finished and not rows else 0
        if rows:
            yield message("refresh", str(last))
            quiet = 0.0
        elif idle >= END_AFTER_POLLS:
            yield message("end", "no process runs the session")
            return
        await asyncio.sleep(POLL_SECONDS)
        quiet += POLL_SECONDS
        if quiet >= HEARTBEAT_SECONDS:
            yield ": keep-alive\n\n"
            quiet = 0.0
