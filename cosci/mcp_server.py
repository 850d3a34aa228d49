"""``cosci mcp``: cosci as an MCP server for assistants (Claude Desktop and Code, other MCP clients), over stdio, or
streamable HTTP on 127.0.0.1 with ``--http PORT`` (docs/mcp.md, design.md#mcp-server).

Every tool runs the ``cosci`` command that does the same thing, in its own process (``python -c "from cosci.cli
import main; main()" <command> --data-dir <data> ...``): the same pre-flight, the same safety screen on goals and
researcher texts, the same one-line refusals, returned as the MCP error's text. A started or resumed session runs
in its own process group, detached from the server (it survives the client disconnecting: stdin from /dev/null,
its output in ``<data>/mcp/<time>-<command>.log``); ``follow_session`` reports its progress as MCP progress
notifications until it ends, and the stop reason of a refused or failed one. Before ``start_session`` detaches
its session, the goal goes through the session service's prepare and pre-flight (:mod:`cosci.api`) and, when the
offline screen decides the goal's verdict (a safety tier unable to classify, the default embedded model), through
that screen (:func:`cosci.safety.screen.screen_for`, what ``cosci screen`` runs): a refusal is the MCP error, and no
session is started. On a capable tier the classifier decides inside the session; ``follow_session`` then ends with
``refused`` and the verdict's line. The leaderboard and one hypothesis are read from the session store, read-only.
Arguments are checked before any command runs: an argument a tool does not take, a value of the wrong type, an
argument starting with ``-`` (an option in disguise), an id of the wrong form, a budget that is no positive finite
number are one MCP error naming the argument (:class:`Server`). Reads and writes stay
in the data folder the server was started with.

The MCP SDK is imported here and in :mod:`cosci.tools.mcp_servers` only (an import contract).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Literal

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from mcp.types import PARSE_ERROR, CallToolResult, ErrorData, InputRequiredResult, JSONRPCError
from pydantic import ValidationError

from cosci.config.layers import override_sets
from cosci.config.load import ConfigError
from cosci.errors import CosciError, StoreDamaged
from cosci.mcp_support import MAX_BUDGET_USD, check_port, ended, goal_refusal, hypothesis, leaderboard, unreadable
from cosci.session.folder import SessionFolder
from cosci.session.preflight import resume_plan

CLI = [sys.executable, "-c", "from cosci.cli import main; main()"]
ENDED = ("done", "refused", "failed", "stopped", "stopped (abort asked)")  # shown statuses of no running process
"""Statuses after which ``follow_session`` returns (``stopped``: a running session whose process is gone)."""
START_SECONDS = 120.0
"""How long ``start_session`` waits for the new session's folder (the pre-flight, the Prefect server's boot)."""
_SESSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
_HYPOTHESIS = re.compile(r"^H-[0-9a-fA-F]{4,64}$")
_PRESET = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


def tool_error(tool: str, line: str) -> ToolError:
    """Every tool's error in one form, the MCP tool-error result (``isError``, one text content): ``Error executing
    tool <tool>: <line>``, the SDK's words for a tool's own error, ``line`` on one line without the command line's
    ``cosci: `` (docs/mcp.md)."""
    return ToolError(f"Error executing tool {tool}: {' '.join(line.split()).removeprefix('cosci: ') or 'failed'}")


class Server(MCPServer):
    """The SDK's server, every tool error in :func:`tool_error`'s form: an argument the tool does not take (the SDK
    drops it), a value its type refuses (pydantic's lines), a tool it lacks (``Unknown tool: ...``) and a
    :class:`~cosci.errors.CosciError` (to the SDK a crash, said as ``Error executing tool <tool>`` alone)."""

    async def run_stdio_async(self) -> None:
        """The SDK's stdio loop, answering a line it cannot read (a lone surrogate, which pydantic's JSON refuses) with
        JSON-RPC's parse error (:func:`cosci.mcp_support.unreadable`): it answered nothing, and its client waited."""
        async with stdio_server() as (read_stream, write_stream):
            send, receive = create_context_streams[SessionMessage | Exception](0)
            low = self._lowlevel_server

            async def relay() -> None:
                async with send:
                    async for item in read_stream:
                        if not isinstance(item, Exception):
                            await send.send(item)
                            continue
                        found, text = unreadable(item)
                        error = JSONRPCError(jsonrpc="2.0", id=found, error=ErrorData(code=PARSE_ERROR, message=text))
                        await write_stream.send(SessionMessage(error))

            async with anyio.create_task_group() as group:
                group.start_soon(relay)
                await low.run(receive, write_stream, low.create_initialization_options())

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None,
                        ) -> CallToolResult | InputRequiredResult:
        tools = await self.list_tools()
        tool = next((t for t in tools if t.name == name), None)
        if tool is None:
            raise tool_error(name, f"no such tool (the tools: {', '.join(sorted(t.name for t in tools))})")
        known = set(tool.input_schema.get("properties", {}))
        if unknown := sorted(set(arguments) - known):
            raise tool_error(name, f"{unknown[0]}: not an argument of {name} (it takes {', '.join(sorted(known))})")
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:  # a crash, or a cosci refusal raised as its own error
            if not isinstance(exc.__cause__, CosciError | ConfigError):
                raise
            line = str(exc.__cause__)
        except ToolError as exc:  # the SDK's wrapping of a tool's refusal, or of pydantic's multi-line error
            if isinstance(cause := exc.__cause__, ValidationError):
                err = cause.errors()[0]
                line = f"{'.'.join(str(part) for part in err['loc']) or 'arguments'}: {err['msg']}"
            else:
                line = str(cause or exc)
        raise tool_error(name, line) from None


