"""cosci's speed and memory benchmarks: ``python -m bench.run [--only NAME ...] [--skip-local]``.

Each benchmark measures one number against a target (the targets and the latest measurements are in
``bench/README.md``); results go to ``bench/results/latest.json`` and a Markdown table on stdout. The session
benchmarks run the real entry point in a subprocess on the scripted fake (and, unless ``--skip-local``, on the
embedded model), track the sessions in a bench MLflow store, and report them with ``cosci compare``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
DATA = RESULTS / "data"


@dataclass
class Result:
    name: str
    value: float
    unit: str
    target: float
    higher_is_better: bool
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.value >= self.target if self.higher_is_better else self.value <= self.target


def _session(models: str, *extra: str) -> tuple[float, float, dict]:
    """Run one demo session in a subprocess; returns (wall seconds, peak RSS MB, summary from the record)."""
    env = {**os.environ, "COSCI_DATA_DIR": str(DATA), "PYTHONPATH": str(ROOT)}
    before = {p.name for p in (DATA / "sessions").glob("*")} if (DATA / "sessions").exists() else set()
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "cosci.run", "experiment=demo", f"models={models}", "session.name=bench", *extra],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise RuntimeError(f"session failed: {proc.stderr[-2000:]}")
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    new = sorted({p.name for p in (DATA / "sessions").glob("*")} - before)
    from cosci.store import STORE_FILE, SessionStore

    store = SessionStore.open(DATA / "sessions" / new[-1] / STORE_FILE, new[-1])
    row = store.sessions.get()
    tasks = store.tasks.counts().get("done", 0)
    summary = {
        "elapsed": row.elapsed_seconds,
        "tasks": tasks,
        "hypotheses": store.hypotheses.count(),
        "matches": store.matches.count(),
        "stop": row.stop_reason,
    }
    store.close()
    return wall, rss_mb, summary


def bench_fake_session() -> list[Result]:
    wall, rss, s = _session("fake", "tools.offline=true", "run.seed=1")
    _session("fake", "tools.offline=true", "run.seed=2")
    return [
        Result("fake demo session, wall (incl. Prefect start)", wall, "s", 90, False, f"stop {s['stop']}"),
        Result(
            "fake demo session, loop throughput",
            s["tasks"] / max(s["elapsed"], 1e-9),
            "tasks/s",
            5,
            True,
            f"{s['tasks']} tasks, {s['hypotheses']} hypotheses, {s['matches']} matches",
        ),
        Result("fake demo session, peak RSS", rss, "MB", 1500, False),
    ]


def bench_local_session() -> list[Result]:
    wall, rss, s = _session("local", "tools.offline=true")
    return [
        Result(
            "local demo session (embedded model), wall",
            wall,
            "s",
            600,
            False,
            f"stop {s['stop']}: {s['hypotheses']} hypotheses, {s['matches']} matches, {s['tasks']} tasks",
        ),
        Result("local demo session, peak RSS", rss, "MB", 3500, False),  # bench/README.md target
    ]


def bench_gateway() -> list[Result]:
    from cosci.config.load import compose, validate
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.llm.gateway.adapter import Gateway
    from cosci.llm.port.structured import call_record
    from cosci.llm.port.types import CallSpec, TextBlock
    from cosci.records import RecordHypothesis

    cfg = validate(compose(["experiment=demo", "models=fake", f"paths.data_dir={DATA}", "run.budget_usd=1000"]))
    gw = Gateway(cfg, TokenBudget(1000.0, {a: c.budget_share for a, c in cfg.agents.items()}, 0.08))
    spec = CallSpec(
        route=gw.router.route("evolution", "simplify"),
        action="bench",
        system=[TextBlock("s", cache=True)],
        messages=[{"role": "user", "content": "propose one hypothesis"}],
    )

    async def many(n: int) -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            await call_record(gw, spec, RecordHypothesis)
        return time.perf_counter() - t0

    asyncio.run(many(5))
    seconds = asyncio.run(many(200))
    return [Result("gateway structured calls on the fake (LiteLLM path)", 200 / seconds, "calls/s", 50, True)]


def bench_vectors() -> list[Result]:
    import numpy as np

    from cosci.llm.embeddings.embedder import hash_embed
    from cosci.vectors.store import VectorStore

    texts = [
        f"Drug {i} inhibits target {i % 37} to deplete leukemic stem cells in context {i % 11}" for i in range(1000)
    ]
    t0 = time.perf_counter()
    vecs = hash_embed(texts)
    embed_rate = len(texts) / (time.perf_counter() - t0)
    store = VectorStore(vecs.shape[1])
    store.load([f"H-{i:012x}" for i in range(len(texts))], vecs)
    queries = hash_embed(texts[:200])
    t0 = time.perf_counter()
    for q in queries:
        store.nearest(q, k=1)
    per_query_ms = (time.perf_counter() - t0) / len(queries) * 1000
    ids = store.ids[:300]
    t0 = time.perf_counter()
    from cosci.agents.proximity import cluster

    cluster(store.matrix(ids), 0.15)
    cluster_s = time.perf_counter() - t0
    assert np.isfinite(vecs).all()
    return [
        Result("hash embeddings", embed_rate, "texts/s", 200, True),
        Result("dedup nearest-neighbour query, 1000 hypotheses", per_query_ms, "ms", 1.0, False),
        Result("agglomerative clustering, 300 hypotheses", cluster_s, "s", 2.0, False),
    ]


def bench_record() -> list[Result]:
    import tempfile

    from cosci.config.load import compose, validate
    from cosci.records import RecordHypothesis
    from cosci.store import SessionStore
    from cosci.tournament.elo import EloRule

    rule = EloRule.from_config(validate(compose([])).ranking)
    with tempfile.TemporaryDirectory() as tmp:
        store = SessionStore.open(Path(tmp) / "r.sqlite", "s-bench")
        store.sessions.create(
            goal="g",
            config_snapshot={},
            overrides=[],
            models_choice="fake",
            budget_usd=1,
            budget_tokens=None,
            wall_clock_seconds=1,
        )
        for i in range(50):
            store.hypotheses.insert(
                f"H-{i:012x}",
                RecordHypothesis(
                    title=f"t{i}",
                    statement=f"s{i}",
                    mechanism="m",
                    entities=[],
                    anticipated_outcomes="",
                    novelty_argument="",
                    decisive_experiment="Treat the cells and count colonies at day 7.",
                    predicted_result="The colony count falls by at least 30 %.",
                    refuting_result="The colony count changes by less than 5 %.",
                    citations=[],
                ),
                elo=1200,
                task_id=None,
            )
        t0 = time.perf_counter()
        n = 1000
        for i in range(n):
            a, b = f"H-{i % 50:012x}", f"H-{(i * 7 + 1) % 50:012x}"
            if a != b:
                store.matches.apply(
                    f"M-{i}", a, b, mode="pairwise", winner=a, rule=rule, rationale="", transcript=[], task_id=None
                )
        rate = n / (time.perf_counter() - t0)
        store.close()
    return [Result("Elo match applied (transaction: match, journal, ratings)", rate, "matches/s", 500, True)]


def bench_local_model() -> list[Result]:
    from cosci.config.load import compose, validate
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.llm.gateway.adapter import Gateway
    from cosci.llm.local.model import LocalModelProvider
    from cosci.llm.port.structured import call_record
    from cosci.llm.port.types import CallSpec, TextBlock
    from cosci.prompts import render
    from cosci.records import RecordHypothesis, TournamentVerdict, tool_schema

    cfg = validate(compose(["experiment=demo", "models=local", f"paths.data_dir={DATA}"]))
    gw = Gateway(cfg, TokenBudget(1.0, {a: c.budget_share for a, c in cfg.agents.items()}, 0.08))
    t0 = time.perf_counter()
    LocalModelProvider.instance().llama()
    load = time.perf_counter() - t0
    system = [TextBlock(render("_safety_preamble"), cache=True)]
    user = "Propose one hypothesis: an approved drug to repurpose for acute myeloid leukemia, with its target."
    spec = CallSpec(
        route=gw.router.route("evolution", "simplify"),
        action="bench",
        system=system,
        messages=[{"role": "user", "content": user}],
    )
    t0 = time.perf_counter()
    asyncio.run(call_record(gw, spec, RecordHypothesis))
    record_s = time.perf_counter() - t0
    verdict = CallSpec(
        route=gw.router.route("ranking", "pairwise"),
        action="bench",
        system=system,
        messages=[
            {"role": "user", "content": "Hypothesis 1: metformin. Hypothesis 2: disulfiram. Which is the better idea?"}
        ],
        response_schema=tool_schema(TournamentVerdict),
    )
    t0 = time.perf_counter()
    asyncio.run(gw.complete(verdict))
    verdict_s = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return [
        Result("embedded model load", load, "s", 5, False),
        Result("embedded model: validated record_hypothesis", record_s, "s", 30, False),
        Result("embedded model: constrained tournament verdict", verdict_s, "s", 10, False),
        Result("process RSS with the embedded model", rss, "MB", 1200, False),
    ]


def bench_concurrency() -> list[Result]:
    """Issues 11 and 46: slots kept busy with a simulated hosted-model latency (see bench/scheduling.py); the targets
    are issue 46's (2 cores at 100 ms of CPU per action cannot do better than about 4 x ideal at 100 ms)."""
    from bench.scheduling import concurrency_run

    slow, fast = concurrency_run(1.0), concurrency_run(0.1)
    note = (f"{slow['calls']} calls, {slow['actions']} actions, stop {slow['stop']}; at 100 ms: "
            f"{fast['in_flight']:.1f} in flight, {fast['cpu_per_action_ms']:.0f} ms CPU per action")
    return [
        Result("fake session at 1 s latency, concurrency 8: wall / ideal", slow["wall_over_ideal"], "x", 1.15, False,
               note),
        Result("fake session at 1 s latency, concurrency 8: calls in flight", slow["in_flight"], "calls", 7, True),
        Result("fake session at 100 ms latency, concurrency 8: wall / ideal", fast["wall_over_ideal"], "x", 4, False),
        Result("session CPU per action (Prefect task, record, LiteLLM, fake, screen)", slow["cpu_per_action_ms"], "ms",
               100, False, "the session process and its Prefect server, at 1 s latency"),
    ]


