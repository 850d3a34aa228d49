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
    cosci estimate [hydra overrides ...]        pre-flight cost estimate of a configuration
    cosci screen "text" | cosci screen --file F [hydra overrides ...]   the offline safety screen on texts, one
                                                JSON line each (decision, category, rule, score, language)
    cosci check [hydra overrides ...]           one minimal call per configured model and request form (offline for
                                                models=fake or local); the total cost first, exit 1 on a failure
    cosci compare [--experiment E | --parent RUN | --ids RUN ...]   compare sessions tracked in MLflow
    cosci serve [--cron "0 6 * * 1"] [hydra overrides ...]           serve the Prefect deployment on a schedule
    cosci investigate draft --brief FILE [--from-session S --hypothesis H] [--out DIR] [overrides ...]
    cosci investigate check TASK | run TASK [--from-session S] [overrides ...] | resume RUN | write RUN
                                                test hypotheses by running code (docs/design.md#investigation)
    cosci eval moose-chem [--items N|ids] [--corpus 150|300|1000] [--seeds K] [--baseline single-call|none]
               [overrides ...]                                  measure against MOOSE-Chem (cosci/eval/)

Errors (argparse's among them) print one line and exit 2; a goal, feedback, rating, result or release text refused by
safety screening exits 3. ``--data-dir`` (default ``$COSCI_DATA_DIR`` or ``./data``) picks the sessions.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from pydantic import ValidationError

from cosci.config.load import ConfigError, check_goal, classifier_lines, compose, lifecycle_lines, validate
from cosci.errors import CosciError, GoalRefused, StoreDamaged
from cosci.paths import writable_data_dir
from cosci.report.formats import HTML_SUFFIXES
from cosci.session.folder import SessionFolder, shown_status
from cosci.session.inputs import check_feedback_text, check_text, hypothesis_missing
from cosci.session.status import report_lines, status_report
from cosci.text import columns, escaped, one_line, plural, say

FEEDBACK_KINDS = ("directive", "preference", "rejection", "pin")


def data_dir(arg: str | None) -> Path:
    """The data folder: ``--data-dir``, else ``COSCI_DATA_DIR``, else ``./data`` (it need not exist yet).

    Raises:
        CosciError: the path names something that is not a folder (a file: "no sessions under it" would hide the
            slip; design.md#cli).
    """
    root = Path(arg or os.environ.get("COSCI_DATA_DIR") or "data").expanduser().resolve()
    if root.exists() and not root.is_dir():
        raise CosciError(f"{root} is a file, not a data folder (--data-dir or COSCI_DATA_DIR names the folder that "
                         "holds sessions/)")
    return root


def session_folder(args: argparse.Namespace) -> SessionFolder:
    """The folder of the session named on the command line (``args.session``) under ``--data-dir``.

    Raises:
        SessionNotFound: no such session (one line naming ``cosci list``).
    """
    return SessionFolder.existing(data_dir(args.data_dir), args.session)


# --- commands ------------------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> None:
    """``cosci list``: one row a session under a header, its columns aligned (:func:`cosci.text.columns`)."""
    root = data_dir(args.data_dir)
    folders = SessionFolder.all(root)
    if not folders:
        print(f"no sessions under {root / 'sessions'}")
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
                     one_line(row.research_goal, 60)])
    for line in columns(rows):
        print(line)


def cmd_status(args: argparse.Namespace) -> None:
    folder = session_folder(args)
    if not folder.is_running():  # a stopped session's provider batches are polled (and settled when ended)
        try:
            lines = settled_batches(folder)
        except (CosciError, ConfigError) as exc:  # e.g. a resume started meanwhile: the status still prints
            lines = [f"not polled, {exc}"]
        for line in lines:
            print(f"batches      {line}")
    with folder.store() as store:
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

            print(report_html(store, folder.path, args.out, args.open, shown_status(store)))
            return
        text = "\n".join(report_lines(store)) + "\n"
    if not args.out:
        sys.stdout.write(text)
        return
    from cosci.report.commands import write_out

    if path := write_out(args.out, text):  # the path check `cosci export --out` shares
        print(path)


def cmd_export(args: argparse.Namespace) -> None:
    from cosci.report.commands import export

    with session_folder(args).store(read_only=True) as store:
        path = export(store, args.format, args.out, shown_status(store))
    if path:
        print(path)


