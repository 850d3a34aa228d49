"""The fresh user's offline commands, before and after, interleaved (docs/design.md#unreachable-hosts).

``python -m bench.unreachable [--before REF] [--trials N]`` runs ``python -m cosci.run experiment=demo models=opus``
and ``python -m cosci.cli check models=opus`` with ``ANTHROPIC_API_KEY=garbage`` on a machine whose provider host
does not resolve, in two trees: ``REF`` (exported with ``git archive`` into a temporary folder) and this one; per
trial each command in both arms, back to back. Prints per run the wall and CPU seconds, the exit code and the lines
on stderr (session) or the ``fix`` lines (check), and the load (``os.getloadavg``) before each run.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {"session": ["-m", "cosci.run", "experiment=demo", "models=opus"],
            "check": ["-m", "cosci.cli", "check", "models=opus"]}


def export(ref: str, into: Path) -> Path:
    """The tree of ``ref`` under ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def run(tree: Path, name: str) -> dict[str, object]:
    """One command in ``tree`` (its own data folder): wall s, CPU s of the child, exit code, what it printed."""
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "PYTHONPATH": str(tree), "ANTHROPIC_API_KEY": "garbage", "COSCI_DATA_DIR": data}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, *COMMANDS[name]], cwd=tree, env=env,
                              capture_output=True, text=True, timeout=900)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = ([x for x in done.stdout.splitlines() if x.startswith("fix")] if name == "check"
             else [x for x in done.stderr.splitlines() if x.startswith("cosci:")])
    return {"wall": wall, "cpu": cpu, "rc": done.returncode, "lines": lines}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", default="main", help="the git ref measured as 'before'")
    parser.add_argument("--trials", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        arms = {"before": export(args.before, Path(tmp)), "after": ROOT}
        for trial in range(args.trials):
            for name in COMMANDS:
                for arm, tree in arms.items():
                    load = os.getloadavg()[0]
                    r = run(tree, name)
                    print(f"trial {trial} {name:7s} {arm:6s} wall {r['wall']:6.1f} s  cpu {r['cpu']:5.1f} s  "
                          f"exit {r['rc']}  {len(r['lines'])} lines  load {load:.1f}", flush=True)
                    for line in r["lines"][-2:]:  # type: ignore[index]
                        print(f"    {line[:220]}", flush=True)


if __name__ == "__main__":
    main()
