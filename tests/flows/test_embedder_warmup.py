"""The session's embedder is loaded in a thread once its first task has finished (design.md#supervisor, "The
session's start"): the first hypotheses no longer each wait for scikit-learn's import after their calls."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from cosci.llm.embeddings import embedder as embedding
from cosci.llm.embeddings.embedder import Embedder
from flows.process import EmbedderWarmup


def test_the_hash_embedder_warm_up_loads_what_its_first_embedding_would() -> None:
    embedding._vectorizers.cache_clear()
    Embedder(["hash"]).warm()
    assert embedding._vectorizers.cache_info().currsize == 1  # the first embed finds the vectorizers made


def test_the_warm_up_starts_once_in_its_own_thread_after_the_first_task() -> None:
    ran: list[str] = []
    done = threading.Event()

    class Recording:
        def warm(self) -> None:
            ran.append(threading.current_thread().name)
            done.set()

    warmup = EmbedderWarmup(SimpleNamespace(deps=SimpleNamespace(embedder=Recording())))  # type: ignore[arg-type]
    assert warmup.thread is None  # nothing before the first task ends (the goal screen's first call goes first)
    warmup.on_progress(None, 1)
    first = warmup.thread
    warmup.on_progress(None, 2)
    assert done.wait(10) and first is not None and warmup.thread is first
    first.join(10)
    assert ran == ["cosci-warm-embedder"]


def test_a_failed_warm_up_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    unhandled: list[object] = []
    monkeypatch.setattr(threading, "excepthook", unhandled.append)

    class Broken:
        def warm(self) -> None:
            raise RuntimeError("no scikit-learn")

    warmup = EmbedderWarmup(SimpleNamespace(deps=SimpleNamespace(embedder=Broken())))  # type: ignore[arg-type]
    warmup.on_progress(None, 1)
    assert warmup.thread is not None
    warmup.thread.join(10)
    assert not warmup.thread.is_alive() and unhandled == []  # logged at debug level, never raised in the thread


@pytest.mark.slow
def test_a_session_refused_at_its_goal_screen_ends_after_the_warm_up_it_started(
        prefect_server: None, fake: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The session's end waits for the warm-up: a daemon thread still importing at interpreter exit held a module
    lock that LiteLLM's finaliser then waited on for ever (a refused goal's process hung after its exit line)."""
    import asyncio
    import time

    from flows.session import session_flow
    from tests.conftest import CAPABLE, make_config

    ended: list[float] = []

    def slow_warm(self: Embedder) -> None:
        time.sleep(1.0)  # still running when the refused session reaches its end
        ended.append(time.monotonic())

    monkeypatch.setattr(Embedder, "warm", slow_warm)
    config = make_config(tmp_path / "data", 'session.goal="Make the virus spread between ferrets [fake-safety:block]"',
                         CAPABLE)
    summary = asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo", "models=fake"], "fake"))
    returned = time.monotonic()
    assert summary["stop_reason"] == "refused"
    assert ended and ended[0] <= returned
