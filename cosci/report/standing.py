"""The session's current standing: the one leaderboard ``cosci status`` and ``cosci report`` show.

Read from the store as it is now, not from the overview's text: a ``cosci result`` or ``cosci rate`` after the
session ended refits the Bradley–Terry fit (``bt_ratings``) and moves a refuted hypothesis out of the tournament
(state ``rejected``), while the overview written at the session's end keeps the order and scores of its time
(design.md#researcher-ratings, design.md#experimental-results). :func:`standing` is that order;
:func:`later_inputs` says what the overview has not seen (design.md#report).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from cosci.store import SessionStore
from cosci.text import counted
from cosci.tracking.artifacts import QUARANTINED

OUT_OF_RANKING = ("quarantined", "rejected", "retired")
"""States listed apart from the ranked leaderboard."""


@dataclass(frozen=True)
class Entry:
    """One hypothesis in the standing: its id, title, state, Elo (points), matches played, the stored BT fit
    ``(score, ci_low, ci_high)`` in logits (None outside the fit) and, for one out of the ranking, why (``refuted
    by result O-...``, ``rejected``, ``quarantined by safety screening``, ``retired``; "" when ranked)."""

    id: str
    title: str
    state: str
    elo: float
    matches: int
    bt: tuple[float, float, float] | None
    why: str = ""

    def bt_text(self) -> str:
        """``+0.42 [-0.10, +0.95]``, or "" outside the fit."""
        return "" if self.bt is None else f"{self.bt[0]:+.2f} {interval_text(self.bt[1], self.bt[2])}"


def interval_text(low: float, high: float) -> str:
    """A BT confidence interval (logits) as the text report and the page write it: ``[-0.10, +0.95]``."""
    return f"[{low:+.2f}, {high:+.2f}]"


@dataclass(frozen=True)
class Standing:
    """``ranked``: the hypotheses in the ranking, those in the stored BT fit first by BT score (then Elo, then id),
    the others after them by Elo (BT, not Elo, because a researcher's preference enters the BT fit only:
    design.md#report); ``apart``: those out of it (:data:`OUT_OF_RANKING`), best Elo first, with why."""

    ranked: list[Entry]
    apart: list[Entry]

    def fitted(self, n: int | None = None) -> list[Entry]:
        """The first ``n`` ranked hypotheses that are in the BT fit (all with ``n`` None)."""
        fit = [e for e in self.ranked if e.bt is not None]
        return fit if n is None else fit[:n]

    def top_line(self, n: int = 5) -> str:
        """``BT top 5: H-1 +0.42 [-0.10, +0.95], ...`` (``no fit yet`` before the first fit)."""
        return f"BT top {n}: " + (", ".join(f"{e.id} {e.bt_text()}" for e in self.fitted(n)) or "no fit yet")

    def apart_line(self) -> str | None:
        """``not ranked: H-3 refuted by result O-1, H-7 rejected`` (quarantined ones are said by the safety
        lines), None when none."""
        shown = [e for e in self.apart if e.state != "quarantined"]
        return "not ranked: " + ", ".join(f"{e.id} {e.why}" for e in shown) if shown else None


def standing(store: SessionStore) -> Standing:
    """The current standing of the session's hypotheses (reads only: works on a running session)."""
    bt = store.matches.bt()
    refuted = {o.hypothesis_id: o.id for o in store.researcher.observations() if o.outcome == "refuted"}
    ranked: list[Entry] = []
    apart: list[Entry] = []
    for h in store.hypotheses.all():
        out = h.state in OUT_OF_RANKING
        why = "" if not out else "quarantined by safety screening" if h.state == "quarantined" else \
            f"refuted by result {refuted[h.id]}" if h.id in refuted and h.state == "rejected" else h.state
        entry = Entry(h.id, QUARANTINED if h.state == "quarantined" else h.title, h.state, h.elo,
                      h.matches_played, None if out else bt.get(h.id), why)
        (apart if out else ranked).append(entry)
    ranked.sort(key=lambda e: (e.bt is None, -(e.bt[0] if e.bt else 0.0), -e.elo, e.id))
    apart.sort(key=lambda e: (-e.elo, e.id))
    return Standing(ranked, apart)


def leaderboard_lines(store: SessionStore) -> list[str]:
    """The current leaderboard as Markdown: a table of every ranked hypothesis (rank, id, BT score with its 95 %
    CI, Elo, matches, state, title), then the hypotheses out of the ranking with why."""
    s = standing(store)
    rows = ["| rank | hypothesis | BT score [95 % CI] | Elo | matches | state | title |",
            "|---|---|---|---|---|---|---|"]
    rows += [f"| {i} | [{e.id}] | {e.bt_text() or '-'} | {e.elo:.0f} | {e.matches} | {e.state} | "
             f"{' '.join(e.title.split())[:100]} |" for i, e in enumerate(s.ranked, 1)]
    if not s.ranked:
        rows = ["No hypothesis is in the ranking."]
    rows += ["", *(f"- Not ranked: [{e.id}] {e.why}: {' '.join(e.title.split())[:100]}" for e in s.apart)]
    return rows


@dataclass(frozen=True)
class LaterInputs:
    """The researcher's ratings and results stored after the overview was written (``written_at``, Unix s)."""

    written_at: float
    ratings: int
    results: int

    @property
    def count(self) -> int:
        """Ratings and results together."""
        return self.ratings + self.results

    def note(self, where: str = 'under "Current leaderboard" below') -> str:
        """The one-paragraph warning above a stale overview; ``where``: where the current leaderboard is shown
        (the text report's heading by default; the page names its own section)."""
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(self.written_at))
        parts = [counted(n, word) for n, word in ((self.results, "result"), (self.ratings, "rating")) if n]
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
    return LaterInputs(written, ratings, results) if ratings or results else None
