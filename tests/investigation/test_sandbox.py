"""The sandbox holds: a candidate that opens a socket, writes outside its workspace, follows a symlink out of the
task, allocates past the memory limit, loops past the time limit or forks without bound fails its evaluation with
the reason recorded; it runs unprivileged and cannot signal a process outside (docs/design.md#sandbox). Each runs a
real program under bubblewrap, in the form the caller's user gets (as root: no user namespace, a sandbox user)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cosci.investigation.harness import Harness
from cosci.investigation.task import load_task
from cosci.sandbox import identity, isolation
from cosci.sandbox.bwrap import LIMITS_PATH, NoIsolation, command, probe
from tests.investigation.conftest import TASK_YAML, write_task

pytestmark = pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")


def evaluate(task_dir: Path, tmp_path: Path, source: str, name: str = "cand"):
    task = load_task(task_dir)
    harness = Harness(task, probe(), tmp_path / "views")
    program = tmp_path / name
    program.mkdir()
    (program / "program.py").write_text(source)
    return harness.evaluate(program, "search", 0, tmp_path / f"work-{name}")


def test_the_initial_program_passes(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, (tiny_task / "initial" / "program.py").read_text())
    assert e.ok and e.correct and e.score == 1.0


def test_a_socket_fails_with_the_network_reason(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, "import socket\ns = socket.create_connection(('93.184.216.34', 80), 3)\n")
    assert not e.ok and e.stage == "program" and "network" in e.reason


def test_writing_outside_the_workspace_fails_and_leaves_the_host_untouched(tiny_task: Path, tmp_path: Path) -> None:
    escape = tmp_path / "escaped.txt"
    e = evaluate(tiny_task, tmp_path, f"open({str(escape)!r}, 'w').write('x')\n", "a")
    assert not e.ok and not escape.exists() and "No such file" in e.reason
    e = evaluate(tiny_task, tmp_path, "open('/program/program.py', 'w').write('print(1)')\n", "b")
    assert not e.ok and e.reason.startswith("program: read-only")
    e = evaluate(tiny_task, tmp_path, "open('/usr/lib/x', 'w').write('x')\n", "c")
    assert not e.ok and "read-only" in e.reason


def test_a_program_tree_with_a_symlink_out_of_the_task_is_refused(tiny_task: Path, tmp_path: Path) -> None:
    task = load_task(tiny_task)
    harness = Harness(task, probe(), tmp_path / "views")
    program = tmp_path / "linked"
    program.mkdir()
    (program / "program.py").write_text((tiny_task / "initial" / "program.py").read_text())
    (program / "secret").symlink_to(tiny_task / "evaluate_final.py")
    e = harness.evaluate(program, "search", 0, tmp_path / "work")
    assert not e.ok and e.stage == "tree" and "symlink" in e.reason and not (tmp_path / "work" / "answer").exists()


def test_a_symlink_made_at_run_time_reaches_nothing_outside(tiny_task: Path, tmp_path: Path) -> None:
    src = (f"import os\nos.symlink({str(tiny_task / 'evaluate_final.py')!r}, '/workspace/l')\n"
           "print(open('/workspace/l').read())\n")
    e = evaluate(tiny_task, tmp_path, src)
    assert not e.ok and "No such file" in e.reason


def test_allocating_past_the_memory_limit_fails(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, "x = bytearray(600 * 1024 * 1024)\n")
    assert not e.ok and e.limit == "memory" and "memory limit of 256 MB" in e.reason


def test_a_busy_loop_hits_the_cpu_limit(tmp_path: Path) -> None:
    """A generous wall clock (a loaded machine gives a busy loop less than one core), a 1 s CPU limit."""
    task = write_task(tmp_path / "cpu", task_yaml=TASK_YAML.replace("program_seconds: 4", "program_seconds: 120")
                      .replace("cpu_seconds: 2", "cpu_seconds: 1"))
    e = evaluate(task, tmp_path, "while True:\n    pass\n")
    assert not e.ok and e.limit == "cpu_time" and "CPU-time limit of 1 s" in e.reason


def test_sleeping_past_the_wall_clock_fails(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, "import time\ntime.sleep(60)\n")
    assert not e.ok and e.limit == "wall_clock" and "wall-clock limit of 4 s" in e.reason and e.seconds < 20


def test_a_big_file_hits_the_file_size_limit(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, "open('/workspace/big', 'wb').write(b'x' * (3 << 20))\n")
    assert not e.ok and e.limit == "file_size"


def test_the_environment_carries_no_secret(tiny_task: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    e = evaluate(tiny_task, tmp_path, "import json, os\nprint(json.dumps({'value': float('ANTHROPIC_API_KEY' in "
                                      "os.environ)}))\n")
    assert e.ok and e.score == 0.0


def test_no_isolation_is_refused_unless_unsafe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cosci.sandbox.bwrap.probe", lambda: None)
    with pytest.raises(NoIsolation, match=r"investigation\.unsafe_no_sandbox=true"):
        isolation(unsafe_no_sandbox=False)
    assert isolation(unsafe_no_sandbox=True).tool == "none"


def test_without_isolation_the_same_command_lines_run(tiny_task: Path, tmp_path: Path) -> None:
    from cosci.sandbox import Isolation

    task = load_task(tiny_task)
    harness = Harness(task, Isolation("none"), tmp_path / "views")
    e = harness.evaluate(task.initial, "search", 0, tmp_path / "work")
    assert e.ok and e.score == 1.0


def _processes(n: int) -> str:
    return TASK_YAML.replace("file_size_mb: 1}", f"file_size_mb: 1, processes: {n}}}")


FORK_BOMB = "import os\nwhile True:\n    os.fork()\n"
COUNT_FORKS = """import json, os, time
n = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        n += 1
except OSError:
    pass
