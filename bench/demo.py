"""The embedded demo as a new user runs it: ``python -m bench.demo [--runs 3] [--compare 'OVERRIDES' | --busy]
[OVERRIDE ...]``.

Each run is ``python -m cosci.run experiment=demo`` in a subprocess with a new data folder (a fresh user's), the
model's call log on (``models.local.call_log``). Printed per run: the wall (launch to exit, seconds), the peak RSS
of the session process (exact: ``wait4``'s ``ru_maxrss``, which also covers a child that outgrew it) and of the
session process plus all its children at once (sampled every 0.2 s from ``/proc``; the Prefect server is a child),
CPU seconds of the session and its children, the stop reason, and the checklist of agents and modes the demo must
show (docs/design.md#demo), read from the record: a transcript row with outcome ``ok`` for each mode that calls the
model, a finished task for proximity (it calls none), and whether the final overview was the model's or the
fallback and the audit's status (``not audited`` on a one-model config counts as the audit step: no call is
made, docs/design.md#claim-statuses). Then per agent mode: calls, prompt tokens (evaluated / reused from a prompt
state), tokens generated and the model's CPU seconds, from the call log; and the median over the runs. ``python -m
bench.run --only demo`` runs it three times against the targets (180 s, 1,500 MB).

The model's own limit (docs/design.md#demo): next to each session, ``bench.model_speed`` times the same weights,
decoding and thread rule (prompt, free and grammar-constrained tokens per second, each also by depth in the
context); the session's tokens (prompt evaluated, generated with and without a schema, from the call log) at those
speeds, each call's at the depths its tokens sit, are the **token time**, the wall this schedule would take if the
model ran back to back with nothing else (:func:`bench.model_speed.depth_token_seconds`; the same tokens at the
short-prompt speeds, the limit before bench/README.md's twelfth stop, are printed beside). Each run prints its wall
against it, and the count of **valid structured answers**: schema-constrained calls whose answer is a complete JSON
object (not cut off at the token cap).

``--compare 'ITEMS'`` runs, for each of ``--runs``, the current defaults and then the same session with those items:
Hydra overrides and environment assignments (a name in capitals, ``NAME=VALUE``, set for that arm's session and its
microbenchmark). The issue's configuration, as the code of its time ran it (bench/README.md, "The eighth stop"), is
``'OMP_WAIT_POLICY=PASSIVE models.local.caller=shared_pool models.local.weights=shipped
models.local.decoding=grammar_first models.local.n_threads=2 models.local.generation_threads=null'``: passive waiting,
calls from asyncio's worker threads, the shipped Q4_1 file, llama-cpp-python's sampler chain, two threads for prompts
and generated tokens alike. The two arms are paired so that both see the
same machine; both medians and the ratio are printed. ``--busy`` runs each session quiet and then beside one
competing CPU-bound process (a Python busy loop started with the session and stopped after it) and prints the
busy/quiet ratios of wall and CPU. Each run also prints its phase timeline (:mod:`bench.demo_timeline`).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import demo_timeline
from bench.model_speed import model_speeds, split_arm

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_SECONDS = 0.2

CHECKLIST: tuple[tuple[str, str, str], ...] = (
    ("goal parsing", "goal_parsing", "parse_goal"),
    ("safety", "safety", "classify"),
    ("literature generation", "generation", "literature"),
    ("debate generation", "generation", "debate"),
    ("full review", "reflection", "full"),
    ("verification review", "reflection", "verification"),
    ("pairwise match", "ranking", "pairwise"),
    ("debate match", "ranking", "debate"),
    ("evolution", "evolution", "*"),
    ("proximity", "proximity", "task"),
    ("meta-review", "metareview", "system"),
    ("final overview", "metareview", "final"),
    ("audit", "metareview", "audit"),
)
"""(label, agent, mode): ``*`` any mode of the agent; ``task`` a finished task (the agent calls no model)."""


@dataclass
class DemoRun:
    """One demo session: its figures (seconds, MB) and what its record shows."""

    wall: float
    rss_session_mb: float
    rss_tree_mb: float
    cpu_seconds: float
    returncode: int
    stop: str = ""
    checklist: dict[str, bool] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    per_mode: dict[str, dict[str, float]] = field(default_factory=dict)
    tokens: dict[str, Any] = field(default_factory=dict)
    speeds: dict[str, Any] = field(default_factory=dict)
    timeline: dict[str, Any] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.returncode == 0 and all(self.checklist.values())


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids[ppid].append(int(entry))
    return kids


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def tree_rss_mb(pid: int) -> float:
    """RSS of ``pid`` and all its descendants now, MB."""
    kids, stack, total = _children(), [pid], 0.0
    while stack:
        p = stack.pop()
        total += _rss_mb(p)
        stack.extend(kids.get(p, ()))
    return total


def start_competitor() -> subprocess.Popen[bytes]:
    """One CPU-bound process (a Python busy loop) for ``--busy``."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def run_once(models: str, items: list[str], data_dir: Path, busy: bool = False) -> DemoRun:
    """One ``python -m cosci.run experiment=demo`` in ``data_dir`` (beside a competing CPU-bound process when
    ``busy``), then the model's speeds under the same conditions; see the module docstring. ``items``: Hydra
    overrides and environment assignments (:func:`bench.model_speed.split_arm`), for the session and the
    microbenchmark alike."""
    env, overrides = split_arm(items)
    competitor = start_competitor() if busy else None
    try:
        run = _session(models, overrides, data_dir, env)
        if models == "local":
            run.speeds = model_speeds(overrides, env)
    finally:
        if competitor is not None:
            competitor.kill()
            competitor.wait()
    calls = data_dir / "local_calls.jsonl"
    if run.speeds and calls.exists():
        from bench.model_speed import Speeds, depth_token_seconds, token_seconds

        log = [json.loads(line) for line in calls.read_text().splitlines() if line.strip()]
        structured = [e for e in log if e.get("schema")]
        run.tokens = {"prompt_evaluated": sum(e["prompt_evaluated"] for e in log),
                      "prompt_sent": sum(e["prompt_tokens"] for e in log),
                      "generated": sum(e["generated"] for e in log), "calls": len(log),
                      "jumped": sum(e.get("jumped", 0) for e in log),
                      "structured": len(structured), "valid": sum(1 for e in structured if e.get("valid")),
                      "token_seconds": round(depth_token_seconds(log, Speeds(**run.speeds)), 1),
                      "token_seconds_short": round(token_seconds(log, Speeds(**run.speeds)), 1),
                      "threads": sorted({e.get("threads", 0) for e in log})}
    return run


