"""The report commands behind the CLI: ``cosci report <id> --html [--open]`` and ``cosci export <id>``.

Both only read the record, so they work on a running session (SQLite WAL: readers never block the writer) as
well as on a finished one.
"""

from __future__ import annotations

import sys
import webbrowser
from pathlib import Path

from cosci.errors import CosciError
from cosci.report.export import FORMATS, jsonl, markdown
from cosci.report.render import render_html, write_report
from cosci.store import SessionRecord


def elo_initial(record: SessionRecord) -> float:
    """The session's initial Elo rating (points) from its frozen config (seed 000: 1200)."""
    return float(record.sessions.get().config_snapshot.get("ranking", {}).get("elo_initial", 1200.0))


def report_html(record: SessionRecord, folder: Path, out: str | None, open_it: bool) -> Path:
    """Write the report page (default ``<session folder>/final/report.html``), optionally open it in a browser."""
    path = write_report(record, folder, elo_initial(record), Path(out).expanduser().resolve() if out else None)
    if open_it and not webbrowser.open(path.as_uri()):
        print(f"cosci: no browser could be started; open {path.as_uri()}", file=sys.stderr)
    return path


def export(record: SessionRecord, fmt: str, out: str) -> Path | None:
    """Write the session in ``fmt`` (one of :data:`FORMATS`) to ``out`` (``-``: standard output).

    Returns:
        The file written, or None for standard output.

    Raises:
        CosciError: an unknown format, or the output folder does not exist.
    """
    if fmt not in FORMATS:
        raise CosciError(f"--format {fmt}: choose one of {', '.join(FORMATS)}")
    from cosci.report.data import collect

    text = (render_html(collect(record, elo_initial(record)), elo_initial(record)) if fmt == "html"
            else markdown(record) if fmt == "md" else jsonl(record))
    if out == "-":
        sys.stdout.write(text)
        return None
    path = Path(out).expanduser().resolve()
    if not path.parent.is_dir():
        raise CosciError(f"--out {out}: folder {path.parent} does not exist")
    path.write_text(text, encoding="utf-8")
    return path
