"""What the web UI's pages show, read from the data folder (no framework here): the sessions list, a session's
live figures and spend against its agents' shares, its event lines, the standing, a hypothesis, the overview and a
project. The report's own data functions (:mod:`cosci.report.data`, :mod:`cosci.store.standing`) are reused, so
the page and ``cosci report`` never disagree (docs/web.md).

Every read opens the session's store read-only and closes it: a session running in another process (started from
the terminal) is read while it writes (SQLite WAL).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosci.errors import CosciError, StoreDamaged
from cosci.session.folder import SessionFolder
from cosci.text import bidi_escaped

EVENT_SHOWN_CHARS = 160
"""An event line's payload is cut to this many characters (the full payload stays in the store)."""


@dataclass(frozen=True)
class SessionRow:
    """One row of the sessions page (``spent_usd`` in USD)."""

    id: str
    status: str
    stop_reason: str
    spent_usd: float
    budget_usd: float
    project: str
    goal: str
    hypotheses: int


def project_of(snapshot: dict[str, Any]) -> str:
    """The project a session's frozen config names ("" for none)."""
    return str((snapshot.get("session") or {}).get("project") or "")


def sessions(root: Path) -> list[SessionRow | str]:
    """Every session under the data folder ``root``, newest first; a damaged store is its one line instead."""
    out: list[SessionRow | str] = []
    for folder in reversed(SessionFolder.all(root)):
        try:
            with folder.store(read_only=True) as store:
                row = store.sessions.get()
                spent = sum(s["usd"] for s in store.logs.spend().values())
                out.append(SessionRow(row.id, folder.shown_status(row.status), row.stop_reason or "-", spent,
                                      row.budget_usd, project_of(row.config_snapshot), bidi_escaped(row.research_goal),
                                      store.hypotheses.count()))
        except StoreDamaged as exc:
            out.append(f"{folder.session_id}: damaged store: {exc.reason}")
    return out


def readable(folder: SessionFolder) -> bool:
    """Whether the session's store holds its session row yet (a session being created has a file first)."""
    try:
        with folder.store(read_only=True) as store:
            store.sessions.get()
    except Exception:  # any state of a store being created: not yet
        return False
    return True


def live(folder: SessionFolder) -> dict[str, Any]:
    """The live line's figures (as ``cosci run`` shows them on the terminal, :class:`cosci.ui.progress.LiveProgress`)
    and the spend by agent against each agent's share of the budget (USD)."""
    from cosci.stats import collect

    with folder.store(read_only=True) as store:
        row = store.sessions.get()
        snapshot = row.config_snapshot
        initial = float((snapshot.get("ranking") or {}).get("elo_initial", 1200.0))
        s = collect(store, row.elapsed_seconds or 0.0, initial)
        spend = store.logs.spend()
        last = store.logs.last_event_seq()
        status = folder.shown_status(row.status)
    agents = snapshot.get("agents") or {}
    shares = []
    for agent in sorted(set(agents) | set(spend)):
        share = float((agents.get(agent) or {}).get("budget_share", 0.0))
        used = float(spend.get(agent, {}).get("usd", 0.0))
        shares.append({"agent": agent, "usd": used, "share_usd": share * row.budget_usd, "share": share,
                       "tokens": int(spend.get(agent, {}).get("tokens", 0))})
    wall = float((snapshot.get("run") or {}).get("wall_clock_seconds", 0.0) or 0.0)
    return {"status": status, "stop_reason": row.stop_reason, "goal": bidi_escaped(row.research_goal), "stats": s,
            "budget_usd": row.budget_usd, "wall_minutes": int(wall) // 60, "elapsed": _clock(s.elapsed_seconds),
            "shares": shares, "project": project_of(snapshot), "last_seq": last, "running": folder.is_running(),
            "reserve_share": float((snapshot.get("budget") or {}).get("reserve_share", 0.0))}


def _clock(seconds: float) -> str:
    mins, secs = divmod(int(seconds), 60)
    return f"{mins:02d}:{secs:02d}"


