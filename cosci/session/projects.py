"""``cosci project list`` and ``cosci project show NAME``: a project's sessions, best hypotheses, rejected and
demoted directions and experimental results, read from its store; :func:`sync_project`, a session copied into its
project's store (design.md#projects)."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

from cosci.config.schema import CosciConfig
from cosci.errors import CosciError
from cosci.session.folder import SessionFolder
from cosci.store import SessionStore
from cosci.store.project import ProjectStore
from cosci.store.researcher import measures_line
from cosci.store.standing import bt_score_text
from cosci.text import columns, one_line, plural

log = logging.getLogger(__name__)


def project_lines(data_dir: Path, name: str | None) -> list[str]:
    """``cosci project list`` (``name`` None) or ``cosci project show NAME``.

    Raises:
        CosciError: no such project.
    """
    if name is None:
        names = ProjectStore.names(data_dir)
        if not names:
            return [f"no projects under {data_dir / 'projects'}"]
        rows = []
        for n in names:
            p = ProjectStore.open(data_dir, n)
            try:
                counts = ((len(p.sessions()), "session", None), (len(p.hypotheses()), "hypothesis", "hypotheses"),
                          (len(p.rejected()), "rejected direction", None), (len(p.demoted()), "demoted direction",
                                                                             None),
                          (len(p.observations()), "result", None))
                rows.append([n, *(f"{k} {plural(k, word, many)}" for k, word, many in counts)])
            finally:
                p.close()
        return columns(rows)
    if not ProjectStore.exists(data_dir, name):
        raise CosciError(f"no project {name!r} under {data_dir / 'projects'}; `cosci project list` lists them")
    p = ProjectStore.open(data_dir, name)
    try:
        return _shown(data_dir, name, p)
    finally:
        p.close()


def _shown(data_dir: Path, name: str, p: ProjectStore) -> list[str]:
    """``cosci project show NAME``: each section a table whose columns line up (:func:`cosci.text.columns`), an
    empty one ``none``; a session's status as ``cosci list`` and ``cosci status`` show it
    (:meth:`SessionFolder.shown_status`: a ``running`` session whose process is gone is ``stopped``); a result's
    measures as ``name = value`` (:func:`measures_line`, units as the researcher named them, e.g. ``ic50_nM = 12``)
    or ``no measures recorded``."""
    out = [f"project {name}", "", "sessions:"]
    out += columns([[s["session_id"], SessionFolder(data_dir, s["session_id"]).shown_status(s["status"]),
                     s["stop_reason"] or "-", one_line(s["goal"], 60)]
                    for s in p.sessions()], indent="  ")
    out += ["", "best hypotheses (BT score in its session's fit, then final Elo; refuted or rejected ones never):"]
    out += columns([[f"[{h.hypothesis_id}]", f"BT {'-' if h.bt_score is None else bt_score_text(h.bt_score)}",
                     f"Elo {h.elo:4.0f}", h.session_id, one_line(h.title, 70)]
                    for h in p.best(10)], indent="  ") or ["  none"]
    out += ["", "rejected directions:"]
    out += columns([[f"[{d.hypothesis_id}]", d.session_id, d.reason, one_line(d.title, 60)]
                    for d in p.rejected()], indent="  ") or ["  none"]
    out += ["", "demoted directions (latest review disproved or already explained; not rejected):"]
    out += columns([[f"[{d.hypothesis_id}]", d.session_id, d.reason, one_line(d.title, 60)]
                    for d in p.demoted()], indent="  ") or ["  none"]
    out += ["", "experimental results:"]
    out += columns([[f"[{o['hypothesis_id']}]", o["session_id"], o["outcome"], _measures(o["measures"])]
                    for o in p.observations()], indent="  ") or ["  none"]
    out += ["", f"researcher ratings: {len(p.ratings())}"]
    return out


def _measures(stored: str) -> str:
    """A result's measures (stored as JSON) as :func:`measures_line` says them, or ``no measures recorded``."""
    values = json.loads(stored) if stored else {}
    return f"measures: {measures_line(values)}" if values else "no measures recorded"


def sync_project(config: CosciConfig, store: SessionStore) -> None:
    """Copy the session into its project's store (nothing outside a project). A failure is logged: the session's
    own store is the record, and the next sync (the overview, the close, ``cosci rate``/``result``) repeats it.

    A session in no project returns before the agents' package is imported (``cosci rate`` and ``cosci result``
    sync after every input: design.md#startup)."""
    if not config.session.project:
        return
    from cosci.agents.project_context import project_store

    try:
        project = project_store(config)
    except sqlite3.Error as exc:
        log.warning("project store not opened: %s", exc)
        return
    if project is None:
        return
    try:
        project.sync(store)
    except sqlite3.Error as exc:
        log.warning("project %s not updated: %s", config.session.project, exc)
    finally:
        project.close()