def _session(models: str, overrides: list[str], data_dir: Path, arm_env: dict[str, str]) -> DemoRun:
    """The session subprocess of :func:`run_once` (``arm_env`` added to this process's environment)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    calls = data_dir / "local_calls.jsonl"
    cmd = [sys.executable, "-m", "cosci.run", "experiment=demo", f"models={models}", f"paths.data_dir={data_dir}",
           *([f"models.local.call_log={calls}"] if models == "local" else []), *overrides]
    env = {**os.environ, **arm_env, "PYTHONPATH": str(ROOT), "COSCI_STARTUP_LOG": str(data_dir / "startup.jsonl")}
    with open(data_dir / "stdout.txt", "w") as out, open(data_dir / "stderr.txt", "w") as err:
        launch, t0 = time.time(), time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=err)
        peak = [0.0]
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], tree_rss_mb(proc.pid))
                done.wait(SAMPLE_SECONDS)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
    run = DemoRun(wall=wall, rss_session_mb=usage.ru_maxrss / 1024, rss_tree_mb=max(peak[0], usage.ru_maxrss / 1024),
                  cpu_seconds=usage.ru_utime + usage.ru_stime, returncode=proc.returncode)
    sessions = sorted((data_dir / "sessions").glob("s-*")) if (data_dir / "sessions").exists() else []
    if sessions:
        read_record(run, sessions[-1] / "store.sqlite", calls if calls.exists() else None)
    run.timeline = demo_timeline.timeline(launch, launch + wall, demo_timeline.calls(calls),
                                          demo_timeline.marks(data_dir / "startup.jsonl"),
                                          sessions[-1] / "store.sqlite" if sessions else None)
    return run


def read_record(run: DemoRun, store_file: Path, calls: Path | None) -> None:
    """Fill ``run``'s stop reason, checklist, notes and per-mode figures from the session's store and call log."""
    import sqlite3

    db = sqlite3.connect(f"file:{store_file}?mode=ro", uri=True)
    try:
        run.stop = db.execute("SELECT coalesce(stop_reason, status) FROM sessions").fetchone()[0] or ""
        ok = {(a, m) for a, m in db.execute("SELECT DISTINCT agent, mode FROM transcripts WHERE outcome='ok'")}
        tasks_done = {a for (a,) in db.execute("SELECT DISTINCT agent FROM tasks WHERE status='done'")}
        checked = db.execute("SELECT payload FROM events WHERE event='overview_checked' ORDER BY seq DESC").fetchone()
        audit_status = (json.loads(checked[0]).get("audit") or {}).get("status", "") if checked else ""
        for label, agent, mode in CHECKLIST:
            if mode == "task":
                run.checklist[label] = agent in tasks_done
            else:
                run.checklist[label] = any(a == agent and (mode == "*" or m == mode) for a, m in ok)
        if audit_status == "not audited":  # one model: the audit step is the decision not to call (no row)
            run.checklist["audit"] = True
        rows = db.execute("SELECT agent, mode, input_tokens, output_tokens, cache_read_tokens, outcome FROM transcripts"
                          " ORDER BY seq").fetchall()
        matches = dict(db.execute("SELECT mode, count(*) FROM tournament_matches GROUP BY mode").fetchall())
        run.notes = {"hypotheses": db.execute("SELECT count(*) FROM hypotheses").fetchone()[0],
                     "matches": matches, "calls": len(rows),
                     "failed_calls": sum(1 for r in rows if r[5] != "ok")}
        if checked:
            payload = json.loads(checked[0])
            run.notes["overview"] = "fallback" if payload.get("fallback") else "model's"
            run.notes["audit"] = payload.get("audit", {}).get("status", "")
    finally:
        db.close()
    log = [json.loads(line) for line in calls.read_text().splitlines() if line.strip()] if calls else []
    run.per_mode = per_mode(rows, log)
    if len(log) >= 3:
        run.notes["cpu_ms_per_token"] = cpu_per_token(log)
        run.notes["model_cpu_s"] = round(sum(e["cpu_seconds"] for e in log), 1)


def cpu_per_token(log: list[dict[str, Any]]) -> dict[str, float]:
    """Least-squares CPU milliseconds per prompt token evaluated and per token generated, over the call log (no
    intercept: a call's CPU is its tokens' work)."""
    import numpy as np

    x = np.array([[e["prompt_evaluated"], e["generated"]] for e in log], dtype=float)
    y = np.array([e["cpu_seconds"] for e in log], dtype=float)
    (prompt, generated), *_ = np.linalg.lstsq(x, y, rcond=None)
    return {"prompt": round(float(prompt) * 1000, 2), "generated": round(float(generated) * 1000, 2)}


def per_mode(rows: list[tuple[Any, ...]], log: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Figures per ``agent/mode``: calls, prompt / reused / generated tokens (transcripts) and the model's CPU
    seconds (call log entries matched to transcript rows in order by their prompt and completion tokens)."""
    out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    pending = list(log)
    for agent, mode, tin, tout, cached, _outcome in rows:
        key = f"{agent}/{mode}"
        fig = out[key]
        fig["calls"] += 1
        fig["prompt"] += tin
        fig["reused"] += cached
        fig["generated"] += tout
        hit = next((i for i, e in enumerate(pending[:8])
                    if e["prompt_tokens"] == tin and e["completion_tokens"] == tout), None)
        if hit is not None:
            fig["cpu"] += pending.pop(hit)["cpu_seconds"]
    return {k: dict(v) for k, v in out.items()}


