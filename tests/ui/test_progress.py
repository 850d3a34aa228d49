"""The live progress line and the held estimate on a simulated terminal (rich's ``force_terminal``): the estimate,
printed while the live line is shown, lands whole on a line of its own above it (design.md#safety)."""

from __future__ import annotations

import re
import sys
from io import StringIO

import pytest
from rich.console import Console

from cosci.config.schema import CosciConfig
from cosci.llm.gateway.estimate import Estimate
from cosci.stats import SessionStats
from cosci.ui.progress import HeldLine, LiveProgress

LINE = Estimate(usd=0.42, calls=120, budget_usd=5.0).line()
STATS = SessionStats(hypotheses=3, reviews=2, matches=1, top1_elo=1216.0, top5_mean_elo=1200.0, spent_usd=0.01,
                     tokens=900, elapsed_seconds=2.0, tasks_done=4, tasks_failed=0)
CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # colours, cursor moves and erasures rich writes on a terminal


def _screen_lines(written: str) -> list[str]:
    """The terminal lines the output leaves, roughly: control sequences dropped, a carriage return starts over."""
    return [seg for line in CONTROL.sub("", written).split("\n") for seg in line.split("\r") if seg]


class _Terminal(StringIO):
    def isatty(self) -> bool:
        return True


def _shown(progress: LiveProgress, held: HeldLine) -> list[str]:
    progress.start()  # the live line is drawn
    progress.on_progress(STATS, 1)
    held.on_progress(STATS, 1)  # the goal screen passed while it is shown
    held.on_progress(STATS, 2)  # once only
    progress.stop()
    return _screen_lines(progress.console.file.getvalue())  # type: ignore[attr-defined]


def test_the_held_estimate_prints_whole_above_the_live_line(config: CosciConfig) -> None:
    console = Console(file=StringIO(), force_terminal=True, force_interactive=True, width=200)
    progress = LiveProgress(config, "s-1", console=console)
    lines = _shown(progress, HeldLine(LINE, lambda: True, console=progress.console))
    assert lines.count(LINE) == 1, lines  # whole, on its own line
    assert lines[-1].startswith("cosci s-1  hypotheses 3") and LINE not in lines[-1]  # the live line after it


def test_the_session_flow_gives_the_estimate_the_live_lines_console(config: CosciConfig,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """As `cosci run` wires them on a TTY: a console of the estimate's own on stderr wrote after the live line's text,
    on its terminal line (``… elapsed 00:02 / 30 minestimated cost ~$0.42 …``)."""
    from flows.session import _held_estimate, _live_progress

    monkeypatch.setattr(sys, "stderr", _Terminal())
    monkeypatch.setenv("TERM", "xterm-256color")  # an interactive terminal (not "dumb"), 200 columns wide
    monkeypatch.setenv("COLUMNS", "200")
    progress = _live_progress(config, "s-1")
    assert progress is not None and progress.console.is_terminal and progress.console.is_interactive
    lines = _shown(progress, _held_estimate(LINE, lambda: True, progress))
    assert lines.count(LINE) == 1 and not any(LINE in line and line != LINE for line in lines), lines


def test_without_a_live_line_the_estimate_prints_on_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    err = StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    ready = [False]
    held = HeldLine(LINE, lambda: ready[0])
    held.on_progress(STATS, 1)
    assert err.getvalue() == ""  # held until the goal screen passed
    ready[0] = True
    held.on_progress(STATS, 2)
    held.on_progress(STATS, 3)
    assert err.getvalue() == LINE + "\n"  # once, plain in a file
    long = Estimate(usd=9.0, calls=1200, budget_usd=5.0).line()
    assert len(long) > 80
    HeldLine(long, lambda: True).on_progress(STATS, 1)
    assert err.getvalue().splitlines()[-1] == long  # not hard-wrapped at 80 columns
