"""``outside_loop`` in a running event loop (a notebook): one worker thread kept for the process, so a server the
first run started (ended by the kernel when the thread that started it exits) still answers the second run."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time

from cosci.api.start import outside_loop
from flows.server import _detach


def test_a_server_started_by_the_first_call_outlives_it_and_the_second_call_runs_on_the_same_thread() -> None:
    threads: list[int] = []

    def start() -> subprocess.Popen[bytes]:
        threads.append(threading.get_ident())
        # as the temporary Prefect server is started: its own session, ended when its parent thread exits
        return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], preexec_fn=_detach)

    async def kernel() -> subprocess.Popen[bytes]:  # two cells while the kernel's loop runs
        proc = outside_loop(start)
        time.sleep(0.5)  # the kernel's SIGTERM to a child of an exited thread arrives at once
        outside_loop(lambda: threads.append(threading.get_ident()))
        return proc

    proc = asyncio.run(kernel())
    try:
        assert proc.poll() is None, "the first call's server was ended with its thread"
        assert len(threads) == 2 and threads[0] == threads[1] != threading.get_ident()
    finally:
        proc.kill()
        proc.wait()
    assert outside_loop(lambda: threading.get_ident()) == threading.get_ident()  # no running loop: this thread
