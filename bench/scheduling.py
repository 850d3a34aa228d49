"""The Supervisor's scheduling benchmarks (issue 11): slots kept busy, flat cost per task, a fast start.

``python -m bench.run --only concurrency loop_cost fast_start`` (or ``python -m bench.scheduling``).

- **concurrency** — a fake session with a simulated hosted-model latency (1 s, and 100 ms without a target) at
  ``run.concurrency=8`` and at least 300 actions: the session's wall (its record's active seconds) against the
  ideal ``calls × latency / 8``, and the mean number of calls in flight (from the fake's call log: every call is
  in flight for its latency). Also the CPU the session process spent per action (Prefect task, record writes,
  LiteLLM and the fake together), so the framework's cost per action stays visible.
- **loop_cost** — the Supervisor loop's own CPU per task (scheduling, statistics, record writes of the task row
  and events; the actions themselves excluded) with 20 and with 200 hypotheses in the tournament.
- **fast_start** — launch of ``python -m cosci.run experiment=demo models=fake`` to its first LLM call, and the
  whole demo's wall.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "results" / "scheduling"


FAKE_DEDUP = ("vectors.models.hash.dedup_cosine_threshold=0.92", "vectors.models.hash.cluster_threshold=0.15")
"""The fake's templated hypotheses share most of their words: at hash's calibrated dedup threshold (0.22, issue 16)
they would all be duplicates; the scheduling benches measure scheduling, so they keep the seed's values."""


def _tmp(prefix: str) -> Path:
    """A new folder under ``bench/results/scheduling`` (made first: a fresh clone has no results folder)."""
    DATA.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=DATA))


