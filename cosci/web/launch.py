"""Starting and resuming sessions from the web UI through the session service (:mod:`cosci.api`; docs/web.md).

A new session is checked first (:meth:`Launcher.check`: :func:`cosci.api.prepare` and :func:`cosci.api.preflight`,
the estimate, the offline safety screen's answer on the goal); the page shows that and keeps the
:class:`~cosci.api.Checked` under a random key, so "Start" runs exactly what was checked, with no second pre-flight
(:meth:`Launcher.start`). A run goes on in a worker thread of the server (:func:`cosci.api.run` runs it to its end
on the Prefect flow); the page follows it until its session folder appears, then opens the session's page.
A stopped session (its process killed, or paused with no process) is resumed as ``cosci resume`` in its own
process, detached from the server (:meth:`Launcher.resume`; design.md#web): it runs as the command line's resume
does, survives the server and releases the session's lock when it ends.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cosci.errors import CosciError, GoalRefused
from cosci.session.folder import SessionFolder

CLI = (sys.executable, "-c", "from cosci.cli import main; main()")
"""The ``cosci`` command a stopped session is resumed with (this interpreter, so the server's environment)."""
LOGS = "web"
"""The folder under the data folder where a resumed session's process writes its output (docs/web.md)."""
DRAFT_SECONDS = 3600.0
"""How long a checked draft may be started (s); after that it is checked again."""


def names(folder: str) -> list[str]:
    """The config group's options (``experiment``, ``models``): the YAML files of ``conf/<folder>/``."""
    from cosci.paths import conf_dir

    return sorted(p.stem for p in (conf_dir() / folder).glob("*.yaml"))


@dataclass(frozen=True)
class Draft:
    """A checked new session: what the page shows before "Start" (``estimate``: the pre-flight estimate line;
    ``screen``: the offline screen's decision, its line and who decides at start)."""

    key: str
    checked: Any
    goal: str
    estimate: str
    screen: dict[str, str]
    notices: tuple[str, ...]
    at: float = field(default_factory=time.monotonic)


@dataclass
class Run:
    """A run started from the page: ``session_id`` once its folder exists, ``line`` when it ended or failed."""

    before: set[str]
    session_id: str | None = None
    line: str | None = None
    done: bool = False


def overrides_of(experiment: str, models: str, budget: str) -> list[str]:
    """The Hydra overrides a form's choices make.

    Raises:
        CosciError: an experiment or models preset that is not one of cosci's, a budget that is not a number.
    """
    out = []
    if experiment:
        if experiment not in names("experiment"):
            raise CosciError(f"experiment={experiment}: not one of {', '.join(names('experiment'))}")
        out.append(f"experiment={experiment}")
    if models:
        if models not in names("models"):
            raise CosciError(f"models={models}: not one of {', '.join(names('models'))}")
        out.append(f"models={models}")
    if budget.strip():
        try:
            float(budget)
        except ValueError:
            raise CosciError(f"run.budget_usd={budget}: not a number of USD") from None
        out.append(f"run.budget_usd={budget.strip()}")
    return out


def screen_answer(config: Any, goal: str) -> dict[str, str]:
    """The offline screen's answer on ``goal`` and who decides at start (the screen on a tier unable to classify,
    else the safety classifier; design.md#safety-screen).

    Raises:
        GoalRefused: the screen decides and refuses the goal (the line ``cosci run`` says, nothing started).
    """
    from cosci.llm.gateway.routing import Router
    from cosci.safety.classifier import acts, screening_on
    from cosci.safety.screen import screen_for

    if not screening_on(config) or config.safety is None:
        return {"decision": "off", "line": "safety screening is off (safety.enabled=false)", "decides": "nobody"}
    result = screen_for(config.safety).check(goal, subject="goal")
    by_screen = Router(config).route("safety", "classify").unable_to_classify
    if by_screen and acts(config, "goal", result.decision):
        raise GoalRefused(f"goal refused by safety screening, {result.decision}: {result.line()}; nothing was "
                          "started")
    return {"decision": result.decision, "line": result.line(),
            "decides": "the offline screen" if by_screen else "the safety classifier (this answer is its note)"}


class Launcher:
    """The server's drafts and runs (one per server; thread-safe)."""

    def __init__(self, root: Path, run: Callable[[Any], Any] | None = None,
                 command: tuple[str, ...] = CLI) -> None:
        self.root = root
        self.command = command
        self.drafts: dict[str, Draft] = {}
        self.runs: dict[str, Run] = {}
        self._lock = threading.Lock()
        self._run = run

    def check(self, goal: str, experiment: str, models: str, budget: str) -> Draft:
        """Prepare and pre-flight a new session; nothing is written.

        Raises:
            ConfigError, CosciError, MissingApiKey: one line naming the form's field (``goal: the research goal is
                empty``, a budget of 0). BudgetTooSmall: the budget cannot pay for a first hypothesis, as a run is
                refused (design.md#budget). GoalRefused: the offline screen refuses the goal.
        """
        from cosci import api
        from cosci.errors import BudgetTooSmall
        from cosci.llm.gateway.estimate import estimate_session

        overrides = overrides_of(experiment, models, budget)
        given = goal if goal.strip() or not experiment else None  # an experiment may give the goal
        checked = api.preflight(api.prepare(given, overrides, data_dir=self.root, given_as="goal"))  # the form field
        config = checked.prepared.config
        est = estimate_session(config)
        if est.too_small:  # `cosci run` refuses it (flows/launch.py): no Start for it, the run's line instead
            raise BudgetTooSmall(est.budget_usd, est.floor_usd, expected_usd=est.floor_expected_usd, estimated=True)
        screen = screen_answer(config, config.session.goal or "")
        draft = Draft(secrets.token_urlsafe(16), checked, config.session.goal or "", est.line(), screen,
                      checked.notices)
        with self._lock:
            now = time.monotonic()
            self.drafts = {k: d for k, d in self.drafts.items() if now - d.at < DRAFT_SECONDS}
            self.drafts[draft.key] = draft
        return draft

    def start(self, key: str) -> str:
        """Run a checked draft in a worker thread; returns the run's key.

        Raises:
            CosciError: no such draft (started already, or older than :data:`DRAFT_SECONDS`).
        """
        with self._lock:
            draft = self.drafts.pop(key, None)
        if draft is None:
            raise CosciError("this check was started already or is too old; check the goal again")
        return self._background(lambda: self._api_run(draft.checked))

    def resume(self, folder: SessionFolder) -> tuple[str | None, str]:
        """Resume a session (:meth:`cosci.api.Session.resume`): a paused process continues at once, a done session's
        provider batches are settled (the line is returned); a stopped one runs again as ``cosci resume <id>`` in
        its own process (its run key is returned; the run ends with that process).

        Raises:
            CosciError: the lifecycle refuses it (a finished session, one running elsewhere), one line.
            MissingApiKey, ConfigError: the frozen config's models need a key that is not set, a retired model.
        """
        from cosci import api
        from cosci.session import preflight as rules

        session = api.Session(folder)
        if rules.resume_plan(folder, []) in ("waiting", "settle"):
            return None, " ".join(session.resume().lines)
        rules.check_resumed(folder.frozen_config(lifecycle=True))  # refused here in one line, nothing spawned
        key = self._background(lambda: self._spawn("resume", folder.session_id))
        with self._lock:
            self.runs[key].session_id = folder.session_id
        return key, f"{folder.session_id}: resuming"

    def _spawn(self, *args: str) -> str:
        """Run ``cosci <args> --data-dir <root>`` in its own process group (stdin from /dev/null, output to
        ``<root>/web/<time>-<command>.log``) until it ends; its line. Raises: CosciError, its last line on failure."""
        logs = self.root / LOGS
        logs.mkdir(parents=True, exist_ok=True)
        log = logs / f"{time.strftime('%Y%m%dT%H%M%S')}-{'-'.join(args)}.log"
        with log.open("ab") as out:
            proc = subprocess.Popen([*self.command, *args, "--data-dir", str(self.root)], stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        code = proc.wait()
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
        if code != 0:
            raise CosciError(lines[-1] if lines else f"cosci {args[0]} exited with {code} (see {log})")
        return "ended"

    def state(self, key: str) -> Run | None:
        """The run ``key`` (its session id found as soon as its folder exists)."""
        with self._lock:
            run = self.runs.get(key)
        if run is not None and run.session_id is None:
            new = {f.session_id for f in SessionFolder.all(self.root)} - run.before
            if new:
                run.session_id = sorted(new)[-1]
        return run

    def _api_run(self, checked: Any) -> Any:
        from cosci import api

        return (self._run or (lambda c: api.run(c, ui=False)))(checked)

    def _background(self, call: Callable[[], Any]) -> str:
        key = secrets.token_urlsafe(12)
        run = Run({f.session_id for f in SessionFolder.all(self.root)})
        with self._lock:
            self.runs[key] = run

        from cosci.config.load import ConfigError

        def work() -> None:
            try:
                result = call()
                run.line = (getattr(result, "stop_reason", None) and f"ended: {result.stop_reason}") or "ended"
            except (CosciError, ConfigError, GoalRefused) as exc:
                run.line = str(exc)
            except BaseException as exc:  # the thread must not die silently: the page shows the line
                run.line = f"{type(exc).__name__}: {exc}"
            finally:
                run.done = True

        threading.Thread(target=work, name=f"cosci-web-{key}", daemon=True).start()
        return key
