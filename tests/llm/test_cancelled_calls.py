"""A provider call cancelled while LiteLLM's synchronous half runs in the executor (Ctrl-C, a deadline) leaves no
``coroutine ... was never awaited`` warning: the executor closes the provider coroutine nobody will await."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import warnings

import litellm
import litellm.main
import pytest

from cosci.llm.gateway.cancelled import close_orphans, install_closing_executor


async def _cancel_in_the_executor(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Cancel ``litellm.acompletion`` while its ``completion`` runs in the executor; the warnings seen after."""
    started, release = threading.Event(), threading.Event()
    returned: list[object] = []

    async def provider_call() -> None:  # what LiteLLM's sync half hands back for acompletion to await
        raise AssertionError("a cancelled call must not reach the provider")

    def completion(**kwargs: object) -> object:
        started.set()
        release.wait(10)
        returned.append(kwargs.get("model"))
        return provider_call()

    monkeypatch.setattr(litellm.main, "completion", completion)
    call = asyncio.ensure_future(
        litellm.acompletion(
            model="openai/cosci-test", api_key="sk-test", messages=[{"role": "user", "content": "hello"}]
        )
    )
    await asyncio.to_thread(started.wait, 10)
    call.cancel()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        release.set()
        with contextlib.suppress(asyncio.CancelledError):
            await call
        for _ in range(100):  # the worker returns after the cancel
            if returned:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        gc.collect()
    assert returned and call.cancelled()
    return [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)]


async def test_a_call_cancelled_in_the_executor_leaves_no_unawaited_coroutine(monkeypatch: pytest.MonkeyPatch) -> None:
    install_closing_executor()
    install_closing_executor()  # once per loop
    assert not [m for m in await _cancel_in_the_executor(monkeypatch) if "never awaited" in m]


async def test_an_uncancelled_call_gets_its_result(monkeypatch: pytest.MonkeyPatch) -> None:
    install_closing_executor()
    loop = asyncio.get_running_loop()

    async def answer() -> int:
        return 42

    assert await loop.run_in_executor(None, lambda: 1) == 1
    coro = await loop.run_in_executor(None, answer)  # delivered, not closed
    assert await coro == 42
    with pytest.raises(ZeroDivisionError):
        await loop.run_in_executor(None, lambda: 1 / 0)


async def test_a_call_cancelled_after_its_result_arrived_leaves_no_unawaited_coroutine() -> None:
    """The other half of the race: the worker's coroutine reached asyncio's future, then the task awaiting it was
    cancelled before it ran again, so the coroutine is dropped unstarted; it is closed, not left to the collector."""
    install_closing_executor()
    loop = asyncio.get_running_loop()
    reached: list[bool] = []

    async def provider_call() -> None:
        reached.append(True)

    async def call(fut: asyncio.Future[object]) -> None:
        coro = await fut
        await coro  # type: ignore[misc]

    release = threading.Event()

    def completion() -> object:
        release.wait(10)  # until the task awaits the future
        return provider_call()

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fut = loop.run_in_executor(None, completion)
        task = asyncio.ensure_future(call(fut))
        fut.add_done_callback(lambda _: task.cancel())  # runs before the task's own wake-up: result set, not taken
        await asyncio.sleep(0)  # the task now waits on fut
        release.set()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        del fut
        await asyncio.sleep(0.05)
        gc.collect()
        close_orphans()
        gc.collect()
    assert task.cancelled() and not reached
    assert not [w for w in seen if "never awaited" in str(w.message)]


async def test_a_delivered_coroutine_someone_still_holds_is_not_closed() -> None:
    install_closing_executor()
    loop = asyncio.get_running_loop()

    async def answer() -> int:
        return 7

    coro = await loop.run_in_executor(None, answer)
    close_orphans()  # held here, unstarted: left alone
    assert await coro == 7
