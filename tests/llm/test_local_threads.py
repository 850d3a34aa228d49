"""The embedded model's thread rule (``cosci/llm/local/threads.py``): the cores free for this process, from
scripted CPU-time readings (no timing)."""

from __future__ import annotations

from typing import Any

import pytest

from cosci.llm.local import threads
from cosci.llm.local.threads import Snapshot, ThreadRule, free_threads, other_busy_cores


@pytest.mark.parametrize(("cores", "busy", "expected"), [
    (2, 0.0, 2), (2, 0.4, 2), (2, 0.6, 1), (2, 1.0, 1), (2, 2.0, 1), (2, 5.0, 1), (4, 1.2, 3), (1, 0.0, 1),
])
def test_threads_are_the_cores_others_leave_free_rounded_at_least_one(cores: int, busy: float, expected: int) -> None:
    assert free_threads(cores, busy) == expected


def test_this_process_own_cpu_is_not_counted_as_competition(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads.os, "cpu_count", lambda: 2)
    # 1 s of wall on 2 CPUs (2 CPU-seconds in total): both busy, 1 CPU-second of it this process's own
    assert other_busy_cores(Snapshot(0, 0, 0), Snapshot(2.0, 2.0, 1.0)) == pytest.approx(1.0)
    assert other_busy_cores(Snapshot(0, 0, 0), Snapshot(2.0, 2.0, 2.0)) == 0.0
    assert other_busy_cores(Snapshot(0, 0, 0), Snapshot(0.2, 2.0, 0.0)) == pytest.approx(0.2)


def scripted(monkeypatch: pytest.MonkeyPatch, readings: list[Snapshot]) -> None:
    monkeypatch.setattr(threads.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(threads.time, "sleep", lambda s: None)
    queue = list(readings)
    monkeypatch.setattr(Snapshot, "now", classmethod(lambda cls: queue.pop(0)))


def test_the_rule_follows_a_competitor_that_starts_and_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    scripted(monkeypatch, [
        Snapshot(0.0, 0.0, 0.0), Snapshot(0.05, 0.5, 0.05),   # load: quiet -> 2
        Snapshot(4.05, 4.5, 2.05),                           # a call of 2 s: the machine full, we had 1 core -> 1
        Snapshot(4.05, 4.52, 2.05),                          # 0.01 s later: too short to tell, keeps 1
        Snapshot(6.05, 8.5, 4.0),                            # the competitor stopped: others ~0 -> 2
    ])
    rule = ThreadRule(cores=2)
    assert rule.first() == 2
    assert rule.next() == 1
    assert rule.next() == 1
    assert rule.next() == 2


def test_without_proc_stat_the_load_average_stands_in(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_proc() -> Snapshot:
        raise OSError("no /proc/stat")

    monkeypatch.setattr(Snapshot, "now", classmethod(lambda cls: no_proc()))
    monkeypatch.setattr(threads.time, "sleep", lambda s: None)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (2.1, 1.0, 1.0))  # this process + one other job
    assert ThreadRule(cores=2).first() == 1
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (1.0, 1.0, 1.0))  # this process alone
    assert ThreadRule(cores=2).first() == 2


class Loaded:
    """A loaded llama.cpp model as the provider's thread setting reads it: two threads, a context handle."""

    n_threads = n_threads_batch = 2

    class _ctx:
        ctx = object()


def scripted_threads(monkeypatch: pytest.MonkeyPatch, readings: list[int]) -> list[tuple[int, int]]:
    """The thread rule answering ``readings`` in turn; returns the list of llama.cpp's ``(n, n_batch)`` settings."""
    import llama_cpp

    set_calls: list[tuple[int, int]] = []
    monkeypatch.setattr(llama_cpp, "llama_set_n_threads", lambda ctx, n, nb: set_calls.append((n, nb)))
    answers = iter(readings)
    monkeypatch.setattr(ThreadRule, "first", lambda self, window=0.25: next(answers))
    monkeypatch.setattr(ThreadRule, "next", lambda self: next(answers))
    return set_calls


def test_the_provider_resets_llama_cpp_threads_before_a_call_when_auto(monkeypatch: pytest.MonkeyPatch) -> None:
    from cosci.llm.local.model import DEFAULT_CFG, LocalModelProvider

    set_calls = scripted_threads(monkeypatch, [2, 1, 1, 2])
    provider = LocalModelProvider()
    assert provider._first_threads() == 2
    loaded = Loaded()
    assert [provider._set_threads(loaded) for _ in range(3)] == [1, 1, 2]
    assert set_calls == [(1, 1), (1, 2)]  # only when the count changes; a generated token on one (the default)
    pinned = LocalModelProvider()
    pinned.cfg = DEFAULT_CFG.model_copy(update={"n_threads": 3})
    assert pinned._first_threads() == 3 and pinned._set_threads(loaded) == 2  # a number is never revised


