"""cosci's reliability suite, long versions: ``python -m bench.reliability [--only NAME ...] [--trials N]``.

Each check runs the real entry points (``python -m cosci.run``, ``cosci resume``) in subprocesses on the
scripted fake and prints one row (trials, failures, the promise); results go to
``bench/results/reliability.json``. The short versions of the same checks run in ``tests/reliability/``.

- ``kill``: SIGKILL at a random moment of a session with latency, then ``cosci resume`` to the end; per trial:
  no lost or duplicated rows, Elo = 1200 + journal for every hypothesis, no finished action's call paid twice.
  ``kill_seq``: the same at concurrency 1, and the final record compared with an uninterrupted run (same seed).
- ``faults``: 30 % transient faults on every call; every session must finish.
- ``budget``: concurrency 8 on a price-skewed fake (input 200x dearer on the strong tier, 200x on the cheap);
  the spend never exceeds the cap, and a session that stops on ``budget`` has spent at least 90 % of it.
- ``secrets``: dummy API keys in the environment; no key appears in the record, MLflow, Prefect, logs, artifacts.
- ``first_start``: two sessions started 1 s apart into a fresh data folder; both must start.

All sessions share one Prefect server started here (``flows.server``), except ``first_start``, which tests the
start itself.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
FAKE = ["experiment=demo", "models=fake", "tools.offline=true", "session.name=reliability"]
BUDGET_SPENT_SHARE = 0.9
"""Share of the cap a session stopping on ``budget`` must have spent (design.md#tail-reserve)."""
DUMMY_KEYS = {"ANTHROPIC_API_KEY": "sk-ant-dummy-7Qz1xJ0Lr4", "OPENAI_API_KEY": "sk-dummy-openai-9Kp2mW5Tq8",
              "GEMINI_API_KEY": "AIza-dummy-gemini-3Hv6", "TAVILY_API_KEY": "tvly-dummy-key-5Rb8",
              "NCBI_API_KEY": "ncbi-dummy-key-1Fx4"}


@dataclass
class Check:
    name: str
    trials: int
    failures: int
    promise: str
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failures == 0


def env_for(data: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(ROOT), **extra}
    for key in DUMMY_KEYS:
        if key not in extra:
            env.pop(key, None)
    return env


def run(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          start_new_session=True)


def records(data: Path) -> list[Path]:
    return sorted((data / "sessions").glob("*/store.sqlite")) if (data / "sessions").exists() else []


def done_tasks(db: Path) -> set[str]:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            return {r[0] for r in conn.execute("SELECT id FROM tasks WHERE status='done'")}
    except sqlite3.Error:
        return set()


def calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(ln) for ln in log.read_text().splitlines() if ln.strip()] if log.exists() else []


def invariant_errors(db: Path, initial: float = 1200.0) -> list[str]:
    """Elo = initial + journal, zero-sum; no duplicated hypotheses, reviews, matches or journal rows."""
    from cosci.store import SessionStore

    store = SessionStore.open(db, db.parent.name)
    try:
        errors: list[str] = []
        sums = store.matches.journal_sums()
        hyps = store.hypotheses.all()
        errors += [f"{h.id}: Elo {h.elo} != {initial} + journal {sums.get(h.id, 0.0)}" for h in hyps
                   if abs(h.elo - initial - sums.get(h.id, 0.0)) > 1e-6]
        if abs(sum(h.elo - initial for h in hyps)) > 1e-6:
            errors.append("Elo deltas are not zero-sum")
        if len({h.statement for h in hyps}) != len(hyps):
            errors.append("duplicated hypothesis statements")
        q = store.db.query
        if q("SELECT hypothesis_id, mode FROM reviews GROUP BY 1, 2 HAVING COUNT(*) > 1"):
            errors.append("duplicated reviews")
        if store.db.scalar("SELECT COUNT(*) FROM elo_journal") != store.matches.count(valid_only=True):
            errors.append("journal rows != valid matches")
        if store.sessions.get().status != "done":
            errors.append(f"status {store.sessions.get().status}")
        return errors
    finally:
        store.close()


