"""The checks behind ``cosci investigate``'s statuses, measured on labelled sets with their adversarial kinds
(docs/design.md#gates, #task-format, #sandbox, #evidence). Figures go to bench/README.md.

    python -m bench.investigation [--trials 4000]

1. **Rubric adjudication** ("passes"): ``bench/data/investigation/rubric_texts.jsonl``, rubric texts with metrics
   and the labelled verdict; kinds: aliases, symbols, distractor numbers, negations, no threshold, unreported
   metric. Accuracy per kind.
2. **The task check** ("passes" / "reads the search data" ...): variants of a small task built here, each labelled
   pass or fail; kinds include the adversarial ones (search data read through a path built at run time, through a
   glob, only when present; near-identical evaluators). Detection per kind.
3. **The sandbox** ("contained"): hostile programs by kind (network, files outside the view, symlinks, limits,
   secrets); a program is contained when its attempt fails (or, for secrets, sees none) and the host is untouched.
   No fork bomb is run: the sandbox has no process-count limit (docs/design.md#sandbox), and one exhausted this
   shared machine's process table for the length of its wall clock.
4. **The 95 % intervals**: coverage of the t interval of a mean and of a paired gain at n = 5 seeds, on normal and
   skewed (exponential) values with a known mean, ``--trials`` repetitions.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

from cosci.investigation.check import check_task
from cosci.investigation.evidence import gain, summary
from cosci.investigation.harness import Harness
from cosci.investigation.rubrics import adjudicate
from cosci.investigation.task import Rubric, load_task
from cosci.sandbox.bwrap import probe

DATA = Path(__file__).parent / "data" / "investigation"
PROGRAM = 'import json, os\nrows = open(os.path.join(os.environ["COSCI_DATA"], "x.csv")).read().split()\n' \
          'print(json.dumps({"value": float(len(rows))}))\n'
EVALUATOR = '''import argparse, json, os
p = argparse.ArgumentParser(); p.add_argument("answer"); p.add_argument("--seed", type=int); p.add_argument("--data")
a = p.parse_args()
v = json.load(open(a.answer))["value"]
truth = json.load(open(os.path.join(a.data, "t.json")))["n"]
print(json.dumps({"metrics": {"score": -abs(v - truth)}, "correct": True}))
'''
FINAL = EVALUATOR.replace('v = json.load(open(a.answer))["value"]',
                          'with open(a.answer) as fh:\n    v = float(json.load(fh)["value"])')
"""The final evaluator: the same judgement written another way (its syntax tree differs from the search one's)."""
TASK_YAML = """score: {metric: score, direction: maximize}
evaluation_budget: 2
timeouts: {program_seconds: 20, evaluator_seconds: 20}
limits: {cpu_seconds: 10, memory_mb: 256, file_size_mb: 1}
data:
  search: {inputs: {x.csv: data/search/x.csv}, answers: {t.json: data/search/t.json}}
  final: {inputs: {x.csv: "data/final/x_{seed}.csv"}, answers: {t.json: "data/final/t_{seed}.json"}}
"""
CHEATS = {
    "reads by name": ('truth = json.load(open(os.path.join(a.data, "t.json")))["n"]',
                      'truth = json.load(open(os.path.join(os.path.dirname(__file__), "data/search/t.json")))["n"]'),
    "reads by a built path": ('truth = json.load(open(os.path.join(a.data, "t.json")))["n"]',
                              'truth = json.load(open(os.path.join(os.path.dirname(__file__), "data", "se" + "arch", '
                              '"t.json")))["n"]'),
    "reads through a glob": ('"score": -abs(v - truth)}', '"score": -abs(v - truth), "g": len(glob.glob(os.path.join('
                             'os.path.dirname(__file__), "*", "s*", "*")))}'),
    "reads only when present": ('print(json.dumps({"metrics": {"score": -abs(v - truth)}',
                                'q = os.path.join(os.path.dirname(__file__), "data", "search", "x.csv")\n'
                                'bonus = len(open(q).read()) if os.path.exists(q) else 0\n'
                                'print(json.dumps({"metrics": {"score": -abs(v - truth) + 0 * bonus, "b": bonus}'),
}


def rubric_set() -> dict[str, list[bool]]:
    out: dict[str, list[bool]] = defaultdict(list)
    for line in (DATA / "rubric_texts.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        status = adjudicate(Rubric(id="r", text=case["text"]), evaluation_ok=True, correct=True,
                            metrics=case["metrics"], sources={})
        out[case["kind"]].append(status.passed == case["passes"])
    return out


def make_task(root: Path, *, final: str = FINAL, rubrics: str = '- id: r\n  text: "score at least -1"\n',
              share_line: bool = False, same_content: bool = False) -> Path:
    for sub in ("initial", "data/search", "data/final"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "initial" / "program.py").write_text(PROGRAM)
    (root / "evaluate_search.py").write_text(EVALUATOR)
    (root / "evaluate_final.py").write_text(final)
    (root / "task.yaml").write_text(TASK_YAML)
    (root / "rubrics.yaml").write_text(rubrics)
    (root / "task.md").write_text("Count the rows.\n")
    search_rows = [f"search-row-{i:04d}" for i in range(30)]
    (root / "data/search/x.csv").write_text("x\n" + "\n".join(search_rows) + "\n")
    (root / "data/search/t.json").write_text('{"n": 31}')
    for s in range(1, 3):
        rows = [f"final-{s}-row-{i:04d}" for i in range(20)] + ([search_rows[3]] if share_line and s == 1 else [])
        body = (root / "data/search/x.csv").read_text() if same_content and s == 1 else "x\n" + "\n".join(rows) + "\n"
        (root / f"data/final/x_{s}.csv").write_text(body)
        (root / f"data/final/t_{s}.json").write_text(json.dumps({"n": len(body.split())}))
    return root


def task_variants(tmp: Path) -> list[tuple[str, Path, bool]]:
    """``(kind, task folder, should pass)``."""
    out = [("good task", make_task(tmp / "good"), True)]
    for kind, (old, new) in CHEATS.items():
        cheat = FINAL.replace(old, new).replace("import argparse", "import glob, argparse")
        out.append((f"final evaluator {kind}", make_task(tmp / kind.replace(" ", "_"), final=cheat), False))
    out += [
        ("empty rubric list", make_task(tmp / "empty", rubrics="[]\n"), False),
        ("evaluator prints no JSON", make_task(tmp / "nojson", final="print('done')\n"), False),
        ("identical evaluators", make_task(tmp / "same", final=EVALUATOR), False),
        ("near-identical evaluators (a comment, blank lines)", make_task(tmp / "near", final="# final\n\n" +
                                                                        EVALUATOR.replace("\n", "\n\n")), False),
        ("final inputs share a line with search", make_task(tmp / "share", share_line=True), False),
        ("final input equals the search input", make_task(tmp / "equal", same_content=True), False),
    ]
    return out


HOSTILE = {
    "network: TCP connect": "import socket\nsocket.create_connection(('1.1.1.1', 53), 3)\n",
    "network: DNS lookup": "import socket\nsocket.getaddrinfo('example.org', 80)\n",
    "network: HTTP through urllib": "import urllib.request\nurllib.request.urlopen('http://example.org', timeout=3)\n",
    "files: write into the host tree": "open({escape!r}, 'w').write('x')\n",
    "files: read the user's home": "print(open('/root/.bashrc').read())\n",
    "files: read the task's answers": "print(open('/task/data/search/t.json').read())\n",
    "files: modify its own program": "open('/program/program.py', 'a').write('#')\n",
    "symlink: to a host file, at run time": ("import os\nos.symlink({escape!r}, '/workspace/l')\n"
                                             "open('/workspace/l').read()\n"),
    "limits: memory": "x = bytearray(2 << 30)\n",
    "limits: CPU": "while True:\n    pass\n",
    "limits: wall clock": "import time\ntime.sleep(600)\n",
    "limits: file size": "open('/workspace/f', 'wb').write(b'x' * (8 << 20))\n",
}


def sandbox_set(tmp: Path) -> dict[str, bool]:
    task = load_task(make_task(tmp / "host"))
    harness = Harness(task, probe(), tmp / "views")  # type: ignore[arg-type]
    out: dict[str, bool] = {}
    for kind, source in HOSTILE.items():
        escape = tmp / f"escape-{len(out)}.txt"
        program = tmp / f"prog-{len(out)}"
        program.mkdir()
        (program / "program.py").write_text(source.format(escape=str(escape if "write" in kind else
                                                                      tmp / "host" / "task.md")))
        e = harness.evaluate(program, "search", 0, tmp / f"work-{len(out)}")
        out[kind] = (not e.ok) and not escape.exists()
    secret = tmp / "prog-secret"
    secret.mkdir()
    (secret / "program.py").write_text("import json, os\nprint(json.dumps({'value': float(any('KEY' in k or 'TOKEN' "
                                       "in k for k in os.environ))}))\n")
    import os

    os.environ["BENCH_FAKE_API_KEY"] = "sk-not-real"
    e = harness.evaluate(secret, "search", 0, tmp / "work-secret")
    out["secrets: environment variables"] = e.ok and (e.metrics.get("score") is not None) and not _saw_key(tmp)
    return out


def _saw_key(tmp: Path) -> bool:
    answer = tmp / "work-secret" / "answer" / "answer.json"
    return json.loads(answer.read_text())["value"] != 0.0 if answer.exists() else True


def coverage(trials: int, n: int = 5, level: float = 0.95) -> dict[str, float]:
    """Share of intervals that contain the true mean (or the true gain), over ``trials`` draws of ``n`` seeds."""
    rng = random.Random(20261201)
    hits: dict[str, int] = defaultdict(int)
    for _ in range(trials):
        normal = [rng.gauss(2.2, 0.05) for _ in range(n)]
        skewed = [rng.expovariate(1 / 0.3) for _ in range(n)]
        for name, values, mean in (("mean, normal", normal, 2.2), ("mean, exponential", skewed, 0.3)):
            iv = summary(values, level)
            hits[name] += iv.low is not None and iv.high is not None and iv.low <= mean <= iv.high
        base = {s: rng.gauss(2.2, 0.05) for s in range(n)}
        paired = {s: v + 0.01 + rng.gauss(0, 0.01) for s, v in base.items()}
        g = gain(paired, base, "maximize", level)
        hits["paired gain, normal"] += g is not None and g.low is not None and g.low <= 0.01 <= (g.high or 0)
    return {k: v / trials for k, v in hits.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=4000)
    args = parser.parse_args()
    print("1. rubric adjudication (labelled verdicts)")
    for kind, oks in rubric_set().items():
        print(f"   {kind:14s} {sum(oks)}/{len(oks)} correct")
    if probe() is None:
        print("2-3 skipped: bubblewrap cannot build a sandbox here")
    else:
        with tempfile.TemporaryDirectory(prefix="bench-inv-") as tmp_:
            tmp = Path(tmp_)
            print("2. the task check (labelled pass / fail)")
            for kind, folder, should_pass in task_variants(tmp / "tasks"):
                failures = check_task(folder, probe())  # type: ignore[arg-type]
                right = (not failures) == should_pass
                print(f"   {'ok  ' if right else 'MISS'} {kind:42s} {'passes' if not failures else failures[0][:90]}")
            print("3. the sandbox (hostile programs)")
            for kind, held in sandbox_set(tmp / "sandbox").items():
                print(f"   {'held' if held else 'LEAK'} {kind}")
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"4. interval coverage at n = 5 seeds, 95 % ({args.trials} trials)")
    for kind, rate in coverage(args.trials).items():
        print(f"   {kind:22s} {rate:.3f}")


if __name__ == "__main__":
    main()