def bench_loop_cost() -> list[Result]:
    """Issue 11: the Supervisor loop's own CPU per task does not grow with the pool."""
    from bench.scheduling import loop_cpu_per_task

    small, large = loop_cpu_per_task(20), loop_cpu_per_task(200)
    return [Result("loop CPU per task, 200 vs 20 hypotheses", large / small, "x", 1.3, False,
                   f"{small * 1000:.2f} ms at 20, {large * 1000:.2f} ms at 200")]


def bench_fast_start() -> list[Result]:
    """Issue 11: launch to the first LLM call, and the whole fake demo."""
    from bench.scheduling import fast_start

    start = fast_start()
    new, first, same = start["new_folder"], start["first_ever"], start["same_folder"]
    return [Result("fake demo: launch to first LLM call", new["first_call"], "s", 8, False,
                   f"new data folder; first run on the machine {first['first_call']:.1f} s, same folder again "
                   f"{same['first_call']:.1f} s"),
            Result("fake demo: whole wall", new["wall"], "s", 12, False,
                   f"first run on the machine {first['wall']:.1f} s, same folder again {same['wall']:.1f} s")]


def bench_startup() -> list[Result]:
    """Issue 46: launch to the first model call on the fake (median of 5, each phase in the note), and each
    researcher command on a stopped fake session (median of 5; bench/startup.py)."""
    from bench.startup import measure

    m = measure(ROOT, 5)
    phases = ", ".join(f"{k} {v:.2f}" for k, v in m["phases"].items())
    out = [Result("fake demo: launch to first model call (median of 5)", m["first_call"], "s", 5, False,
                  f"runs {m['first_calls']}; phases (s): {phases}; load {m['load'][0]:.1f}")]
    for name, c in m["commands"].items():
        out.append(Result(f"cosci {name} on a stopped fake session (median of 5)", c["median"], "s", 1.5, False,
                          f"exit {c['codes']}; runs {c['all']}"))
    return out