def _set_status(args: argparse.Namespace, status: str) -> None:
    folder = session_folder(args)
    with folder.store() as store:
        current = store.sessions.status()
        if current in ("done", "refused"):
            raise CosciError(f"session {args.session} is {current}; nothing to {args.command}")
        store.sessions.update(status=status)
        store.logs.event(f"external_{args.command}", {"requested_status": status})
    if folder.is_running():
        print(
            f"{args.session}: {args.command} requested; the running session will "
            + ("hold after its current actions" if status == "paused" else "stop and write its overview")
        )
    else:
        then = "writes its overview and ends it" if status == "aborting" else "continues it"
        print(f"{args.session}: marked {status}; it is not running - `cosci resume {args.session}` {then}")


def cmd_feedback(args: argparse.Namespace) -> None:
    folder = session_folder(args)
    with folder.store() as store:
        if (status := store.sessions.status()) in ("done", "refused"):
            raise CosciError(f"session {args.session} is {status}; feedback would reach no prompt")
        if args.kind in ("directive", "preference") and not (args.text or "").strip():
            raise CosciError(f"--kind {args.kind} needs --text \"...\"")
        if args.kind in ("rejection", "pin") and not args.hypothesis:
            raise CosciError(f"--kind {args.kind} needs --hypothesis <H-id>")
        check_text("--text", args.text or "")
        if args.hypothesis and (missing := hypothesis_missing(store, args.hypothesis, args.session, folder)):
            raise CosciError(missing)
        if args.hypothesis and args.kind in ("rejection", "pin"):
            from cosci.session.researcher import check_released

            check_released(store, args.hypothesis, args.session)  # a quarantined one waits for `cosci release`
        if (args.text or "").strip():
            check_feedback_text(folder, store, args.text, about=args.hypothesis)
        fid = store.logs.add_feedback("human", args.kind, args.text or "", target_id=args.hypothesis)
        if args.kind == "rejection":
            store.hypotheses.set_state(args.hypothesis, "rejected")
        elif args.kind == "pin":
            store.hypotheses.set_state(args.hypothesis, "pinned")
    print(f"{args.session}: {args.kind} feedback {fid} recorded; it reaches the next generation and evolution prompts")


def cmd_release(args: argparse.Namespace) -> None:
    """A researcher releases a quarantined hypothesis; it goes back to review and the tournament (design.md#safety)."""
    from cosci.session.release import release

    print(release(session_folder(args), args.hypothesis, args.why, args.by))


def _target(args: argparse.Namespace, ids: list[str]) -> tuple[SessionFolder, list[str], str | None]:
    """The session, the hypothesis ids and the project a ``cosci rate`` / ``cosci result`` names: ``<session|project>
    H-id ...``; with ``--project NAME``, ``<session> H-id ...`` (the session must be one of the project's) or only
    the ids (the project's newest session holding them). A first positional that is no hypothesis id (``H-...``) is
    the session, so ``<session> H-id --project NAME`` never reads the session id as a hypothesis id."""
    from cosci.session.researcher import resolve_target

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
    from cosci.session.researcher import rate

    if args.withdraw:
        return _withdraw(args, "rating", ("--prefer", "--score", "--why"))
    if (n := _id_count(args)) not in (1, 2):
        raise CosciError(f"a rating needs <session|project> and one or two hypothesis ids (got {n}; with "
                         "--project NAME the session may be left out)")
    folder, ids, project = _target(args, list(args.hypotheses))
    screen = functools.partial(check_feedback_text, what="rating", about=",".join(ids))
    print(rate(folder, ids, args.prefer, args.score, args.why, screen, project))


def cmd_result(args: argparse.Namespace) -> None:
    from cosci.session.researcher import record_result

    if args.withdraw:
        return _withdraw(args, "result", ("--measure", "--notes", "--file"))
    if (n := _id_count(args)) != 1:
        raise CosciError(f"a result needs <session|project> and one hypothesis id (got {n}; with --project NAME "
                         "the session may be left out)")
    folder, ids, project = _target(args, list(args.hypotheses))
    print(record_result(folder, ids[0], args.outcome, args.measure, args.notes, args.file,
                        functools.partial(check_feedback_text, what="result", about=ids[0]), project))


