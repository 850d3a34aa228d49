"""A live one-line progress display (rich): hypotheses, matches, top Elo, spend against budget, elapsed; and
:class:`HeldLine`, the pre-flight estimate held until the goal screen passed.

The line is computed from the store at each refresh (twice a second), so it moves with every finished task;
on a non-terminal output rich prints only the final state. The held estimate is printed while the live line is
shown (the goal screen passes during the session's loop), so it prints through the live line's console: rich then
puts it above the live line, whole, instead of after the live line's text on the same terminal line.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console
from rich.live import Live
from rich.text import Text

from cosci.config.schema import CosciConfig
from cosci.stats import SessionStats


class LiveProgress:
    """An Observer that also renders itself; :meth:`start` / :meth:`stop` around the loop."""

    def __init__(self, config: CosciConfig, session_id: str, console: Console | None = None) -> None:
        self.config, self.session_id = config, session_id
        self.console = console or Console(stderr=True)
        self.stats: SessionStats | None = None
        self._t0 = time.monotonic()
        self._live = Live(self, console=self.console, refresh_per_second=2, transient=False)

    def on_progress(self, stats: SessionStats, step: int) -> None:
        self.stats = stats

    def __rich__(self) -> Text:
        s = self.stats
        elapsed = (s.elapsed_seconds if s else 0.0) + 0.0
        if s is None:
            return Text(f"cosci {self.session_id}  starting…  {time.monotonic() - self._t0:.0f} s", style="dim")
        mins, secs = divmod(int(elapsed), 60)
        return Text.assemble(
            ("cosci ", "bold"), (self.session_id, "cyan"),
            f"  hypotheses {s.hypotheses}  reviews {s.reviews}  matches {s.matches}  top Elo {s.top1_elo:.0f}  ",
            (f"${s.spent_usd:.3f} / ${self.config.run.budget_usd:.2f}", "green"),
            f"  elapsed {mins:02d}:{secs:02d} / {int(self.config.run.wall_clock_seconds) // 60} min")

    def start(self) -> None:
        """Show the line now (not half a second later), then refresh it twice a second until :meth:`stop`."""
        self._live.start(refresh=True)

    def stop(self) -> None:
        self._live.stop()


class HeldLine:
    """An Observer that prints ``line`` once on stderr (dim), at the first progress report for which ``ready()``
    holds: the pre-flight estimate, held until the goal screen passed, so that a refused goal prints only its
    refusal (design.md#safety). A session that never becomes ready prints nothing.

    ``console``: the :class:`LiveProgress` console when a live line is shown (a TTY), so the line prints above it
    through rich's live display; a console of its own on stderr would write after the live line's text, on its
    terminal line. None: a stderr console of its own (no live line)."""

    def __init__(self, line: str, ready: Callable[[], bool], console: Console | None = None) -> None:
        self.line: str | None = line
        self.ready = ready
        self.console = console

    def on_progress(self, stats: SessionStats, step: int) -> None:
        if self.line is not None and self.ready():
            console = self.console or Console(stderr=True)
            console.print(Text(self.line, style="dim"), soft_wrap=True)  # soft: no hard wraps in a file; no markup
            self.line = None
