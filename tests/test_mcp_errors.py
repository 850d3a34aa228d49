"""``cosci mcp``'s errors in one form (fresh-user report: the prefixes differed by where an error came from): every
tool's error is the MCP tool-error result (``isError``, one text content) reading ``Error executing tool <tool>:
<one line>``, whether the SDK refused an argument, the tool refused it, the ``cosci`` command behind it refused (its
``cosci: `` prefix dropped), a cosci error was raised (the SDK took it for a crash and said the tool's name alone) or
the tool does not exist (the SDK said ``Unknown tool: ...``). Driven in-process by the SDK's own client."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from cosci.mcp_server import build
from cosci.session.folder import SessionFolder

GOAL = "Suggest approved drugs to repurpose for acute myeloid leukemia"


def _session(data: Path, name: str, status: str) -> str:
    folder = SessionFolder(data, name)
    store = folder.open_store()
    store.sessions.create(goal=GOAL, config_snapshot={}, overrides=[], models_choice="fake", budget_usd=1.0,
                          budget_tokens=None, wall_clock_seconds=60.0)
    store.sessions.update(status=status, stop_reason="done" if status == "done" else None)
    store.close()
    return folder.session_id


async def test_every_tool_error_has_one_form(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    done = _session(data, "s-20261206-000000-aaaaaa", "done")
    damaged = SessionFolder(data, "s-20261206-000000-bbbbbb")
    damaged.path.mkdir(parents=True)
    damaged.store_path.write_bytes(b"not a database" * 100)
    monkeypatch.setattr("cosci.mcp_server.STORE_GRACE_SECONDS", 0.0)
    calls: list[tuple[str, dict[str, Any], str]] = [
        ("nope", {}, "no such tool (the tools: abort, estimate, "),  # the SDK: "Unknown tool: nope"
        ("status", {"session": "s-x", "extra": 1}, "extra: not an argument of status"),
        ("estimate", {"budget_usd": "abc"}, "budget_usd:"),  # pydantic's, in one line
        ("follow_session", {"session": done, "timeout_seconds": 0}, "timeout_seconds: give a number"),
        ("status", {"session": "s-none"}, "session: "),  # the tool's own
        ("pause", {"session": done}, f"session {done} is done; nothing to pause"),  # the command's, no "cosci: "
        ("resume", {"session": done}, f"session {done} is done; `cosci report {done}`"),  # a CosciError raised
        ("get_leaderboard", {"session": damaged.session_id}, f"the store of {damaged.session_id} is damaged"),
        ("follow_session", {"session": damaged.session_id}, f"the store of {damaged.session_id} is damaged"),
    ]
    async with Client(build(data)) as client:
        for tool, args, says in calls:
            result = await client.call_tool(tool, args)
            text = "\n".join(getattr(c, "text", "") for c in result.content)
            assert result.is_error and len(result.content) == 1, (tool, text)
            assert re.fullmatch(rf"Error executing tool {tool}: [^\n]+", text), (tool, text)
            line = text.removeprefix(f"Error executing tool {tool}: ")
            assert line.startswith(says) and not line.startswith("cosci: "), (tool, text)


def test_a_request_line_with_a_lone_surrogate_is_answered_and_the_server_goes_on(tmp_path: Path) -> None:
    """Fresh-user trial: ``"\\udcff"`` in a request's JSON (Python's parser takes it, pydantic's refuses it) was never
    answered, and the client waited for ever. Over the real stdio wire (the SDK's client cannot send such a line):
    JSON-RPC's parse error with the request's id, then the next request is answered."""
    import json
    import os
    import subprocess
    import sys
    import threading

    root = Path(__file__).resolve().parents[1]
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    bad = ('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"screen","arguments":'
           '{"text":"\\udcff"}}}')
    text = "".join(json.dumps(x) + "\n" for x in lines) + bad + "\n" + json.dumps(
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n"
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen([sys.executable, "-c", "from cosci.cli import main; main()", "mcp", "--data-dir",
                             str(tmp_path / "data")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, cwd=tmp_path)
    answers: list[dict[str, Any]] = []

    def read() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            answers.append(json.loads(raw))
            if len(answers) == 3:
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert proc.stdin is not None
        proc.stdin.write(text.encode())
        proc.stdin.flush()
        reader.join(timeout=60)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    by_id = {a.get("id"): a for a in answers}
    assert by_id[1]["error"]["code"] == -32700, answers
    assert "lone leading surrogate" in by_id[1]["error"]["message"]
    assert "tools" in by_id[2]["result"]  # still serving


def test_a_session_failed_on_an_unreachable_host_is_followed_to_its_line(tmp_path: Path) -> None:
    """`follow_session`'s last answer for a failed session read "failed: error"; it carries the error's line, as
    `cosci status` does (design.md#unreachable-hosts)."""
    from cosci.mcp_support import ended

    sid = _session(tmp_path, "s-20261206-000000-abcdef", "failed")
    folder = SessionFolder(tmp_path, sid)
    with folder.store() as store:
        store.sessions.update(stop_reason="error")
        store.logs.event("session_failed", {"error": "SessionFailed: cannot reach api.example.invalid:443: its name"
                                                     " does not resolve; check the network"})
    assert ended(folder, "failed") == ("failed: error (cannot reach api.example.invalid:443: its name does not resolve;"
                                       " check the network)")
