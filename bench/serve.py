"""``python -m bench.run --only serve``: the web UI's two promises (docs/web.md, design.md#web), measured on the real
command in a subprocess.

- **start**: ``cosci serve`` launched to its first sessions page answered (HTTP 200 on ``/``), over a data folder
  holding one stopped session of the fake; median of ``runs`` launches.
- **event latency**: an event written to a session's store (as a session in another process writes it) to its
  arrival on the page's Server-Sent Events stream; the bench holds the session's lock, as a running session's
  process does, so the stream stays open; ``events`` events half a second apart, median and maximum.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

SESSION = ("experiment=demo", "models=fake", "tools.offline=true", "tracking.enabled=false", "session.name=bench-web")


def _stopped_session(data: Path) -> str:
    """A session of the fake created and closed before any task (a stopped session); its id."""
    from cosci.config.load import compose, validate
    from cosci.session.runtime import SessionRuntime

    async def make() -> str:
        config = validate(compose([*SESSION, f"paths.data_dir={data}"]), require_goal=True)
        rt = await SessionRuntime.open(config, models_choice="fake")
        await rt.close()
        return rt.session_id

    return asyncio.run(make())


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _launch(root: Path, data: Path, port: int) -> tuple[subprocess.Popen[bytes], float]:
    import httpx

    env = {**os.environ, "PYTHONPATH": str(root)}
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "cosci.cli", "--data-dir", str(data), "serve", "--port",
                             str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    while time.monotonic() - t0 < 60:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                return proc, time.monotonic() - t0
        except httpx.HTTPError:
            time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    raise RuntimeError("cosci serve did not answer within 60 s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


def _latencies(data: Path, sid: str, port: int, events: int) -> list[float]:
    """Seconds from each written event to its ``data:`` line on the stream."""
    import httpx

    from cosci.session.folder import SessionFolder

    folder = SessionFolder(data, sid)
    folder.lock()  # as the running session's process holds it
    written: dict[str, float] = {}
    arrived: dict[str, float] = {}
    done = threading.Event()

    def read() -> None:
        with httpx.stream("GET", f"http://127.0.0.1:{port}/sessions/{sid}/events", timeout=30,
                          params={"after": str(_last(folder))}) as r:
            for line in r.iter_lines():
                for key in written:
                    if key in line and key not in arrived:
                        arrived[key] = time.monotonic()
                if len(arrived) == events:
                    done.set()
                    return

    try:
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        time.sleep(1.0)  # the stream is open
        for i in range(events):
            key = f"bench-probe-{i}-{time.time_ns()}"
            with folder.store() as store:
                written[key] = time.monotonic()
                store.logs.event("bench_probe", {"probe": key})
            time.sleep(0.5)
        done.wait(timeout=30)
    finally:
        folder.unlock()
    return [arrived[k] - written[k] for k in written if k in arrived]


def _last(folder: Any) -> int:
    with folder.store(read_only=True) as store:
        return int(store.logs.last_event_seq())


def measure(root: Path, work: Path, runs: int = 5, events: int = 10) -> dict[str, Any]:
    """The start times of ``runs`` launches and the latencies of ``events`` events (seconds), with the load."""
    data = work / "data"
    sid = _stopped_session(data)
    starts = []
    for _ in range(runs):
        port = _port()
        proc, took = _launch(root, data, port)
        _stop(proc)
        starts.append(took)
    port = _port()
    proc, _ = _launch(root, data, port)
    try:
        lat = _latencies(data, sid, port, events)
    finally:
        _stop(proc)
    return {"starts": starts, "start": statistics.median(starts), "latencies": lat,
            "latency": statistics.median(lat) if lat else float("inf"), "latency_max": max(lat, default=float("inf")),
            "arrived": len(lat), "events": events, "load": os.getloadavg()}
