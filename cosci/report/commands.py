"""The report commands behind the CLI: ``cosci report <id> --html [--open]`` and ``cosci export <id>``.

Both only read the store, so they work on a running session (SQLite WAL: readers never block the writer) as
well as on a finished one.
"""

from __future__ import annotations

import sys
import webbrowser
from pathlib import Path

from cosci.errors import CosciError
from cosci.report.export import FORMATS, jsonl, markdown
from cosci.report.render import render_html, write_report
from cosci.store import SessionStore


def elo_initial(store: SessionStore) -> float:
    """The session's initial Elo rating (points) from its frozen config (design.md#tournament: 1200)."""
    return float(store.sessions.get().config_snapshot.get("ranking", {}).get("elo_initial", 1200.0))


def report_html(store: SessionStore, folder: Path, out: str | None, open_it: bool) -> Path:
    """Write the report page (default ``<session folder>/final/report.html``), optionally open it in a browser."""
    path = write_report(store, folder, elo_initial(store), Path(out).expanduser().resolve() if out else None)
    if open_it and not webbrowser.open(path.as_uri()):
        print(f"cosci: no browser could be started; open {path.as_uri()}", file=sys.stderr)
    return path


def export(store: SessionStore, fmt: str, out: str) -> Path | None:
    """Write the session in ``fmt`` (one of :data:`FORMATS`) to ``out`` (``-``: standard output).

    Returns:
        The file written, or None for standard output.

    Raises:
        CosciError: an unknown format, or the output folder does not exist.
    """
    if fmt not in FORMATS:
        raise CosciError(f"--format {fmt}: choose one of {', '.join(FORMATS)}")
    from cosci.report.data import collect

    text = (render_html(collect(store, elo_initial(store)), elo_initial(store)) if fmt == "html"
            else markdown(store) if fmt == "md" else jsonl(store))
    if out == "-":
        sys.stdout.write(text)
        return None
    path = Path(out).expanduser().resolve()
    if not path.parent.is_dir():
        raise CosciError(f"--out {out}: folder {path.parent} does not exist")
    path.write_text(text, encoding="utf-8")
    return path
