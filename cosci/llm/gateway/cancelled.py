"""The event loop's default executor, which closes the provider coroutine a cancelled call leaves behind.

``litellm.acompletion`` runs LiteLLM's synchronous ``completion`` in the loop's default executor; for most
providers (and cosci's custom ones: the fake, the embedded model) that returns the provider's coroutine, which
``acompletion`` then awaits. A call cancelled while the thread runs (Ctrl-C: the supervisor cancels the actions in
flight, design.md#resume; a deadline) drops that result unawaited: the coroutine never started, so nothing was sent,
but Python prints ``RuntimeWarning: coroutine '…' was never awaited`` on the researcher's terminal when it is
collected. :class:`ClosingExecutor` closes a coroutine result that nobody will receive, and only one that never
started. asyncio cancels the executor's future whenever the awaiting one is cancelled
(``asyncio.futures._chain_future``): that cancel is the sign the result is dropped.

The cancel can also come one step later: the coroutine has reached asyncio's future and the task awaiting it is
cancelled before it runs again, so the task never takes the result and no cancel reaches the executor. Every
unstarted coroutine the executor delivers is therefore held here until it starts; :func:`close_orphans` closes the
ones nobody else holds any more (the session's close and interpreter exit call it; each delivery prunes).
"""

from __future__ import annotations

import asyncio
import atexit
import inspect
import sys
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

_INSTALLED: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
_DELIVERED: list[Any] = []  # unstarted coroutines handed to asyncio, held until they start (module docstring)
_DELIVERED_LOCK = threading.Lock()
_ONLY_HERE = 3  # close_orphans' references to a coroutine: its list, its loop variable, getrefcount's argument


def _unstarted(value: object) -> bool:
    return inspect.iscoroutine(value) and inspect.getcoroutinestate(value) == inspect.CORO_CREATED


def _close_unstarted(value: object) -> None:
    if _unstarted(value):
        value.close()  # type: ignore[attr-defined]


def close_orphans(*, at_exit: bool = False) -> int:
    """Close each delivered coroutine that never started and that nobody but this module holds; forget started ones.

    Args:
        at_exit: close every unstarted one (nothing runs them once the interpreter exits).

    Returns:
        How many coroutines were closed (each one a provider call that was never sent).
    """
    with _DELIVERED_LOCK:
        held = list(_DELIVERED)
        _DELIVERED.clear()
    closed, kept = 0, []
    for coro in held:
        if not _unstarted(coro):
            continue
        if at_exit or sys.getrefcount(coro) <= _ONLY_HERE:
            coro.close()
            closed += 1
        else:
            kept.append(coro)
    del held
    with _DELIVERED_LOCK:
        _DELIVERED.extend(kept)
    return closed


atexit.register(close_orphans, at_exit=True)


class _DroppingFuture(Future[Any]):
    """The future :meth:`ClosingExecutor.submit` returns: mirrors the worker's future, and once cancelled while it
    runs (its result no longer wanted) closes an unstarted coroutine result instead of leaving it to the collector."""

    def __init__(self, inner: Future[Any]) -> None:
        super().__init__()
        self._inner = inner
        self._guard = threading.RLock()  # inner.cancel() may call _take on this thread, holding it
        self._dropped = False
        inner.add_done_callback(self._take)

    def cancel(self) -> bool:
        with self._guard:
            self._dropped = True
            if self.done():  # finished before asyncio saw the cancel: the result is not delivered
                if not self.cancelled() and self.exception() is None:
                    _close_unstarted(self.result())
                return self.cancelled()
            if self._inner.cancel():  # not started: nothing to close
                return super().cancel()
            return False  # running: _take closes its result when it comes

    def _take(self, inner: Future[Any]) -> None:
        with self._guard:
            if self.done():
                return
            if inner.cancelled():
                super().cancel()
                return
            if (exc := inner.exception()) is not None:
                self.set_exception(exc)
                return
            result = inner.result()
            if self._dropped:
                _close_unstarted(result)
            elif _unstarted(result):
                close_orphans()  # prune: the ones delivered earlier have started or been dropped by now
                with _DELIVERED_LOCK:
                    _DELIVERED.append(result)
            self.set_result(result)


class ClosingExecutor(ThreadPoolExecutor):
    """A :class:`ThreadPoolExecutor` whose futures close a dropped, unstarted coroutine result (module docstring)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return _DroppingFuture(super().submit(fn, *args, **kwargs))


def install_closing_executor() -> None:
    """Make :class:`ClosingExecutor` the running loop's default executor (once per loop; no loop: nothing)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    if loop in _INSTALLED:
        return
    loop.set_default_executor(ClosingExecutor(thread_name_prefix="asyncio"))
    _INSTALLED.add(loop)
