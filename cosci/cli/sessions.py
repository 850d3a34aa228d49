"""The session commands: ``cosci run``, ``list``, ``status``, ``report``, ``export``, ``resume``, ``pause``,
``abort``, ``feedback``, ``release``. Each is glue between the parsed arguments and the session service
(:mod:`cosci.api`) or the lines :mod:`cosci.session` builds."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from cosci import api
from cosci.cli.common import data_dir, session_folder
from cosci.config.load import ConfigError
from cosci.errors import CosciError, StoreDamaged
from cosci.report.formats import HTML_SUFFIXES
from cosci.session.folder import SessionFolder, shown_status
from cosci.session.status import report_lines, status_report
from cosci.text import bidi_control, bidi_escaped, columns, one_line, plural, say


def cmd_list(args: argparse.Namespace) -> None:
    """``cosci list``: one row a session under a header, its columns aligned (:func:`cosci.text.columns`)."""
    root = data_dir(args.data_dir)
    folders = SessionFolder.all(root)
    if not folders:
        named = "--data-dir" if args.data_dir else "COSCI_DATA_DIR" if os.environ.get("COSCI_DATA_DIR") else None
        missing = "" if root.is_dir() or not named else f" ({root} does not exist: is {named} mistyped?)"  # fresh user
        print(f"no sessions under {root / 'sessions'}{missing}")
        return
    rows = [["session", "status", "stop reason", "hypotheses in the pool", "matches", "goal"]]
    for folder in folders:
        try:
            with folder.store(read_only=True) as store:
                row = store.sessions.get()
                states = store.hypotheses.state_counts()
                n, m = store.hypotheses.count(), store.matches.count()
        except StoreDamaged as exc:  # one damaged session hides none of the others
            rows.append([folder.session_id, f"damaged store: {exc.reason}", "-", "-", "-", "-"])
            continue
        rows.append([folder.session_id, folder.shown_status(row.status), row.stop_reason or "-",
                     f"{n:3d} {plural(n, 'hypothesis', 'hypotheses')} ({states.get('rejected', 0)} rejected, "
                     f"{states.get('retired', 0)} retired)", f"{m:4d} {plural(m, 'match', 'matches')}",
                     one_line(bidi_escaped(row.research_goal), 60)])
    for line in columns(rows):
        print(line)


def cmd_status(args: argparse.Namespace) -> None:
    """A session's status; in a folder this process cannot write (a read-only archive) the store is read as it is and
    no provider batch is polled, as `cosci report` reads it (fresh-user trial; design.md#cli)."""
    folder = session_folder(args)
    writable = os.access(folder.path, os.W_OK)
    if writable and not folder.is_running():  # a stopped session's provider batches are polled (and settled when ended)
        try:
            lines = settled_batches(folder)
        except StoreDamaged:  # the status cannot print either: its one line, not a batches line before it
            raise
        except (CosciError, ConfigError) as exc:  # e.g. a resume started meanwhile: the status still prints
            lines = [f"not polled, {exc}"]
        for line in lines:
            print(f"batches      {line}")
    with folder.store(read_only=not writable) as store:
        for line in status_report(folder, store):
            print(line)


def settled_batches(folder: SessionFolder, overrides: Sequence[str] = ()) -> list[str]:
    """Poll (and settle) a stopped session's outstanding provider batches (docs/design.md#batch-settlement)."""
    from cosci.session.settle import settle_batches

    return settle_batches(folder, overrides)


def cmd_report(args: argparse.Namespace) -> None:
    """``cosci report``: the text report on stdout, or in ``--out F``; the page with ``--html``/``--open`` or an
    ``--out`` ending ``.html``/``.htm`` (the format follows the flag and the file's extension, never one alone)."""
    page = args.html or args.open or (args.out and Path(args.out).suffix.lower() in HTML_SUFFIXES)
    if page and args.out and Path(args.out).suffix.lower() not in HTML_SUFFIXES:
        raise CosciError(f"--out {args.out}: the report page is HTML, name the file .html (or drop "
                         f"{'--html' if args.html else '--open'} to write the text report there)")
    folder = session_folder(args)
    with folder.store(read_only=not page) as store:
        if page:
            from cosci.report.commands import report_html

            if path := report_html(store, folder.path, args.out, args.open, shown_status(store)):
                print(path)
            return
        text = "\n".join(report_lines(store)) + "\n"
    if not args.out:
        sys.stdout.write(text)
        return
    from cosci.report.commands import write_out

    if path := write_out(args.out, text):  # the path check `cosci export --out` shares
        print(path)


def cmd_export(args: argparse.Namespace) -> None:
    """``cosci export``: the session in ``--format``, else the format ``--out``'s name ends as
    (:data:`cosci.report.commands.SUFFIXES`).

    Raises:
        CosciError: neither names a format; as :func:`cosci.report.commands.export`.
    """
    from cosci.report.commands import SUFFIXES, export

    fmt = args.format or (SUFFIXES.get(Path(args.out).suffix.lower()) if args.out != "-" else None)
    if fmt is None:  # the name says it, as `cosci report --out F.html` follows it (fresh-user trial)
        raise CosciError("export needs --format md|html|jsonl|bibtex|ris, or an --out whose name ends as one (.md, "
                         ".html, .jsonl, .bib, .ris)")
    with session_folder(args).store(read_only=True) as store:
        path = export(store, fmt, args.out, shown_status(store))
    if path:
        print(path)


def cmd_request(args: argparse.Namespace) -> None:
    """``cosci pause`` / ``cosci abort``: ask the session to hold / to stop (:meth:`cosci.api.Session.pause`)."""
    session = api.Session(session_folder(args))
    print(session.pause() if args.command == "pause" else session.abort())


def cmd_feedback(args: argparse.Namespace) -> None:
    """``cosci feedback``: researcher feedback for the next prompts (:meth:`cosci.api.Session.feedback`)."""
    print(api.Session(session_folder(args), flags=True).feedback(args.kind, args.text or "", args.hypothesis).line)


def cmd_release(args: argparse.Namespace) -> None:
    """A researcher releases a quarantined hypothesis; it goes back to review and the tournament (design.md#safety)."""
    from cosci.session.release import release

    print(release(session_folder(args), args.hypothesis, args.why, args.by))



def cmd_resume(args: argparse.Namespace) -> None:
    """``cosci resume``: continue a killed or paused session, or settle a done one's batches
    (:meth:`cosci.api.Session.resume`)."""
    folder = session_folder(args)
    with folder.store() as store:
        goal = store.sessions.get().research_goal
    if bidi := bidi_control(goal):  # stored before such goals were refused (design.md#cli): it runs, said once
        say(f"warning: the goal of {folder.session_id} holds a bidirectional control character {bidi}, stored "
            "before such goals were refused; the session reads it as stored, and `cosci list`, `status` and the "
            "report show each one escaped, as \\u202e")
    for line in api.Session(folder).resume(args.overrides).lines:
        print(line)


def cmd_run(args: argparse.Namespace) -> None:
    """A new session whose goal is ``--goal`` verbatim: the text never meets Hydra's override grammar; the
    service prepares, pre-flights and runs it (:mod:`cosci.api`).

    Raises:
        CosciError: no ``--goal`` (argparse's "the following arguments are required" named no way to run an
            experiment's own goal, and ``experiment=demo models=fake`` is the overrides' example; fresh-user trial).
    """
    if args.goal is None:
        raise CosciError("run needs the research goal: cosci run --goal \"...\" [overrides]; to run an experiment's "
                         "own goal: python -m cosci.run experiment=<name> [overrides]")
    checked = api.preflight(api.prepare(args.goal, args.overrides, given_as="--goal"))
    for line in checked.notices:
        print(line, file=sys.stderr)
    api.run(checked)
