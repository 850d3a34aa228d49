"""The configuration and measurement commands: ``cosci estimate``, ``screen``, ``check``, ``compare``,
``schedule``, ``serve``, ``eval``, ``investigate``. A command that starts sessions goes through the session service
(:mod:`cosci.api`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pydantic import ValidationError

from cosci import api
from cosci.cli.common import data_dir
from cosci.config.load import ConfigError, compose, validate
from cosci.errors import BudgetTooSmall, CosciError
from cosci.text import say


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
    if est.too_small:  # `cosci run` refuses it before any session: the same line's cause and exit status (2)
        raise BudgetTooSmall(est.budget_usd, est.floor_usd, expected_usd=est.floor_expected_usd, estimated=True)


def cmd_screen(args: argparse.Namespace) -> None:
    """The offline safety screen on a text or a file of texts, one JSON line each (docs/design.md#safety-screen); a
    line of the file that is no text is one line on stderr and the rest is screened. Exit status as a run's: 3 when
    any text is refused (``block``), else 2 when a line was no text, else 0 (docs/commands.md, "Screening texts")."""
    import json

    from cosci.safety.screen_command import SHAPES, Line, as_goals, read_lines, screened, shown_name

    if (args.text is None) == (args.file is None):
        raise CosciError(f"screen: give one text or --file F ({SHAPES}; - reads standard input)")
    lines = read_lines(args.file) if args.file else [Line(1, args.text)]
    if not any(x.text is not None and x.text.strip() for x in lines) and args.file is None:
        raise CosciError("screen: the text is empty")
    lines = as_goals(lines, shown_name(args.file) if args.file else None)
    if args.file is None and lines[0].error:
        raise CosciError(lines[0].error)
    config = validate(compose(args.overrides))
    if config.safety is None:
        raise CosciError("screen: this configuration has no safety section")
    failed = refused = 0
    for row in screened(config.safety, lines):
        if isinstance(row, str):
            failed += 1
            say(row)  # `cosci: screen: <file> line N ...`: every stderr line's prefix (design.md#cli)
        else:
            refused += row["decision"] == "block"
            print(json.dumps(row, ensure_ascii=False), flush=True)
    # each line was said in its place: no summary line, only the status; a refusal first, as a run's exit 3
    if refused or failed:
        raise SystemExit(3 if refused else 2)


def cmd_check(args: argparse.Namespace) -> None:
    """A pre-flight of a configuration's models: routes, then one minimal real call per model and request form
    (docs/design.md#check); exits 1 when a call failed, naming the fix; 2 when a host cannot be reached, as a run
    that meets it (docs/design.md#unreachable-hosts)."""
    import asyncio

    from cosci.llm.gateway.check import UNREACHABLE, report, run_check
    from cosci.llm.gateway.providers import check_models, check_servers
    from cosci.llm.gateway.routing import Router
    from cosci.session.preflight import notices

    config = validate(compose(args.overrides))
    Router(config).check_keys()  # a missing key: one line naming the variable, before any call
    check_models(config)
    # a model shutting down within 30 days (design.md#catalogue); who decides safety (design.md#safety-measured), for
    # every tier the offline screen decides for: before the server check, as a hosted tier's before its probes
    for line in notices([config], marked=True):
        print(line, file=sys.stderr)
    check_servers(config)  # a local server that is down: the run's one line, not a minute of retried probes
    probes = asyncio.run(run_check(config))
    for line in report(config, probes):
        print(line)
    if any(p.fix for p in probes):
        raise SystemExit(2 if any(p.fix and p.fix.startswith(UNREACHABLE) for p in probes) else 1)


def cmd_compare(args: argparse.Namespace) -> None:
    from cosci.tracking.compare import compare_cli

    compare_cli(args, data_dir(args.data_dir))


def cmd_serve(args: argparse.Namespace) -> None:
    """``cosci serve``: the web UI (docs/web.md). The Prefect deployment's arguments (overrides, ``--cron``,
    ``--name``, with or without a value) are refused in one line naming ``cosci schedule``, where that command
    moved. A data folder that does not exist, and whose parent does not either, is refused in one line (a missing
    folder in an existing one is made by the first session started, as ``cosci run`` makes it)."""
    import shlex

    words = args.overrides[1:] if args.overrides[:1] == ["schedule"] else args.overrides
    flags = [f"--{k} {shlex.quote(v) if v else '...'}" for k in ("cron", "name")
             if (v := getattr(args, k)) is not None]
    if args.overrides or flags:
        raise CosciError("`cosci serve` is the web UI now: the Prefect deployment on a cron schedule moved to "
                         f"`cosci schedule`, same arguments ({' '.join(['cosci schedule', *words, *flags])})")
    root = data_dir(args.data_dir)
    if not root.exists() and not root.parent.is_dir():
        raise CosciError(f"--data-dir {root}: no such folder, nor {root.parent} (give the data folder that holds "
                         "sessions/, as `cosci list --data-dir` takes it)")
    from cosci.web.server import serve

    serve(root, host=args.host, port=args.port, token=args.token)


def cmd_schedule(args: argparse.Namespace) -> None:
    """``cosci schedule``: the session flow as a Prefect deployment on a cron schedule (design.md#deployment)."""
    from flows.env import prepare

    # the rules the deployment's flow runs again for each scheduled session (flows/deploy.py)
    config = api.preflight(api.prepare(None, args.overrides)).prepared.config
    if args.cron is not None:
        from cosci.config.schema import ScheduleCfg

        try:
            ScheduleCfg(cron=args.cron, deployment=args.name or config.schedule.deployment)
        except ValidationError as exc:
            raise ConfigError(f"--cron: {exc.errors()[0]['msg'].removeprefix('Value error, ')}") from None
    url = os.environ.get("PREFECT_API_URL")
    if not url:
        raise CosciError("serving the deployment needs a running Prefect server: start `prefect server start` and "
                         "export PREFECT_API_URL=http://127.0.0.1:4200/api (docs/sweeps.md, Scheduling)")
    import httpx

    try:
        httpx.get(f"{url.rstrip('/')}/health", timeout=5.0).raise_for_status()
    except httpx.HTTPError as exc:
        raise CosciError(f"no Prefect server answers at PREFECT_API_URL={url} ({type(exc).__name__}); start "
                         "`prefect server start` first (docs/sweeps.md, Scheduling)") from None
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
    if args.action in ("resume", "write") and "=" in args.target:  # a run id has no '=': this is an override
        raise CosciError(f"investigate {args.action} needs the run id first (inv-...), then overrides; "
                         f"'{args.target}' is an override")
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