def print_run(i: int, run: DemoRun, label: str = "") -> None:
    missing = [k for k, v in run.checklist.items() if not v]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"run {i}{label} (load average now {load}):")
    print(f"  wall {run.wall:.1f} s, peak RSS session {run.rss_session_mb:.0f} MB, session + children "
          f"{run.rss_tree_mb:.0f} MB, CPU {run.cpu_seconds:.1f} s, exit {run.returncode}, stop {run.stop}; "
          f"{run.notes}")
    if run.tokens:
        t = run.tokens
        print(f"  tokens: {t['prompt_evaluated']:.0f} prompt evaluated of {t.get('prompt_sent', 0):.0f} sent (the rest "
              f"reused from prompt states; `python -m bench.prompt_reuse` counts what more could be), "
              f"{t['generated']:.0f} generated (drawn) and {t.get('jumped', 0):.0f} jumped over (forced, evaluated in "
              f"batches) in "
              f"{t['calls']:.0f} calls; valid structured answers {t['valid']:.0f} of {t['structured']:.0f}; "
              f"threads {t['threads']}; speeds {run.speeds}; token time (the limit: each token at the speed of its "
              f"depth) {t['token_seconds']:.1f} s, wall / token time {run.wall / max(t['token_seconds'], 1e-9):.2f}; "
              f"at the short-prompt speeds (the limit before the twelfth stop) {t.get('token_seconds_short', 0):.1f} "
              f"s, wall / that {run.wall / max(t.get('token_seconds_short', 0), 1e-9):.2f}")
    demo_timeline.print_timeline(run.timeline)
    print("  present: " + ", ".join(k for k, v in run.checklist.items() if v))
    print("  MISSING: " + (", ".join(missing) if missing else "none"))
    print("  | agent/mode | calls | prompt tokens | reused | generated | model CPU s |")
    print("  |---|---|---|---|---|---|")
    total: dict[str, float] = defaultdict(float)
    for key, fig in sorted(run.per_mode.items()):
        print(f"  | {key} | {fig['calls']:.0f} | {fig['prompt']:.0f} | {fig.get('reused', 0):.0f} | "
              f"{fig['generated']:.0f} | {fig.get('cpu', 0):.1f} |")
        for k, v in fig.items():
            total[k] += v
    print(f"  | total | {total['calls']:.0f} | {total['prompt']:.0f} | {total['reused']:.0f} | "
          f"{total['generated']:.0f} | {total['cpu']:.1f} |")


