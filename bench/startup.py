"""Start-up and researcher-command speed (issue 46): ``python -m bench.run --only startup`` or
``python -m bench.startup [--runs 5] [--tree PATH ...]``.

- **launch → first model call**: ``python -m cosci.run experiment=demo models=fake tools.offline=true`` in a new
  data folder each run (once cosci has run on the machine: a shared user cache already holds the migrated Prefect
  and MLflow templates, warmed by a first run that is not counted), from the bench's clock just before the launch
  to the first request the fake receives (its call log). Each run is stopped by SIGINT once that call is logged (a
  paused session; the rest of the demo is not what is measured). Median of ``runs``.
- **phases**: the marks the session process writes to ``COSCI_STARTUP_LOG`` (:mod:`cosci.startup`): Python and the
  entry point's imports, config validation (Hydra compose and pydantic), Hydra's own job start, the library
  imports of the session (LiteLLM, Prefect, cosci), the pre-flight estimate, the offline safety screen's load, the
  wait for the Prefect server, the flow run's creation, the session store and runtime, the first task, the first
  model call; each phase's median wall seconds, and the process's CPU seconds at each mark; and the session
  process's CPU seconds (all its threads, from ``/proc``) when the fake's first request is seen, on any tree. A
  tree without marks (an older checkout, ``--tree``) reports the first call and that CPU only.
- **researcher commands**: ``cosci list``, ``status``, ``report``, ``rate`` (a preference, no ``--why``),
  ``result`` (``--outcome inconclusive``, no ``--notes``) on the warm-up session once it has ended ``done``, and
  ``feedback`` (a rejection of one hypothesis: no text, so nothing to screen) on a paused one; launch to exit,
  median of ``runs`` each. A text given with ``--why``, ``--notes`` or ``feedback --text`` is screened by the
  safety classifier (a model call through LiteLLM, and the offline screen): not measured here.

``--paired`` (with ``--tree``) measures launch → first call only, the trees alternating run by run (a loaded
machine's load moves from minute to minute): the first call, the session's CPU at it, the wall from the server's
answer to it and the wait for the server, one row per tree.

``--tree`` runs the same measurements on other checkouts (e.g. ``--tree /work/main`` for a before/after in one
run, as bench/README.md asks on this shared machine): their sessions and commands run with that tree first on
``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "results" / "startup"
SESSION = ("experiment=demo", "models=fake", "tools.offline=true", "session.name=bench-startup")
FIRST_CALL_TIMEOUT = 300.0
"""Seconds a run may take to its first model call before the bench gives up (a loaded machine: ~30 s)."""


def _env(tree: Path, data: Path, cache: Path, log: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "COSCI_DATA_DIR": str(data), "XDG_CACHE_HOME": str(cache),
           "PYTHONPYCACHEPREFIX": str(cache / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once (the warm-up), as an installed package's modules are
    env.pop("PREFECT_API_URL", None)  # each run starts (or reuses) cosci's own server, as a researcher's does
    if log is not None:
        env["COSCI_STARTUP_LOG"] = str(log)
    return env


def _lines(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def launch(tree: Path, data: Path, cache: Path, *, stop_at_first_call: bool = True) -> dict[str, Any]:
    """One fake session; returns ``first_call`` (seconds from launch), ``marks`` (phase -> seconds from launch, the
    first of each) and ``cpu`` (phase -> the session process's CPU seconds then)."""
    data.mkdir(parents=True, exist_ok=True)
    calls, marks = data / f"calls-{time.time_ns()}.jsonl", data / f"marks-{time.time_ns()}.jsonl"
    t0 = time.time()
    proc = subprocess.Popen([sys.executable, "-m", "cosci.run", *SESSION, f"models.fake.call_log={calls}"],
                            env=_env(tree, data, cache, marks), cwd=tree, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = t0 + FIRST_CALL_TIMEOUT
    while stop_at_first_call and not _lines(calls) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    cpu_at_call = _process_cpu(proc.pid) if stop_at_first_call else None
    if stop_at_first_call and proc.poll() is None:
        proc.send_signal(signal.SIGINT)  # the session pauses; its first call is what this run measures
    _, err = proc.communicate(timeout=FIRST_CALL_TIMEOUT)
    logged = _lines(calls)
    if not logged:
        raise RuntimeError(f"no model call (exit {proc.returncode}): {err[-2000:]}")
    out: dict[str, Any] = {"first_call": min(c["t"] for c in logged) - t0, "marks": {}, "cpu": {},
                           "cpu_at_call": cpu_at_call}
    for m in _lines(marks):
        if m["phase"] not in out["marks"]:
            out["marks"][m["phase"]] = m["t"] - t0
            out["cpu"][m["phase"]] = m["cpu"]
    return out


def _process_cpu(pid: int) -> float | None:
    """The CPU seconds (user + system, all its threads; not its children's) process ``pid`` has used so far, from
    ``/proc/<pid>/stat`` (Linux); None elsewhere or once it has exited. Read when the fake's first request is seen
    (polled every 50 ms): the session's CPU to its first call, on any tree, marks or not."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cli(tree: Path, data: Path, cache: Path, *args: str) -> tuple[float, int]:
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-m", "cosci.cli", "--data-dir", str(data), *args],
                          env=_env(tree, data, cache), cwd=tree, capture_output=True, text=True)
    return time.time() - t0, proc.returncode


def _ids(data: Path, session_id: str) -> list[str]:
    """The session's hypotheses in the tournament first, then the others (its store as the session left it)."""
    from cosci.store import STORE_FILE, SessionStore

    store = SessionStore.open(data / "sessions" / session_id / STORE_FILE, session_id)
    try:
        players = store.hypotheses.player_ids()
        return players + [h.id for h in store.hypotheses.all() if h.id not in players]
    finally:
        store.close()


def commands(tree: Path, done: tuple[Path, str], paused: tuple[Path, str], cache: Path, runs: int
             ) -> dict[str, dict[str, Any]]:
    """Median seconds (launch to exit) and exit codes of each researcher command, ``runs`` times each."""
    data, sid = done
    a, b = _ids(data, sid)[:2]
    pdata, psid = paused
    held = _ids(pdata, psid)[0]
    todo: dict[str, tuple[Path, list[str]]] = {
        "list": (data, ["list"]),
        "status": (data, ["status", sid]),
        "report": (data, ["report", sid]),
        "rate": (data, ["rate", sid, a, b, "--prefer", "a"]),
        "result": (data, ["result", sid, a, "--outcome", "inconclusive"]),
        "feedback": (pdata, ["feedback", psid, "--kind", "rejection", "--hypothesis", held]),
    }
    out = {}
    for name, (folder, args) in todo.items():
        timed = [_cli(tree, folder, cache, *args) for _ in range(runs)]
        out[name] = {"median": statistics.median(t for t, _ in timed), "codes": sorted({c for _, c in timed}),
                     "all": [round(t, 2) for t, _ in timed]}
    return out


def _paused_with_hypotheses(tree: Path, data: Path, cache: Path, calls_before_stop: int = 12) -> str:
    """A fake session paused (SIGINT) once the fake has answered ``calls_before_stop`` calls: a stopped session
    with hypotheses that still takes feedback; returns its id."""
    calls = data / "paused-calls.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "cosci.run", *SESSION, f"models.fake.call_log={calls}"],
                            env=_env(tree, data, cache), cwd=tree, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + FIRST_CALL_TIMEOUT
    while len(_lines(calls)) < calls_before_stop and proc.poll() is None and time.time() < deadline:
        time.sleep(0.1)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    proc.wait(timeout=FIRST_CALL_TIMEOUT)
    return max((data / "sessions").iterdir(), key=lambda p: p.stat().st_mtime).name


def measure(tree: Path, runs: int) -> dict[str, Any]:
    """Every measurement of the module docstring on ``tree``."""
    DATA.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="cosci-bench-startup-", dir=DATA))
    cache = base / "cache"
    warm = base / "warm"
    launch(tree, warm, cache, stop_at_first_call=False)  # builds the user cache's templates; a done session
    starts = [launch(tree, base / f"run-{i}", cache) for i in range(runs)]
    phases: dict[str, float] = {}
    names = list(starts[0]["marks"])
    for i, name in enumerate(names):
        before = [s["marks"].get(names[i - 1], 0.0) if i else 0.0 for s in starts]
        phases[name] = statistics.median(s["marks"][name] - b for s, b in zip(starts, before, strict=True)
                                         if name in s["marks"])
    if names:
        phases["first model call"] = statistics.median(s["first_call"] - s["marks"][names[-1]] for s in starts
                                                       if names[-1] in s["marks"])
    done_id = next((warm / "sessions").iterdir()).name
    paused = base / "paused"
    paused_id = _paused_with_hypotheses(tree, paused, cache)
    return {
        "tree": str(tree),
        "first_call": statistics.median(s["first_call"] for s in starts),
        "first_calls": [round(s["first_call"], 2) for s in starts],
        "phases": phases,
        "cpu_at": {n: statistics.median(s["cpu"][n] for s in starts if n in s["cpu"]) for n in names},
        "cpu_at_call": statistics.median(c) if (c := [s["cpu_at_call"] for s in starts
                                                       if s["cpu_at_call"] is not None]) else None,
        "commands": commands(tree, (warm, done_id), (paused, paused_id), cache, runs),
        "load": os.getloadavg(),
    }


