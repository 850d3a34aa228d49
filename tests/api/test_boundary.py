"""The service's boundary: misuse from Python is one CosciError line naming the Python argument, nothing recorded;
a stopped session made with a plugin's tool is read, rated and given results without the plugin, and only resume
refuses it (design.md#service, design.md#tools)."""

from __future__ import annotations

import json
from pathlib import Path

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
