"""The scale benchmark: the Supervisor loop's CPU per match as the pool grows to 1,000 hypotheses and 10,000 matches.

``python -m bench.run --only scale`` (or ``python -m bench.scale [--loop-matches N] [--stages 100 300 1000]``).

One fake session (``models=fake``, zero latency) in this process, grown in stages: at each stage the record is
topped up to ``n`` hypotheses (state ``in_tournament``, hash embeddings) and ``10 n`` matches, seeded through the
store's own write API (``hypotheses.insert``/``set_state``/``add_embedding``, ``matches.apply`` with winners drawn
from a latent Bradley–Terry strength per hypothesis) because growing them through generation would take hours;
then the real :class:`~cosci.supervisor.loop.Supervisor` runs tournament rounds (the real ranking agent: pair
selection, the fake judge, Elo, the Bradley–Terry refit) and proximity re-clusterings (the real proximity agent)
for ``loop_matches`` more matches. Every other agent's task (generation, reflection, meta-review, evolution) returns
``nothing_to_do``: they are LLM actions, not the loop, and would change the pool the stage measures.

CPU (``time.process_time``, the whole process) is split by a stack of timers around the loop's parts, each
charged its own time only (exclusive): pair selection (``plan_match``, the rematch cap, the dual-order record),
the Bradley–Terry fit (for the pairing and the refit after each round), the rating update (``matches.apply``),
the refit's record write (``save_bt`` and its event), statistics (progress stats, Elo/BT snapshots), clustering
(``proximity.cluster``), the judge (the fake LLM through the gateway; reported, not counted as the loop's) and
the rest (scheduler, task rows, events, record reads). The machine may be shared, so CPU is the figure; the wall
is reported beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import json
import random
import resource
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "results" / "scale"

PROGRESS_EVERY = 500
"""A stage's loop prints its CPU so far to stderr every this many matches (a long run is readable before it ends)."""

PARTS = ("pair selection", "BT fit", "rating update", "refit write", "statistics", "clustering", "judge (fake LLM)",
         "other (scheduler, task rows, events, reads)")
"""The CPU breakdown's parts; the judge is reported but is not the loop's own cost."""