print(json.dumps({"value": float(n)}))
"""
"""Forks children that stay alive until a fork fails, then prints how many it made."""


def test_a_fork_bomb_fails_with_the_process_reason_and_the_next_run_is_unaffected(tmp_path: Path) -> None:
    task = write_task(tmp_path / "t", task_yaml=_processes(16))
    e = evaluate(task, tmp_path, FORK_BOMB, "bomb")
    assert not e.ok and e.stage == "program" and e.limit == "processes"
    assert e.reason.startswith("program: process limit of 16 reached") and e.seconds < 4  # the cap ended it
    again = evaluate(task, tmp_path, (task / "initial" / "program.py").read_text(), "after")
    assert again.ok and again.score == 1.0


def test_the_process_limit_counts_the_run_s_own_processes(tmp_path: Path) -> None:
    """16 tasks: the program and its children (and, in a user namespace, bubblewrap's init) — whatever else this
    host runs, including the previous run's processes."""
    task = write_task(tmp_path / "t", task_yaml=_processes(16))
    first = evaluate(task, tmp_path, COUNT_FORKS, "one")
    second = evaluate(task, tmp_path, COUNT_FORKS, "two")
    assert first.ok and second.ok and first.score in (14.0, 15.0) and second.score == first.score


def test_processes_left_at_the_wall_clock_do_not_count_against_the_next_run_in_that_workspace(
        tmp_path: Path) -> None:
    task = write_task(tmp_path / "t", task_yaml=_processes(16).replace("program_seconds: 4", "program_seconds: 2"))
    harness = Harness(load_task(task), probe(), tmp_path / "views")
    stay = tmp_path / "stay"
    stay.mkdir()
    (stay / "program.py").write_text("import os, time\nfor _ in range(3):\n    os.fork()\ntime.sleep(60)\n")
    count = tmp_path / "count"
    count.mkdir()
    (count / "program.py").write_text(COUNT_FORKS)
    e = harness.evaluate(stay, "search", 0, tmp_path / "work")
    assert e.limit == "wall_clock"
    again = harness.evaluate(count, "search", 0, tmp_path / "work")  # the same workspace: the same sandbox user
    assert again.ok and again.score in (14.0, 15.0)


def test_the_default_process_limit_is_64(tiny_task: Path, tmp_path: Path) -> None:
    e = evaluate(tiny_task, tmp_path, COUNT_FORKS)
    assert load_task(tiny_task).spec.limits.processes == 64 and e.ok and e.score in (62.0, 63.0)


def test_the_program_runs_unprivileged_and_its_workspace_comes_back(tiny_task: Path, tmp_path: Path) -> None:
    src = """import json, os
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
open("/workspace/out.txt", "w").write("x")
os.mkdir("/workspace/locked", 0)
open("/tmp/scratch", "w").write("x")
print(json.dumps({"value": 1.0, "uid": os.getuid(), "cap_eff": int(status["CapEff"], 16),
                  "cap_prm": int(status["CapPrm"], 16), "no_new_privs": int(status["NoNewPrivs"])}))
"""
    e = evaluate(tiny_task, tmp_path, src)
    assert e.ok, e.reason
    seen = json.loads((tmp_path / "work-cand" / "answer" / "answer.json").read_text())
    assert seen["uid"] != 0 and seen["cap_eff"] == 0 and seen["cap_prm"] == 0 and seen["no_new_privs"] == 1
    ws = tmp_path / "work-cand" / "program_ws"
    assert {p.lstat().st_uid for p in (ws, *ws.iterdir())} == {os.getuid()}  # cosci's own again after the run
    shutil.rmtree(tmp_path / "work-cand")


def test_a_program_cannot_signal_a_process_outside_its_sandbox(tiny_task: Path, tmp_path: Path) -> None:
    sentinel = subprocess.Popen(["sleep", "60"])
    try:
        src = f"""import json, os, signal
outcomes = []
for pid in ({sentinel.pid}, {os.getpid()}):
    try:
        os.kill(pid, signal.SIGKILL)
        outcomes.append("killed")
    except OSError as exc:
        outcomes.append(type(exc).__name__)
try:
    os.kill(-1, signal.SIGKILL)  # every process it may signal: only its own sandbox's
except OSError:
    pass
print(json.dumps({{"value": float(outcomes.count("killed")), "outcomes": outcomes}}))
"""
        e = evaluate(tiny_task, tmp_path, src)
        seen = json.loads((tmp_path / "work-cand" / "answer" / "answer.json").read_text())
        assert e.ok and e.score == 0.0 and seen["outcomes"] == ["ProcessLookupError", "ProcessLookupError"]
        assert sentinel.poll() is None  # still running
    finally:
        sentinel.kill()
        sentinel.wait()


def test_root_runs_without_a_user_namespace_others_with_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cosci.sandbox.bwrap.privileged", lambda: True)
    as_root = command([], ["/bin/true"], cwd="/", env={})
    monkeypatch.setattr("cosci.sandbox.bwrap.privileged", lambda: False)
    as_user = command([], ["/bin/true"], cwd="/", env={})
    assert "--unshare-user" not in as_root and "--unshare-all" not in as_root and "--unshare-net" in as_root
    assert as_root[as_root.index("--cap-drop") + 1] == "ALL" and as_root.count("--cap-add") == 2
    assert "--unshare-user" in as_user and "--unshare-all" in as_user and "--cap-add" not in as_user
    for cmd in (as_root, as_user):  # every mount point's parent is made crossable (0755)
        assert cmd[cmd.index("/run/cosci") - 2:cmd.index("/run/cosci")] == ["0755", "--dir"]


def test_sandbox_users_are_stable_and_distinct_per_workspace() -> None:
    # fixed paths: with tmp_path's random parent, 20 ids in 5,000 collide in about 4 % of runs (the birthday bound
    # the identity module's docstring means by "almost always")
    root = Path("/data/runs/r-1")
    uids = {identity.sandbox_uid(root / f"w{i}" / "program_ws") for i in range(20)}
    assert len(uids) == 20 and all(identity.UID_BASE <= u < identity.UID_BASE + identity.UID_SPAN for u in uids)
    assert identity.sandbox_uid(root / "w0" / "program_ws") == identity.sandbox_uid(root / "w0/program_ws")


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv") or not os.access("/usr/bin/python3", os.X_OK),
                    reason="needs root (to become an unprivileged caller), setpriv and /usr/bin/python3")
def test_an_unprivileged_caller_s_user_namespace_counts_its_own_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The form an unprivileged cosci uses, run by ``nobody`` (the system Python: this one lives under /root).
    The kernel counts per (user namespace, user): 30 other processes of the caller do not count."""
    monkeypatch.setattr("cosci.sandbox.bwrap.privileged", lambda: False)
    monkeypatch.setattr("cosci.sandbox.bwrap.python_dirs", lambda: [])
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    others = [subprocess.Popen([*nobody, "sleep", "30"]) for _ in range(30)]
    try:
        argv = ["/usr/bin/python3", LIMITS_PATH, "0", "0", "0", "16", "0", "--", "/usr/bin/python3", "-c", COUNT_FORKS]
        done = subprocess.run([*nobody, *command([], argv, cwd="/", env={})], capture_output=True, text=True,
                              timeout=60)
    finally:
        for p in others:
            p.kill()
            p.wait()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["value"] == 14.0  # 16 = python, bubblewrap's init, 14 children
