"""``cosci project list`` and ``cosci project show NAME``: a project's sessions, best hypotheses, rejected
directions and experimental results, read from its store (design.md#projects)."""

from __future__ import annotations

from pathlib import Path

from cosci.errors import CosciError
from cosci.store.project import ProjectStore
from cosci.text import plural


def project_lines(data_dir: Path, name: str | None) -> list[str]:
    """``cosci project list`` (``name`` None) or ``cosci project show NAME``.

    Raises:
        CosciError: no such project.
    """
    if name is None:
        names = ProjectStore.names(data_dir)
        if not names:
            return [f"no projects under {data_dir / 'projects'}"]
        out = []
        for n in names:
            p = ProjectStore.open(data_dir, n)
            try:
                counts = ((len(p.sessions()), "session", None), (len(p.hypotheses()), "hypothesis", "hypotheses"),
                          (len(p.rejected()), "rejected direction", None), (len(p.observations()), "result", None))
                out.append("  ".join([n, *(f"{k} {plural(k, word, many)}" for k, word, many in counts)]))
            finally:
                p.close()
        return out
    if not ProjectStore.exists(data_dir, name):
        raise CosciError(f"no project {name!r} under {data_dir / 'projects'}; `cosci project list` lists them")
    p = ProjectStore.open(data_dir, name)
    try:
        out = [f"project {name}", "", "sessions:"]
        out += [f"  {s['session_id']}  {s['status']:8s} {s['stop_reason'] or '-':11s} "
                f"{' '.join(s['goal'].split())[:60]}" for s in p.sessions()]
        out += ["", "best hypotheses (final Elo):"]
        out += [f"  [{h.hypothesis_id}] Elo {h.elo:6.0f}  {h.session_id}  {' '.join(h.title.split())[:70]}"
                for h in p.best(10)] or ["  none"]
        out += ["", "rejected directions:"]
        out += [f"  [{d.hypothesis_id}] {d.reason}: {' '.join(d.title.split())[:60]} ({d.session_id})"
                for d in p.rejected()] or ["  none"]
        out += ["", "experimental results:"]
        out += [f"  [{o['hypothesis_id']}] {o['outcome']} {o['measures']} ({o['session_id']})"
                for o in p.observations()] or ["  none"]
        out += ["", f"researcher ratings: {len(p.ratings())}"]
        return out
    finally:
        p.close()