def test_generated_tokens_get_the_generation_threads_and_prompt_batches_the_rule_s(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``generation_threads`` caps the threads of a batch of one (a generated token) at the rule's count; prompt
    batches keep the rule's count; null leaves both equal, as before (design.md#local-threads)."""
    from cosci.llm.local.model import DEFAULT_CFG, LocalModelProvider

    set_calls = scripted_threads(monkeypatch, [2, 2, 1, 2])
    provider = LocalModelProvider()
    provider.cfg = DEFAULT_CFG.model_copy(update={"generation_threads": 1})
    assert provider._first_threads() == 2 and provider._generation(2) == 1 and provider._generation(1) == 1
    loaded = Loaded()
    assert [provider._set_threads(loaded) for _ in range(3)] == [2, 1, 2]
    assert set_calls == [(1, 2), (1, 1), (1, 2)]  # a generated token on one thread, prompt batches on the rule's
    assert (loaded.n_threads, loaded.n_threads_batch) == (1, 2)
    same = LocalModelProvider()
    same.cfg = DEFAULT_CFG.model_copy(update={"generation_threads": None})
    assert same._generation(2) == 2  # null: as many as prompt batches (the earlier behaviour)
    wide = LocalModelProvider()
    wide.cfg = DEFAULT_CFG.model_copy(update={"generation_threads": 4})
    assert wide._generation(2) == 2  # never more than the rule gives


def test_a_new_decoding_applies_to_the_loaded_model_and_new_weights_reload_it() -> None:
    from cosci.llm.local.model import DEFAULT_CFG, LocalModelProvider

    class Loaded:
        grammar_last = True
        drafts = -1

        def set_drafts(self, max_tokens: int) -> None:
            self.drafts = max_tokens

    provider = LocalModelProvider()
    provider._llama = loaded = Loaded()
    provider.configure(DEFAULT_CFG.model_copy(update={"decoding": "grammar_first"}))
    assert provider._llama is loaded and loaded.grammar_last is False and loaded.drafts == 0  # off by default
    provider.configure(DEFAULT_CFG.model_copy(update={"draft_tokens": 3}))  # design.md#local-drafts: no reload
    assert provider._llama is loaded and loaded.drafts == 3
    provider.configure(DEFAULT_CFG.model_copy(update={"weights": "shipped"}))
    assert provider._llama is None


@pytest.mark.parametrize(("given", "expected"), [
    ({}, ("10000", None)),  # a bounded spin, not passive waiting (design.md#local-threads)
    ({"OMP_WAIT_POLICY": "PASSIVE"}, (None, "PASSIVE")),  # the user's policy wins; no spin count beside it
    ({"GOMP_SPINCOUNT": "500"}, ("500", None)),
])
def test_llama_threads_wait_with_a_bounded_spin_unless_the_environment_says(
        given: dict[str, str], expected: tuple[str | None, str | None]) -> None:
    """What the process's OpenMP runtime reads when llama.cpp loads: the module sets it at import, before any load."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")} | given
    probe = ("import os, cosci.llm.local.model; "
             "print(os.environ.get('GOMP_SPINCOUNT'), os.environ.get('OMP_WAIT_POLICY'))")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == [str(v) for v in expected]


def test_a_preload_loads_the_model_in_the_caller_thread_and_reads_the_free_cores_at_the_first_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The session starts the load while it waits for the Prefect server (design.md#startup); a reading of the free
    cores then would count the booting server as competition, so the rule's first reading waits for the first call."""
    import threading
    from pathlib import Path

    import llama_cpp

    from cosci.llm.local import model, state_cache
    from cosci.llm.local.model import LocalModelProvider

    loaded: list[tuple[str, int]] = []

    class Loaded:
        def __init__(self, **kw: Any) -> None:
            loaded.append((threading.current_thread().name, kw["n_threads_batch"]))
            self.n_threads, self.n_threads_batch = kw["n_threads"], kw["n_threads_batch"]
            self._ctx = type("Ctx", (), {"ctx": object()})()

        def set_cache(self, cache: Any) -> None:
            pass

        def set_drafts(self, max_tokens: int) -> None:
            pass

    readings: list[str] = []
    monkeypatch.setattr(state_cache, "PromptStateLlama", Loaded)
    monkeypatch.setattr(model, "weights_path", lambda fmt: Path("weights.gguf"))
    monkeypatch.setattr(ThreadRule, "first", lambda self, window=0.25: readings.append("first") or 1)
    monkeypatch.setattr(llama_cpp, "llama_set_n_threads", lambda ctx, n, nb: readings.append(f"set {n}"))
    provider = LocalModelProvider()
    monkeypatch.setattr(model, "ThreadRule", lambda: ThreadRule(cores=2))
    provider.preload().result(timeout=10)
    assert loaded == [("cosci-local-model_0", 2)] and readings == []  # all usable cores, no reading yet
    llama = provider.llama()
    assert provider._set_threads(llama) == 1 and readings == ["first", "set 1"]  # read at the first call
