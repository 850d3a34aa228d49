"""The ``cosci`` command: session commands around the main job (``python -m cosci.run``).

    cosci run --goal "any text" [hydra overrides ...]   start a session; the goal is passed through untouched
    cosci list                                  sessions under the data directory
    cosci status <id>                           counts, spend, status and stop reason
    cosci report <id>                           the research overview (or the leaderboard so far)
    cosci report <id> --html [--open] [--out F] the report page (final/report.html), optionally opened
    cosci report <id> --out F                   the text report in F (F.html/.htm: the page)
    cosci export <id> --format md|html|jsonl|bibtex|ris [--out F]   the report, the store or the cited works
    cosci resume <id> [key=value ...]           continue a killed or paused session (overrides on its frozen config);
                                                a finished one with provider batches outstanding settles them
    cosci pause <id> | cosci abort <id>         ask a running session to hold / to stop and write its overview
    cosci feedback <id> --kind K --text T       researcher feedback: directive, preference, rejection, pin
    cosci release <id> <H-id> --why T [--by W]  release a hypothesis quarantined by safety screening
    cosci rate <id|project> <H-a> <H-b> --prefer a|b|tie [--why T] | cosci rate <id|project> <H-id> --score 1-5
                                                the researcher's rating: a preference enters the Bradley–Terry fit
                                                (``--project NAME`` names the project as an option: then the
                                                session may be left out, ``--project NAME <H-id> ...``)
    cosci result <id|project> <H-id> --outcome supported|refuted|inconclusive [--measure NAME=VALUE ...]
                 [--notes T] [--file F]         an experimental result: refuted leaves the tournament, supported pins
    cosci rate [<id|project>] --withdraw RR-id | cosci result [<id|project>] --withdraw O-id
                                                take a rating or result back (its earlier state restored)
    cosci project list | cosci project show NAME   a project's sessions, best hypotheses, rejected and demoted
                                                directions
    cosci mcp [--http PORT]                     the session commands as an MCP server for assistants (docs/mcp.md)
    cosci estimate [hydra overrides ...]        pre-flight cost estimate of a configuration; exit 2 (the run's refusal
                                                line) when its budget cannot pay for a first hypothesis
    cosci screen "text" | cosci screen --file F [--overrides ...]   the offline safety screen on texts, one
                                                JSON line each (decision, category, rule, score, language); exit 3
                                                if any is refused, 2 for a line that is no text
    cosci check [hydra overrides ...]           one minimal call per configured model and request form (offline for
                                                models=fake or local); the total cost first, exit 1 on a failure,
                                                2 when a host cannot be reached (as a run)
    cosci compare [--experiment E | --parent RUN | --ids RUN ...]   compare sessions tracked in MLflow
    cosci schedule [--cron "0 6 * * 1"] [hydra overrides ...]        serve the Prefect deployment on a schedule
    cosci serve [--port 7878] [--host 127.0.0.1] [--token T]    the web UI on the data folder (docs/web.md)
    cosci investigate draft --brief FILE [--from-session S --hypothesis H] [--out DIR] [overrides ...]
    cosci investigate check TASK | run TASK [--from-session S] [overrides ...] | resume RUN | write RUN
                                                test hypotheses by running code (docs/design.md#investigation)
    cosci eval moose-chem [--items N|ids] [--corpus 150|300|1000] [--seeds K] [--baseline single-call|none]
               [overrides ...]                                  measure against MOOSE-Chem (cosci/eval/)

Commands by group: :mod:`cosci.cli.sessions`, :mod:`cosci.cli.researcher`, :mod:`cosci.cli.tools`; the parser in
:mod:`cosci.cli.parser`; what they share in :mod:`cosci.cli.common`. A command that starts, resumes, rates or
records goes through the session service (:mod:`cosci.api`), where the pre-flight rules live.

Errors (argparse's among them) print one line and exit 2; a goal, feedback, rating, result or release text refused by
safety screening exits 3. ``--data-dir`` (default ``$COSCI_DATA_DIR`` or ``./data``) picks the sessions.
"""

from __future__ import annotations

import argparse
import errno
import os
import sqlite3
import sys
from collections.abc import Sequence

