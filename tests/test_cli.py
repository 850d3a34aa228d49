"""The `cosci` session commands on a session run (without Prefect) on the scripted fake."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from cosci.config.schema import CosciConfig
from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from cosci.store import STORE_FILE, SessionStore
from cosci.supervisor.loop import Supervisor
from tests.conftest import FinishedCopy, make_config
from tests.conftest import run_cli as _cli


async def run_plain(config: CosciConfig) -> str:
    """Run a whole session in-process with the runtime as the runner (no Prefect); returns its id."""
    rt = await SessionRuntime.open(config, models_choice="fake")
    sup = Supervisor(config, rt.store, rt.budget, rt.execute)
    overview = await sup.finalize(await sup.run())
    rt.write_overview(overview)
    sid = rt.session_id
    await rt.close()
    return sid


async def open_only(config: CosciConfig) -> str:
    """Create a session and close it before any task runs (a stopped session); returns its id."""
    rt = await SessionRuntime.open(config, models_choice="fake")
    sid = rt.session_id
    await rt.close()
    return sid


@pytest.fixture
def finished(finished_copy: FinishedCopy, config: CosciConfig, fake: FakeBackend) -> tuple[Path, str]:
    """A finished session on the fake in the test's data folder (a copy: ``finished_copy``)."""
    return config.paths.data_dir, finished_copy(config.paths.data_dir)



def test_list_status_report(finished: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    data, sid = finished
    code, out, _ = _cli(capsys, "--data-dir", str(data), "list")
    assert code == 0 and sid in out and "done" in out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "status", sid)
    assert code == 0 and "hypotheses" in out and "matches" in out and "spent" in out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "report", sid)
    assert code == 0 and "# Executive summary" in out and "[H-" in out


def test_list_and_status_count_rejected_and_retired_hypotheses_apart(
    finished: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    total = len(store.hypotheses.all())
    rejected, retired = [h.id for h in store.hypotheses.ranked()[-2:]]
    store.hypotheses.set_state(rejected, "rejected")
    store.hypotheses.set_state(retired, "retired")
    pool = store.hypotheses.count()
    n = {s: len(store.hypotheses.all(states=(s,))) for s in ("rejected", "retired", "quarantined")}
    store.close()
    assert n["rejected"] >= 1 and n["retired"] >= 1  # the session may have retired some itself (evolution)
    code, out, _ = _cli(capsys, "--data-dir", str(data), "list")
    assert code == 0 and f"{pool:3d} hypotheses ({n['rejected']} rejected, {n['retired']} retired)" in out, out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "status", sid)
    (line,) = [line for line in out.splitlines() if line.startswith("hypotheses")]
    assert line.startswith(f"hypotheses   {pool} in the pool (") and line.endswith(
        f"; {n['rejected']} rejected, {n['retired']} retired, {n['quarantined']} quarantined; {total} in all"), line
    assert pool + sum(n.values()) == total


