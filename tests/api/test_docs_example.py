"""docs/api.md's notebook cell, run as written inside a running event loop, as a Jupyter kernel runs a cell."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

import flows.launch
from cosci import api
from cosci.llm.fake.provider import FakeBackend
from cosci.store.researcher import Rating
from cosci.store.standing import Standing

pytestmark = pytest.mark.slow
PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def cell() -> str:
    """The page's first Python block."""
    found = re.search(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)
    assert found, "docs/api.md has no python block"
    return found[1]


def test_the_notebook_cell_runs_the_demo_prints_the_leaderboard_and_rates_a_pair(
        prefect_server: None, fake: FakeBackend, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(flows.launch, "ensure_server", lambda home, **kw: None)
    monkeypatch.setattr(flows.launch, "server_ready", lambda: None)
    names: dict[str, object] = {}

    async def kernel() -> None:  # a cell runs synchronously while the kernel's loop is running
        asyncio.get_running_loop()
        exec(compile(cell(), str(PAGE), "exec"), names)

    asyncio.run(kernel())
    out = capsys.readouterr().out
    session = names["session"]
    assert isinstance(session, api.Session)
    best, runner_up = names["best"], names["runner_up"]
    ratings = [(r.hyp_a, r.hyp_b, r.prefer) for r in _ratings(session)]
    assert ratings == [(best, runner_up, "b")]
    board = names["board"]
    assert isinstance(board, Standing) and len(board.ranked) >= 2
    for entry in board.ranked:  # every ranked hypothesis printed, one line each
        assert re.search(rf"^{entry.id} .*Elo {entry.elo:.0f} ", out, re.MULTILINE), out
    assert re.search(rf"^{session.id}: rating RR-\w+ recorded \({best} vs {runner_up}: prefer b\)", out,
                     re.MULTILINE), out
    assert re.search(r"^BT top 5: H-", out, re.MULTILINE), out


def _ratings(session: api.Session) -> list[Rating]:
    with session.folder.store(read_only=True) as store:
        return store.researcher.ratings()
