"""The ``cosci`` argument parser: one subcommand per command, each bound to its function in
:mod:`cosci.cli.sessions`, :mod:`cosci.cli.researcher` or :mod:`cosci.cli.tools` (usage: :mod:`cosci.cli`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from cosci.api import FEEDBACK_KINDS
from cosci.cli.common import Parser
from cosci.cli.researcher import cmd_project, cmd_rate, cmd_result
from cosci.cli.sessions import (
    cmd_export,
    cmd_feedback,
    cmd_list,
    cmd_release,
    cmd_report,
    cmd_request,
    cmd_resume,
    cmd_run,
    cmd_status,
)
from cosci.cli.tools import (
    cmd_check,
    cmd_compare,
    cmd_estimate,
    cmd_eval,
    cmd_investigate,
    cmd_mcp,
    cmd_schedule,
    cmd_screen,
    cmd_serve,
)

Add = Callable[..., argparse.ArgumentParser]
"""Adds one subcommand: ``add(name, help=...)`` returns its parser."""

DESCRIPTION = "The cosci command: session commands around the main job (python -m cosci.run)."
"""What ``cosci --help`` says first: the first line of :mod:`cosci.cli`'s docstring, as plain text."""


class Version(argparse.Action):
    """``cosci --version``: the installed package's version, read only when asked (the command line's start-up
    imports no package metadata; fresh-user trial: the flag was "the following arguments are required")."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object, **__: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"cosci {version('cosci')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            print("cosci (not installed: no version recorded)")
        parser.exit(0)


def parser() -> Parser:
    """The ``cosci`` parser: ``--data-dir`` before or after the command, one subparser per command, each with
    ``func`` (the command) and ``parser_of_command`` (for its one-line errors) set."""
    p = Parser(prog="cosci", description=DESCRIPTION)
    p.add_argument("--version", action=Version, nargs=0, help="print cosci's version and exit")
    p.add_argument("--data-dir", help="data directory (default $COSCI_DATA_DIR or ./data)")
    common = Parser(add_help=False)  # --data-dir also after the command
    common.add_argument("--data-dir", default=argparse.SUPPRESS,
                        help="data directory (default $COSCI_DATA_DIR or ./data; before or after the command)")
    sub = p.add_subparsers(dest="command", required=True)

    def add(name: str, help: str | None = None) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, parents=[common], help=help)
        sp.set_defaults(parser_of_command=sp)  # main reports unrecognized arguments through it (design.md#cli)
        return sp

    for group in (_session_commands, _researcher_commands, _tool_commands):
        group(add)
    return p


def _session_commands(add: Add) -> None:
    """``list``, ``run``, ``status``, ``report``, ``export``, ``pause``, ``abort``, ``resume``, ``feedback``,
    ``release``."""
    add("list", help="list sessions").set_defaults(func=cmd_list)
    sp = add("run", help="start a session with a goal given as plain text")
    sp.add_argument("--goal", help="the research goal, any text (quote it once for the shell); required")
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
    sp.add_argument("--format", choices=("md", "html", "jsonl", "bibtex", "ris"), default=None,
                    help="default: the one --out's name ends as (.md, .html, .jsonl, .bib, .ris)")
    sp.add_argument("--out", default="-", help="output file (default -: standard output)")
    sp.set_defaults(func=cmd_export)
    for name in ("pause", "abort"):
        sp = add(name, help=f"{name} a session")
        sp.add_argument("session")
        sp.set_defaults(func=cmd_request)
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


def _researcher_commands(add: Add) -> None:
    """``rate``, ``result``, ``project``."""
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


def _tool_commands(add: Add) -> None:
    """``estimate``, ``screen``, ``check``, ``compare``, ``schedule``, ``serve``, ``investigate``, ``eval``."""
    sp = add("estimate", help="pre-flight cost estimate")
    sp.add_argument("overrides", nargs="*", default=[])
    sp.set_defaults(func=cmd_estimate)
    sp = add("screen", help="the offline safety screen on a text or a file of texts (one JSON line each)")
    sp.add_argument("text", nargs="?", default=None, help="the text to screen (or --file)")
    sp.add_argument("--file", default=None, help="one goal per line: plain text, a JSON string or a JSON object "
                    "with a text \"goal\" ({\"goal\": ...}); - reads standard input")
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
    sp = add("schedule", help="serve the Prefect deployment with a cron schedule")
    sp.add_argument("overrides", nargs="*", default=[], help="Hydra overrides for every scheduled session")
    sp.add_argument("--cron", default=None, help="cron schedule (default: schedule.cron from config)")
    sp.add_argument("--name", default=None, help="deployment name (default: schedule.deployment)")
    sp.set_defaults(func=cmd_schedule)
    sp = add("serve", help="the web UI on the data folder: watch, steer and judge sessions in a browser")
    sp.add_argument("--port", type=int, default=7878, help="TCP port (default 7878, docs/design.md#web)")
    sp.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; any other needs "
                    "--token)")
    sp.add_argument("--token", default=None, help="the access token every request must carry (required off "
                    "127.0.0.1)")
    # the Prefect deployment's arguments before it moved to `cosci schedule`: refused in one line naming it
    sp.add_argument("overrides", nargs="*", default=[], help=argparse.SUPPRESS)
    sp.add_argument("--cron", nargs="?", const="", default=None, help=argparse.SUPPRESS)  # with no value too
    sp.add_argument("--name", nargs="?", const="", default=None, help=argparse.SUPPRESS)
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