def _env(data: Path) -> dict[str, str]:
    return {**os.environ, "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(ROOT)}


def _calls(log: Path) -> list[float]:
    return sorted(json.loads(line)["t"] for line in log.read_text().splitlines() if line.strip())


def _latest_record(data: Path) -> Any:
    from cosci.store import STORE_FILE, SessionStore

    folder = max((data / "sessions").iterdir(), key=lambda p: p.stat().st_mtime)
    return SessionStore.open(folder / STORE_FILE, folder.name)


def concurrency_run(latency: float, concurrency: int = 8, max_hypotheses: int = 60) -> dict[str, Any]:
    """One fake session with ``latency`` seconds per call; returns its measured ratios and its data folder (kept:
    ``python -m bench.timeline FOLDER`` reads where its slots went idle)."""
    data = _tmp("cosci-bench-conc-")
    log = data / "calls.jsonl"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(
        [sys.executable, "-m", "cosci.run", "experiment=demo", "models=fake", "tools.offline=true",
         "tracking.enabled=false", f"run.concurrency={concurrency}", f"run.max_hypotheses={max_hypotheses}",
         "run.budget_usd=50", "run.wall_clock_seconds=3600", f"models.fake.latency_seconds={latency}",
         f"termination.min_hypotheses_before_stable={max_hypotheses}", *FAKE_DEDUP,
         f"models.fake.call_log={log}", "session.name=bench-concurrency"],
        env=_env(data), cwd=ROOT, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise RuntimeError(f"session failed: {proc.stderr[-2000:]}")
    rec = _latest_record(data)
    row = rec.sessions.get()
    actions = rec.tasks.counts().get("done", 0)
    rec.close()
    starts = _calls(log)
    calls = len(starts)
    span = starts[-1] + latency - starts[0]
    ideal = calls * latency / concurrency
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return {"latency": latency, "calls": calls, "actions": actions, "wall": row.elapsed_seconds, "ideal": ideal,
            "wall_over_ideal": row.elapsed_seconds / ideal, "in_flight": calls * latency / span,
            "calls_span": span, "cpu_per_action_ms": 1000 * cpu / max(actions, 1), "stop": row.stop_reason,
            "folder": str(data)}


def loop_cpu_per_task(players: int, tasks: int = 300, seed: int = 0) -> float:
    """The Supervisor loop's own CPU seconds per task with ``players`` hypotheses in the tournament.

    Every task is a tournament round whose "action" applies one match straight to the record (no LLM); the
    action's CPU is measured apart and excluded.
    """
    from cosci.config.load import compose, validate
    from cosci.domain import Task, TaskResult
    from cosci.ids import hypothesis_id, match_id
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.records import RecordHypothesis
    from cosci.store import SessionStore
    from cosci.supervisor.loop import Supervisor
    from cosci.tournament.elo import EloRule

    with tempfile.TemporaryDirectory(dir=DATA) as tmp:
        cfg = validate(compose(["experiment=demo", "models=fake", f"paths.data_dir={tmp}", "run.concurrency=1",
                                "run.max_hypotheses=1000", "run.wall_clock_seconds=36000",
                                "ranking.max_matches_per_pair=100", "tracking.enabled=false"]), require_goal=True)
        store = SessionStore.open(Path(tmp) / "store.sqlite", "s-bench")
        store.sessions.create(goal="g", config_snapshot={}, overrides=[], models_choice="fake", budget_usd=50,
                            budget_tokens=None, wall_clock_seconds=36000)
        store.sessions.update(research_plan={"objective": "o"})
        ids = []
        for i in range(players):
            statement = f"Hypothesis {i} about target {i % 17}."
            hid = hypothesis_id(store.namespace, "literature", statement)
            store.hypotheses.insert(hid, RecordHypothesis(title=f"H{i}", statement=statement, mechanism="m",
                                                        entities=[], anticipated_outcomes="", novelty_argument="",
                                                        decisive_experiment="Count colonies at day 7.",
                                                        predicted_result="The colony count falls by at least 30 %.",
                                                        refuting_result="The colony count changes by less than 5 %.",
                                                        citations=[]), elo=1200.0, task_id=None)
            store.hypotheses.set_state(hid, "reviewed")
            store.hypotheses.set_state(hid, "in_tournament")
            ids.append(hid)
        store.hypotheses.set_clusters(dict.fromkeys(ids, 0))
        for i in range(3):  # some matches, so the counts are not trivially empty
            store.tasks.enqueue("ranking", "RunTournamentRound", f"warm::{i}")
        rng, action_cpu, done = random.Random(seed), [0.0], [0]
        budget = TokenBudget(50.0, {a: c.budget_share for a, c in cfg.agents.items()}, 0.08)
        sup: Supervisor

        async def runner(task: Task) -> TaskResult:
            t0 = time.process_time()
            done[0] += 1
            if done[0] > tasks:
                sup.interrupt()
            if task.action != "RunTournamentRound":
                action_cpu[0] += time.process_time() - t0
                return TaskResult("nothing_to_do")
            a, b = rng.sample(ids, 2)
            mid = match_id(store.namespace, a, b, task.id, 0)
            store.matches.apply(mid, a, b, mode="pairwise", winner=a, rule=EloRule.from_config(cfg.ranking),
                                rationale="", transcript=[], task_id=task.id)
            action_cpu[0] += time.process_time() - t0
            return TaskResult("tournament_match_complete", match_ids=[mid])

        sup = Supervisor(cfg, store, budget, runner)
        t0 = time.process_time()
        asyncio.run(sup.run())
        total = time.process_time() - t0
        store.close()
    return (total - action_cpu[0]) / tasks


def _demo_start(data: Path, env: dict[str, str]) -> dict[str, float]:
    log = data / f"calls-{time.time_ns()}.jsonl"
    t0 = time.time()
    proc = subprocess.run(
        [sys.executable, "-m", "cosci.run", "experiment=demo", "models=fake", "tools.offline=true",
         f"models.fake.call_log={log}", "session.name=bench-start"],
        env=env, cwd=ROOT, capture_output=True, text=True)
    wall = time.time() - t0
    if proc.returncode:
        raise RuntimeError(f"session failed: {proc.stderr[-2000:]}")
    return {"first_call": _calls(log)[0] - t0, "wall": wall}


def fast_start() -> dict[str, dict[str, float]]:
    """Launch to first LLM call and the whole wall of the fake demo (subprocesses), in three situations:

    - ``first_ever``: a new data folder on a machine where cosci never ran (an empty user cache: the Prefect
      server migrates its database);
    - ``new_folder``: a new data folder once cosci has run here (the migrated database is copied from the user
      cache, ``flows.server.template_db``) — the measured case of the issue's target;
    - ``same_folder``: a second session in that folder.
    """
    cache = _tmp("cosci-bench-cache-")
    out = {}
    for name in ("first_ever", "new_folder", "same_folder"):
        if name != "same_folder":
            data = _tmp("cosci-bench-start-")
        out[name] = _demo_start(data, {**_env(data), "XDG_CACHE_HOME": str(cache)})
    return out


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    print(json.dumps({"fast_start": fast_start()}, indent=1))
    for latency in (1.0, 0.1):
        print(json.dumps({"concurrency": concurrency_run(latency)}, indent=1))
    small, large = loop_cpu_per_task(20), loop_cpu_per_task(200)
    print(json.dumps({"loop_cpu_ms": {"20": small * 1000, "200": large * 1000, "ratio": large / small}}))


if __name__ == "__main__":
    main()