def bench_serve() -> list[Result]:
    """Issue 48: `cosci serve` to its first sessions page (median of 5 launches), and an event written to a
    session's store to its arrival on the page's event stream (median of 10; bench/serve.py)."""
    import tempfile

    from bench.serve import measure

    with tempfile.TemporaryDirectory(prefix="cosci-bench-serve-") as work:
        m = measure(ROOT, Path(work))
    load = ", ".join(f"{x:.1f}" for x in m["load"])
    return [Result("cosci serve: launch to first sessions page (median of 5)", m["start"], "s", 3, False,
                   f"runs {', '.join(f'{s:.2f}' for s in m['starts'])}; load {load}"),
            Result("web UI: event written to its arrival over SSE (median of 10)", m["latency"], "s", 2, False,
                   f"max {m['latency_max']:.2f} s; {m['arrived']} of {m['events']} arrived; load {load}")]


def bench_scale() -> list[Result]:
    """Issue 33: the loop's CPU per match at 100, 300 and 1,000 hypotheses (100 loop matches a stage), then the
    whole 10,000-match loop at 1,000 hypotheses (a run, not a projection: ~10 minutes here; bench/scale.py)."""
    from bench.scale import scale_run

    res = scale_run(loop_matches=100)
    by_n = {s["hypotheses"]: s for s in res["stages"]}
    small = by_n[100]
    long = scale_run((1000,), loop_matches=10_000)
    large = long["stages"][0]

    def parts(s: dict) -> str:
        return ", ".join(f"{k.split(' (')[0]} {v:.1f}" for k, v in s["parts_ms_per_match"].items())

    return [
        Result("loop CPU per match, 1,000 vs 100 hypotheses", by_n[1000]["loop_cpu_per_match_ms"]
               / small["loop_cpu_per_match_ms"], "x", 3.0, False,
               " | ".join(f"{n}: {s['loop_cpu_per_match_ms']:.1f} ms ({parts(s)} ms)" for n, s in by_n.items())),
        Result("10,000 matches at 1,000 hypotheses: CPU of the whole loop (fake judge incl.)", large["cpu_s"], "s",
               600, False, f"{large['played']} matches played after {large['matches_before']} seeded; "
               f"{large['loop_cpu_per_match_ms']:.1f} ms loop CPU a match ({parts(large)} ms)"),
        Result("10,000 matches at 1,000 hypotheses: wall of the loop", large["wall_s"], "s", 600, False,
               f"whole run {long['wall_s']:.0f} s with seeding"),
        Result("scale session, peak RSS", max(res["peak_rss_mb"], long["peak_rss_mb"]), "MB", 2048, False,
               f"stages bench {res['wall_s']:.0f} s wall, {res['cpu_s']:.0f} s CPU (seeding included)"),
    ]