def paired(trees: list[Path], runs: int) -> str:
    """Launch → first call only, the trees alternating run by run (one uncounted warm-up each, a new data folder
    each run): on a loaded machine the load changes from minute to minute, so a before/after is compared in the same
    minutes. One Markdown row per tree: medians (ranges) of the first call, the session's CPU at it, the wall from
    the server's answer (the ``prefect server`` mark) to it, and the wait for the server."""
    DATA.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="cosci-bench-paired-", dir=DATA))
    for t in trees:
        launch(t, base / f"warm-{t.name}", base / f"cache-{t.name}", stop_at_first_call=False)
    got: dict[str, list[list[float]]] = {t.name: [[], [], [], []] for t in trees}
    for i in range(runs):
        for t in trees:
            r = launch(t, base / f"run-{t.name}-{i}", base / f"cache-{t.name}")
            m = r["marks"]
            for column, value in zip(got[t.name], (r["first_call"], r["cpu_at_call"],
                                                   r["first_call"] - m.get("prefect server", float("nan")),
                                                   m.get("prefect server", 0.0) - m.get("screen", 0.0)), strict=True):
                if value is not None:
                    column.append(value)
    rows = ["| tree | first call (s) | session CPU at it (s) | server's answer → first call (s) | server wait (s) |",
            "|---|---|---|---|---|"]
    for name, columns in got.items():
        rows.append(f"| {name} | " + " | ".join(
            f"{statistics.median(c):.2f} ({min(c):.2f}-{max(c):.2f})" if c else "-" for c in columns) + " |")
    return "\n".join([*rows, f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}"])


def table(results: list[dict[str, Any]]) -> str:
    """The measurements as a Markdown table, one column per tree."""
    head = "| measure | " + " | ".join(Path(r["tree"]).name for r in results) + " |"
    rows = [head, "|---" * (len(results) + 1) + "|",
            "| launch → first model call, median (s) | " + " | ".join(
                f"{r['first_call']:.2f} ({', '.join(f'{x:.1f}' for x in r['first_calls'])})" for r in results) + " |"]
    rows.append("| session CPU at the fake's first request, median (s) | " + " | ".join(
        f"{r['cpu_at_call']:.2f}" if r.get("cpu_at_call") is not None else "-" for r in results) + " |")
    names = list(dict.fromkeys(n for r in results for n in r["phases"]))
    for n in names:
        rows.append(f"| phase: {n} (s; CPU at its end) | " + " | ".join(
            f"{r['phases'][n]:.2f}" + (f" ({r['cpu_at'][n]:.2f})" if n in r["cpu_at"] else "")
            if n in r["phases"] else "-" for r in results) + " |")
    for c in results[0]["commands"]:
        rows.append(f"| `cosci {c}`, median (s) | " + " | ".join(
            f"{r['commands'][c]['median']:.2f} (exit {','.join(map(str, r['commands'][c]['codes']))})"
            for r in results) + " |")
    rows.append("| load average at the end (1, 5, 15 min) | " + " | ".join(
        ", ".join(f"{x:.1f}" for x in r["load"]) for r in results) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", nargs="*", default=[], help="other checkouts measured in the same run")
    parser.add_argument("--paired", action="store_true",
                        help="launch → first call only, the trees (--tree ones first, then this one) alternating")
    args = parser.parse_args(argv)
    if args.paired:
        print(paired([Path(t).resolve() for t in [*args.tree, str(ROOT)]], args.runs))
        return
    results = [measure(Path(t).resolve(), args.runs) for t in [*args.tree, str(ROOT)]]
    (DATA / "latest.json").write_text(json.dumps(results, indent=1))
    print(table(results))


if __name__ == "__main__":
    main()