def cmd_project(args: argparse.Namespace) -> None:
    from cosci.session.projects import project_lines

    if args.action == "show" and not args.name:
        raise CosciError("`project show` needs a project name")
    for line in project_lines(data_dir(args.data_dir), args.name if args.action == "show" else None):
        print(line)


def cmd_resume(args: argparse.Namespace) -> None:
    folder = session_folder(args)
    with folder.store() as store:
        status = store.sessions.status()
        if folder.is_running():
            if status != "paused":
                raise CosciError(f"session {args.session} is already running in another process")
            if args.overrides:  # the waiting process has its configuration; nothing hands it new values
                raise CosciError(f"{args.session} is paused in a running process, which continues with its own "
                                 f"configuration; overrides ({' '.join(args.overrides)}) apply only when resuming a "
                                 "stopped session")
            store.sessions.update(status="running")
            print(f"{args.session}: resumed (the running process continues)")
            return
        outstanding = bool(store.batches.outstanding())
        if status in ("done", "refused") and not outstanding:
            raise CosciError(f"session {args.session} is {status}; `cosci report {args.session}` shows its overview")
        row = store.sessions.get()
    if status == "done":  # it stopped with provider batches outstanding: settle them, nothing more runs
        for line in settled_batches(folder, args.overrides):
            print(f"{args.session}: {line}")
        return
    config = folder.frozen_config(args.overrides, lifecycle=True)  # its models are called again
    from flows.launch import run_session

    run_session(config, overrides=row.overrides, choices={"models": row.models_choice}, resume_id=args.session)


def cmd_run(args: argparse.Namespace) -> None:
    """A new session whose goal is ``--goal`` verbatim: the text never meets Hydra's override grammar."""
    from cosci.llm.gateway.routing import Router
    from cosci.run import check_corpus, check_skills

    if given := next((o.lstrip("+~").split("=", 1)[0] for o in args.overrides
                      if o.lstrip("+~").startswith(("session.goal=", "session.goal_file="))), None):
        raise ConfigError(f"{given}: give the goal once, with --goal (not also as an override)")
    if not args.goal.strip():
        raise ConfigError("--goal: the research goal is empty")
    cfg = compose(args.overrides)
    check_goal(args.goal, "--goal")  # the goal's rules, in a line naming the flag the researcher typed
    cfg.session.goal = args.goal
    config = validate(cfg, require_goal=True)
    writable_data_dir(config.paths.data_dir)
    Router(config).check_keys()
    # a model shutting down within 30 days (design.md#catalogue); who decides safety (design.md#safety-measured)
    for line in [*lifecycle_lines([config]), *classifier_lines([config])]:
        print(line, file=sys.stderr)
    if config.session.corpus_path:
        check_corpus(config)
    if config.tools.skills_path:
        check_skills(config.tools.skills_path)
    from flows.launch import run_session

    run_session(config, overrides=list(args.overrides))


def cmd_mcp(args: argparse.Namespace) -> None:
    """``cosci mcp [--http PORT]``: cosci as an MCP server on the data folder (docs/mcp.md)."""
    from cosci.mcp_server import serve

    serve(data_dir(args.data_dir), args.http)


def cmd_estimate(args: argparse.Namespace) -> None:
    from cosci.llm.gateway.estimate import estimate_session
    from cosci.llm.gateway.providers import check_models

    config = validate(compose(args.overrides))
    check_models(config, keys=False)  # a model no provider serves cannot be priced either
    est = estimate_session(config)
    print(est.line())
    for agent, usd in sorted(est.by_agent.items(), key=lambda kv: -kv[1]):
        print(f"  {agent:12s} ${usd:.2f}")


def cmd_screen(args: argparse.Namespace) -> None:
    """The offline safety screen on a text or a file of texts, one JSON line each (docs/design.md#safety-screen)."""
    import json

    from cosci.safety.screen_command import read_texts, screened

    if (args.text is None) == (args.file is None):
        raise CosciError("screen: give one text or --file F (one {\"goal\": ...} or plain text per line)")
    texts = read_texts(Path(args.file)) if args.file else [(1, args.text)]
    if not any(t.strip() for _, t in texts):
        raise CosciError("screen: the text is empty")
    config = validate(compose(args.overrides))
    if config.safety is None:
        raise CosciError("screen: this configuration has no safety section")
    for row in screened(config.safety, texts):
        print(json.dumps(row, ensure_ascii=False), flush=True)


