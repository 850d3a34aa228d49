"""The session's first-task imports in a thread beside the waits for the Prefect server and the flow run
(cosci.session.warm, design.md#startup): they are loaded by it, a failure in it is dropped, and while it runs no
other thread of a real session process starts importing a module (two threads importing at once can meet Python's
import-lock deadlock detection)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cosci.session import warm

ROOT = Path(__file__).resolve().parents[2]

LOADED = """
import sys
from cosci.session import warm
wanted = ("cosci.agents.generation", "cosci.agents.ranking", "cosci.agents.safety", "cosci.ui.progress",
          "litellm.proxy.openai_files_endpoints.common_utils")
before = [m for m in wanted if m in sys.modules]
warm.start()
warm.wait()
import litellm.main
print(before, [m for m in wanted if m not in sys.modules], "encoding" in vars(litellm.main))
"""


def test_the_thread_loads_the_agents_and_litellms_first_call_modules() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", LOADED], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[] [] True"  # none before, all after, the tokenizer loaded


def test_a_failure_in_the_thread_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def broken() -> None:
        calls.append("ran")
        raise RuntimeError("deadlock detected by _ModuleLock('x')")

    monkeypatch.setattr(warm, "first_task_imports", broken)
    warm.start()
    warm.wait()  # joins, raises nothing
    assert calls == ["ran"]
    assert warm._THREAD == []
    warm.wait()  # nothing started: returns at once


SPY = """
import os, runpy, sys, threading, time
calls = os.environ["CALLS"]
seen = []

class Spy:
    def find_spec(self, name, path=None, target=None):
        from cosci.session import warm
        if warm._THREAD and warm._THREAD[0].is_alive():
            seen.append((threading.current_thread().name, name))
        return None

def at_first_call():
    while not (os.path.exists(calls) and os.path.getsize(calls) > 0):
        time.sleep(0.01)
    print("WARM", sum(t == "cosci-warm-imports" for t, _ in seen), flush=True)
    print("OTHER", [(t, n) for t, n in seen if t != "cosci-warm-imports"], flush=True)
    os._exit(0)

threading.Thread(target=at_first_call, daemon=True).start()
import cosci.session.warm
sys.meta_path.insert(0, Spy())
sys.argv = ["cosci.run", "experiment=demo", "models=fake", "tools.offline=true", f"models.fake.call_log={calls}"]
runpy.run_module("cosci.run", run_name="__main__")
"""


@pytest.mark.slow
def test_no_other_thread_imports_while_the_thread_runs(tmp_path: Path) -> None:
    """A fake session in a new process, to its first model call: every module imported while the warm-up thread is
    alive is imported by it (Prefect's flow-run modules were imported before it started, flows.launch)."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(PYTHONPATH=str(ROOT), COSCI_DATA_DIR=str(tmp_path / "data"), CALLS=str(tmp_path / "calls.jsonl"),
               XDG_CACHE_HOME=str(tmp_path / "cache"), PREFECT_SERVER_ANALYTICS_ENABLED="false")
    done = subprocess.run([sys.executable, "-c", SPY], env=env, capture_output=True, text=True, timeout=600)
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if line.startswith(("WARM", "OTHER")))
    assert set(lines) == {"WARM", "OTHER"}, done.stderr[-2000:]
    assert int(lines["WARM"]) > 0  # the thread imported something in this new process
    assert lines["OTHER"] == "[]"