def event_line(e: dict[str, Any]) -> dict[str, str]:
    """One event as the page lists it: time (UTC), agent, event name, its payload in one cut line."""
    payload = json.dumps(e.get("payload") or {}, ensure_ascii=False, sort_keys=True)
    if len(payload) > EVENT_SHOWN_CHARS:
        payload = payload[:EVENT_SHOWN_CHARS - 1] + "…"
    when = dt.datetime.fromtimestamp(float(e["created_at"]), dt.UTC).strftime("%H:%M:%S")
    return {"seq": str(e.get("seq", "")), "at": when, "agent": e.get("agent") or "-", "event": e["event"],
            "payload": payload}


def recent_events(folder: SessionFolder, n: int = 30) -> list[dict[str, str]]:
    """The newest ``n`` events, newest first."""
    with folder.store(read_only=True) as store:
        last = store.logs.last_event_seq()
        rows = store.logs.events_after(max(0, last - n), n)
    return [event_line(e) for e in reversed(rows)]


def finished(folder: SessionFolder) -> bool:
    """Whether the session is done or refused and no process runs it (its event log grows no more)."""
    from cosci.session.preflight import FINISHED

    with folder.store(read_only=True) as store:
        status = store.sessions.status()
    return status in FINISHED and not folder.is_running()


def last_seq(folder: SessionFolder) -> int:
    """The sequence number of the session's newest event (0 before any)."""
    with folder.store(read_only=True) as store:
        return int(store.logs.last_event_seq())


def standing(folder: SessionFolder) -> Any:
    """The current standing (:func:`cosci.store.standing.standing`: BT score with its interval, then Elo)."""
    from cosci.store.standing import standing as current

    with folder.store(read_only=True) as store:
        return current(store)


def report_data(folder: SessionFolder) -> Any:
    """The report's whole content (:func:`cosci.report.data.collect`) with the status ``cosci status`` shows."""
    from cosci.report.commands import elo_initial
    from cosci.report.data import collect

    with folder.store(read_only=True) as store:
        row = store.sessions.get()
        return collect(store, elo_initial(store), folder.shown_status(row.status))


def hypothesis(folder: SessionFolder, hid: str) -> Any:
    """The hypothesis ``hid`` of the session as the report shows it (:class:`cosci.report.data.HypothesisView`)
    and the report data it came from.

    Raises:
        CosciError: no such hypothesis in this session: the line ``cosci rate`` gives (the id's form, or the other
            session holding it; :func:`cosci.session.inputs.hypothesis_missing`).
    """
    from cosci.session.inputs import hypothesis_missing

    with folder.store(read_only=True) as store:
        if missing := hypothesis_missing(store, hid, folder.session_id, folder):
            raise CosciError(missing)
    data = report_data(folder)
    view = next(h for h in data.hypotheses if h.row["id"] == hid)
    return view, data


def partials(sid: str) -> dict[str, Any]:
    """What the report's partials need on a web page: hypothesis links to this UI's pages, the review scores."""
    from cosci.report.data import SCORE_KEYS

    return {"hyp_base": f"/sessions/{sid}/hypotheses/", "score_keys": SCORE_KEYS}


def overview(data: Any, sid: str) -> Any:
    """The overview as the report renders it (Markdown, raw HTML off, known ``[H-…]`` ids linked), its links pointed
    at this UI's hypothesis pages, then through the sanitiser; None before the overview."""
    from cosci.report.render import overview_html
    from cosci.web.security import clean

    if not data.overview:
        return None
    html = str(overview_html(data.overview, data.ids))
    return clean(html.replace('href="#H-', f'href="/sessions/{sid}/hypotheses/H-'))


def project(root: Path, name: str) -> list[list[str]]:
    """A project's sections as ``cosci project show`` writes them (sessions, best hypotheses, rejected and demoted
    directions, results), each a list of lines.

    Raises:
        CosciError: no such project.
    """
    from cosci.session.projects import project_lines

    sections: list[list[str]] = [[]]
    for line in project_lines(root, name)[1:]:
        if not line.strip():
            sections.append([])
        else:
            sections[-1].append(line)
    return [s for s in sections if s]


def projects(root: Path) -> list[str]:
    """The project names under the data folder."""
    from cosci.store.project import ProjectStore

    return list(ProjectStore.names(root))