def fingerprint(db: Path) -> dict[str, Any]:
    """What an uninterrupted and a killed-and-resumed run must agree on: hypotheses, matches and ratings."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        hyps = sorted(r[0] for r in conn.execute("SELECT statement FROM hypotheses"))
        matches = conn.execute("SELECT COUNT(*) FROM tournament_matches").fetchone()[0]
        elos = sorted(round(r[0], 6) for r in conn.execute("SELECT elo FROM hypotheses"))
    return {"hypotheses": hyps, "matches": matches, "elos": elos}


# --- checks -------------------------------------------------------------------------------------------------
Resumer = Callable[[list[str]], tuple[int, str]]
"""Runs ``cosci <args>`` to its end and returns ``(exit status, stderr)``."""


def kill_trial(work: Path, rng: random.Random, *extra: str, resume: tuple[str, ...] = (),
               resumer: Resumer | None = None) -> list[str]:
    """One SIGKILL-and-resume trial; returns what went wrong (empty: it held). ``extra``: overrides of the killed
    run; ``resume``: ``cosci resume`` overrides of its frozen config (the tests give the rest no latency);
    ``resumer``: how ``cosci resume`` runs, by default in a process of its own as a researcher runs it (the tests
    run it in their own process: the command's process is tested in tests/test_stored_sessions.py)."""
    data, log = work / "data", work / "calls.jsonl"
    env = env_for(data)
    args = [sys.executable, "-m", "cosci.run", *FAKE, "tracking.enabled=false", f"models.fake.call_log={log}",
            "models.fake.latency_seconds=0.2", "run.max_hypotheses=8", *extra]
    proc = subprocess.Popen(args, env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    kill_after = rng.randint(1, 30)  # finished tasks before the kill: from the plan to deep in the tournament
    db = None
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            found = records(data)
            db = found[0] if found else None
            if db and len(done_tasks(db)) >= kill_after:
                time.sleep(rng.uniform(0, 0.4))  # and at a random moment inside the next actions
                break
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    if db is None:
        return ["no session store"]
    done_at_kill, calls_at_kill = done_tasks(db), len(calls(log))
    argv = ["--data-dir", str(data), "resume", db.parent.name, *resume]
    if resumer is None:
        resumed = run([sys.executable, "-m", "cosci.cli", *argv], env, work)
        code, stderr = resumed.returncode, resumed.stderr
    else:
        code, stderr = resumer(argv)
    if code == 2 and "is done" in stderr:  # finished before the kill landed
        return invariant_errors(db)
    if code:
        return [f"resume exit {code}: {stderr[-300:]}"]
    paid_twice = [c for c in calls(log)[calls_at_kill:] if c["task_id"] in done_at_kill]
    return invariant_errors(db) + [f"finished action called again: {c['task_id']}" for c in paid_twice[:3]]


def check_kill(trials: int, seed: int) -> Check:
    rng, check = random.Random(seed), Check("kill", trials, 0, "0 lost/duplicated rows, Elo = 1200 + journal, "
                                                               "no finished call paid twice")
    for i in range(trials):
        with tempfile.TemporaryDirectory(prefix="cosci-kill-") as tmp:
            errors = kill_trial(Path(tmp), rng)
        if errors:
            check.failures += 1
            check.notes.append(f"trial {i}: {errors[:3]}")
        print(f"    kill trial {i}: {'ok' if not errors else errors[:1]}", flush=True)
    return check


def check_kill_sequential(trials: int, seed: int) -> Check:
    """Concurrency 1: a killed-and-resumed run ends with the same record as an uninterrupted one."""
    rng = random.Random(seed)
    check = Check("kill_seq", trials, 0, "concurrency 1: final record = uninterrupted run, same seed")
    one = ["run.concurrency=1", "run.seed=7", "models.fake.seed=7"]
    references = []
    for _ in range(2):  # two uninterrupted runs: is the reference itself reproducible?
        with tempfile.TemporaryDirectory(prefix="cosci-ref-") as tmp:
            work = Path(tmp)
            proc = run([sys.executable, "-m", "cosci.run", *FAKE, "tracking.enabled=false", "run.max_hypotheses=8",
                        *one], env_for(work / "data"), work)
            if proc.returncode:
                return Check("kill_seq", 0, 1, check.promise, [f"reference run failed: {proc.stderr[-300:]}"])
            references.append(fingerprint(records(work / "data")[0]))
    reference = references[0]
    if references[1] != reference:
        check.notes.append("two uninterrupted runs with the same seed already differ (seeded reproducibility)")
    for i in range(trials):
        with tempfile.TemporaryDirectory(prefix="cosci-kill1-") as tmp:
            errors = kill_trial(Path(tmp), rng, *one)
            found = records(Path(tmp) / "data")
            if not errors and found and fingerprint(found[0]) != reference:
                errors = ["final record differs from the uninterrupted run"]
        if errors:
            check.failures += 1
            check.notes.append(f"trial {i}: {errors[:2]}")
    return check


def check_faults(trials: int, seed: int) -> Check:
    check = Check("faults", trials, 0, "30 % transient faults: every session finishes")
    for i in range(trials):
        with tempfile.TemporaryDirectory(prefix="cosci-faults-") as tmp:
            work = Path(tmp)
            proc = run([sys.executable, "-m", "cosci.run", *FAKE, "tracking.enabled=false",
                        "models.fake.fault_rate=0.3", f"models.fake.seed={seed + i}", "retry.base_delay_seconds=0",
                        "retry.max_delay_seconds=0"], env_for(work / "data"), work)
            found = records(work / "data")
            errors = ([f"exit {proc.returncode}: {proc.stderr[-300:]}"] if proc.returncode else []) + (
                invariant_errors(found[0]) if found else ["no record"])
        if errors:
            check.failures += 1
            check.notes.append(f"trial {i}: {errors[:2]}")
    return check


def check_budget(trials: int, seed: int) -> Check:
    """Concurrency 8 on the price-skewed fake: the spend never exceeds the cap, and a session that stops on
    ``budget`` has spent at least ``BUDGET_SPENT_SHARE`` of it (design.md#tail-reserve)."""
    cap = 5.0
    check = Check("budget", trials, 0, f"concurrency 8, price-skewed fake: spend <= cap; a `budget` stop has spent"
                                       f" >= {BUDGET_SPENT_SHARE:.0%} of it")
    for i in range(trials):
        with tempfile.TemporaryDirectory(prefix="cosci-budget-") as tmp:
            work = Path(tmp)
            run([sys.executable, "-m", "cosci.run", *FAKE, "tracking.enabled=false", "run.concurrency=8",
                 f"run.budget_usd={cap}", "run.max_hypotheses=40", f"models.fake.seed={seed + i}",
                 "models.tiers.strong.input_usd_per_mtok=200", "models.tiers.cheap.input_usd_per_mtok=100",
                 "models.fake.latency_seconds=0.05"], env_for(work / "data"), work)
            found = records(work / "data")
            if not found:
                check.failures += 1
                check.notes.append(f"trial {i}: no record")
                continue
            with sqlite3.connect(found[0]) as conn:
                spent = conn.execute("SELECT COALESCE(SUM(cost_usd), 0) FROM transcripts").fetchone()[0]
                reason = conn.execute("SELECT stop_reason FROM sessions").fetchone()[0]
            check.notes.append(f"trial {i}: spent ${spent:.4f} of ${cap:.2f} ({spent / cap:.1%}), stop {reason}")
            if not 0 < spent <= cap + 1e-9 or (reason == "budget" and spent < BUDGET_SPENT_SHARE * cap):
                check.failures += 1
    return check


def check_secrets(trials: int, seed: int) -> Check:
    check = Check("secrets", trials, 0, "dummy API keys: none in record, MLflow, Prefect results, logs, artifacts")
    for i in range(trials):
        with tempfile.TemporaryDirectory(prefix="cosci-secrets-") as tmp:
            work = Path(tmp)
            proc = run([sys.executable, "-m", "cosci.run", *FAKE, "tracking.enabled=true",
                        f"models.fake.seed={seed + i}"], env_for(work / "data", **DUMMY_KEYS), work)
            (work / "run.log").write_text(proc.stdout + proc.stderr)
            leaks = scan_for_keys(work)
        if proc.returncode or leaks:
            check.failures += 1
            check.notes.append(f"trial {i}: exit {proc.returncode}, leaks {leaks[:3]}")
    return check


def scan_for_keys(root: Path) -> list[str]:
    """Files under ``root`` (record, MLflow store and artifacts, Prefect home and results, logs) holding a key."""
    hits = []
    needles = [v.encode() for v in DUMMY_KEYS.values()]
    for path in root.rglob("*"):
        if path.is_file():
            body = path.read_bytes()
            hits += [f"{path.relative_to(root)}" for n in needles if n in body]
    return hits


def check_first_start(trials: int, seed: int) -> Check:
    check = Check("first_start", trials, 0, "two first runs 1 s apart in a fresh data folder: both start")
    for i in range(trials):
        with tempfile.TemporaryDirectory(prefix="cosci-first-") as tmp:
            work = Path(tmp)
            env = env_for(work / "data")
            env.pop("PREFECT_API_URL", None)
            args = [sys.executable, "-m", "cosci.run", *FAKE, "tracking.enabled=false", "run.max_hypotheses=3"]
            first = subprocess.Popen(args, env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
            time.sleep(1.0)
            second = subprocess.Popen(args, env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True, start_new_session=True)
            outs = [p.communicate(timeout=900) for p in (first, second)]
            codes = [first.returncode, second.returncode]
        if any(codes):
            check.failures += 1
            check.notes.append(f"trial {i}: exits {codes}: {[o[1][-200:] for o in outs]}")
    return check


CHECKS = {"kill": check_kill, "kill_seq": check_kill_sequential, "faults": check_faults,
          "budget": check_budget, "secrets": check_secrets, "first_start": check_first_start}
DEFAULT_TRIALS = {"kill": 20, "kill_seq": 3, "faults": 10, "budget": 5, "secrets": 2, "first_start": 5}


def shared_server(home: Path) -> None:
    """One Prefect server for every session of the suite (each run would otherwise start its own)."""
    from flows.server import ensure_server

    home.mkdir(parents=True, exist_ok=True)
    ensure_server(home)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.reliability", description=__doc__.split("\n\n")[0])
    p.add_argument("--only", nargs="+", choices=sorted(CHECKS), default=None)
    p.add_argument("--trials", type=int, default=None, help="trials per check (default: per check)")
    p.add_argument("--seed", type=int, default=12)
    args = p.parse_args(argv)
    names = args.only or list(CHECKS)
    with tempfile.TemporaryDirectory(prefix="cosci-prefect-") as home:
        if set(names) - {"first_start"}:
            shared_server(Path(home))
        results = []
        for name in names:
            t0 = time.perf_counter()
            check = CHECKS[name](args.trials or DEFAULT_TRIALS[name], args.seed)
            check.notes.append(f"{time.perf_counter() - t0:.0f} s")
            results.append(check)
            print(f"| {check.name} | {check.trials} | {check.failures} | {check.promise} | "
                  f"{'holds' if check.ok else 'FAILS'} |", flush=True)
            for note in check.notes:
                print(f"    {note}", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "reliability.json").write_text(json.dumps([asdict(c) for c in results], indent=2))
    return 0 if all(c.ok for c in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