def _arg(name: str, value: str, pattern: re.Pattern[str] | None = None, what: str = "") -> str:
    """``value`` when it is a usable command-line argument. Raises: ToolError naming ``name``."""
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"{name}: empty")
    if value.startswith("-") or "\x00" in value:
        raise ToolError(f"{name}: {value[:40]!r} may not start with '-'")
    if pattern is not None and not pattern.fullmatch(value):
        raise ToolError(f"{name}: {value[:40]!r} is not {what}")
    return value


def _budget(value: float) -> float:
    """``value`` when it is a budget cap in USD: finite, above 0, at most :data:`MAX_BUDGET_USD`. Raises: ToolError
    naming ``budget_usd`` (NaN and infinity among them)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
            or not 0 < value <= MAX_BUDGET_USD:
        raise ToolError(f"budget_usd: give a cap above 0 and at most {MAX_BUDGET_USD:.0f} USD")
    return float(value)


def _overrides(models: str | None, experiment: str | None, budget_usd: float | None,
               overrides: list[str] | None) -> list[str]:
    """The Hydra overrides of a session's arguments (experiment first: the others win over it); ``models`` None
    leaves the preset to an override or the default (``local``).

    Raises:
        ToolError: an argument is malformed, or an override sets a key an argument sets (``models``, ``experiment``,
            ``run.budget_usd``, also inside a node: ``run={budget_usd:2}``): Hydra would keep the argument's value
            and drop the override's without a word.
    """
    out = [f"experiment={_arg('experiment', experiment, _PRESET, 'an experiment name')}"] if experiment else []
    out += [_arg("overrides", o) for o in overrides or []]
    named = {"experiment": experiment, "models": models, "run.budget_usd": budget_usd}
    for o in overrides or []:  # an override of a key an argument sets would lose to it without a word
        if key := override_sets(o, {k for k, v in named.items() if v is not None}):
            arg = "budget_usd" if key == "run.budget_usd" else key
            raise ToolError(f"overrides: {o!r} sets {key}, which the {arg} argument sets; give it once, as {arg}")
    out += [f"models={_arg('models', models, _PRESET, 'a models preset')}"] if models is not None else []
    return out + ([f"run.budget_usd={_budget(budget_usd):g}"] if budget_usd is not None else [])


COMMAND_SECONDS = 600.0
"""How long a tool waits for the ``cosci`` command behind it (a started session runs detached, not under this)."""


class Cosci:
    """The commands behind the tools, on one data folder."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.resolve()

    def run(self, *args: str) -> str:
        """Run ``cosci <args> --data-dir <data>``; its standard output. Raises: ToolError with its one-line refusal."""
        try:
            done = subprocess.run([*CLI, *args, "--data-dir", str(self.data_dir)], capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=COMMAND_SECONDS, check=False)
        except subprocess.TimeoutExpired:
            raise ToolError(f"the command `cosci {args[0]}` did not finish within {COMMAND_SECONDS:.0f} s") from None
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
            raise ToolError(lines[-1] if lines else f"cosci {args[0]} exited with {done.returncode}")
        return done.stdout.strip()

    def spawn(self, *args: str) -> subprocess.Popen[bytes]:
        """Start ``cosci <args>`` detached (its own process group, output to a log under ``<data>/mcp/``)."""
        logs = self.data_dir / "mcp"
        logs.mkdir(parents=True, exist_ok=True)
        log = logs / f"{time.strftime('%Y%m%dT%H%M%S')}-{args[0]}.log"
        with log.open("ab") as out:
            return subprocess.Popen([*CLI, *args, "--data-dir", str(self.data_dir)], stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def folder(self, session: str) -> SessionFolder:
        """The session's folder. Raises: ToolError naming ``session``."""
        try:
            return SessionFolder.existing(self.data_dir, _arg("session", session, _SESSION, "a session id"))
        except CosciError as exc:
            raise ToolError(f"session: {exc}") from None

    def sessions(self) -> set[str]:
        return {f.session_id for f in SessionFolder.all(self.data_dir)} if self.data_dir.exists() else set()

    async def start(self, goal: str, overrides: list[str]) -> str:
        """Check the goal as ``cosci run`` would (:func:`goal_refusal`), then spawn ``cosci run``; the new session's
        id once its folder exists. Raises: ToolError (the refusal, in one line)."""
        refused = await asyncio.to_thread(goal_refusal, goal, overrides, self.data_dir)
        if refused:
            raise ToolError(refused)
        args = ["run", f"--goal={goal}", *overrides]
        before = self.sessions()
        proc = self.spawn(*args)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if new := self.sessions() - before:
                return sorted(new)[0]
            if proc.poll() is not None:
                raise ToolError(self.last_line(proc.returncode))
            await asyncio.sleep(0.5)
        raise ToolError(f"no session started within {START_SECONDS:.0f} s; see {self.data_dir / 'mcp'}")

    def last_line(self, code: int) -> str:
        logs = sorted((self.data_dir / "mcp").glob("*-run.log"))
        lines = [ln for ln in logs[-1].read_text(errors="replace").splitlines() if ln.strip()] if logs else []
        return lines[-1] if lines else f"cosci run exited with {code}"


def build(data_dir: Path) -> MCPServer:  # noqa: C901  (one nested function per MCP tool)
    """The server and its tools on ``data_dir`` (see module docstring)."""
    cosci = Cosci(data_dir)
    server = Server("cosci", log_level="WARNING", instructions=(
        "An AI co-scientist: start a research session on a goal, follow it, read its leaderboard and hypotheses, "
        "rate them and report lab results."))

    @server.tool(description="Pre-flight cost estimate of a session: models preset (default local), optional "
                 "experiment, budget cap in USD and Hydra overrides (as start_session takes them).")
    def estimate(models: str | None = None, experiment: str | None = None, budget_usd: float | None = None,
                 overrides: list[str] | None = None) -> str:
        return cosci.run("estimate", *_overrides(models, experiment, budget_usd, overrides))

    @server.tool(description="Start a session on a research goal with a models preset (fake, local, opus, ...) and a "
                 "budget cap in USD; optional experiment and Hydra overrides. It runs in its own process and "
                 "survives this connection. Returns its session id.")
    async def start_session(goal: str, budget_usd: float, models: str, experiment: str | None = None,
                            overrides: list[str] | None = None) -> str:
        _budget(budget_usd)
        if not goal.strip():
            raise ToolError("goal: the research goal is empty")
        return await cosci.start(goal, _overrides(models, experiment, budget_usd, overrides))

    @server.tool(description="A session's status: counts, spend, standing, grounding and safety lines.")
    def status(session: str) -> str:
        return cosci.run("status", cosci.folder(session).session_id)

    @server.tool(description="A session's current leaderboard (BT score with its interval, Elo, state).")
    def get_leaderboard(session: str) -> str:
        return json.dumps(leaderboard(cosci.folder(session)), ensure_ascii=False)

    @server.tool(description="One hypothesis with its reviews, citations and falsification contract.")
    def get_hypothesis(session: str, hypothesis_id: str) -> str:
        hid = _arg("hypothesis_id", hypothesis_id, _HYPOTHESIS, "a hypothesis id (H-...)")
        return json.dumps(hypothesis(cosci.folder(session), hid), ensure_ascii=False, default=str)

    @server.tool(description="Rate: prefer one of two hypotheses (prefer a, b or tie), or score one from 1 to 5.")
    def rate(session: str, hypothesis_a: str, hypothesis_b: str | None = None,
             prefer: Literal["a", "b", "tie"] | None = None, score: int | None = None, why: str | None = None) -> str:
        ids = [_arg("hypothesis_a", hypothesis_a, _HYPOTHESIS, "a hypothesis id (H-...)")]
        ids += [_arg("hypothesis_b", hypothesis_b, _HYPOTHESIS, "a hypothesis id (H-...)")] if hypothesis_b else []
        if score is not None and (isinstance(score, bool) or score not in (1, 2, 3, 4, 5)):  # the argument's name,
            raise ToolError(f"score: must be 1, 2, 3, 4 or 5 (got {score!r}); nothing was recorded")  # not the flag's
        opts = [f"--prefer={prefer}"] if prefer else []
        opts += [f"--score={score}"] if score is not None else []
        opts += [f"--why={why}"] if why else []
        return cosci.run("rate", cosci.folder(session).session_id, *ids, *opts)

    @server.tool(description="Record a lab result for a hypothesis: outcome supported, refuted or inconclusive.")
    def result(session: str, hypothesis_id: str, outcome: Literal["supported", "refuted", "inconclusive"],
               notes: str | None = None) -> str:
        hid = _arg("hypothesis_id", hypothesis_id, _HYPOTHESIS, "a hypothesis id (H-...)")
        return cosci.run("result", cosci.folder(session).session_id, hid, f"--outcome={outcome}",
                         *([f"--notes={notes}"] if notes else []))

    @server.tool(description="Researcher feedback: kind directive, preference, rejection or pin.")
    def feedback(session: str, kind: Literal["directive", "preference", "rejection", "pin"], text: str | None = None,
                 hypothesis_id: str | None = None) -> str:
        opts = [f"--kind={kind}"] + ([f"--text={text}"] if text else [])
        opts += [f"--hypothesis={_arg('hypothesis_id', hypothesis_id, _HYPOTHESIS, 'a hypothesis id')}"] \
            if hypothesis_id else []
        return cosci.run("feedback", cosci.folder(session).session_id, *opts)

    @server.tool(description="Ask a running session to hold after its current actions.")
    def pause(session: str) -> str:
        return cosci.run("pause", cosci.folder(session).session_id)

    @server.tool(description="Ask a session to stop and write its overview.")
    def abort(session: str) -> str:
        return cosci.run("abort", cosci.folder(session).session_id)

    @server.tool(description="Continue a paused or stopped session (in its own process).")
    def resume(session: str) -> str:
        folder = cosci.folder(session)
        if folder.is_running():
            return cosci.run("resume", folder.session_id)
        resume_plan(folder)  # `cosci resume`'s refusal (a finished session) said here: the spawned one has no caller
        cosci.spawn("resume", folder.session_id)
        return f"{folder.session_id}: resuming in its own process"

    @server.tool(description="Follow a session until it ends (or timeout_seconds), with progress notifications.")
    async def follow_session(session: str, ctx: Context, timeout_seconds: float = 600) -> str:
        if not math.isfinite(timeout_seconds) or timeout_seconds <= 0:
            raise ToolError("timeout_seconds: give a number of seconds above 0 (at most 3600 are waited)")
        folder = cosci.folder(session)
        started = time.monotonic()
        deadline = started + min(timeout_seconds, 3600.0)
        while True:
            try:
                with folder.store(read_only=True) as store:
                    now, done = folder.shown_status(store.sessions.status()), store.tasks.counts().get("done", 0)
                    n = store.hypotheses.count()
            except StoreDamaged:
                # a session just started has created its store file but not yet written it: wait a little
                if time.monotonic() - started > STORE_GRACE_SECONDS:
                    raise
                await asyncio.sleep(0.5)
                continue
            await ctx.report_progress(done, None, f"{now}: {done} tasks done, {n} hypotheses")
            if now in ENDED or time.monotonic() > deadline:
                return ended(folder, now)
            await asyncio.sleep(1.0)

    @server.resource("cosci://sessions/{session}/report", description="The session's report: overview and "
                     "leaderboard (text).", mime_type="text/markdown")
    def report(session: str) -> str:
        try:
            return cosci.run("report", cosci.folder(session).session_id)
        except ToolError as exc:
            raise ResourceError(str(exc)) from None

    return server


STORE_GRACE_SECONDS = 30.0
"""How long ``follow_session`` waits for a new session's store file to be written (an empty or half-made store
right after the start is the session creating it; after this it is damaged)."""


def serve(data_dir: Path, http_port: int | None = None) -> None:
    """Run the server over stdio, or streamable HTTP on 127.0.0.1:``http_port``."""
    server = build(data_dir)
    if http_port is None:
        server.run()
    else:
        check_port(http_port)
        server.run("streamable-http", host="127.0.0.1", port=http_port)
