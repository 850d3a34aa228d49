"""An existing session through the service: status, leaderboard, report, rate, result, feedback, pause, resume,
abort, each a method with a typed result (design.md#service).

Text a researcher gives is screened with a model call run by ``asyncio.run``: under a running event loop (a
notebook) those calls run in a worker thread, as :func:`cosci.api.run` does (:func:`cosci.api.start.outside_loop`).
A :class:`Session` holds only the session's folder; every call opens the store, does one thing and closes it, so a
handle may be kept while the session runs in another process. The lifecycle rules (a finished session takes no
pause, abort, feedback or resume) are :mod:`cosci.session.preflight`'s; the researcher's inputs are checked and
screened as on the command line (:mod:`cosci.session.researcher`), with the same one-line refusals.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from cosci.api import arguments as check
from cosci.api.start import outside_loop
from cosci.errors import CosciError
from cosci.session import preflight as rules
from cosci.session.folder import SessionFolder
from cosci.session.summary import SessionSummary
from cosci.store.standing import Standing

FEEDBACK_KINDS = ("directive", "preference", "rejection", "pin")
"""Researcher feedback kinds: text for the next prompts (directive, preference), a hypothesis moved (rejection:
out of the tournament, pin: kept)."""


@dataclass(frozen=True)
class Status:
    """A session's state: ``status`` as shown (``running``, ``paused``, ``done``, ``refused``, ``stopped`` for a
    running status whose process is gone), ``stop_reason`` (None while it runs), counts, ``spent_usd`` (USD) and
    ``lines``, the text ``cosci status`` prints."""

    session_id: str
    status: str
    stop_reason: str | None
    hypotheses: int
    matches: int
    spent_usd: float
    budget_usd: float
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Recorded:
    """A researcher input recorded: its id (``RR-...`` a rating, ``O-...`` a result, ``F-...`` feedback) and the
    line the command line prints for it."""

    session_id: str
    id: str
    line: str


@dataclass(frozen=True)
class Resumed:
    """What a resume did (:data:`cosci.session.preflight.ResumePlan`): ``lines`` to say, and the run's summary
    when the session ran again (None when a waiting process was told to continue or batches were settled)."""

    plan: rules.ResumePlan
    lines: tuple[str, ...]
    summary: SessionSummary | None = None


def data_folder(data_dir: str | Path | None = None) -> Path:
    """The data folder: ``data_dir``, else ``$COSCI_DATA_DIR``, else ``paths.data_dir`` of ``./cosci.yaml``, else of
    the user file (:func:`cosci.config.layers.data_dir`), else ``./data`` (it need not exist yet): the folder
    ``python -m cosci.run`` stores a session in (design.md#config-layers).

    Raises:
        CosciError: the path names a file, not a folder (design.md#cli), or a layer file cannot be read.
    """
    from cosci.config.layers import LayerError
    from cosci.config.layers import data_dir as layer_data_dir

    try:
        given = data_dir or os.environ.get("COSCI_DATA_DIR") or layer_data_dir() or "data"
    except LayerError as exc:
        raise CosciError(str(exc)) from None
    root = Path(given).expanduser().resolve()
    if root.exists() and not root.is_dir():
        raise CosciError(f"{root} is a file, not a data folder (--data-dir or COSCI_DATA_DIR names the folder that "
                         "holds sessions/)")
    return root


class Session:
    """One existing session (:func:`open`). ``flags``: refusals name arguments as the command line's flags
    (``--prefer``; :mod:`cosci.cli` sets it), else as Python's (``prefer``; :mod:`cosci.api.arguments`)."""

    def __init__(self, folder: SessionFolder, *, flags: bool = False) -> None:
        from cosci.session.researcher import flag

        self.folder = folder
        self.id = folder.session_id
        self.name: check.Name = flag if flags else check.argument

    def status(self) -> Status:
        """The session's counts, spend and status (reads only; works on a running session)."""
        from cosci.session.status import status_report

        with self.folder.store() as store:
            row = store.sessions.get()
            spent = sum(s["usd"] for s in store.logs.spend().values())
            return Status(self.id, self.folder.shown_status(row.status), row.stop_reason, store.hypotheses.count(),
                          store.matches.count(), spent, row.budget_usd, tuple(status_report(self.folder, store)))

    def leaderboard(self) -> Standing:
        """The current standing (:class:`cosci.store.standing.Standing`): ``ranked`` entries best first (BT score
        in logits with its 95 % interval, then Elo points), ``apart`` those out of the ranking with why."""
        from cosci.store.standing import standing

        with self.folder.store(read_only=True) as store:
            return standing(store)

    def report(self) -> str:
        """The text report ``cosci report`` prints: the research overview, or the leaderboard so far."""
        from cosci.session.status import report_lines

        with self.folder.store(read_only=True) as store:
            return "\n".join(report_lines(store)) + "\n"

    def rate(self, a: str, b: str | None = None, *, prefer: Literal["a", "b", "tie"] | None = None,
             score: int | str | None = None, why: str = "", project: str | None = None) -> Recorded:
        """A researcher's rating: ``prefer`` between ``a`` and ``b`` (enters the Bradley–Terry fit), or a 1-5
        ``score`` of ``a`` (an int, or the text typed: ``"4"``; design.md#researcher-ratings). ``why`` is
        screened like feedback text.

        Raises:
            CosciError: not (two ids + prefer) or (one id + score 1-5), an unknown or quarantined hypothesis, a
                refused session. GoalRefused: safety screening refused ``why`` (exit status 3 on the command line).
        """
        from cosci.session.inputs import check_feedback_text
        from cosci.session.researcher import rate

        check.text("a", a)
        check.text("b", b, optional=True)
        check.choice(self.name("prefer"), prefer, ("a", "b", "tie"), optional=True)
        said = check.score(self.name("score"), score)
        check.text(self.name("why"), why)
        check.text(self.name("project"), project, optional=True)
        ids = [a] if b is None else [a, b]
        screen = functools.partial(check_feedback_text, what="rating", about=",".join(ids))
        # the screen of ``why`` runs its model call with asyncio.run
        rid, line = outside_loop(lambda: rate(self.folder, ids, prefer, said, why, screen, project, name=self.name))
        return Recorded(self.id, rid, line)

    def result(self, hypothesis: str, outcome: Literal["supported", "refuted", "inconclusive"], *,
               measures: Sequence[str] = (), notes: str = "", file: str | None = None,
               project: str | None = None) -> Recorded:
        """An experimental result on ``hypothesis``: refuted leaves the tournament, supported pins it
        (design.md#experimental-results). ``measures``: ``NAME=VALUE`` strings; ``file``: a data file (path and
        sha256 recorded).

        Raises:
            CosciError: a bad outcome or measure, an unreadable file, an unknown or quarantined hypothesis.
            GoalRefused: safety screening refused the notes.
        """
        from cosci.session.inputs import check_feedback_text
        from cosci.session.researcher import record_result
        from cosci.store.researcher import OUTCOMES

        check.text("hypothesis", hypothesis)
        check.choice(self.name("outcome"), outcome, OUTCOMES)
        check.texts(self.name("measure"), measures)
        check.text(self.name("notes"), notes)
        check.path(self.name("file"), file)
        check.text(self.name("project"), project, optional=True)
        file = None if file is None else os.fspath(file)
        screen = functools.partial(check_feedback_text, what="result", about=hypothesis)
        line = outside_loop(lambda: record_result(self.folder, hypothesis, outcome, measures, notes, file, screen,
                                                  project, name=self.name))
        with self.folder.store(read_only=True) as store:
            oid = store.researcher.observations(hypothesis)[-1].id
        return Recorded(self.id, oid, line)

    def feedback(self, kind: str, text: str = "", hypothesis: str | None = None) -> Recorded:
        """Researcher feedback (:data:`FEEDBACK_KINDS`) for the next generation and evolution prompts; a
        rejection moves ``hypothesis`` out of the tournament, a pin keeps it.

        Raises:
            CosciError: a finished session, a kind without its text or hypothesis, an unknown or quarantined
                hypothesis. GoalRefused: safety screening refused the text.
        """
        from cosci.session.inputs import check_feedback_text, check_text, hypothesis_missing
        from cosci.session.researcher import check_released

        name = self.name
        if not isinstance(kind, str) or kind not in FEEDBACK_KINDS:
            raise CosciError(f"{name('kind')} must be one of {', '.join(FEEDBACK_KINDS)} (got {kind!r})")
        check.text(name("text"), text)
        check.text(name("hypothesis"), hypothesis, optional=True)
        with self.folder.store() as store:
            rules.check_open(self.id, store.sessions.status(), "feedback")
            if kind in ("directive", "preference") and not text.strip():
                raise CosciError(f"{name('kind')} {kind} needs {name('text')} \"...\"")
            if kind in ("rejection", "pin") and not hypothesis:
                raise CosciError(f"{name('kind')} {kind} needs {name('hypothesis')} <H-id>")
            check_text(name("text"), text)
            if hypothesis and (missing := hypothesis_missing(store, hypothesis, self.id, self.folder)):
                raise CosciError(missing)
            if hypothesis and kind in ("rejection", "pin"):
                check_released(store, hypothesis, self.id)  # a quarantined one waits for `cosci release`
            if text.strip():
                outside_loop(lambda: check_feedback_text(self.folder, store, text, about=hypothesis))
            fid = store.logs.add_feedback("human", kind, text, target_id=hypothesis)
            if hypothesis and kind in ("rejection", "pin"):
                store.hypotheses.set_state(hypothesis, "rejected" if kind == "rejection" else "pinned")
        return Recorded(self.id, fid, f"{self.id}: {kind} feedback {fid} recorded; it reaches the next generation "
                                      "and evolution prompts")

    def pause(self) -> str:
        """Ask the session to hold after its current actions; returns the line to say.

        Raises:
            CosciError: the session is finished.
        """
        return self._request("pause", "paused")

    def abort(self) -> str:
        """Ask the session to stop and write its overview; returns the line to say.

        Raises:
            CosciError: the session is finished.
        """
        return self._request("abort", "aborting")

    def _request(self, action: str, status: str) -> str:
        with self.folder.store() as store:
            rules.check_open(self.id, store.sessions.status(), action)
            again = store.sessions.status() == status
            if again and not (status == "paused" and rules.resume_starting(store)):
                return self._already(status)  # asked again: nothing more to record
            if not again:
                store.sessions.update(status=status)
            store.logs.event(f"external_{action}", {"requested_status": status})  # what a starting resume weighs
            if again:
                return self._already(status)
        if self.folder.is_running():
            return (f"{self.id}: {action} requested; the running session will "
                    + ("hold after its current actions" if status == "paused" else "stop and write its overview"))
        then = "writes its overview and ends it" if status == "aborting" else "continues it"
        return f"{self.id}: marked {status}; it is not running - `cosci resume {self.id}` {then}"

    def _already(self, status: str) -> str:
        """The line for a pause or abort asked of a session already ``status`` (``paused``, ``aborting``)."""
        if self.folder.is_running():
            doing = "holds after its current actions" if status == "paused" else "stops and writes its overview"
            return f"{self.id}: already {status}; the running session {doing}"
        then = "writes its overview and ends it" if status == "aborting" else "continues it"
        return f"{self.id}: already marked {status}; it is not running - `cosci resume {self.id}` {then}"

    def resume(self, overrides: Sequence[str] = (), *, ui: bool = True) -> Resumed:
        """Continue the session (:func:`cosci.session.preflight.resume_plan`): a paused process is told to go on,
        a done session's outstanding provider batches are settled, a killed or paused one runs again on its frozen
        config with ``overrides`` on top (its models' keys, lifecycle and MLflow server checked first). A pause asked
        while that run starts wins: the session opens paused and its process holds (design.md#resume). ``ui`` as
        :func:`cosci.api.run`'s: False prints nothing (the lines and the summary are returned).

        Raises:
            CosciError: as :func:`~cosci.session.preflight.resume_plan` and
                :func:`~cosci.session.preflight.check_resumed`; ConfigError: an override the frozen config refuses.
                GoalRefused, KeyboardInterrupt: as :func:`cosci.api.run`.
        """
        check.texts("overrides", overrides)
        with self.folder.store() as store:
            since = store.logs.last_event_seq()  # a pause asked after this wins over the resume (design.md#resume)
        plan = rules.resume_plan(self.folder, overrides)
        if plan == "waiting":
            with self.folder.store() as store:
                store.sessions.update(status="running")
            return Resumed(plan, (f"{self.id}: resumed (the running process continues)",))
        if plan == "settle":  # stopped with provider batches outstanding: settle them, nothing more runs
            from cosci.session.settle import settle_batches

            lines = outside_loop(lambda: settle_batches(self.folder, overrides))
            return Resumed(plan, tuple(f"{self.id}: {line}" for line in lines))
        with self.folder.store() as store:
            row = store.sessions.get()
        config = self.folder.frozen_config(overrides, lifecycle=True)  # its models are called again
        rules.check_resumed(config)
        with self.folder.store() as store:  # its checks passed: the mark a pause is weighed against
            store.logs.event(rules.RESUME_STARTING, {"since": since})
        from flows.launch import run_session

        summary = outside_loop(lambda: run_session(config, overrides=row.overrides,
                                                   choices={"models": row.models_choice}, resume_id=self.id,
                                                   ui=ui))
        return Resumed(plan, (), summary)


def open(session_id: str, data_dir: str | Path | None = None) -> Session:
    """The session ``session_id`` under ``data_dir`` (default ``$COSCI_DATA_DIR`` or ``./data``).

    Raises:
        SessionNotFound: no such session (one line naming ``cosci list``). CosciError: ``data_dir`` is a file,
            an argument of another type (:mod:`cosci.api.arguments`).
    """
    check.text("session_id", session_id)
    return Session(SessionFolder.existing(data_folder(check.data_dir(data_dir)), session_id))