def cmd_check(args: argparse.Namespace) -> None:
    """A pre-flight of a configuration's models: routes, then one minimal real call per model and request form
    (docs/design.md#check); exits 1 when a call failed, naming the fix."""
    import asyncio

    from cosci.llm.gateway.check import report, run_check
    from cosci.llm.gateway.providers import check_models
    from cosci.llm.gateway.routing import Router

    config = validate(compose(args.overrides))
    Router(config).check_keys()  # a missing key: one line naming the variable, before any call
    check_models(config)
    # a model shutting down within 30 days (design.md#catalogue); who decides safety (design.md#safety-measured)
    for line in [*lifecycle_lines([config]), *classifier_lines([config])]:
        print(line, file=sys.stderr)
    probes = asyncio.run(run_check(config))
    for line in report(config, probes):
        print(line)
    if any(p.fix for p in probes):
        raise SystemExit(1)


def cmd_compare(args: argparse.Namespace) -> None:
    from cosci.tracking.compare import compare_cli

    compare_cli(args, data_dir(args.data_dir))


def cmd_serve(args: argparse.Namespace) -> None:
    from cosci.llm.gateway.routing import Router
    from flows.env import prepare

    config = validate(compose(args.overrides), require_goal=True)
    Router(config).check_keys()
    if args.cron is not None:
        from cosci.config.schema import ScheduleCfg

        try:
            ScheduleCfg(cron=args.cron, deployment=args.name or config.schedule.deployment)
        except ValidationError as exc:
            raise ConfigError(f"--cron: {exc.errors()[0]['msg'].removeprefix('Value error, ')}") from None
    api = os.environ.get("PREFECT_API_URL")
    if not api:
        raise CosciError("serving the deployment needs a running Prefect server: start `prefect server start` and "
                         "export PREFECT_API_URL=http://127.0.0.1:4200/api (README: Scheduling)")
    import httpx

    try:
        httpx.get(f"{api.rstrip('/')}/health", timeout=5.0).raise_for_status()
    except httpx.HTTPError as exc:
        raise CosciError(f"no Prefect server answers at PREFECT_API_URL={api} ({type(exc).__name__}); start "
                         "`prefect server start` first (README: Scheduling)") from None
    prepare(config.paths.data_dir)
    from flows.deploy import serve_deployment

    serve_deployment(config, args.overrides, cron=args.cron, name=args.name)


def cmd_eval(args: argparse.Namespace) -> None:
    from cosci.eval.observe import progress_line
    from cosci.eval.runner import EvalOptions, run_eval

    if args.seeds < 1:
        raise ConfigError(f"--seeds: {args.seeds} must be at least 1")
    if args.top_n is not None and args.top_n < 1:
        raise ConfigError(f"--top-n: {args.top_n} must be at least 1")
    opts = EvalOptions(items=args.items, corpus=args.corpus, seeds=args.seeds, baseline=args.baseline,
                       judge_tier=args.judge_tier, top_n=args.top_n, overrides=list(args.overrides))
    result = run_eval(opts, on_row=lambda r: print(progress_line(r), file=sys.stderr))
    print((result.folder / "report" / "summary.md").read_text(encoding="utf-8"))
    print(f"report    {result.folder / 'report'}")
    if result.parent_run_id:
        print(f"mlflow    parent run {result.parent_run_id}")


def cmd_investigate(args: argparse.Namespace) -> None:
    if args.action == "draft":  # no target: a positional after `draft` is an override (design.md#draft)
        from cosci.investigation.draft_command import draft

        overrides = [args.target, *args.overrides] if args.target else list(args.overrides)
        code = draft(Path(args.brief) if args.brief else None, overrides, args.from_session, args.hypothesis,
                     Path(args.out) if args.out else None)
        if code:
            raise SystemExit(code)
        return
    if not args.target:
        raise CosciError(f"investigate {args.action} needs its target (a task folder, or a run id for resume/write)")
    if args.action == "write":  # a finished run -> a checked, reviewed paper (design.md#paper)
        from cosci.investigation.write_command import write

        code = write(args.target, list(args.overrides), data_dir(args.data_dir))
        if code:
            raise SystemExit(code)
        return
    from flows.investigation_launch import command

    code = command(args.action, args.target, list(args.overrides), args.from_session, data_dir(args.data_dir))
    if code:
        raise SystemExit(code)


