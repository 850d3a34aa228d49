"""Which session a researcher's command names: a session id, or a project whose newest session holds the
hypotheses named (``cosci rate``, ``cosci result``, ``cosci withdraw``; design.md#projects)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cosci.errors import CosciError
from cosci.session.folder import SessionFolder
from cosci.session.inputs import check_target_kind
from cosci.store.project import ProjectStore


def resolve_target(data_dir: Path, target: str, hids: str | Sequence[str], *, project_only: bool = False
                   ) -> SessionFolder:
    """The session a ``cosci rate`` / ``cosci result`` names: a session id, or a project name whose newest session
    holding every one of ``hids`` is taken (``project_only``: ``--project NAME``, a project name only).

    Raises:
        CosciError: no such session or project, the hypotheses in none of the project's sessions.
    """
    wanted = {hids} if isinstance(hids, str) else set(hids)
    if project_only and not ProjectStore.exists(data_dir, target):
        raise CosciError(f"--project {target}: no project {target!r} under {data_dir / 'projects'}; "
                         "`cosci project list` lists them")
    if (data_dir / "sessions" / target).is_dir() and not ProjectStore.exists(data_dir, target):
        return SessionFolder.existing(data_dir, target)
    if not ProjectStore.exists(data_dir, target):
        check_target_kind(data_dir, target)
        return SessionFolder.existing(data_dir, target)  # says "no session ..." in one line
    project = ProjectStore.open(data_dir, target)
    try:
        held: dict[str, set[str]] = {}
        for h in project.hypotheses():
            held.setdefault(h.session_id, set()).add(h.hypothesis_id)
        sessions = [s["session_id"] for s in project.sessions() if wanted <= held.get(s["session_id"], set())]
    finally:
        project.close()
    if not sessions:
        raise CosciError(f"no hypothesis {' and '.join(map(repr, sorted(wanted)))} in project {target}"
                         if len(wanted) == 1 else f"no session of project {target} holds all of "
                         f"{', '.join(map(repr, sorted(wanted)))}")
    return SessionFolder.existing(data_dir, sessions[-1])


def same_project(sid: str, own: str | None, project: str | None) -> None:
    """Raises CosciError when ``project`` is named and the session (whose project is ``own``) is not in it."""
    if project is not None and own != project:
        raise CosciError(f"session {sid} is not in project {project} (its project: {own or 'none'})")