def bench_demo() -> list[Result]:
    """The embedded demo as a new user runs it, three times (bench/demo.py): medians against the targets."""
    from bench.demo import run_demo, summary

    runs = run_demo(3)
    s = summary(runs)
    note = f"every agent and mode in {s['complete_runs']} of {len(runs)} runs; walls " + ", ".join(
        f"{r.wall:.0f}" for r in runs)
    return [Result("embedded demo, wall (median of 3)", s["wall"], "s", 180, False, note),
            Result("embedded demo, peak RSS of the session process (median)", s["rss_session_mb"], "MB", 1500, False),
            Result("embedded demo, peak RSS of the session and its children (median)", s["rss_tree_mb"], "MB", 1500,
                   False, "the Prefect server is a child of the session process"),
            Result("embedded demo, runs showing every agent and mode", s["complete_runs"], "runs", len(runs), True)]


BENCHES: dict[str, Callable[[], list[Result]]] = {
    "scale": bench_scale,
    "concurrency": bench_concurrency,
    "loop_cost": bench_loop_cost,
    "fast_start": bench_fast_start,
    "startup": bench_startup,
    "serve": bench_serve,
    "record": bench_record,
    "vectors": bench_vectors,
    "gateway": bench_gateway,
    "fake_session": bench_fake_session,
    "local_model": bench_local_model,
    "local_session": bench_local_session,
    "demo": bench_demo,
}


def report() -> None:
    """Compare the bench sessions with cosci compare (table and plots in bench/results/)."""
    from cosci.tracking.compare import compare

    try:
        frame, plots = compare(f"sqlite:///{DATA / 'mlflow.db'}", experiment="bench", out_dir=RESULTS)
    except Exception as exc:  # no sessions ran
        print(f"(no session comparison: {exc})")
        return
    cols = [
        c
        for c in (
            "session_id",
            "param.models",
            "tag.stop_reason",
            "metric.final_top1_elo",
            "metric.final_matches",
            "metric.final_spent_usd",
            "metric.final_wall_seconds",
        )
        if c in frame.columns
    ]
    print(frame.select(cols))
    for p in plots:
        print(f"wrote {p}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=sorted(BENCHES))
    parser.add_argument("--skip-local", action="store_true", help="skip the embedded-model benchmarks")
    args = parser.parse_args(argv)
    names = args.only or [n for n in BENCHES if not (args.skip_local and (n.startswith("local") or n == "demo"))]
    RESULTS.mkdir(parents=True, exist_ok=True)
    results: list[Result] = []
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        results.extend(BENCHES[name]())
    print("| benchmark | measured | target | ok | note |\n|---|---|---|---|---|")
    for r in results:
        sign = ">=" if r.higher_is_better else "<="
        print(
            f"| {r.name} | {r.value:.3g} {r.unit} | {sign} {r.target:g} {r.unit} "
            f"| {'yes' if r.ok else 'NO'} | {r.note} |"
        )
    (RESULTS / "latest.json").write_text(json.dumps([asdict(r) | {"ok": r.ok} for r in results], indent=2))
    if any(n.endswith("session") for n in names):
        report()
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