class Timers:
    """Exclusive CPU seconds per part: a part's time excludes the parts it calls (a per-thread stack)."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._local = threading.local()

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        stack: list[list[Any]] = self._local.__dict__.setdefault("stack", [])
        now = time.process_time()
        if stack:
            stack[-1][1] += now - stack[-1][2]  # pause the caller's clock
        stack.append([name, 0.0, now])
        try:
            yield
        finally:
            end = time.process_time()
            name, acc, start = stack.pop()
            self.cpu[name] += acc + end - start
            self.calls[name] += 1
            if stack:
                stack[-1][2] = end

    def wrap(self, owner: Any, attr: str, name: str) -> Callable[[], None]:
        """Time ``owner.attr`` (a function or method) as part ``name``; returns the undo."""
        orig = getattr(owner, attr)
        if asyncio.iscoroutinefunction(orig):
            @functools.wraps(orig)
            async def awrapped(*a: Any, **k: Any) -> Any:
                # an awaited call: time only its synchronous slices would need task-aware clocks; the judge's
                # CPU is counted around the whole await (zero latency: nothing else runs meanwhile at concurrency 1)
                with self.part(name):
                    return await orig(*a, **k)
            setattr(owner, attr, awrapped)
        else:
            @functools.wraps(orig)
            def wrapped(*a: Any, **k: Any) -> Any:
                with self.part(name):
                    return orig(*a, **k)
            setattr(owner, attr, wrapped)
        return lambda: setattr(owner, attr, orig)

    def snapshot(self) -> dict[str, float]:
        return dict(self.cpu)


def _instrument(timers: Timers) -> list[Callable[[], None]]:
    import cosci.agents.proximity as proximity
    import cosci.agents.ranking as ranking
    from cosci.llm.gateway.adapter import Gateway
    from cosci.store.matches import Matches
    from cosci.supervisor.loop import Supervisor

    spots = [(ranking, "plan_match", "pair selection"), (ranking.RankingAgent, "_rematch_cap", "pair selection"),
             (ranking.RankingAgent, "dual_order_state", "pair selection"), (ranking.RankingAgent, "_fit_ids", "BT fit"),
             (Matches, "apply", "rating update"), (ranking.RankingAgent, "refit", "refit write"),
             (Supervisor, "notify", "statistics"), (Supervisor, "_snapshot", "statistics"),
             (proximity, "cluster", "clustering"), (Gateway, "complete", "judge (fake LLM)")]
    return [timers.wrap(owner, attr, name) for owner, attr, name in spots]


def _config(data: Path, loop_extra: list[str]) -> Any:
    from cosci.config.load import compose, validate

    return validate(compose(["models=fake", "session.goal=Repurpose approved drugs for acute myeloid leukemia",
                             f"paths.data_dir={data}", "tools.offline=true", "tracking.enabled=false",
                             "run.concurrency=1", "run.max_hypotheses=5000", "run.wall_clock_seconds=360000",
                             "run.budget_usd=100000", "termination.min_matches_before_stable=1000000",
                             "models.fake.latency_seconds=0", *loop_extra]), require_goal=True)


class ScaleSession:
    """One fake session grown in stages (module docstring)."""

    def __init__(self, rt: Any, seed: int) -> None:
        from cosci.tournament.elo import EloRule

        self.rt, self.store = rt, rt.store
        self.rng = random.Random(seed)
        self.strength: dict[str, float] = {}
        self.rule = EloRule.from_config(rt.config.ranking)
        self.seeded = 0

    async def grow(self, n: int, matches: int) -> None:
        """Top the record up to ``n`` in-tournament hypotheses (embedded) and ``matches`` matches."""
        from cosci.ids import hypothesis_id
        from cosci.records import RecordHypothesis

        store, emb, vectors = self.store, self.rt.deps.embedder, self.rt.deps.vectors
        new = []
        for i in range(len(self.strength), n):
            statement = (f"Drug {i} inhibits target {i % 97} in pathway {i % 13} to deplete leukemic stem cells "
                         f"(context {i % 7}, dose {i % 5}).")
            hid = hypothesis_id(store.namespace, "literature", statement)
            rec = RecordHypothesis(title=f"H{i}", statement=statement, mechanism=f"mechanism {i % 29}", entities=[],
                                   anticipated_outcomes="", novelty_argument="", citations=[],
                                   decisive_experiment=f"Measure colony counts under drug {i}.",
                                   predicted_result="Colonies fall by at least 30 %.",
                                   refuting_result="Colonies change by less than 5 %.")
            store.hypotheses.insert(hid, rec, elo=self.rt.config.ranking.elo_initial, task_id=None)
            store.hypotheses.set_state(hid, "reviewed")
            store.hypotheses.set_state(hid, "in_tournament")
            self.strength[hid] = self.rng.gauss(0.0, 1.0)
            new.append(hid)
        if new:
            hyps = [h for h in store.hypotheses.all() if h.id in set(new)]
            vecs = await emb.embed([h.embedding_text() for h in hyps], action="seed")
            for h, vec in zip(hyps, vecs, strict=True):
                store.hypotheses.add_embedding(h.id, emb.model, vec, f"seed{len(vectors)}", len(vectors))
                vectors.add(h.id, vec)
        ids = list(self.strength)
        while store.matches.count() < matches:
            a, b = self.rng.sample(ids, 2)
            p = 1.0 / (1.0 + pow(2.718281828459045, self.strength[b] - self.strength[a]))
            winner = a if self.rng.random() < p else b
            store.matches.apply(f"M-seed-{self.seeded:08d}", a, b, mode="pairwise", winner=winner, rule=self.rule,
                                rationale="", transcript=[], task_id=None, first_shown=a)
            self.seeded += 1

    async def loop(self, loop_matches: int, timers: Timers) -> dict[str, Any]:
        """Run the real Supervisor until ``loop_matches`` more matches are played; returns the stage's figures."""
        from cosci.domain import Task, TaskResult
        from cosci.supervisor.loop import Supervisor

        store, rt = self.store, self.rt
        start = store.matches.count()
        target = start + loop_matches
        sup: Supervisor
        errors: list[str] = []

        async def runner(task: Task) -> TaskResult:
            if task.agent not in ("ranking", "proximity"):
                return TaskResult("nothing_to_do")
            try:
                result = await rt.execute(task)
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}")
                sup.interrupt()  # a broken round would repeat forever: stop, and say so below
                raise
            played = store.matches.count()
            if played >= target:
                sup.interrupt()
            elif played - start >= progress[0] + PROGRESS_EVERY:  # a long run reports as it goes (stderr)
                progress[0] = played - start
                judge = timers.cpu.get("judge (fake LLM)", 0.0) - before.get("judge (fake LLM)", 0.0)
                cpu_now = time.process_time() - c0
                print(f"scale: {progress[0]} matches at {len(self.strength)} hypotheses: {cpu_now:.1f} s CPU "
                      f"({judge:.1f} s of it the judge), {time.perf_counter() - w0:.0f} s wall, "
                      + ", ".join(f"{p} {timers.cpu.get(p, 0.0) - before.get(p, 0.0):.1f}" for p in PARTS[:-2]),
                      file=sys.stderr, flush=True)
            return result

        sup = Supervisor(rt.config, store, rt.budget, runner)
        progress = [0]
        before, calls0, c0, w0 = timers.snapshot(), dict(timers.calls), time.process_time(), time.perf_counter()
        await sup.run()
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        played = store.matches.count() - start
        if played < loop_matches:
            raise RuntimeError(f"the loop played {played} of {loop_matches} matches: "
                               f"{errors[-1] if errors else 'it stopped early'}")
        parts = {p: timers.cpu.get(p, 0.0) - before.get(p, 0.0) for p in PARTS[:-1]}
        parts[PARTS[-1]] = cpu - sum(parts.values())
        loop_cpu = cpu - parts["judge (fake LLM)"]
        return {"hypotheses": len(self.strength), "matches_before": start, "played": played, "cpu_s": cpu,
                "wall_s": wall, "loop_cpu_per_match_ms": 1000 * loop_cpu / max(played, 1),
                "parts_ms_per_match": {p: 1000 * v / max(played, 1) for p, v in parts.items()},
                "calls": {p: timers.calls.get(p, 0) - calls0.get(p, 0) for p in PARTS[:-1]}}


