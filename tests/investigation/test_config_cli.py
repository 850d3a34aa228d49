"""The investigation's configuration (composed as ``+investigation=default``) and the ``cosci investigate`` command
lines that need no model: ``check`` prints one line per failure and exits 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.cli import main
from cosci.config.investigation import group_overrides, load_investigation
from cosci.config.load import ConfigError
from cosci.llm.fake.provider import FakeBackend
from cosci.sandbox.bwrap import probe
from tests.investigation.conftest import write_task

ROOT = Path(__file__).resolve().parents[2]


def test_the_group_composes_with_its_defaults(tmp_path: Path) -> None:
    cfg = load_investigation(["models=fake", f"paths.data_dir={tmp_path}"])
    inv = cfg.investigation
    assert (inv.workers, inv.cycles, inv.task_runner, inv.unsafe_no_sandbox) == (2, 3, "thread", False)
    assert cfg.evidence.seeds == 5 and cfg.evidence.confidence == 0.95 and cfg.evidence.equivalence_margin == 0.01
    routed = cfg.gateway_config()
    assert {"ideation", "execution", "writer"} <= set(routed.agents) and set(cfg.base.agents) == set(
        routed.agents) - {"ideation", "execution", "writer"}


def test_overrides_reach_both_sections(tmp_path: Path) -> None:
    cfg = load_investigation(["models=fake", "investigation.workers=3", "evidence.seeds=2",
                              "investigation.task_runner=ray"])
    assert (cfg.investigation.workers, cfg.evidence.seeds, cfg.investigation.task_runner) == (3, 2, "ray")
    assert group_overrides(["investigation=default", "a=1"]) == ["+investigation=default", "a=1"]


@pytest.mark.parametrize(("override", "message"), [
    ("investigation.workers=0", "investigation.workers"),
    ("investigation.task_runner=slurm", "investigation.task_runner"),
    ("investigation.agents.execution.budget_share=0.9", "must sum to 1"),
    ("investigation.agents.ideation.modes.idea.tier=huge", "tier 'huge' is not in models"),
    ("evidence.seeds=0", "evidence.seeds"),
    ("evidence.equivalence_margin=-0.1", "evidence.equivalence_margin"),
])
def test_bad_settings_are_one_line(override: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")) as err:
        load_investigation(["models=fake", override])
    assert "\n" not in str(err.value)


@pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")
def test_check_on_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["investigate", "check", str(write_task(tmp_path / "good"))])
    assert "check: good passes" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["investigate", "check", str(write_task(tmp_path / "bad", rubrics="[]\n"))])
    assert exit_.value.code == 1
    assert capsys.readouterr().out.splitlines() == [
        "check: rubrics.yaml: the rubric list is empty (an empty rubric list fails every attempt's gate A)"]


def test_run_refuses_a_broken_task_in_one_line_and_writes_nothing(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    with pytest.raises(SystemExit) as exit_:
        main(["--data-dir", str(data), "investigate", "run", str(write_task(tmp_path / "bad", rubrics="[]\n")),
              "models=fake"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("cosci: task bad: rubrics.yaml: the rubric list is empty")
    assert not (data / "investigations").exists()


def test_check_and_run_of_a_missing_folder_say_the_same_one_line(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A folder that is not there is bad input (exit 2, one `cosci:` line on stderr) for check as for run, not a
    task that fails its check (exit 1, `check:` lines on stdout)."""
    for action in ("check", "run"):
        with pytest.raises(SystemExit) as exit_:
            main(["--data-dir", str(tmp_path / "data"), "investigate", action, str(tmp_path / "nope"), "models=fake"])
        assert exit_.value.code == 2, action
        out, err = capsys.readouterr()
        assert not out and err.strip().splitlines() == [f"cosci: {tmp_path / 'nope'}: no such task folder"], action


def test_run_without_isolation_is_refused_unless_unsafe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("cosci.sandbox.bwrap.probe", lambda: None)
    data = tmp_path / "data"
    with pytest.raises(SystemExit):
        main(["--data-dir", str(data), "investigate", "run", str(ROOT / "tasks" / "circle_packing"), "models=fake"])
    assert "investigation.unsafe_no_sandbox=true" in capsys.readouterr().err
    assert not (data / "investigations").exists()


def test_resume_of_an_unknown_run_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--data-dir", str(tmp_path), "investigate", "resume", "inv-000000000000"])
    assert exit_.value.code == 2 and "no investigation inv-000000000000" in capsys.readouterr().err


def test_resume_of_a_finished_run_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cosci.investigation.folder import RunFolder

    folder = RunFolder(tmp_path, "inv-0123456789ab")
    folder.create(write_task(tmp_path / "t"), {"task": "t", "config": {}})
    folder.update_manifest(status="done")
    with pytest.raises(SystemExit) as exit_:
        main(["--data-dir", str(tmp_path), "investigate", "resume", "inv-0123456789ab"])
    assert exit_.value.code == 2 and "is done; its report" in capsys.readouterr().err


def test_run_uses_the_data_dir_an_override_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --data-dir, ``paths.data_dir=...`` on the command line is where the run goes (it used to be overridden
    by ./data appended after it)."""
    seen: list[tuple[list[str], Path]] = []
    monkeypatch.setattr("flows.investigation_launch.command",
                        lambda action, target, overrides, from_session, data: seen.append((overrides, data)) or 0)
    main(["investigate", "run", str(ROOT / "tasks" / "circle_packing"), "models=fake",
          f"paths.data_dir={tmp_path / 'mine'}"])
    ((overrides, data),) = seen
    assert data == (tmp_path / "mine").resolve()
    assert [o for o in overrides if o.startswith("paths.data_dir=")][-1] == f"paths.data_dir={data}"


@pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")
@pytest.mark.parametrize(("program", "why"), [
    ("import sys\nsys.exit(3)\n", "fails its search workload: program: "),
    ('import json\nprint(json.dumps({"value": -1.0}))\n', "says correct is false"),
])
def test_run_refuses_an_initial_program_that_fails_its_search_workload_before_any_call(
        tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str], program: str, why: str) -> None:
    data = tmp_path / "data"
    with pytest.raises(SystemExit) as exit_:
        main(["--data-dir", str(data), "investigate", "run", str(write_task(tmp_path / "slow", program=program)),
              "models=fake"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cosci: task slow: the initial program") and why in err[0]
    assert "nothing was spent" in err[0]
    assert fake.calls == [] and not (data / "investigations").exists()


def test_run_without_a_task_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--data-dir", str(tmp_path / "data"), "investigate", "run", "--from-session", "S-x"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "cosci: investigate run needs its target (a task folder, or a run id for resume/write)"]
    assert not (tmp_path / "data").exists()