def test_feedback_reaches_the_record_and_rejection_moves_state(
    finished: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    store.sessions.update(status="paused")  # feedback is for sessions that will run again
    store.close()
    code, _, _ = _cli(
        capsys,
        "--data-dir",
        str(data),
        "feedback",
        sid,
        "--kind",
        "directive",
        "--text",
        "focus on drugs with CNS penetration",
    )
    assert code == 0
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    hid = store.hypotheses.ranked()[-1].id
    store.close()
    code, _, _ = _cli(capsys, "--data-dir", str(data), "feedback", sid, "--kind", "rejection", "--hypothesis", hid)
    assert code == 0
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    assert [f.text for f in store.logs.feedback(source="human", kind="directive")] == [
        "focus on drugs with CNS penetration"
    ]
    assert store.hypotheses.get(hid).state == "rejected"
    store.close()


def test_directive_feedback_reaches_the_next_generation_prompt(config: CosciConfig, fake: FakeBackend) -> None:
    import asyncio

    from cosci.domain import Task

    async def go() -> str:
        rt = await SessionRuntime.open(config, models_choice="fake")
        rt.store.logs.add_feedback("human", "directive", "prefer drugs that cross the blood-brain barrier")
        tid = rt.store.tasks.enqueue("generation", "GenerateHypothesis", "g1", payload={"mode": "literature"})
        task: Task | None = rt.store.tasks.get(tid or "")
        assert task is not None
        await rt.execute(task)
        await rt.close()
        return str(fake.calls_for("generation")[0].messages[0])

    assert "prefer drugs that cross the blood-brain barrier" in asyncio.run(go())


def test_version_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci --version` answered "the following arguments are required: command"."""
    from importlib.metadata import version

    assert _cli(capsys, "--version") == (0, f"cosci {version('cosci')}\n", "")


@pytest.mark.parametrize(
    "args", [["status", "s-nope"], ["report", "s-nope"], ["resume", "s-nope"], ["pause", "s-nope"]]
)
def test_unknown_sessions_give_one_line(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "--data-dir", str(tmp_path), *args)
    assert code == 2 and err.count("\n") == 1 and "no session 's-nope'" in err


def test_bad_feedback_gives_one_line(finished: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    data, sid = finished
    code, _, err = _cli(capsys, "--data-dir", str(data), "feedback", sid, "--kind", "directive", "--text", "x")
    assert code == 2 and err.count("\n") == 1 and "is done" in err
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    store.sessions.update(status="paused")
    store.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "feedback", sid, "--kind", "pin")
    assert code == 2 and "--hypothesis" in err
    code, _, err = _cli(
        capsys, "--data-dir", str(data), "feedback", sid, "--kind", "pin", "--hypothesis", "H-000000000000"
    )
    assert code == 2 and "no hypothesis" in err


def test_pause_and_abort_of_a_stopped_session(
    config: CosciConfig, fake: FakeBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    sid = asyncio.run(open_only(config))
    data = config.paths.data_dir
    code, out, _ = _cli(capsys, "--data-dir", str(data), "pause", sid)
    assert code == 0 and "not running" in out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "abort", sid)
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    assert store.sessions.status() == "aborting"
    store.close()


def test_resume_of_a_done_session_is_refused(finished: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    data, sid = finished
    code, _, err = _cli(capsys, "--data-dir", str(data), "resume", sid)
    assert code == 2 and "is done" in err


def test_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(capsys, "estimate", "experiment=oncology", "models=opus")
    assert code == 0 and "estimated cost ~$" in out and "generation" in out


def test_estimate_of_a_run_that_would_be_refused_exits_as_the_run_would(capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh user: `cosci estimate` said "a run is refused" and exited 0, where `cosci run` exits 2 (BudgetTooSmall,
    a CosciError): the estimate is printed, then the run's refusal in one line, exit 2."""
    code, out, err = _cli(capsys, "estimate", "experiment=demo", "models=fake", "run.budget_usd=0.05")
    assert code == 2 and "a run is refused" in out and "generation" in out
    assert err.count("\n") == 1 and "is too small: a first hypothesis" in err and "a run of this configuration" in err


def test_serve_needs_a_prefect_server_and_a_valid_cron(capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    code, _, err = _cli(capsys, "schedule", "experiment=demo", "models=fake", "--cron", "bad cron")
    assert code == 2 and "five-field cron" in err and err.count("\n") == 1
    code, _, err = _cli(capsys, "schedule", "experiment=demo", "models=fake")
    assert code == 2 and "PREFECT_API_URL" in err and err.count("\n") == 1


def test_compare_with_an_unknown_parent_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(capsys, "--data-dir", str(tmp_path), "compare", "--parent", "deadbeef")
    assert code == 2 and "no MLflow store at" in err and err.count("\n") == 1
    assert not (tmp_path / "mlflow.db").exists()  # looking creates nothing
    from mlflow.tracking import MlflowClient

    MlflowClient(f"sqlite:///{tmp_path / 'mlflow.db'}").search_experiments()
    capsys.readouterr()
    code, _, err = _cli(capsys, "--data-dir", str(tmp_path), "compare", "--parent", "deadbeef")
    assert code == 2 and "no MLflow run 'deadbeef'" in err and err.count("\n") == 1


def test_feedback_needs_text_and_a_live_session(finished: tuple[Path, str], config: CosciConfig, fake: FakeBackend,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    data, sid = finished
    code, _, err = _cli(capsys, "--data-dir", str(data), "feedback", sid, "--kind", "directive", "--text", "x")
    assert code == 2 and "is done" in err


def test_an_abort_marked_on_a_stopped_session_ends_it_at_resume(
    config: CosciConfig, fake: FakeBackend, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cosci abort` of a session nobody runs: its next resume writes the overview and ends it, calling no agent
    but the final meta-review."""
    import asyncio

    from cosci.supervisor.termination import StopReason

    sid = asyncio.run(open_only(config))
    data = config.paths.data_dir
    code, out, _ = _cli(capsys, "--data-dir", str(data), "abort", sid)
    assert code == 0 and "writes its overview and ends it" in out

    async def resume() -> StopReason:
        rt = await SessionRuntime.open(config, session_id=sid, models_choice="fake")
        sup = Supervisor(config, rt.store, rt.budget, rt.execute)
        reason = await sup.run()
        await sup.finalize(reason)
        await rt.close()
        return reason

    assert asyncio.run(resume()) == StopReason.EXTERNAL
    assert not [c for c in fake.calls if c.agent in ("generation", "reflection", "ranking", "evolution")]
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    assert store.sessions.status() == "done" and store.sessions.get().stop_reason == "aborted"
    store.close()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("models=nope", "a config group cannot change on resume"),
        ("experiment=oncology", "a config group cannot change on resume"),
        ("session.goal=xyz", "the research goal and its settings are fixed"),
        ("run.budget_usd", "is not key=value"),
        ("run.budget_usd=-3", "run.budget_usd"),
        ("nonsense.key=1", "nonsense"),
    ],
)
def test_bad_resume_overrides_are_one_line(config: CosciConfig, fake: FakeBackend, override: str, message: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    sid = asyncio.run(open_only(config))
    code, _, err = _cli(capsys, "--data-dir", str(config.paths.data_dir), "resume", sid, override)
    assert code == 2 and message in err and err.count("\n") == 1


@pytest.mark.parametrize("override", ["run.budgt=3", "nonsense.key=1"])
def test_a_misspelt_resume_key_gets_the_hint_run_gives(config: CosciConfig, fake: FakeBackend, override: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci resume <id> run.budgt=3` said only "run.budgt: unknown key", where `cosci run` said
    how to see every key. Both say the same line, with the nearest key when there is one."""
    import asyncio

    from cosci.config.load import ConfigError, compose

    sid = asyncio.run(open_only(config))
    code, _, err = _cli(capsys, "--data-dir", str(config.paths.data_dir), "resume", sid, override)
    with pytest.raises(ConfigError) as run_err:
        compose(["experiment=demo", "models=fake", override])
    assert code == 2 and err == f"cosci: {run_err.value}\n", err
    assert "`python -m cosci.run --cfg job` prints every key" in err
    assert ("did you mean run.budget_usd?" in err) == (override == "run.budgt=3"), err


def test_a_running_session_is_shown_and_refused(config: CosciConfig, fake: FakeBackend,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A session whose process is gone shows "stopped"; one held by a process refuses a second resume (exit 2)."""
    import asyncio

    from cosci.session.folder import SessionFolder

    sid = asyncio.run(open_only(config))
    data = config.paths.data_dir
    code, out, _ = _cli(capsys, "list", "--data-dir", str(data))  # --data-dir also after the command
    assert code == 0 and f"{sid}  stopped" in out
    folder = SessionFolder(data, sid)
    folder.lock()
    try:
        code, out, _ = _cli(capsys, "list", "--data-dir", str(data))
        assert f"{sid}  running" in out
        code, _, err = _cli(capsys, "--data-dir", str(data), "resume", sid)
        assert code == 2 and "already running in another process" in err
    finally:
        folder.unlock()


def test_serve_against_a_server_that_is_not_there(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("PREFECT_API_URL", f"http://127.0.0.1:{port}/api")
    code, _, err = _cli(capsys, "schedule", "experiment=demo", "models=fake")
    assert code == 2 and "no Prefect server answers" in err and err.count("\n") == 1


def test_a_main_block_is_the_last_statement_of_its_module() -> None:
    """Fresh-user report: `python -m cosci.cli status` failed with NameError, because a function the commands use
    was defined below ``if __name__ == "__main__": main()`` (the installed script, importing the whole module
    first, worked)."""
    import ast

    root = Path(__file__).resolve().parents[1]
    for path in [*root.joinpath("cosci").rglob("*.py"), *root.joinpath("flows").rglob("*.py"),
                 *root.joinpath("bench").glob("*.py")]:
        body = ast.parse(path.read_text(encoding="utf-8")).body
        mains = [i for i, node in enumerate(body) if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)]
        assert mains in ([], [len(body) - 1]), f"{path}: the __main__ block is not last"


def test_a_count_of_one_is_singular(tmp_path: Path, fake: FakeBackend, finished_copy: FinishedCopy,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from cosci.text import counted

    data = tmp_path / "data"
    sid = finished_copy(data, "session.project=p")  # the project's one session, finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    # one left in the pool: the tournament's players and any hypothesis the stop left unreviewed (its state depends
    # on where the finished session stopped, so ranked() alone left two in one run of make test)
    pool = [h for h in store.hypotheses.all() if h.state not in ("rejected", "retired", "quarantined")]
    for h in pool[1:]:
        store.hypotheses.set_state(h.id, "rejected")
    store.close()
    code, out, _ = _cli(capsys, "--data-dir", str(data), "list")
    assert code == 0 and "  1 hypothesis (" in out, out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "project", "list")
    assert code == 0 and out.startswith("p  1 session  ") and " 1 sessions" not in out, out
    assert [counted(n, "rejected direction") for n in (0, 1, 2)] == [
        "0 rejected directions", "1 rejected direction", "2 rejected directions"]
    assert counted(1, "match", "matches") == "1 match" and counted(3, "match", "matches") == "3 matches"


@pytest.mark.parametrize(
    ("args", "message", "help_of"),
    [
        (["status"], "the following arguments are required: session", "cosci status"),
        (["status", "s-x", "--verbose"], "unrecognized arguments: --verbose", "cosci status"),
        (["status", "s-x", "extra"], "unrecognized arguments: extra", "cosci status"),
        (["rate", "s-x", "H-0", "--score", "3", "--bogus"], "unrecognized arguments: --bogus", "cosci rate"),
        (["rate", "s-x", "H-0", "--prefer", "c"], "argument --prefer: invalid choice: 'c'", "cosci rate"),
        (["result", "s-x", "H-0"], "one of the arguments --outcome --withdraw is required", "cosci result"),
        (["result", "s-x", "H-0", "--outcome", "refuted", "--withdraw", "O-1"],
         "argument --withdraw: not allowed with argument --outcome", "cosci result"),
        (["rate", "s-x", "H-0", "--why"], "argument --why: expected one argument", "cosci rate"),
        (["eval", "moose-chem", "--bogus", "models=fake"], "unrecognized arguments: --bogus", "cosci eval"),
        # fresh-user trial: an option of another command is said where it is
        (["report", "s-x", "--format", "html"], "unrecognized arguments: --format html; the page is `cosci report "
         "<id> --html`; Markdown, JSON Lines, BibTeX and RIS are `cosci export <id> --format md|jsonl|bibtex|ris`",
         "cosci report"),
        (["report", "s-x", "--format=md"], "unrecognized arguments: --format=md; the page is", "cosci report"),
        (["estimate", "--goal", "a goal", "models=fake"], "unrecognized arguments: --goal; `cosci estimate` "
         "prices a configuration, which the goal's words change little: give its overrides, as `cosci estimate "
         "experiment=oncology models=opus`", "cosci estimate"),
        # fresh-user trial: `--goa` ran as `--goal`; abbreviations are off, the option meant is named
        (["run", "--goa", "Suggest drugs for AML", "models=fake"], "unrecognized arguments: --goa; did you mean "
         "--goal?", "cosci run"),
        (["report", "s-x", "--htm"], "unrecognized arguments: --htm; did you mean --html?", "cosci report"),
        (["rate", "s-x", "H-0", "--w", "x"], "unrecognized arguments: --w x; did you mean --why or --withdraw?",
         "cosci rate"),
        (["screen", "--fiel=goals.txt"], "unrecognized arguments: --fiel=goals.txt; did you mean --file?",
         "cosci screen"),
        (["list", "--data", "d"], "unrecognized arguments: --data d; did you mean --data-dir?", "cosci list"),
        # an unknown option before the command took the next word as the command ("invalid choice: 'd'")
        (["--data-di", "d", "list"], "unknown option --data-di; did you mean --data-dir?", "cosci"),
        (["lst"], "no command 'lst'; did you mean `cosci list`?", "cosci"),
        (["project", "lst"], "no command 'lst'; did you mean `cosci project list`?", "cosci project"),
        (["frobnicate"], "no command 'frobnicate' (commands: list, run,", "cosci"),
        ([], "give a command: list, run, status,", "cosci"),
        (["--hepl"], "unknown option --hepl; did you mean --help?", "cosci"),
        (["report", "s-x", "--hlep"], "unrecognized arguments: --hlep; did you mean --help?", "cosci report"),
        # a prefix names the command's own options, not the --help every parser has
        (["report", "s-x", "--h"], "unrecognized arguments: --h; did you mean --html?", "cosci report"),
    ],
)
def test_argparse_errors_are_one_line(args: list[str], message: str, help_of: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: an unknown option or a missing argument printed argparse's usage block; it is one line,
    ``cosci: <message> (see `cosci <command> --help`)``, exit 2."""
    code, out, err = _cli(capsys, "--data-dir", str(tmp_path), *args)
    assert code == 2 and not out and err.count("\n") == 1, err
    assert err.startswith(f"cosci: {message}") and err.endswith(f"(see `{help_of} --help`)\n"), err
    assert "usage:" not in err


def test_no_parser_takes_an_abbreviated_option() -> None:
    """Every ``cosci`` parser refuses abbreviations (fresh-user trial: ``cosci run --goa`` ran as ``--goal``)."""
    import argparse

    from cosci.cli import parser

    root = parser()
    subs = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    assert not root.allow_abbrev and all(not sp.allow_abbrev for sp in subs.choices.values())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rate", "lab"], "a rating needs <session|project> and one or two hypothesis ids (got 0;"),
        (["result", "lab", "--outcome", "supported"], "a result needs <session|project> and one hypothesis id"),
        (["project", "show"], "`project show` needs a project name"),
    ],
)
def test_an_error_says_cosci_once(args: list[str], message: str, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: ``cosci: cosci rate needs ...``; the prefix is said once."""
    code, _, err = _cli(capsys, "--data-dir", str(tmp_path), *args)
    assert code == 2 and err == f"cosci: {err.removeprefix('cosci: ')}" and message in err, err
    assert "cosci: cosci" not in err


def test_no_error_message_starts_with_the_command_name() -> None:
    """Every message an error is raised with is printed after ``cosci: ``: none of them starts with ``cosci ``
    itself (which would print ``cosci: cosci ...``)."""
    import ast

    root = Path(__file__).resolve().parents[1]
    said = []
    for path in [*root.joinpath("cosci").rglob("*.py"), *root.joinpath("flows").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and node.exc.args:
                first = node.exc.args[0]
                if isinstance(first, ast.JoinedStr) and first.values:
                    first = first.values[0]
                if isinstance(first, ast.Constant) and str(first.value).startswith("cosci "):
                    said.append(f"{path.name}:{node.lineno}")
    assert not said


def test_status_counts_the_researchers_ratings_and_results(finished: tuple[Path, str],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci status` never counted `cosci rate` / `cosci result` records."""
    data, sid = finished
    code, out, _ = _cli(capsys, "--data-dir", str(data), "status", sid)
    assert code == 0 and "researcher   0 ratings (0 preferences, 0 scores), 0 experimental results\n" in out, out
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    a, b = [h.id for h in store.hypotheses.ranked()[:2]]
    store.close()
    for args in (["rate", sid, a, b, "--prefer", "tie"], ["rate", sid, a, "--score", "4"],
                 ["rate", sid, b, "--score", "2"], ["result", sid, a, "--outcome", "inconclusive"],
                 ["result", sid, b, "--outcome", "refuted"], ["result", sid, a, "--outcome", "inconclusive"],
                 ["rate", sid, b, a, "--prefer", "a"]):  # a changed mind: the pair's later preference replaces it
        code, _, err = _cli(capsys, "--data-dir", str(data), *args)
        assert code == 0, err
    code, out, _ = _cli(capsys, "--data-dir", str(data), "status", sid)
    assert ("researcher   4 ratings (2 preferences, 1 replaced by a later one of the same pair, 2 scores), "
            "3 experimental results (refuted 1, inconclusive 2)\n" in out), out


def test_a_directory_given_as_the_data_file_is_named_a_directory(
        finished: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `--file <a directory>` said "no such file"."""
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    h = store.hypotheses.ranked()[0].id
    store.close()
    code, _, err = _cli(capsys, "--data-dir", str(data), "result", sid, h, "--outcome", "supported",
                        "--file", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and f"--file {tmp_path}: is a directory" in err, err
    assert "no such file" not in err
    (tmp_path / "plate.csv").write_text("well,od\nA1,0.3\n", encoding="utf-8")
    code, _, err = _cli(capsys, "--data-dir", str(data), "result", sid, h, "--outcome", "supported",
                          "--file", str(tmp_path / "plate.csv"))
    assert code == 0, err
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    assert [o.file_path for o in store.researcher.observations()] == [str(tmp_path / "plate.csv")]  # the dir: none
    store.close()


def test_an_id_of_the_wrong_kind_is_named_as_such(finished: tuple[Path, str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: a session id given for a hypothesis id said "no hypothesis s-...", a hypothesis id given
    for a session said "no session 'H-...'"; the line says what kind of id was given and what was expected."""
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    store.sessions.update(status="paused")  # feedback is for sessions that will run again
    h = store.hypotheses.ranked()[0].id
    store.close()
    as_hypothesis = f"{sid} is a session id, not a hypothesis id (a hypothesis id is H- and 12 hex digits"
    as_session = f"{h} is a hypothesis id, not a session id (a session id is s-YYYYmmdd-HHMMSS-xxxxxx"
    for args, message in [
        (["rate", sid, sid, "--score", "3"], as_hypothesis),
        (["rate", sid, h, sid, "--prefer", "a"], as_hypothesis),
        (["result", sid, sid, "--outcome", "supported"], as_hypothesis),
        (["feedback", sid, "--kind", "pin", "--hypothesis", sid], as_hypothesis),
        (["release", sid, sid, "--why", "safe"], as_hypothesis),
        (["status", h], as_session),
        (["report", h], as_session),
        (["resume", h], as_session),
        (["rate", h, "--score", "3"], f"{h} is a hypothesis id, not a session id or a project name"),
        (["result", "O-0123456789ab", h, "--outcome", "refuted"], "O-0123456789ab is a result id, not a session id"),
        (["rate", sid, "H-000000000000", "--score", "3"], f"no hypothesis 'H-000000000000' in session {sid}"),
        (["status", "s-nope"], "no session 's-nope'"),
    ]:
        code, _, err = _cli(capsys, "--data-dir", str(data), *args)
        assert code == 2 and err.count("\n") == 1 and message in err, (args, err)
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    assert not store.researcher.ratings() and not store.researcher.observations()
    assert not store.logs.feedback(source="human")
    store.close()


def test_a_contradicting_result_or_rating_is_recorded_with_one_warning(
        finished: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: a supported result on a refuted hypothesis and a rating of a rejected one were taken
    without a word. They are still recorded (the lab's result is data), with one warning line saying the state;
    the hypothesis stays rejected and a preference with it stays out of the Bradley–Terry fit."""
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    refuted, other = [h.id for h in store.hypotheses.ranked()[:2]]
    store.close()
    code, out, err = _cli(capsys, "--data-dir", str(data), "result", sid, refuted, "--outcome", "refuted")
    assert code == 0 and "warning" not in err, err
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    (first,) = [o.id for o in store.researcher.observations()]
    store.close()
    code, out, err = _cli(capsys, "--data-dir", str(data), "result", sid, refuted, "--outcome", "supported",
                          "--measure", "IC50_uM=0.4")
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert code == 0 and "result O-" in out and "(supported; rejected; measures" in out, (out, err)
    assert warnings == [f"cosci: warning: {refuted} is rejected, refuted by result {first} (out of the tournament); "
                        "the supported result is recorded and the hypothesis stays rejected"], err
    code, out, err = _cli(capsys, "--data-dir", str(data), "rate", sid, refuted, "--score", "5")
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert code == 0 and f"{refuted}: score 5/5" in out, err
    assert warnings == [f"cosci: warning: {refuted} is rejected (out of the tournament): the rating is recorded and "
                        "reaches later meta-reviews"], err
    code, out, err = _cli(capsys, "--data-dir", str(data), "rate", sid, refuted, other, "--prefer", "a")
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert code == 0 and "Bradley–Terry" not in out, out  # it does not say the preference enters the fit
    assert warnings == [f"cosci: warning: {refuted} is rejected (out of the tournament): the rating is recorded and "
                        "reaches later meta-reviews, but does not enter the Bradley–Terry fit"], err
    code, out, err = _cli(capsys, "--data-dir", str(data), "rate", sid, other, "--score", "3")
    assert code == 0 and "warning" not in err, err  # a tournament player: nothing to say
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    assert store.hypotheses.get(refuted).state == "rejected"  # type: ignore[union-attr]
    assert [o.outcome for o in store.researcher.observations()] == ["refuted", "supported"]
    assert [r.kind for r in store.researcher.ratings()] == ["score", "preference", "score"]
    assert refuted not in store.matches.bt() and other in store.matches.bt()
    store.close()


def test_a_preference_reversing_an_earlier_one_is_recorded_with_one_warning(
        finished: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: preferring b over a after preferring a over b was taken without a word. It is recorded
    (the fit takes the later one), with one warning naming the earlier rating; a tie or an agreeing preference says
    none."""
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    a, b = [h.id for h in store.hypotheses.ranked()[:2]]
    store.close()

    def rate(*args: str) -> list[str]:
        code, _, err = _cli(capsys, "--data-dir", str(data), "rate", sid, *args)
        assert code == 0, err
        return [line for line in err.splitlines() if "warning" in line]

    assert rate(a, b, "--prefer", "a") == []
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    (first,) = [r.id for r in store.researcher.ratings()]
    store.close()
    assert rate(b, a, "--prefer", "a") == [  # the pair named the other way round: b over a
        f"cosci: warning: preferring {b} over {a} reverses your earlier rating {first} ({a} preferred); both are "
        "recorded and the Bradley–Terry fit takes this one"]
    assert rate(a, b, "--prefer", "tie") == []
    assert rate(a, b, "--prefer", "b") == []  # agrees with the latest strict one
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    latest = store.researcher.ratings()[-1].id
    store.close()
    assert rate(a, b, "--prefer", "a") == [
        f"cosci: warning: preferring {a} over {b} reverses your earlier rating {latest} ({b} preferred); both are "
        "recorded and the Bradley–Terry fit takes this one"]
    assert rate(a, "--score", "1") == []  # a score is not an order
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    assert [(r.kind, r.prefer) for r in store.researcher.ratings()] == [
        ("preference", "a"), ("preference", "a"), ("preference", "tie"), ("preference", "b"), ("preference", "a"),
        ("score", None)]
    store.close()


def test_the_same_rating_given_twice_is_recorded_once(finished: tuple[Path, str],
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: a rating command run twice kept two identical ratings. The repeat of the latest rating of the
    same pair (either order) or hypothesis, with the same why, records nothing and names the one standing; a
    different why, a changed preference or score, or a return to an earlier preference is recorded."""
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    a, b = [h.id for h in store.hypotheses.ranked()[:2]]
    store.close()

    def rate(*args: str) -> str:
        code, out, err = _cli(capsys, "--data-dir", str(data), "rate", sid, *args)
        assert code == 0, err
        return out

    def kept() -> list[tuple[str | None, int | None, str]]:
        store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
        try:
            return [(r.prefer, r.score, r.why) for r in store.researcher.ratings()]
        finally:
            store.close()

    rate(a, b, "--prefer", "a", "--why", "cleaner mechanism")
    (first,) = [r for r in kept()]
    out = rate(b, a, "--prefer", "b", "--why", "cleaner mechanism")  # the same choice, named the other way round
    assert "same as your rating RR-" in out and "nothing new was recorded" in out and len(kept()) == 1, out
    rate(a, b, "--prefer", "a", "--why", "and cheaper")  # a new reason is new data
    rate(a, b, "--prefer", "tie")
    assert "nothing new" in rate(b, a, "--prefer", "tie")
    rate(a, b, "--prefer", "a")  # back to a after the tie: recorded
    rate(a, "--score", "4")
    assert "nothing new" in rate(a, "--score", "4")
    rate(a, "--score", "2")
    assert kept() == [first, ("a", None, "and cheaper"), ("tie", None, ""), ("a", None, ""), (None, 4, ""),
                      (None, 2, "")]


def test_the_same_rating_pressed_twice_at_once_is_recorded_once(finished: tuple[Path, str]) -> None:
    """Fresh-user trial: two identical `cosci rate` commands at the same moment both passed the repeat's test and were
    both recorded. The test and the insert are one write transaction: both presses have read no rating (the screen
    of their why, between the first test and the insert, waits for the other), and one rating is stored, the other
    press naming it."""
    import threading

    from cosci.session.folder import SessionFolder
    from cosci.session.researcher import rate

    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    a, b = [h.id for h in store.hypotheses.ranked()[:2]]
    store.close()
    both = threading.Barrier(2, timeout=60)
    lines: list[str] = []

    def screened(*_: object) -> None:
        both.wait()

    def press() -> None:
        folder = SessionFolder.existing(data, sid)
        _, line = rate(folder, [a, b], "a", None, "cleaner mechanism", screened, warn=lambda _: None)
        lines.append(line)

    threads = [threading.Thread(target=press) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(lines) == 2 and sum("nothing new was recorded" in line for line in lines) == 1, lines
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    try:
        assert [(r.prefer, r.why) for r in store.researcher.ratings()] == [("a", "cleaner mechanism")]
    finally:
        store.close()


def test_control_characters_in_an_error_line_are_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci status "$(printf 'a\\tb\\nc')"` printed two lines, and an ANSI escape in an id reached
    the terminal; every `cosci:` line escapes control characters as repr does."""
    for sid, shown in [("a\tb\nc", "a\\tb\\nc"), ("x\x1b[31mRED", "x\\x1b[31mRED")]:
        code, out, err = _cli(capsys, "--data-dir", str(tmp_path), "status", sid)
        assert code == 2 and not out and err.count("\n") == 1 and "\x1b" not in err and "\t" not in err, err
        assert shown in err, err
    code, _, err = _cli(capsys, "--data-dir", str(tmp_path), "status", "s-x", "--b\x1bad")  # argparse's line too
    assert code == 2 and "\x1b" not in err and "--b\\x1bad" in err, err


def test_researcher_texts_with_control_characters_are_refused(finished: tuple[Path, str],
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A --why / --notes / --text holding a control character other than a line break or tab is refused in one line,
    before screening, and nothing is recorded."""
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    a, b = [h.id for h in store.hypotheses.ranked()[:2]]
    store.close()
    for args, flag in [(["rate", sid, a, "--score", "3", "--why", "fine\x01"], "--why"),
                       (["rate", sid, a, b, "--prefer", "a", "--why", "\x1b[31mred"], "--why"),
                       (["result", sid, a, "--outcome", "supported", "--notes", "od\x07 0.3"], "--notes"),
                       (["result", sid, a, "--outcome", "supported", "--measure", "assay=HT\x00RF"], "--measure")]:
        code, out, err = _cli(capsys, "--data-dir", str(data), *args)
        assert code == 2 and not out and err.count("\n") == 1 and f"{flag} holds a control character" in err, err
    for args, flag in [(["rate", sid, a, "--score", "3", "--why", "caf\udce9"], "--why"),  # bytes not UTF-8
                       (["result", sid, a, "--outcome", "supported", "--notes", "caf\udce9"], "--notes")]:
        code, out, err = _cli(capsys, "--data-dir", str(data), *args)
        assert code == 2 and not out and err.count("\n") == 1 and f"{flag} is not valid UTF-8" in err, err
    code, _, err = _cli(capsys, "--data-dir", str(data), "rate", sid, a, "--score", "3", "--why",
                        "line one\n\tline two")
    assert code == 0, err  # line breaks and tabs are text
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    assert len(store.researcher.ratings()) == 1 and not store.researcher.observations()
    store.close()


def test_researcher_texts_with_bidirectional_controls_are_refused(finished: tuple[Path, str],
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A --text / --why holding U+202A-U+202E or U+2066-U+2069 is refused as a goal holding one is (it would show
    reversed in the report and be screened as a text the researcher did not see); nothing is recorded."""
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    store.sessions.update(status="paused")  # feedback is for sessions that will run again
    a = store.hypotheses.ranked()[0].id
    store.close()
    for args, flag in [(["feedback", sid, "--kind", "directive", "--text", "focus on \u202eCNS\u202c drugs"], "--text"),
                       (["rate", sid, a, "--score", "3", "--why", "\u2067plausible\u2069"], "--why")]:
        code, out, err = _cli(capsys, "--data-dir", str(data), *args)
        assert code == 2 and not out and err.count("\n") == 1, err
        assert f"{flag} holds a bidirectional control character (U+20" in err and "nothing was recorded" in err, err
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    assert not store.logs.feedback(source="human") and not store.researcher.ratings()
    store.close()


def test_hypothesis_ids_in_errors_are_quoted_and_near_misses_hinted(
        finished: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `no hypothesis H-97481200707d  in session` (the trailing space invisible) and `no hypothesis
    in session` for ''; the id is quoted, and an id with spaces around is told the id form (an id in another case is
    the id: tests/session/test_inputs.py)."""
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    h = store.hypotheses.ranked()[0].id
    store.close()
    shape = "(a hypothesis id is H- and 12 hex digits"
    for given, hinted in [(h + " ", True), (" " + h.upper(), True), ("", False), ("H-000000000000", False)]:
        code, _, err = _cli(capsys, "--data-dir", str(data), "rate", sid, given, "--score", "3")
        assert code == 2 and err.count("\n") == 1 and f"no hypothesis {given!r} in session {sid}" in err, (given, err)
        assert (shape in err) == hinted, (given, err)
        code, _, said = _cli(capsys, "--data-dir", str(data), "release", sid, given, "--why", "a false positive")
        assert code == 2 and said == err, (given, said)  # `cosci release` gives the hint `cosci rate` gives


def test_an_empty_data_file_is_refused_and_a_recorded_one_is_named(
        finished: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: an empty --file was accepted silently; it is refused, nothing recorded. The recorded line
    names the attached file and its size; a done session's line says where the relatives' reviews go."""
    data, sid = finished
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    h = store.hypotheses.ranked()[0].id
    store.close()
    (tmp_path / "empty.csv").write_bytes(b"")
    code, out, err = _cli(capsys, "--data-dir", str(data), "result", sid, h, "--outcome", "supported",
                          "--file", str(tmp_path / "empty.csv"))
    assert code == 2 and not out and err.count("\n") == 1 and "empty.csv: the file is empty" in err, err
    store = SessionStore.open(data / "sessions" / sid / STORE_FILE, sid)
    assert not store.researcher.observations()
    store.close()
    (tmp_path / "plate.csv").write_text("well,od\nA1,0.3\n", encoding="utf-8")
    code, out, err = _cli(capsys, "--data-dir", str(data), "result", sid, h, "--outcome", "supported",
                          "--file", str(tmp_path / "plate.csv"))
    assert code == 0 and "; file plate.csv, 15 bytes)" in out, out
    assert "none queued" not in out and "the session is done and in no project" in out, out


def test_status_names_cosci_feedback_and_a_few_held_out_verdicts_as_a_count(
        finished: tuple[Path, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `feedback 1 system, 0 researcher` above the `researcher` ratings line, and `agrees ... on
    50 % of 1 held-out verdict`; the feedback line names `cosci feedback`, and under 10 verdicts a count is said."""
    from cosci.tournament.judge_stats import JudgeStats, Share

    data, sid = finished
    code, out, _ = _cli(capsys, "--data-dir", str(data), "status", sid)
    assert code == 0 and " from cosci feedback\n" in out and " researcher\n" not in out, out
    nan = float("nan")
    few = JudgeStats(first_shown=Share.of(1, 1), flips=Share.of(0, 0), draw_rate=0.0, invalid_rate=0.0,
                     bt_agreement=1.0, bt_agreement_n=1, bt_agreement_in_sample=nan, calls=1, matches=1)
    line = few.lines(0.15)[1]
    assert "on 1 of 1 held-out verdict (" in line and "%" not in line.split("(")[0], line
    many = JudgeStats(first_shown=Share.of(1, 1), flips=Share.of(0, 0), draw_rate=0.0, invalid_rate=0.0,
                      bt_agreement=0.75, bt_agreement_n=40, bt_agreement_in_sample=nan, calls=1, matches=1)
    assert " of 40 held-out verdicts" in many.lines(0.15)[1] and "30 of 40" not in many.lines(0.15)[1]


def _column(lines: list[str], text: str) -> set[int]:
    """Where ``text`` starts on each of ``lines`` holding it: one column when the table lines up."""
    return {line.index(text) for line in lines if text in line}


def test_list_and_project_show_line_up_and_say_measures_in_words(
        finished_copy: FinishedCopy, tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci list` and `cosci project show` rows drifted apart (a stop reason longer than its
    11-character field, "match" against "matches"), and a result's measures showed as raw JSON, ``{}``."""
    data = tmp_path / "data"
    import asyncio

    done = finished_copy(data, "session.project=p")  # stops on max_hypotheses (14 characters)
    opened = asyncio.run(open_only(make_config(data, "session.project=p", "run.seed=1")))  # stopped, no stop reason
    store = SessionStore.open(data / "sessions" / done / STORE_FILE, done)
    a, b = [h.id for h in store.hypotheses.ranked()[:2]]
    store.close()
    for args in (["--measure", "ic50_nM=12.5", "--measure", "assay=HTRF"], []):
        code, _, err = _cli(capsys, "--data-dir", str(data), "result", done, a if args else b,
                            "--outcome", "inconclusive", *args)
        assert code == 0, err
    code, out, _ = _cli(capsys, "--data-dir", str(data), "list")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3 and lines[0].startswith("session ") and lines[0].rstrip().endswith("goal")
    goal = " ".join(make_config(data).session.goal.split())[:20]
    assert _column(lines[1:], goal) == {lines[0].index("goal")} and len(_column(lines[1:], " match")) == 1, out
    assert len(_column(lines[1:], "hypotheses (")) == 1, out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "project", "show", "p")
    assert code == 0 and "{" not in out, out
    sessions = out.split("sessions:\n")[1].split("\n\n")[0].splitlines()
    assert {done, opened} <= {line.split()[0] for line in sessions} and len(_column(sessions, goal)) == 1, out
    results = [line.strip() for line in out.split("experimental results:\n")[1].split("\n\n")[0].splitlines()]
    assert f"[{a}]  {done}  inconclusive  measures: ic50_nM = 12.5, assay = 'HTRF' (text)" in results, out
    assert f"[{b}]  {done}  inconclusive  no measures recorded" in results, out
    best = out.split("refuted or rejected ones never):\n")[1].split("\n\n")[0].splitlines()
    assert len(_column(best, done)) == 1, out


def test_the_report_page_endings_have_one_home() -> None:
    """``HTML_SUFFIXES`` was defined twice (the CLI and the report commands); both read ``cosci/report/formats.py``."""
    import cosci.cli
    import cosci.report.commands
    import cosci.report.formats

    assert cosci.cli.HTML_SUFFIXES is cosci.report.formats.HTML_SUFFIXES
    assert cosci.report.commands.HTML_SUFFIXES is cosci.report.formats.HTML_SUFFIXES


def test_a_cut_text_ends_with_an_ellipsis_a_bt_score_is_signed_and_no_claims_get_no_audit_score(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci list` and `cosci project show` cut a goal or title without a sign of it, the page
    showed a BT score as ``4.06`` where `cosci status` shows ``+4.06``, and an overview with no claims got an audit
    score."""
    from cosci.report.data import collect
    from cosci.report.render import render_html
    from cosci.session.folder import SessionFolder
    from tests.store.rows import session_with

    data = tmp_path / "data"
    goal = "Find approved drugs to repurpose for acute myeloid leukemia that resist cytarabine in relapsed patients"
    title = "Metformin depletes leukemic stem cells through AMPK activation and mitochondrial stress in relapsed AML"
    sid, (a, b) = session_with(data, ("Metformin depletes leukemic stem cells", "Itraconazole blocks SMO"),
                               f"session.goal={goal}", "session.project=p")
    with SessionFolder(data, sid).store() as store:
        with store.db.tx() as c:
            c.execute("UPDATE hypotheses SET title=? WHERE id=?", (title, a))
        store.matches.save_bt({a: (4.06, 3.1, 5.0), b: (-4.06, -5.0, -3.1)}, 2, time.time())
        store.logs.event("overview_checked", {"claims": [], "claims_total": 0, "claims_traceable": 0,
                                              "audit": {"status": "done", "overall_score": 0.7}})
        store.sessions.update(status="done")
        from cosci.session.runtime import sync_project

        sync_project(SessionFolder(data, sid).frozen_config(), store)
        page = render_html(collect(store))
    code, out, _ = _cli(capsys, "--data-dir", str(data), "list")
    assert code == 0 and out.splitlines()[1].endswith(goal[:59] + "…"), out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "project", "show", "p")
    assert code == 0 and f"  {sid}  done  -  {goal[:59]}…\n" in out and f"{title[:69]}…\n" in out, out
    assert "BT +4.06" in out, out
    code, out, _ = _cli(capsys, "--data-dir", str(data), "status", sid)
    assert code == 0 and f"{a} +4.06 [+3.10, +5.00]" in out, out
    assert "audit        none: the overview has no claims to audit" in out and "0.70" not in out, out
    assert ">+4.06</td>" in page and ">-4.06</td>" in page and ">4.06<" not in page
    assert "Blind audit: none: the overview has no claims to audit" in page and "score 0.70" not in page


def test_project_show_says_a_killed_session_is_stopped_as_list_does(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci project show` printed the stored status, so a killed session read "running". It reads
    the status as `cosci list` and `cosci status` do (SessionFolder.shown_status: no process holds the lock)."""
    from cosci.session.folder import SessionFolder
    from cosci.session.runtime import sync_project
    from tests.store.rows import session_with

    data = tmp_path / "data"
    sid, _ = session_with(data, ("Metformin depletes leukemic stem cells",), "session.project=p")
    folder = SessionFolder(data, sid)
    with folder.store() as store:
        assert store.sessions.status() == "running"  # as a killed process leaves it
        sync_project(folder.frozen_config(), store)

    def shown() -> tuple[str, str]:
        _, listed, _ = _cli(capsys, "--data-dir", str(data), "list")
        code, out, _ = _cli(capsys, "--data-dir", str(data), "project", "show", "p")
        assert code == 0, out
        return listed.splitlines()[1].split()[1], out.split("sessions:\n")[1].splitlines()[0].split()[1]

    assert shown() == ("stopped", "stopped")
    folder.lock()  # a process runs it
    try:
        assert shown() == ("running", "running")
    finally:
        folder.unlock()


def test_resume_of_a_session_paused_in_its_process_refuses_overrides(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci resume <sid> run.budget_usd=2` of a session paused in a process that waits printed
    "resumed", exit 0, and the override was lost. It is refused in one line (exit 2), the session stays paused; with
    no override it resumes in that process."""
    from cosci.session.folder import SessionFolder
    from tests.store.rows import session_with

    data = tmp_path / "data"
    sid, _ = session_with(data, ("Metformin depletes leukemic stem cells",))
    folder = SessionFolder(data, sid)
    folder.lock()  # the process that waits
    try:
        code, _, err = _cli(capsys, "--data-dir", str(data), "pause", sid)
        assert code == 0, err
        code, out, err = _cli(capsys, "--data-dir", str(data), "resume", sid, "run.budget_usd=2")
        assert code == 2 and not out and err.count("\n") == 1, err
        assert (f"{sid} is paused in a running process, which continues with its own configuration; overrides "
                "(run.budget_usd=2) apply only when resuming a stopped session") in err
        with folder.store() as store:
            assert store.sessions.status() == "paused"
        code, out, err = _cli(capsys, "--data-dir", str(data), "resume", sid)
        assert code == 0 and "resumed (the running process continues)" in out, err
    finally:
        folder.unlock()


def test_a_data_dir_that_is_a_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``--data-dir`` or COSCI_DATA_DIR naming a file said "no sessions under …/sessions" with exit 0 (fresh-user
    trial); a folder that does not exist yet is still an empty data folder."""
    a_file = tmp_path / "results.dat"
    a_file.write_bytes(b"\x00\x01binary")
    code, out, err = _cli(capsys, "--data-dir", str(a_file), "list")
    assert code == 2 and out == "" and err.count("\n") == 1 and "is a file, not a data folder" in err, err
    monkeypatch.setenv("COSCI_DATA_DIR", str(a_file))
    code, _, err = _cli(capsys, "status", "s-20261203-120000-abcdef")
    assert code == 2 and "is a file, not a data folder" in err, err
    assert a_file.read_bytes() == b"\x00\x01binary"
    code, out, _ = _cli(capsys, "--data-dir", str(tmp_path / "new"), "list")
    assert code == 0 and "no sessions" in out
    # fresh-user trial: `--data-dir /nonexist list` read as an empty data folder; a typo shows
    assert out == f"no sessions under {tmp_path / 'new' / 'sessions'} ({tmp_path / 'new'} does not exist: is " \
                  "--data-dir mistyped?)\n", out
    (tmp_path / "new").mkdir()
    assert _cli(capsys, "--data-dir", str(tmp_path / "new"), "list")[1] == \
        f"no sessions under {tmp_path / 'new' / 'sessions'}\n"
