"""The report's views of the session's current standing: the one leaderboard ``cosci status`` and ``cosci report``
show.

The standing itself (:func:`standing`, its :class:`Entry` and :class:`Standing`) is :mod:`cosci.store.standing`,
read from the store as it is now, not from the overview's text: a ``cosci result`` or ``cosci rate`` after the
session ended refits the Bradley–Terry fit (``bt_ratings``) and moves a refuted hypothesis out of the tournament
(state ``rejected``), while the overview written at the session's end keeps the order and scores of its time
(design.md#researcher-ratings, design.md#experimental-results). Here: the Markdown leaderboard, and
:func:`later_inputs`, what the overview has not seen (design.md#report).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from cosci.domain import BT_INTERVAL, BT_INTERVAL_LABEL
from cosci.store import SessionStore
from cosci.store.standing import OUT_OF_RANKING, Entry, Standing, bt_score_text, interval_text, standing
from cosci.text import counted, one_line

__all__ = ["OUT_OF_RANKING", "Entry", "LaterInputs", "Standing", "bt_score_text", "interval_text", "later_inputs",
           "leaderboard_lines", "overview_written_at", "standing"]  # the standing re-exported for its readers


def leaderboard_lines(store: SessionStore) -> list[str]:
    """The current leaderboard as Markdown: a table of every ranked hypothesis (rank, id, BT score with its 95 %
    CI, Elo, matches, state, title), then the hypotheses out of the ranking with why."""
    s = standing(store)
    rows = [f"BT score (logits) with its {BT_INTERVAL_LABEL}.", "",
            f"| rank | hypothesis | BT score [{BT_INTERVAL}] | Elo | matches | state | title |",
            "|---|---|---|---|---|---|---|"]
    rows += [f"| {i} | [{e.id}] | {e.bt_text() or '-'} | {e.elo:.0f} | {e.matches} | {e.state} | "
             f"{one_line(e.title, 100)} |" for i, e in enumerate(s.ranked, 1)]
    if not s.ranked:
        rows = ["No hypothesis is in the ranking."]
    rows += ["", *(f"- Not ranked: [{e.id}] {e.why}: {one_line(e.title, 100)}" for e in s.apart)]
    return rows


@dataclass(frozen=True)
class LaterInputs:
    """The researcher's ratings and results stored after the overview was written (``written_at``, Unix s), and
    the earlier ones withdrawn since (``withdrawals``: the overview counted them, the standing no longer does)."""

    written_at: float
    ratings: int
    results: int
    withdrawals: int = 0

    @property
    def count(self) -> int:
        """Ratings, results and withdrawals together."""
        return self.ratings + self.results + self.withdrawals

    def note(self, where: str = 'under "Current leaderboard" below') -> str:
        """The one-paragraph warning above a stale overview; ``where``: where the current leaderboard is shown
        (the text report's heading by default; the page names its own section)."""
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(self.written_at))
        parts = [counted(n, word) for n, word in ((self.results, "result"), (self.ratings, "rating"),
                                                  (self.withdrawals, "withdrawal")) if n]
        return (f"Note: this overview was written on {when}, before {counted(self.count, 'researcher input')} "
                f"that came later ({', '.join(parts)}). Its rankings, scores and directions are as they stood "
                f"then; the current leaderboard, refitted with those inputs, is {where}.")


def overview_written_at(store: SessionStore) -> float | None:
    """When the session's overview was written (its claim check's event, Unix s), None before one."""
    events = store.logs.events("overview_checked")
    return float(events[-1]["created_at"]) if events else None


def later_inputs(store: SessionStore) -> LaterInputs | None:
    """The researcher inputs stored after the overview, None when there is no overview or none came later."""
    written = overview_written_at(store)
    if written is None:
        return None
    ratings = sum(r.created_at > written for r in store.researcher.ratings())
    results = sum(o.created_at > written for o in store.researcher.observations())
    withdrawn = [(r.created_at, r.withdrawn_at) for r in store.researcher.ratings(withdrawn=True)]
    withdrawn += [(o.created_at, o.withdrawn_at) for o in store.researcher.observations(withdrawn=True)]
    withdrawals = sum(at is not None and made <= written < at for made, at in withdrawn)
    return LaterInputs(written, ratings, results, withdrawals) if ratings or results or withdrawals else None
