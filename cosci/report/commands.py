"""The report commands behind the CLI: ``cosci report <id> --html [--open]`` and ``cosci export <id>``.

Both only read the store, so they work on a running session (SQLite WAL: readers never block the writer) as
well as on a finished one.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import webbrowser
from pathlib import Path

from cosci.errors import CosciError
from cosci.report.export import FORMATS, jsonl, markdown
from cosci.report.formats import HTML_SUFFIXES
from cosci.report.render import render_html, write_report
from cosci.store import SessionStore


def elo_initial(store: SessionStore) -> float:
    """The session's initial Elo rating (points) from its frozen config (design.md#tournament: 1200)."""
    return float(store.sessions.get().config_snapshot.get("ranking", {}).get("elo_initial", 1200.0))


def report_html(store: SessionStore, folder: Path, out: str | None, open_it: bool,
                status: str | None = None) -> Path | None:
    """Write the report page (default ``<session folder>/final/report.html``; ``out`` through :func:`write_out`'s
    checks, as ``cosci export --format html`` writes it), optionally open it in a browser; ``status`` as
    :func:`cosci.report.data.collect` takes it.

    Returns:
        The file written, or None when ``out`` is no regular file (``/dev/stdout``).

    Raises:
        CosciError: ``out`` cannot be written (:func:`write_out`: a missing folder, a folder, a database, no
            permission): one line, nothing made (fresh-user trial: ``--out /proc/x.html`` ended in a traceback and
            ``--out /nonexistent/x.html`` made the folder).
    """
    if out is None:
        path: Path | None = write_report(store, folder, elo_initial(store), None, status)
    else:
        from cosci.report.data import collect

        path = write_out(out, render_html(collect(store, elo_initial(store), status), elo_initial(store)))
    if path is not None and open_it and not webbrowser.open(path.as_uri()):
        print(f"cosci: no browser could be started; open {path.as_uri()}", file=sys.stderr)
    return path


SUFFIXES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".jsonl": "jsonl", ".ndjson": "jsonl",
            ".bib": "bibtex", ".ris": "ris"}
"""File name endings that name an export format: ``cosci export`` refuses one naming another format."""
NAMES = {"html": "HTML", "md": "Markdown", "jsonl": "JSON Lines", "bibtex": "BibTeX", "ris": "RIS"}


def write_out(out: str, text: str) -> Path | None:
    """Write ``text`` (UTF-8) to the file ``out`` names, for ``cosci report --out`` and ``cosci export --out``.

    Returns:
        The file written, or None when ``out`` is no regular file (``/dev/stdout``).

    Raises:
        CosciError: ``out`` ends with "/" (a folder), the folder does not exist, the file is a database
            (:func:`is_database`), or the file cannot be written (a folder, no permission): one line, ``--out F:
            cannot write it (Is a directory)``.
    """
    if out.endswith(("/", os.sep)):  # Path() drops the slash: `--out newdir/` wrote a file `newdir` (fresh user)
        raise CosciError(f"--out {out}: names a folder (it ends with /); name a file in it; nothing was written")
    path = Path(out).expanduser().absolute()  # not resolve(): /dev/stdout on a pipe resolves to no file
    if not path.parent.is_dir():
        raise CosciError(f"--out {out}: folder {path.parent} does not exist")
    if is_database(path):  # a session's store written over read "damaged" ever after (fresh-user trial)
        raise CosciError(f"--out {out}: is a SQLite database (a session's store, MLflow's) or its log; cosci writes "
                         "over no database: name another file; nothing was written")
    try:
        whole(path, text.encode("utf-8"))
    except OSError as exc:
        raise CosciError(f"--out {out}: cannot write it ({exc.strerror or exc}); nothing was written") from exc
    return path if path.is_file() else None


def whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all: into a temporary file beside it, then renamed over it, so a
    write that fails part-way (a full disk, a file size limit) leaves the earlier file as it was and no part file
    (the fresh-user trial's export at a 64 KiB limit left 64 KiB of a 170 KB export over the earlier one;
    design.md#cli). A symbolic link is written through to its file; what is no regular file (``/dev/stdout``, a
    pipe, a folder) is written as it is. A new file gets the mode the umask gives, a replaced one keeps its own.

    Raises:
        OSError: the folder or file cannot be written.
    """
    target = path.resolve() if path.is_symlink() else path
    if target.exists() and not target.is_file():
        target.write_bytes(data)
        return
    if target.exists():
        mode = target.stat().st_mode & 0o7777
    else:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    fd, part = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(part, mode)
        os.replace(part, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(part)
        raise


SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file (a session's ``store.sqlite``, MLflow's ``mlflow.db``)."""


def is_database(path: Path) -> bool:
    """Whether ``path`` is an existing SQLite database, or the write-ahead log, shared memory or journal beside one
    (``store.sqlite-wal``): files an ``--out`` must never replace."""
    logged = next((path.with_name(path.name[: -len(s)]) for s in ("-wal", "-shm", "-journal")
                   if path.name.endswith(s) and path.exists()), None)
    target = logged or path
    if not target.is_file():  # no such file, a folder, /dev/stdout (never read: a pipe would block)
        return False
    try:
        with target.open("rb") as fh:
            return fh.read(16) == SQLITE_HEADER
    except OSError:  # unreadable: not one cosci could have written
        return False


def check_suffix(fmt: str, out: str) -> None:
    """Refuse an ``--out`` whose ending contradicts ``--format`` (as ``cosci report --html --out x.txt`` is
    refused): the page only into ``.html``/``.htm``; Markdown and JSON Lines not into a name ending as another
    format's (:data:`SUFFIXES`). ``-`` (standard output) is never refused, nor a folder (:func:`write_out` says
    it cannot be written).

    Raises:
        CosciError: one line naming the ending the format wants.
    """
    if out == "-" or Path(out).expanduser().is_dir():
        return
    suffix = Path(out).suffix.lower()
    named = SUFFIXES.get(suffix)
    if (fmt == "html" and suffix not in HTML_SUFFIXES) or (fmt != "html" and named not in (None, fmt)):
        want = next(s for s, f in SUFFIXES.items() if f == fmt)
        other = f" (or --format {named} to write {NAMES[named]} there)" if named and named != fmt else ""
        raise CosciError(f"--out {out}: --format {fmt} writes {NAMES[fmt]}, name the file {want}{other}")


def export(store: SessionStore, fmt: str, out: str, status: str | None = None) -> Path | None:
    """Write the session in ``fmt`` (one of :data:`FORMATS`) to ``out`` (``-``: standard output); ``status`` as
    :func:`cosci.report.data.collect` takes it (the ``md`` and ``html`` formats show it).

    Returns:
        The file written, or None for standard output, and for ``bibtex``/``ris`` of a session that cites no work:
        then one line on stderr says so and nothing is written (no empty file; exit 0, docs/commands.md).

    Raises:
        CosciError: an unknown format, an ``out`` ending that names another format (:func:`check_suffix`), the
            output folder does not exist, or the file cannot be written (:func:`write_out`).
    """
    if fmt not in FORMATS:
        raise CosciError(f"--format {fmt}: choose one of {', '.join(FORMATS)}")
    check_suffix(fmt, out)
    from cosci.report.data import collect

    if fmt in ("bibtex", "ris"):
        from cosci.report import citations

        if not citations.works(store):
            print(f"cosci: no cited works in session {store.session_id}: nothing to export", file=sys.stderr)
            return None
        text = citations.bibtex(store) if fmt == "bibtex" else citations.ris(store)
    else:
        text = (render_html(collect(store, elo_initial(store), status), elo_initial(store)) if fmt == "html"
                else markdown(store, status) if fmt == "md" else jsonl(store))
    if out == "-":
        sys.stdout.write(text)
        return None
    return write_out(out, text)
