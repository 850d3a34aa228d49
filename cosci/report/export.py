"""``cosci export``: a session's report or store in a form for use outside cosci.

- ``html``: the report page (:func:`cosci.report.render.render_html`);
- ``md``: the research overview (or "no overview yet") followed by the current leaderboard as a Markdown table
  in the standing's order (:mod:`cosci.report.standing`: BT score with its 95 % interval, then Elo) and the
  researcher's ratings and results (as ``cosci report`` lists them);
- ``jsonl``: the store's contents, one JSON object per line, each with a ``type``: one ``session`` line, then every
  ``hypothesis`` (with its falsification contract), ``review``, ``prior_work`` (a hypothesis's nearest records, nearest
  first) and ``match`` (with its debate transcript), oldest first. Units: Elo points, USD,
  seconds (``created_at`` is epoch seconds). A hypothesis quarantined by safety screening keeps its row with its
  text withheld (:func:`cosci.store.standing.shown`), and its reviews, nearest records and match rationales and
  transcripts are left out (design.md#safety);
- ``bibtex``, ``ris``: the works the top hypotheses and the overview's claims cite, for a reference manager
  (:mod:`cosci.report.citations`, design.md#reference-managers).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

from cosci.domain import BT_INTERVAL, BT_INTERVAL_LABEL
from cosci.report.data import SCORE_KEYS, researcher_view
from cosci.report.standing import later_inputs, standing
from cosci.store import SessionStore
from cosci.store.standing import WITHHELD, shown
from cosci.tracking.artifacts import leaderboard_rows

FORMATS = ("md", "html", "jsonl", "bibtex", "ris")


def _cell(value: Any) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return " ".join(str(value).split()).replace("|", "\\|")


def markdown(store: SessionStore, status: str | None = None) -> str:
    """The overview (if written; under a note when researcher inputs came after it) and the current leaderboard
    (the standing ``cosci status`` shows, then the hypotheses out of the ranking, unranked), as Markdown.
    ``status``: as :func:`cosci.report.data.collect` takes it. A session with no hypothesis says so in one line
    instead of the leaderboard."""
    row = store.sessions.get()
    head = (row.final_overview or f"# Session {row.id}\n\nNo overview yet ({status or row.status}).").rstrip()
    if row.final_overview and (later := later_inputs(store)):
        head = "> " + later.note('under "Leaderboard" below') + "\n\n" + head
    if not store.hypotheses.state_counts():  # no empty table explained (design.md#cli)
        ended = (status or row.status) in ("done", "failed", "refused")
        return f"{head}\n\nNo hypothesis {'was generated' if ended else 'has been generated yet'}.\n"
    latest: dict[str, Any] = {}
    for r in store.hypotheses.reviews():  # newest first
        latest.setdefault(r.hypothesis_id, r)
    lines = ["", "", "## Leaderboard", "", f"BT score (logits) with its {BT_INTERVAL_LABEL}.", "",
             f"| rank | id | title | BT score [{BT_INTERVAL}] | Elo | matches | verdict | "
             + " | ".join(SCORE_KEYS) + " | state |", "|" + "---|" * (8 + len(SCORE_KEYS))]
    current = standing(store)
    frame = {h["id"]: h for h in leaderboard_rows(store)}
    for i, e in enumerate([*current.ranked, *current.apart], 1):
        h, rv = frame[e.id], latest.get(e.id)
        scores = [f"{rv.scores[k]:.2f}" if rv and rv.scores.get(k) is not None else "-" for k in SCORE_KEYS]
        rank = str(i) if i <= len(current.ranked) else "-"
        lines.append(f"| {rank} | {h['id']} | {_cell(h['title'])} | {e.bt_text() or '-'} | {h['elo']:.0f} | "
                     f"{h['matches']} | {_cell(rv.verdict) if rv else '-'} | {' | '.join(scores)} | {h['state']} |")
    return head + "\n".join(lines + researcher_section(store)) + "\n"


RESEARCHER_HEADING = "Researcher ratings and experimental results"
"""The heading ``cosci report`` and the page give the researcher's inputs (design.md#researcher-ratings)."""


def researcher_section(store: SessionStore) -> list[str]:
    """The researcher's ratings and results as ``cosci report`` lists them (:func:`cosci.report.data.researcher_view`),
    under their heading; none when there are none, or when the overview lists them and nothing came after it."""
    view = researcher_view(store)
    overview = store.sessions.get().final_overview or ""
    in_overview = f"# {RESEARCHER_HEADING}" in overview
    if not view or (in_overview and not later_inputs(store)):
        return []
    return ["", "", f"## {RESEARCHER_HEADING}{' (now, with the inputs after the overview)' if in_overview else ''}",
            "", *(f"- {line}" for line in view["researcher"]), f"- {view['researcher_agreement']}"]


def records(store: SessionStore) -> Iterator[dict[str, Any]]:
    """The store's contents as plain dicts (see the module docstring for the ``type`` values)."""
    row = store.sessions.get()
    yield {"type": "session", "id": row.id, "goal": row.research_goal, "research_plan": row.research_plan,
           "status": row.status, "stop_reason": row.stop_reason, "models": row.models_choice,
           "budget_usd": row.budget_usd, "spend": store.logs.spend(), "elapsed_seconds": row.elapsed_seconds,
           "created_at": row.created_at}
    held = {h.id for h in store.hypotheses.all(states=("quarantined",))}
    for h in store.hypotheses.all():
        yield {"type": "hypothesis", **asdict(shown(h))}  # a quarantined one's text withheld (design.md#safety)
    for r in reversed(store.hypotheses.reviews()):
        if r.hypothesis_id not in held:  # a review, a hypothesis's nearest records restate it
            yield {"type": "review", **asdict(r)}
    for p in store.hypotheses.prior_work():
        if p.hypothesis_id not in held:
            yield {"type": "prior_work", **asdict(p)}
    for m in store.matches.all():
        if {m.hyp_a, m.hyp_b} & held:  # its outcome and Elo kept, its rationale and transcript withheld
            yield {"type": "match", **asdict(m), "rationale": WITHHELD, "transcript": []}
        else:
            yield {"type": "match", **asdict(m), "transcript": store.matches.transcript(m.id)}


def jsonl(store: SessionStore) -> str:
    """:func:`records` as JSON Lines (UTF-8, one object per line)."""
    return "".join(json.dumps(obj, ensure_ascii=False, sort_keys=True) + "\n" for obj in records(store))
