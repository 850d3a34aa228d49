"""The researcher's commands: ``cosci rate``, ``cosci result`` (and their ``--withdraw``), ``cosci project``.
The target (a session, or a project's newest session holding the ids) is resolved here; the rating or result is
recorded by the session service (:meth:`cosci.api.Session.rate`, :meth:`cosci.api.Session.result`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from cosci import api
from cosci.cli.common import data_dir
from cosci.errors import CosciError
from cosci.session.folder import SessionFolder


def _target(args: argparse.Namespace, ids: list[str]) -> tuple[SessionFolder, list[str], str | None]:
    """The session, the hypothesis ids and the project a ``cosci rate`` / ``cosci result`` names: ``<session|project>
    H-id ...``; with ``--project NAME``, ``<session> H-id ...`` (the session must be one of the project's) or only
    the ids (the project's newest session holding them). A first positional that is no hypothesis id (``H-...``) is
    the session, so ``<session> H-id --project NAME`` never reads the session id as a hypothesis id."""
    from cosci.session.targets import resolve_target

    root = data_dir(args.data_dir)
    if args.project and args.target.startswith("H-"):  # only the ids
        ids = [args.target, *ids]
        return resolve_target(root, args.project, ids, project_only=True), ids, args.project
    if args.project:  # the session; rate / record_result check that it is one of the project's
        return SessionFolder.existing(root, args.target), ids, args.project
    folder = resolve_target(root, args.target, ids)
    return folder, ids, args.target if folder.session_id != args.target else None


def _id_count(args: argparse.Namespace) -> int:
    """The hypothesis ids a ``cosci rate`` / ``cosci result`` names (with ``--project``, a first ``H-...`` is one).

    Raises:
        CosciError: without ``--project``, the first positional is an id of another kind than a session's (checked
            first: ``cosci rate H-a --score 3`` is told the session is missing, not that it counts no ids).
    """
    from cosci.session.inputs import check_target_kind

    if args.target is None:
        return 0
    if not args.project:
        check_target_kind(data_dir(args.data_dir), args.target)
    return len(args.hypotheses) + bool(args.project and args.target.startswith("H-"))


def _withdraw(args: argparse.Namespace, kind: str, flags: Sequence[str]) -> None:
    """``cosci rate|result [<session|project>] --withdraw ID`` (:mod:`cosci.session.withdrawal`)."""
    from cosci.session.withdrawal import withdraw

    given = [flag for flag in flags if getattr(args, flag.lstrip("-"))]
    if args.hypotheses or given:
        raise CosciError(f"--withdraw takes only the {kind} id (after the session or project, or alone), not "
                         + (" or ".join(given) if given else "hypothesis ids"))
    print(withdraw(data_dir(args.data_dir), args.target, kind, args.withdraw, args.project))  # type: ignore[arg-type]


def cmd_rate(args: argparse.Namespace) -> None:
    if args.withdraw:
        return _withdraw(args, "rating", ("--prefer", "--score", "--why"))
    if (n := _id_count(args)) not in (1, 2):
        raise CosciError(f"a rating needs <session|project> and one or two hypothesis ids (got {n}; with "
                         "--project NAME the session may be left out)")
    folder, ids, project = _target(args, list(args.hypotheses))
    print(api.Session(folder, flags=True).rate(*ids, prefer=args.prefer, score=args.score, why=args.why,
                                               project=project).line)


def cmd_result(args: argparse.Namespace) -> None:
    if args.withdraw:
        return _withdraw(args, "result", ("--measure", "--notes", "--file"))
    if (n := _id_count(args)) != 1:
        raise CosciError(f"a result needs <session|project> and one hypothesis id (got {n}; with --project NAME "
                         "the session may be left out)")
    folder, ids, project = _target(args, list(args.hypotheses))
    print(api.Session(folder, flags=True).result(ids[0], args.outcome, measures=args.measure, notes=args.notes,
                                                 file=args.file, project=project).line)


def cmd_project(args: argparse.Namespace) -> None:
    from cosci.session.projects import project_lines

    if args.action == "show" and not args.name:
        raise CosciError("`project show` needs a project name")
    for line in project_lines(data_dir(args.data_dir), args.name if args.action == "show" else None):
        print(line)