def run_demo(runs: int, models: str = "local", overrides: list[str] | None = None,
             keep: Path | None = None) -> list[DemoRun]:
    """``runs`` demo sessions, each in a new data folder (under ``keep`` if given, else a temporary one)."""
    return run_paired(runs, models, {"": list(overrides or [])}, keep)[""]


def run_paired(runs: int, models: str, arms: dict[str, list[str]], keep: Path | None = None,
               busy_arm: str | None = None) -> dict[str, list[DemoRun]]:
    """``runs`` rounds; each round runs every arm (name -> overrides) once, in order, each in a new data folder; the
    arm named ``busy_arm`` runs beside a competing CPU-bound process."""
    out: dict[str, list[DemoRun]] = {name: [] for name in arms}
    with tempfile.TemporaryDirectory(prefix="cosci-demo-") as tmp:
        base = keep or Path(tmp)
        for i in range(runs):
            for name, overrides in arms.items():
                folder = base / f"run{i + 1}{'-' + name if name else ''}"
                run = run_once(models, overrides, folder, busy=name == busy_arm)
                print_run(i + 1, run, f" [{name}]" if name else "")
                out[name].append(run)
    return out


def summary(runs: list[DemoRun]) -> dict[str, float]:
    """Medians over the runs (seconds, MB) and how many runs showed every agent and mode."""
    out = {"wall": statistics.median(r.wall for r in runs),
           "cpu": statistics.median(r.cpu_seconds for r in runs),
           "rss_session_mb": statistics.median(r.rss_session_mb for r in runs),
           "rss_tree_mb": statistics.median(r.rss_tree_mb for r in runs),
           "complete_runs": sum(r.complete for r in runs)}
    if all(r.tokens for r in runs):
        out["token_seconds"] = statistics.median(r.tokens["token_seconds"] for r in runs)
        out["token_seconds_short"] = statistics.median(r.tokens.get("token_seconds_short", 0.0) for r in runs)
        out["valid"] = sum(r.tokens["valid"] for r in runs)
        out["structured"] = sum(r.tokens["structured"] for r in runs)
    return out


def print_summary(name: str, runs: list[DemoRun]) -> dict[str, float]:
    s = summary(runs)
    limit = (f"; token time (the limit, at the tokens' depths) {s['token_seconds']:.1f} s, wall / token time "
             f"{s['wall'] / max(s['token_seconds'], 1e-9):.2f}; at the short-prompt speeds "
             f"{s['token_seconds_short']:.1f} s, wall / that {s['wall'] / max(s['token_seconds_short'], 1e-9):.2f}; "
             f"valid structured answers {s['valid']:.0f} of {s['structured']:.0f}" if "token_seconds" in s else "")
    print(f"{name}median of {len(runs)}: wall {s['wall']:.1f} s, CPU {s['cpu']:.1f} s, peak RSS session "
          f"{s['rss_session_mb']:.0f} MB, session + children {s['rss_tree_mb']:.0f} MB; every agent and mode in "
          f"{s['complete_runs']} of {len(runs)}{limit}")
    return s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--models", default="local")
    parser.add_argument("--keep", type=Path, help="keep the runs' data folders here")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--compare", metavar="ITEMS", help="also run each session with these Hydra overrides and "
                      "NAME=VALUE environment assignments (one quoted string), paired with the defaults' run; prints "
                      "both and the ratio of median walls")
    mode.add_argument("--busy", action="store_true", help="run each session quiet and beside one CPU-bound process")
    parser.add_argument("overrides", nargs="*", help="extra Hydra overrides for every run")
    args = parser.parse_args(argv)
    arms = {"": list(args.overrides)}
    if args.compare is not None:
        arms = {"default": list(args.overrides), "compared": [*args.overrides, *shlex.split(args.compare)]}
    elif args.busy:
        arms = {"quiet": list(args.overrides), "busy": list(args.overrides)}
    results = run_paired(args.runs, args.models, arms, args.keep, busy_arm="busy" if args.busy else None)
    sums = {name: print_summary(f"[{name}] " if name else "", runs) for name, runs in results.items()}
    if args.compare is not None:
        print(f"default / compared, median wall: {sums['default']['wall'] / sums['compared']['wall']:.2f}")
    if args.busy:
        print(f"busy / quiet: median wall {sums['busy']['wall'] / sums['quiet']['wall']:.2f}, median CPU "
              f"{sums['busy']['cpu'] / sums['quiet']['cpu']:.2f}")
    return 0 if all(s["complete_runs"] == len(results[n]) for n, s in sums.items()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
