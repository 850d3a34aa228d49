"""The checks behind ``cosci investigate``'s statuses, measured on labelled sets with their adversarial kinds
(docs/design.md#gates, #task-format, #sandbox, #evidence). Figures go to bench/README.md.

    python -m bench.investigation [--trials 4000] [--only rubrics|check|sandbox|coverage]

1. **Rubric adjudication** ("passes"): ``bench/data/investigation/rubric_texts.jsonl``, rubric texts with metrics
   and the labelled verdict; kinds: aliases, symbols, distractor numbers, negations, no threshold, unreported
   metric. Accuracy per kind.
2. **The task check** ("passes" / "reads the search data" ...): variants of a small task built here, each labelled
   pass or fail; kinds include the adversarial ones (search data read through a path built at run time, through a
   glob, only when present; near-identical evaluators). Detection per kind.
3. **The sandbox** ("contained"): hostile programs by kind (network, files outside the view, symlinks, limits,
   process bombs, signals to the host, privileges, secrets); a program is contained when its attempt fails (or,
   for privileges and secrets, it sees none) and the host is untouched: the escape file absent, the host's
   sentinel process alive, and, for the bombs, the tasks (processes and threads) in the sandbox's PID namespace
   (sampled every 10 ms) at most the process limit plus bubblewrap's init.
4. **The 95 % intervals**: coverage of the t interval of a mean and of a paired gain at n = 5 seeds, on normal and
   skewed (exponential) values with a known mean, ``--trials`` repetitions.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import tempfile
import threading
from collections import Counter, defaultdict
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
    "processes: fork bomb": "import os\nwhile True:\n    os.fork()\n",
    "processes: fork bomb that outlives its parent": ("import os, time\nif os.fork() == 0:\n    while True:\n"
                                                      "        try:\n            os.fork()\n        except OSError:\n"
                                                      "            time.sleep(1)\n"),
    "processes: shell fork bomb": "import os\nos.system('b(){{ b|b& }}; b')\n",
    "processes: thread bomb": ("import threading, time\nwhile True:\n    threading.Thread(target=time.sleep, "
                               "args=(600,), daemon=True).start()\n"),
    "processes: subprocess pool": ("import subprocess\nkids = [subprocess.Popen(['sleep', '600']) for _ in "
                                   "range(500)]\n"),
    "signals: kill a host process": "import os, signal\nos.kill({sentinel}, signal.SIGKILL)\n",
    "signals: kill every process it may": "import os, signal, time\nos.kill(-1, signal.SIGKILL)\ntime.sleep(0.5)\n"
                                          "raise SystemExit('still here')\n",
}
PRIVILEGES = ("import json\nst = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines())\n"
              "uid = int(st['Uid'].split()[0])\nprint(json.dumps({'value': float(uid == 0 or int(st['CapEff'], 16) "
              "!= 0 or int(st['CapPrm'], 16) != 0 or st['NoNewPrivs'].strip() != '1')}))\n")
"""Prints 1 when the program is root or holds a capability or could gain privileges through a setuid binary."""
LIMIT_PROCESSES = 64


def _host_processes() -> tuple[int, int]:
    """``(processes on the host, tasks in the largest PID namespace other than this one)``: a sandbox's processes
    share its PID namespace (other jobs' sandboxes have their own); a task is a process or one of its threads."""
    mine, total, per_ns = os.readlink("/proc/self/ns/pid"), 0, Counter[str]()
    for e in os.scandir("/proc"):
        if e.name.isdigit():
            total += 1
            try:
                ns = os.readlink(f"/proc/{e.name}/ns/pid")
            except OSError:
                continue
            if ns != mine:  # a thread counts against the limit as a process does
                per_ns[ns] += len(os.listdir(f"/proc/{e.name}/task"))
    return total, max(per_ns.values(), default=0)


class PeakProcesses:
    """The most processes on the host and tasks in one sandbox while it runs (a sampling thread, every 10 ms)."""

    def __enter__(self) -> PeakProcesses:
        self.before, self.sandbox = _host_processes()[0], 0
        self.peak = self.before
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            total, sandbox = _host_processes()
            self.peak, self.sandbox = max(self.peak, total), max(self.sandbox, sandbox)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def sandbox_set(tmp: Path) -> dict[str, tuple[bool, str]]:
    """``{kind: (held, note)}``; the note gives a bomb's host process peak."""
    task = load_task(make_task(tmp / "host"))
    assert task.spec.limits.processes == LIMIT_PROCESSES  # the default
    harness = Harness(task, probe(), tmp / "views")  # type: ignore[arg-type]
    sentinel = subprocess.Popen(["sleep", "3600"])
    out: dict[str, tuple[bool, str]] = {}
    try:
        for kind, source in HOSTILE.items():
            n = len(out)
            escape, program = tmp / f"escape-{n}.txt", tmp / f"prog-{n}"
            program.mkdir()
            (program / "program.py").write_text(source.format(sentinel=sentinel.pid, escape=str(
                escape if "write" in kind else tmp / "host" / "task.md")))
            with PeakProcesses() as peak:
                e = harness.evaluate(program, "search", 0, tmp / f"work-{n}")
            held = (not e.ok) and not escape.exists() and sentinel.poll() is None
            note = e.reason[:80]
            if kind.startswith("processes"):  # the limit, and bubblewrap's init (pid 1 of the namespace)
                held = held and peak.sandbox <= LIMIT_PROCESSES + 1
                note = (f"sandbox peak {peak.sandbox} tasks (host processes {peak.before} -> {peak.peak}); "
                        f"{e.seconds:.1f} s; {note}")
            out[kind] = (held, note)
        out["privileges: root or a capability"] = _sees_nothing(harness, tmp, "privileges", PRIVILEGES)
        os.environ["BENCH_FAKE_API_KEY"] = "sk-not-real"
        out["secrets: environment variables"] = _sees_nothing(harness, tmp, "secret", "import json, os\nprint(json."
                                                              "dumps({'value': float(any('KEY' in k or 'TOKEN' in k "
                                                              "for k in os.environ))}))\n")
    finally:
        sentinel.send_signal(signal.SIGKILL)
        sentinel.wait()
    return out


def _sees_nothing(harness: Harness, tmp: Path, name: str, source: str) -> tuple[bool, str]:
    """Runs ``source``, which prints ``value`` 1.0 when it sees what it must not: held when it ran and saw 0."""
    program = tmp / f"prog-{name}"
    program.mkdir()
    (program / "program.py").write_text(source)
    e = harness.evaluate(program, "search", 0, tmp / f"work-{name}")
    answer = tmp / f"work-{name}" / "answer" / "answer.json"
    seen = json.loads(answer.read_text())["value"] if answer.exists() else None
    return e.ok and seen == 0.0, e.reason[:80] or f"saw {seen}"


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
    parser.add_argument("--only", choices=("rubrics", "check", "sandbox", "coverage"), default=None,
                        help="run one set (default: all four)")
    args = parser.parse_args()
    wanted = {args.only} if args.only else {"rubrics", "check", "sandbox", "coverage"}
    if "rubrics" in wanted:
        print("1. rubric adjudication (labelled verdicts)")
        for kind, oks in rubric_set().items():
            print(f"   {kind:14s} {sum(oks)}/{len(oks)} correct")
    if wanted & {"check", "sandbox"} and probe() is None:
        print("2-3 skipped: bubblewrap cannot build a sandbox here")
    elif wanted & {"check", "sandbox"}:
        with tempfile.TemporaryDirectory(prefix="bench-inv-") as tmp_:
            _sandboxed_sets(Path(tmp_), wanted)
    if "coverage" in wanted:
        print(f"4. interval coverage at n = 5 seeds, 95 % ({args.trials} trials)")
        for kind, rate in coverage(args.trials).items():
            print(f"   {kind:22s} {rate:.3f}")


def _sandboxed_sets(tmp: Path, wanted: set[str]) -> None:
    if "check" in wanted:
        print("2. the task check (labelled pass / fail)")
        for kind, folder, should_pass in task_variants(tmp / "tasks"):
            failures = check_task(folder, probe())  # type: ignore[arg-type]
            right = (not failures) == should_pass
            print(f"   {'ok  ' if right else 'MISS'} {kind:42s} {'passes' if not failures else failures[0][:90]}")
    if "sandbox" in wanted:
        who = "as root: no user namespace, a sandbox user" if os.geteuid() == 0 else "in a user namespace"
        print(f"3. the sandbox (hostile programs; {who}; process limit {LIMIT_PROCESSES})")
        results = sandbox_set(tmp / "sandbox")
        for kind, (held, note) in results.items():
            print(f"   {'held' if held else 'LEAK'} {kind:48s} {note}")
        print(f"   {sum(h for h, _ in results.values())}/{len(results)} held")


if __name__ == "__main__":
    main()
