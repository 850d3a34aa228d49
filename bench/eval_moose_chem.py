"""The MOOSE-Chem evaluation in ``make bench`` (issue 20): ``python -m bench.eval_moose_chem [--models M]
[--items N] [--corpus 150] [--seeds K] [overrides ...]``.

Runs ``cosci eval moose-chem`` (default: 1 item, corpus 150, the embedded model) in a subprocess with its data
under ``bench/results/eval-data``, then prints the overall table and writes ``bench/results/eval_moose_chem.json``
(the overall means with their intervals, the missing observations per system, the baseline's calls per
observation from the transcripts, the models, the wall time). The numbers are recorded by hand in
``bench/README.md`` with the model and its training cutoff; nothing here is a target to pass.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
DATA = RESULTS / "eval-data"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.eval_moose_chem", description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="local")
    p.add_argument("--items", default="1")
    p.add_argument("--corpus", default="150")
    p.add_argument("--seeds", default="1")
    p.add_argument("overrides", nargs="*", default=[])
    args = p.parse_args(argv)
    env = {**os.environ, "COSCI_DATA_DIR": str(DATA), "PYTHONPATH": str(ROOT)}
    before = set(DATA.joinpath("eval").glob("*")) if DATA.joinpath("eval").exists() else set()
    cmd = [sys.executable, "-m", "cosci.cli", "eval", "moose-chem", "--items", args.items, "--corpus",
           args.corpus, "--seeds", args.seeds, f"models={args.models}", *args.overrides]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=ROOT, text=True, capture_output=True)
    wall = time.perf_counter() - t0
    if proc.returncode:
        print(proc.stderr[-3000:], file=sys.stderr)
        return proc.returncode
    folder = sorted(set(DATA.joinpath("eval").glob("*")) - before)[-1]
    import polars as pl

    summary = pl.read_parquet(folder / "report" / "summary.parquet")
    obs = pl.read_parquet(folder / "report" / "observations.parquet")
    missing = {s: {"missing": int(obs.filter((pl.col("system") == s) & pl.col("missing")).height),
                   "of": int(obs.filter(pl.col("system") == s).height)} for s in ("pipeline", "baseline")}
    calls = (obs.filter(pl.col("system") == "baseline")["calls"].drop_nulls().cast(pl.Int64).value_counts()
             .sort("calls").to_dicts() if "calls" in obs.columns else [])
    out = {"command": " ".join(cmd[1:]), "wall_seconds": round(wall, 1), "report": str(folder / "report"),
           "missing": missing, "baseline_calls_per_observation": calls, "summary": summary.to_dicts()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "eval_moose_chem.json").write_text(json.dumps(out, indent=2, default=str) + "\n", encoding="utf-8")
    print(proc.stdout)
    print(f"eval wall time {wall:.0f} s; results in {RESULTS / 'eval_moose_chem.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
