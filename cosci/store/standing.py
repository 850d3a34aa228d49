"""The session's current standing, as the store holds it now: the one order every reader of a session's ranking
sees (``cosci status``, ``cosci report``, the page, the md export, the final overview's choice of hypotheses and
its leaderboard appendix, ``cosci investigate --from-session``; design.md#report).

Bradley–Terry first (the stored fit, ``bt_ratings``, which holds the researcher's preferences), Elo after it for
the hypotheses outside the fit; refuted, rejected, retired and quarantined hypotheses apart. A ``cosci result``
or ``cosci rate`` after the session ended refits the BT fit and moves a refuted hypothesis out of the tournament
(state ``rejected``), so the standing moves with them (design.md#researcher-ratings,
design.md#experimental-results). It lives with the store, under the agents, because the meta-review agent orders
the overview by it; :mod:`cosci.report.standing` adds the report's views of it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from cosci.store import SessionStore

if TYPE_CHECKING:
    from cosci.domain import Hypothesis
    from cosci.store.safety import SafetyVerdict

OUT_OF_RANKING = ("quarantined", "rejected", "retired")
"""States listed apart from the ranked leaderboard."""
QUARANTINED = "(quarantined by safety screening; text kept in the session store)"
"""The title shown for a quarantined hypothesis (design.md#safety: its text does not leave the session folder)."""


def shown(h: Hypothesis) -> Hypothesis:
    """``h`` as every reader outside the session store shows it (``cosci status``, ``cosci report``, the page, the
    md and jsonl exports, the MLflow artifacts): a quarantined hypothesis keeps its id, state, Elo and links, its
    title is :data:`QUARANTINED` and every other text (statement, mechanism, outcomes, novelty, entities,
    falsification contract, citations) is empty (design.md#safety: its text does not leave the session folder
    until ``cosci release`` releases it); any other hypothesis comes back as it is."""
    if h.state != "quarantined":
        return h
    return replace(h, title=QUARANTINED, statement="", mechanism="", entities=[], anticipated_outcomes="",
                   novelty_argument="", decisive_experiment="", predicted_result="", refuting_result="",
                   citations=[])


def shown_verdict(v: SafetyVerdict, quarantined: set[str]) -> SafetyVerdict:
    """Safety verdict ``v`` as the readers of :func:`shown` show it: a verdict on a quarantined hypothesis (an id in
    ``quarantined``) keeps its decision and categories, its rationale and the screen's matched terms withheld (both
    may quote the hypothesis; design.md#safety)."""
    if v.subject != "hypothesis" or v.subject_id not in quarantined:
        return v
    return replace(v, rationale=WITHHELD, prescreen=[], screen={k: x for k, x in v.screen.items()
                                                                 if k in ("decision", "decided_by")})


def none_yet(session_id: str, status: str, stop_reason: str | None) -> str:
    """What to say instead of an empty leaderboard for a session with no hypothesis in ``status`` (as ``cosci status``
    shows it): "no hypothesis was generated (stop reason: <reason>)" for an ended session, "... yet (it is running)"
    while it runs, else "no hypothesis has been generated yet; `cosci resume <id>` continues it". The text report,
    ``cosci status`` and the page say the same line (fresh-user trials; design.md#cli)."""
    if status in ("done", "failed", "refused"):
        return f"no hypothesis was generated (stop reason: {stop_reason or status})"
    if status == "running":
        return "no hypothesis has been generated yet (it is running)"
    return f"no hypothesis has been generated yet; `cosci resume {session_id}` continues it"


WITHHELD = "(withheld with the quarantined hypothesis)"
"""The rationale shown for a verdict on a quarantined hypothesis (:func:`shown_verdict`)."""


@dataclass(frozen=True)
class Release:
    """One ``cosci release``: the hypothesis, who released it and why, when (epoch seconds) and its state now."""

    id: str
    by: str
    why: str
    at: float
    state: str

    def line(self) -> str:
        """``[H-1] by Dr Rivera at 2026-12-04 23:10 UTC: a false positive; now draft (not yet in the tournament)``."""
        import datetime as dt

        when = dt.datetime.fromtimestamp(self.at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        where = " (not yet in the tournament)" if self.state in ("draft", "reviewed") else ""
        return f"[{self.id}] by {self.by} at {when}: {' '.join(self.why.split())}; now {self.state}{where}"


def releases(store: SessionStore) -> list[Release]:
    """Every ``cosci release`` of the session, oldest first (its ``hypothesis_released`` events; design.md#safety)."""
    out = []
    for e in store.logs.events("hypothesis_released"):
        p = e["payload"]
        h = store.hypotheses.get(str(p.get("id", "")))
        out.append(Release(str(p.get("id", "")), str(p.get("by", "")), str(p.get("why", "")), float(e["created_at"]),
                           h.state if h else "unknown"))
    return out


def release_hint(session_id: str, hid: str) -> str:
    """The command that releases quarantined hypothesis ``hid`` (said next to it wherever it is listed)."""
    return f'cosci release {session_id} {hid} --why "..."'


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
        return "" if self.bt is None else f"{bt_score_text(self.bt[0])} {interval_text(self.bt[1], self.bt[2])}"


def bt_score_text(score: float) -> str:
    """A BT score (logits, relative to the pool's mean) as every reader writes it, signed: ``+4.06``, ``-0.10``
    (``cosci status``, ``cosci report``, the page, ``cosci project show``)."""
    return f"{score:+.2f}"


def interval_text(low: float, high: float) -> str:
    """A BT confidence interval (logits) as the text report and the page write it: ``[-0.10, +0.95]``."""
    return f"[{bt_score_text(low)}, {bt_score_text(high)}]"


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

    def ids(self, n: int | None = None) -> list[str]:
        """The ids of the first ``n`` ranked hypotheses (all with ``n`` None), best first."""
        return [e.id for e in (self.ranked if n is None else self.ranked[:n])]

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
        entry = Entry(h.id, shown(h).title, h.state, h.elo,
                      h.matches_played, None if out else bt.get(h.id), why)
        (apart if out else ranked).append(entry)
    ranked.sort(key=lambda e: (e.bt is None, -(e.bt[0] if e.bt else 0.0), -e.elo, e.id))
    apart.sort(key=lambda e: (-e.elo, e.id))
    return Standing(ranked, apart)