from cosci.cli.common import PATH_FLAGS, Parser, data_dir, elsewhere, empty_paths, normal_ids, session_folder
from cosci.cli.parser import parser
from cosci.config.load import ConfigError
from cosci.errors import CosciError, GoalRefused, interrupt_line
from cosci.report.formats import HTML_SUFFIXES
from cosci.text import say

__all__ = ["HTML_SUFFIXES", "PATH_FLAGS", "Parser", "data_dir", "main", "parser", "session_folder"]


def parsed(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line parsed, with the overrides that follow options and ``--data-dir`` as an override."""
    p = parser()
    p.argv = list(sys.argv[1:] if argv is None else argv)
    args, extra = p.parse_known_args(argv)
    if extra:  # `cosci eval moose-chem --items 2 models=fake`: overrides may follow the options
        if getattr(args, "command", None) not in ("eval", "investigate") or any(e.startswith("-") for e in extra):
            of = getattr(args, "parser_of_command", p)
            of.error(f"unrecognized arguments: {' '.join(extra)}{elsewhere(getattr(args, 'command', None), extra, of)}")
        args.overrides = [*args.overrides, *extra]
    if getattr(args, "command", None) == "investigate" and not args.data_dir:  # an override names it: that one
        args.data_dir = next((o.split("=", 1)[1] for o in reversed(args.overrides) if o.startswith("paths.data_dir=")),
                             None)
    command = getattr(args, "command", None)
    if (getattr(args, "data_dir", None) and command in ("run", "schedule", "estimate", "eval")) or (
            command == "investigate" and args.action in ("run", "draft")):
        args.overrides = [*args.overrides, f"paths.data_dir={data_dir(args.data_dir)}"]  # --data-dir wins
    return args


def main(argv: Sequence[str] | None = None) -> None:
    """The ``cosci`` entry point: parse, normalise, run the command; a refusal is one line on stderr, exit 2
    (3: safety screening refused a text; 130: interrupted; 141: the reader of stdout left)."""
    args = parsed(argv)
    try:
        empty_paths(args)
        normal_ids(args)
        args.func(args)
    except GoalRefused as exc:  # a refused goal (resume) or researcher feedback text (design.md#safety)
        say(str(exc))
        raise SystemExit(GoalRefused.exit_code) from None
    except (CosciError, ConfigError) as exc:
        say(str(exc))
        raise SystemExit(2) from None
    except KeyboardInterrupt as exc:
        if line := interrupt_line(exc):  # none after a session's summary, which ends with `cosci resume <id>`
            say(line)
        raise SystemExit(130) from None
    except BrokenPipeError:  # `cosci list | head -1`: the reader left; Python docs' recipe, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(141) from None
    except (OSError, sqlite3.OperationalError) as exc:
        if not storage_refused(exc):
            raise
        named = exc.filename if isinstance(exc, OSError) else None
        why = exc.strerror if isinstance(exc, OSError) and named and exc.strerror else exc
        say(f"cannot use {named or refused_folder(args)}: {why} (a read-only or full file system, or no permission;"
            " nothing was changed)")
        raise SystemExit(2) from None


def refused_folder(args: argparse.Namespace) -> str:
    """The folder a store error without a file name was met in: the session folder of the session the command names
    (a read-only one read "the data folder", fresh-user trial), else the data folder."""
    folder = getattr(args, "data_dir", None) or os.environ.get("COSCI_DATA_DIR") or "./data"
    for name in (getattr(args, "session", None), getattr(args, "target", None)):
        if isinstance(name, str) and name and (path := data_dir(folder) / "sessions" / name).is_dir():
            return f"the session folder {path}"
    return f"the data folder {folder}"


STORAGE_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT})
STORAGE_SQLITE = ("unable to open database file", "readonly database", "disk i/o error", "database or disk is full")


def storage_refused(exc: BaseException) -> bool:
    """Whether ``exc`` is the file system refusing the data folder (read-only, full, no permission), which a command
    reports in one line instead of a traceback (a fresh user's read-only mount: `cosci list`, `status`, `report`,
    `rate`, `export` each ended in a traceback)."""
    if isinstance(exc, sqlite3.OperationalError):
        return any(m in str(exc).lower() for m in STORAGE_SQLITE)
    return isinstance(exc, OSError) and exc.errno in STORAGE_ERRNOS