async def _run(stages: list[int], loop_matches: int, seed: int, extra: list[str], data: Path) -> dict[str, Any]:
    from cosci.session.runtime import SessionRuntime

    data.mkdir(parents=True, exist_ok=True)
    timers = Timers()
    undo = _instrument(timers)
    w0, c0 = time.perf_counter(), time.process_time()
    try:
        with tempfile.TemporaryDirectory(dir=data) as tmp:
            cfg = _config(Path(tmp), extra)
            rt = await SessionRuntime.open(cfg, models_choice="fake")
            rt.store.sessions.update(research_plan={"objective": "Repurpose approved drugs for AML", "preferences": [],
                                                    "idea_attributes": ["testable"]})
            for i in range(3):  # a started session (reconcile, not bootstrap: no goal parsing)
                rt.store.tasks.enqueue("ranking", "RunTournamentRound", f"warm::{i}")
            session = ScaleSession(rt, seed)
            out = []
            try:
                for n in stages:
                    t0 = time.perf_counter()
                    await session.grow(n, 10 * n)
                    seed_s = time.perf_counter() - t0
                    stage = await session.loop(loop_matches, timers)
                    stage["seed_wall_s"] = seed_s
                    out.append(stage)
                    print(f"scale: {n} hypotheses: {stage['loop_cpu_per_match_ms']:.1f} ms loop CPU per match",
                          file=sys.stderr, flush=True)
            finally:
                await rt.close()
    finally:
        for u in undo:
            u()
    from threadpoolctl import threadpool_info

    return {"stages": out, "wall_s": time.perf_counter() - w0, "cpu_s": time.process_time() - c0,
            "threadpools": sorted({f"{i['internal_api']}:{i['num_threads']}" for i in threadpool_info()}),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def scale_run(stages: tuple[int, ...] = (100, 300, 1000), loop_matches: int = 200, seed: int = 0,
              extra: tuple[str, ...] = (), data: Path = DATA) -> dict[str, Any]:
    """The benchmark (module docstring): per stage, the loop's CPU per match and its parts (ms), the session's
    peak RSS (MB; this process) and the whole wall and CPU (s). ``data``: where the session folder is made (and
    removed). BLAS runs on one thread, as in a session beside other work: on shared cores its extra threads only
    contend (``process_time`` would count their spinning)."""
    from threadpoolctl import threadpool_limits

    # load numpy's and scipy's BLAS (and OpenMP) first: the limit binds only the libraries already loaded
    for module in ("cosci.session.runtime", "cosci.tournament.bt"):
        importlib.import_module(module)

    with threadpool_limits(limits=1):
        return asyncio.run(_run(list(stages), loop_matches, seed, list(extra), data))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stages", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--loop-matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", type=Path, help="write a cProfile of the run here")
    parser.add_argument("overrides", nargs="*", help="config overrides (key=value) for the session")
    args = parser.parse_args(argv)
    if args.profile:
        import cProfile

        prof = cProfile.Profile()
        res = prof.runcall(scale_run, tuple(args.stages), args.loop_matches, args.seed, tuple(args.overrides))
        prof.dump_stats(str(args.profile))
    else:
        res = scale_run(tuple(args.stages), args.loop_matches, args.seed, tuple(args.overrides))
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
