"""The service's boundary: misuse from Python is one CosciError line naming the Python argument, nothing recorded;
a stopped session made with a plugin's tool is read, rated and given results without the plugin, and only resume
refuses it (design.md#service, design.md#tools)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cosci import api
from cosci.config.load import ConfigError
from cosci.errors import CosciError
from cosci.session.folder import SessionFolder
from tests.conftest import make_config, run_cli
from tests.store.rows import insert_hypothesis

STATEMENTS = ("Metformin depletes leukemic stem cells", "Itraconazole blocks SMO in AML blasts")


def made_with_tool(data: Path, tool: str, sid: str = "s-20261203-120000-abcdef") -> tuple[str, list[str]]:
    """A stopped session (no process) whose frozen config lets the reflection agent call ``tool`` (a plugin's,
    since removed) and two tournament hypotheses; returns (session id, hypothesis ids)."""
    config = make_config(data)
    snapshot = json.loads(config.model_dump_json())
    snapshot["agents"]["reflection"]["tools"].append(tool)
    store = SessionFolder(data, sid).open_store()
    try:
        store.sessions.create(goal=config.session.goal or "", config_snapshot=snapshot, overrides=[],
                              models_choice="fake", budget_usd=config.run.budget_usd, budget_tokens=None,
                              wall_clock_seconds=config.run.wall_clock_seconds)
        return sid, [insert_hypothesis(store, s) for s in STATEMENTS]
    finally:
        store.close()


def test_a_session_made_with_a_removed_plugin_tool_is_rated_and_only_resume_refuses(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    sid, ids = made_with_tool(data, "echo_search")
    for args in (["rate", sid, ids[0], ids[1], "--prefer", "a"], ["rate", sid, ids[0], "--score", "4"],
                 ["result", sid, ids[1], "--outcome", "inconclusive"], ["status", sid], ["report", sid]):
        code, _, err = run_cli(capsys, "--data-dir", str(data), *args)
        assert code == 0, (args, err)
    session = api.open(sid, data)
    assert session.status().hypotheses == 2
    with pytest.raises(ConfigError) as caught:
        session.resume()
    line = str(caught.value)
    assert "\n" not in line and "'echo_search' is not installed" in line and "install it again" in line
    code, _, err = run_cli(capsys, "--data-dir", str(data), "resume", sid)
    assert code == 2 and err.count("\n") == 1 and "echo_search" in err


@pytest.fixture
def rated(tmp_path: Path) -> tuple[api.Session, list[str]]:
    from tests.store.rows import session_with

    data = tmp_path / "data"
    sid, ids = session_with(data, STATEMENTS)
    return api.open(sid, data), ids


def recorded(session: api.Session) -> tuple[int, int, int]:
    with session.folder.store(read_only=True) as store:
        return (len(store.researcher.ratings()), len(store.researcher.observations(None)),
                len(store.logs.feedback(source="human")))


@pytest.mark.parametrize(("call", "said"), [
    (lambda s, h: s.rate(h[0], h[1], prefer="x"), r"^prefer must be one of a, b, tie \(got 'x'\)"),
    (lambda s, h: s.rate(h[0], h[1], prefer="A"), r"^prefer must be one of a, b, tie \(got 'A'\)"),
    (lambda s, h: s.rate(h[0], h[1], prefer=""), r"^prefer must be one of a, b, tie \(got ''\)"),
    (lambda s, h: s.rate(h[0], h[1], prefer=1), r"^prefer must be one of a, b, tie \(got 1\)"),
    (lambda s, h: s.rate(h[0], score=0), r"^score must be 1, 2, 3, 4 or 5 \(got 0\); nothing was recorded$"),
    (lambda s, h: s.rate(h[0], score=3.5), r"^score must be an int 1-5 \(got float 3.5\)"),
    (lambda s, h: s.rate(h[0], score=True), r"^score must be an int 1-5 \(got bool True\)"),
    (lambda s, h: s.rate(h[0], h[1]), r"^two hypotheses need prefer a\|b\|tie$"),
    (lambda s, h: s.rate(h[0]), r"^one hypothesis needs score 1-5$"),
    # fresh-user trial: `cosci rate <id> H-aaa --prefer a` read "one hypothesis needs --score 1-5"
    (lambda s, h: s.rate(h[0], prefer="a"), r"^prefer compares two hypotheses: give a second id, or rate one with "
                                            r"score 1-5$"),
    (lambda s, h: s.rate(h[0], score=4, why=None), r"^why must be a string \(got NoneType None\)"),
    (lambda s, h: s.rate(5, score=4), r"^a must be a string \(got int 5\)"),
    (lambda s, h: s.result(h[0], "Refuted"), r"^outcome must be one of supported, refuted, inconclusive"),
    (lambda s, h: s.result(h[0], None), r"^outcome must be one of .* \(got None\)"),
    (lambda s, h: s.result(h[0], "refuted", measures="ic50=3"), r"^measures must be a list of strings \(got str"),
    (lambda s, h: s.result(h[0], "refuted", measures=[3]), r"^measures must be a list of strings \(got int 3 in it"),
    (lambda s, h: s.result(h[0], "refuted", measures=["ic50"]), r"^measures 'ic50' is not NAME=VALUE"),
    (lambda s, h: s.result(h[0], "refuted", file=3), r"^file must be a path"),
    (lambda s, h: s.result(h[0], "refuted", file="/no/such.csv"), r"^file /no/such.csv: no such file"),
    (lambda s, h: s.result(h[0], "refuted", notes=None), r"^notes must be a string"),
    (lambda s, h: s.feedback("Directive", "x"), r"^kind must be one of directive, preference, rejection, pin"),
    (lambda s, h: s.feedback(["pin"]), r"^kind must be one of"),
    (lambda s, h: s.feedback("directive"), r'^kind directive needs text "\.\.\."$'),
    (lambda s, h: s.feedback("pin"), r"^kind pin needs hypothesis <H-id>$"),
    (lambda s, h: s.feedback("directive", 3), r"^text must be a string \(got int 3\)"),
    (lambda s, h: s.resume("run.budget_usd=5"), r"^overrides must be a list of strings"),
])
def test_misuse_from_python_is_one_line_naming_the_argument_and_records_nothing(
        rated: tuple[api.Session, list[str]], call: object, said: str) -> None:
    session, ids = rated
    before = recorded(session)
    with pytest.raises(CosciError, match=said) as caught:
        call(session, ids)  # type: ignore[operator]
    assert type(caught.value) is CosciError and "\n" not in str(caught.value) and "--" not in str(caught.value)
    assert recorded(session) == before


LOOSE: Any = api
"""The service, typed loosely: the calls below are the misuse a Python caller without a type checker makes."""


@pytest.mark.parametrize(("call", "said"), [
    (lambda d: LOOSE.open(None, d), r"^session_id must be a string \(got NoneType None\)"),
    (lambda d: LOOSE.open("s-1", 5), r"^data_dir must be a path"),
    (lambda d: LOOSE.prepare(123, ["models=fake"]), r"^goal must be a string or None \(got int 123\)"),
    (lambda d: LOOSE.prepare("a goal", "models=fake"), r"^overrides must be a list of strings \(got str"),
    (lambda d: LOOSE.prepare("a goal", [None]), r"^overrides must be a list of strings \(got NoneType None in it"),
    (lambda d: LOOSE.preflight("goal"), r"^preflight takes what prepare\(\) returns \(got str\)"),
    (lambda d: LOOSE.run(None), r"^run takes what preflight\(\) returns \(got NoneType\)"),
])
def test_misuse_of_the_module_functions_is_one_line(tmp_path: Path, call: object, said: str) -> None:
    with pytest.raises(CosciError, match=said):
        call(tmp_path / "data")  # type: ignore[operator]
    assert not (tmp_path / "data").exists()


def test_the_command_line_still_names_its_flags(rated: tuple[api.Session, list[str]],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    session, ids = rated
    data = str(session.folder.data_dir)
    for args, line in ((["rate", session.id, ids[0], "--score", "0"],
                        "--score must be 1, 2, 3, 4 or 5 (got 0); nothing was recorded"),
                       (["rate", session.id, ids[0], ids[1]], "two hypotheses need --prefer a|b|tie"),
                       (["rate", session.id, ids[0], "--prefer", "a"],
                        "--prefer compares two hypotheses: give a second id, or rate one with --score 1-5"),
                       (["result", session.id, ids[0], "--outcome", "refuted", "--measure", "x"],
                        "--measure 'x' is not NAME=VALUE"),
                       (["feedback", session.id, "--kind", "pin"], "--kind pin needs --hypothesis <H-id>")):
        code, _, err = run_cli(capsys, "--data-dir", data, *args)
        assert code == 2 and line in err, (args, err)