def _normal_ids(args: argparse.Namespace) -> None:
    """The session and hypothesis ids on the command line in the case cosci writes them (``H-ABC…`` is ``H-abc…``,
    :func:`cosci.domain.normal_id`; design.md#ids), so an id typed in upper case is found, not hinted at. A
    ``cosci rate`` / ``cosci result`` target that names a project or session as typed is left as it is."""
    from cosci.domain import normal_id

    if isinstance(getattr(args, "session", None), str):
        args.session = normal_id(args.session)
    if isinstance(getattr(args, "hypothesis", None), str):
        args.hypothesis = normal_id(args.hypothesis)
    if args.command in ("rate", "result"):
        args.hypotheses = [normal_id(h) for h in args.hypotheses]
        args.withdraw = normal_id(args.withdraw) if args.withdraw else None
        root = data_dir(args.data_dir)
        from cosci.store.project import ProjectStore

        if args.target is not None and not (root / "sessions" / args.target).is_dir() \
                and not ProjectStore.exists(root, args.target):
            args.target = normal_id(args.target)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``cosci: <message> (see `cosci <command> --help`)``, exit 2
    (design.md#cli; argparse's own ``error`` prints the whole usage block first). Subcommand parsers
    are of this class too (``add_subparsers`` makes them of the parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"cosci: {escaped(' '.join(message.split()))} (see `{self.prog} --help`)\n")


def parser() -> argparse.ArgumentParser:
    p = Parser(prog="cosci", description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", help="data directory (default $COSCI_DATA_DIR or ./data)")
    common = Parser(add_help=False)  # --data-dir also after the command
    common.add_argument("--data-dir", default=argparse.SUPPRESS, help="data directory (as above)")
    sub = p.add_subparsers(dest="command", required=True)

    def add(name: str, help: str | None = None) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, parents=[common], help=help)
        sp.set_defaults(parser_of_command=sp)  # main reports unrecognized arguments through it (design.md#cli)
        return sp

    add("list", help="list sessions").set_defaults(func=cmd_list)
    sp = add("run", help="start a session with a goal given as plain text")
    sp.add_argument("--goal", required=True, help="the research goal, any text (quote it once for the shell)")
    sp.add_argument("overrides", nargs="*", default=[], help="Hydra overrides, e.g. experiment=demo models=fake")
    sp.set_defaults(func=cmd_run)
    for name, func, help_ in (
        ("status", cmd_status, "session counts and spend"),
        ("report", cmd_report, "print the research overview"),
    ):
        sp = add(name, help=help_)
        sp.add_argument("session")
        sp.set_defaults(func=func)
    sp.add_argument("--html", action="store_true", help="write the report page (final/report.html) and print its path")
    sp.add_argument("--open", action="store_true", help="write the page and open it in a browser")
    sp.add_argument("--out", default=None, help="write the report here: the page if F ends .html/.htm (or with "
                    "--html, instead of final/report.html), else the text report")
    sp = add("export", help="write the report or the session store for use outside cosci")
    sp.add_argument("session")
    sp.add_argument("--format", choices=("md", "html", "jsonl", "bibtex", "ris"), required=True)
    sp.add_argument("--out", default="-", help="output file (default -: standard output)")
    sp.set_defaults(func=cmd_export)
    for name, status in (("pause", "paused"), ("abort", "aborting")):
        sp = add(name, help=f"{name} a session")
        sp.add_argument("session")
        sp.set_defaults(func=lambda a, s=status: _set_status(a, s))
    sp = add("resume", help="continue a killed or paused session")
    sp.add_argument("session")
    sp.add_argument("overrides", nargs="*", default=[],
                    help="key=value overrides on the frozen config, e.g. run.budget_usd=50")
    sp.set_defaults(func=cmd_resume)
    sp = add("feedback", help="researcher feedback for the next prompts")
    sp.add_argument("session")
    sp.add_argument("--kind", choices=FEEDBACK_KINDS, required=True)
    sp.add_argument("--text", default="")
    sp.add_argument("--hypothesis", help="hypothesis id (rejection, pin)")
    sp.set_defaults(func=cmd_feedback)
    sp = add("release", help="release a hypothesis quarantined by safety screening")
    sp.add_argument("session")
    sp.add_argument("hypothesis", help="the quarantined hypothesis id (H-...)")
    sp.add_argument("--why", required=True, help="why it is safe to release (recorded)")
    sp.add_argument("--by", default=os.environ.get("USER") or "researcher", help="who releases it (recorded)")
    sp.set_defaults(func=cmd_release)
    sp = add("rate", help="rate hypotheses: a preference between two, or a 1-5 score of one")
    sp.add_argument("target", nargs="?", metavar="session|project",
                    help="a session id, or a project name (its newest session holding the hypotheses)")
    sp.add_argument("hypotheses", nargs="*", metavar="H-id", help="one hypothesis (--score) or two (--prefer)")
    sp.add_argument("--project", default=None, help="the project the session belongs to; without a session (only "
                    "the ids) its newest session holding the hypotheses is rated")
    sp.add_argument("--prefer", choices=("a", "b", "tie"), default=None, help="which of the two is better")
    sp.add_argument("--score", default=None, help="a score of one hypothesis, 1-5")
    sp.add_argument("--why", default="", help="the reason (screened like feedback text)")
    sp.add_argument("--withdraw", default=None, metavar="RR-id", help="take a rating back (the session may be "
                    "left out); the fit counts an earlier rating of the pair again")
    sp.set_defaults(func=cmd_rate)
    sp = add("result", help="record an experimental result on a hypothesis")
    sp.add_argument("target", nargs="?", metavar="session|project",
                    help="a session id, or a project name (its newest session holding the hypothesis)")
    sp.add_argument("hypotheses", nargs="*", metavar="H-id", help="the hypothesis tested (one id)")
    sp.add_argument("--project", default=None, help="the project the session belongs to; without a session (only "
                    "the id) its newest session holding the hypothesis records the result")
    given = sp.add_mutually_exclusive_group(required=True)
    given.add_argument("--outcome", choices=("supported", "refuted", "inconclusive"))
    given.add_argument("--withdraw", default=None, metavar="O-id", help="take a result back (the session may be "
                       "left out); its hypothesis returns to the state it had before it")
    sp.add_argument("--measure", action="append", default=[], help="NAME=VALUE, repeatable")
    sp.add_argument("--notes", default="", help="what was done and seen (screened like feedback text)")
    sp.add_argument("--file", default=None, help="a data file (its path and sha256 are recorded)")
    sp.set_defaults(func=cmd_result)
    sp = add("project", help="projects: sessions that remember each other")
    sp.add_argument("action", choices=("list", "show"))
    sp.add_argument("name", nargs="?", default=None)
    sp.set_defaults(func=cmd_project)
    sp = add("mcp", help="serve cosci's session commands to an assistant over MCP (stdio; --http PORT: 127.0.0.1)")
    sp.add_argument("--http", type=int, default=None, metavar="PORT", help="streamable HTTP on 127.0.0.1:PORT")
    sp.set_defaults(func=cmd_mcp)
    sp = add("estimate", help="pre-flight cost estimate")
    sp.add_argument("overrides", nargs="*", default=[])
    sp.set_defaults(func=cmd_estimate)
    sp = add("screen", help="the offline safety screen on a text or a file of texts (one JSON line each)")
    sp.add_argument("text", nargs="?", default=None, help="the text to screen (or --file)")
    sp.add_argument("--file", default=None, help="one {\"goal\": ...} object or plain text per line")
    sp.add_argument("--overrides", nargs="*", default=[], help="Hydra overrides, e.g. safety.screen.agent_score=0.8")
    sp.set_defaults(func=cmd_screen)
    sp = add("check", help="check every configured model with one minimal call per model and request form")
    sp.add_argument("overrides", nargs="*", default=[], help="Hydra overrides, e.g. models=opus")
    sp.set_defaults(func=cmd_check)
    sp = add("compare", help="compare sessions tracked in MLflow")
    sp.add_argument("--experiment", help="MLflow experiment name")
    sp.add_argument("--parent", help="parent run id of a sweep")
    sp.add_argument("--ids", nargs="+", help="run ids or session ids")
    sp.add_argument("--out", default=None, help="folder for the plots (default <data>/compare/)")
    sp.add_argument("--tracking-uri", default=None)
    sp.set_defaults(func=cmd_compare)
    sp = add("serve", help="serve the Prefect deployment with a cron schedule")
    sp.add_argument("overrides", nargs="*", default=[], help="Hydra overrides for every scheduled session")
    sp.add_argument("--cron", default=None, help="cron schedule (default: schedule.cron from config)")
    sp.add_argument("--name", default=None, help="deployment name (default: schedule.deployment)")
    sp.set_defaults(func=cmd_serve)
    sp = add("investigate", help="test hypotheses by running code: check a task, run or resume an investigation")
    sp.add_argument("action", choices=("draft", "check", "run", "resume", "write"))
    sp.add_argument("target", nargs="?", default=None,
                    help="the task folder (check, run) or the investigation id (resume, write); draft takes none")
    sp.add_argument("overrides", nargs="*", default=[],
                    help="Hydra overrides, e.g. models=fake investigation.workers=2")
    sp.add_argument("--from-session", default=None, help="seed ideation with this session's top hypotheses "
                    "(draft: the session holding --hypothesis)")
    sp.add_argument("--brief", default=None, help="draft: the research brief (a text or Markdown file)")
    sp.add_argument("--hypothesis", default=None, help="draft: a hypothesis of --from-session to test (H-...)")
    sp.add_argument("--out", default=None, help="draft: the task folder to write (default <data>/drafts/<brief>)")
    sp.set_defaults(func=cmd_investigate)
    sp = add("eval", help="measure the science against a public benchmark (MOOSE-Chem)")
    sp.add_argument("benchmark", choices=["moose-chem"])
    sp.add_argument("overrides", nargs="*", default=[], help="Hydra overrides for every session, e.g. models=opus")
    sp.add_argument("--items", default=None, help="the first N items, or comma-separated ids (default: all 34)")
    sp.add_argument("--corpus", type=int, choices=(150, 300, 1000), default=150, help="candidate corpus size")
    sp.add_argument("--seeds", type=int, default=1, help="sessions per item (run.seed = 1..K)")
    sp.add_argument("--baseline", choices=("single-call", "none"), default="single-call")
    sp.add_argument("--judge-tier", default=None, help="model tier of the judge (default: one unlike generation's)")
    sp.add_argument("--top-n", type=int, default=None,
                    help="records shown to the baseline (default: what one generation tool loop can read)")
    sp.set_defaults(func=cmd_eval)
    return p


PATH_FLAGS = ("file", "out", "data_dir")
"""The options naming a file or a folder: given empty (``--file ""``, an unset shell variable) each is refused
rather than read as absent (a result recorded with no file, the report printed instead of written; design.md#cli)."""


def _empty_paths(args: argparse.Namespace) -> None:
    """Raises CosciError (one line, nothing written) when a :data:`PATH_FLAGS` option was given empty."""
    for name in PATH_FLAGS:
        if isinstance(value := getattr(args, name, None), str) and not value.strip():
            raise CosciError(f"--{name.replace('_', '-')} is empty: give a path")


def main(argv: Sequence[str] | None = None) -> None:
    p = parser()
    args, extra = p.parse_known_args(argv)
    if extra:  # `cosci eval moose-chem --items 2 models=fake`: overrides may follow the options
        if getattr(args, "command", None) not in ("eval", "investigate") or any(e.startswith("-") for e in extra):
            getattr(args, "parser_of_command", p).error(f"unrecognized arguments: {' '.join(extra)}")
        args.overrides = [*args.overrides, *extra]
    if getattr(args, "command", None) == "investigate" and not args.data_dir:  # an override names it: that one
        args.data_dir = next((o.split("=", 1)[1] for o in reversed(args.overrides) if o.startswith("paths.data_dir=")),
                             None)
    if (getattr(args, "data_dir", None) and getattr(args, "command", None) in ("run", "serve", "estimate", "eval")) or (
            getattr(args, "command", None) == "investigate" and args.action in ("run", "draft")):
        args.overrides = [*args.overrides, f"paths.data_dir={data_dir(args.data_dir)}"]  # --data-dir wins
    try:
        _empty_paths(args)
        _normal_ids(args)
        args.func(args)
    except GoalRefused as exc:  # a refused goal (resume) or researcher feedback text (design.md#safety)
        say(str(exc))
        raise SystemExit(GoalRefused.exit_code) from None
    except (CosciError, ConfigError) as exc:
        say(str(exc))
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        say("interrupted")
        raise SystemExit(130) from None
    except BrokenPipeError:  # `cosci list | head -1`: the reader left; Python docs' recipe, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(141) from None


if __name__ == "__main__":
    main()
