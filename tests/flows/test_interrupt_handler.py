"""The session's Ctrl-C handler (flows/process.py): mid-run it stops the session (interrupted actions back to the
queue); once the session has stopped and finalisation writes its overview, it says so and lets it finish (fresh-user
report: "stopping; interrupted actions go back to the queue" was printed, then the overview was written and the
session ended done)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from flows.process import on_interrupt


class Sup:
    def __init__(self, finalising: bool) -> None:
        self.finalising, self.interrupted = finalising, False

    def interrupt(self) -> None:
        self.interrupted = True


def press_ctrl_c(sup: Sup) -> None:
    async def main() -> None:
        handled = on_interrupt(sup)  # type: ignore[arg-type]
        try:
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(0.05)
        finally:
            for sig in handled:
                asyncio.get_running_loop().remove_signal_handler(sig)

    asyncio.run(main())


@pytest.mark.parametrize(("finalising", "said", "stopped"), [
    (False, "cosci: stopping; interrupted actions go back to the queue", True),
    (True, "cosci: the session has stopped and is writing its overview; it finishes", False),
])
def test_ctrl_c_stops_a_running_session_and_lets_a_stopped_one_finish(capsys: pytest.CaptureFixture[str],
                                                                       finalising: bool, said: str,
                                                                       stopped: bool) -> None:
    sup = Sup(finalising)
    press_ctrl_c(sup)
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1
    assert sup.interrupted is stopped
    assert err.startswith("cosci: "), repr(err)  # captured (no terminal): no blank line above it (fresh-user trial)


def test_on_a_terminal_the_line_starts_below_the_keypress_echo(capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal "^C" is echoed where the cursor stands (the live line): the line starts on a new one."""
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    press_ctrl_c(Sup(False))
    assert capsys.readouterr().err.startswith("\ncosci: stopping")


class Sessions:
    def __init__(self, status: str, reason: str | None = None) -> None:
        self.state, self.reason = status, reason

    def status(self) -> str:
        return self.state

    def update(self, **fields: str) -> None:
        self.state = fields.get("status", self.state)
        self.reason = fields.get("stop_reason", self.reason)


class Store:
    def __init__(self, status: str) -> None:
        self.sessions = Sessions(status)
        self.session_id = "s-20261207-abcd"


@pytest.mark.parametrize(("finalising", "before", "after"), [
    (True, "done", "running"),       # finalisation had marked it done: the report and MLflow run may be unwritten
    (True, "running", "running"),    # the overview not yet written: already resumable
    (False, "running", "running"),   # mid-run: the first press paused it
])
def test_a_second_ctrl_c_while_finalising_leaves_a_record_cosci_resume_finishes(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], finalising: bool, before: str,
        after: str) -> None:
    """Fresh-user report: Ctrl-C, then Ctrl-C again while the session wrote its report and closed its MLflow run,
    left the record `done` and the MLflow run RUNNING with part of its metrics, and `cosci resume` refused the
    `done` session, though docs/commands.md says "`cosci resume` then finishes it". The second press quits at
    once (exit 130) and leaves the record `running`, which `cosci resume` takes."""
    exits: list[int] = []

    class Quit(Exception):
        pass

    def fake_exit(code: int) -> None:
        exits.append(code)
        raise Quit

    monkeypatch.setattr(os, "_exit", fake_exit)
    monkeypatch.setattr("flows.process.SAME_SIGNAL_SECONDS", 0.0)
    sup = Sup(finalising)
    sup.store = Store(before)  # type: ignore[attr-defined]

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda _loop, _ctx: None)  # the fake exit raises inside the signal callback
        handled = on_interrupt(sup)  # type: ignore[arg-type]
        try:
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(0.05)
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(0.05)
        finally:
            for sig in handled:
                loop.remove_signal_handler(sig)

    asyncio.run(main())
    err = capsys.readouterr().err.strip().splitlines()
    assert exits == [130] and sup.store.sessions.state == after  # type: ignore[attr-defined]
    # fresh-user trial: the quit printed nothing, so how to go on was nowhere on the screen
    assert err[-1] == "cosci: quit at once; `cosci resume s-20261207-abcd` continues it", err
    # fresh-user trial: a second Ctrl-C while the overview was written left the stop reason `-` in `cosci list` and
    # `cosci status` (the stop reason is written once the overview is): the record says the researcher stopped it
    assert sup.store.sessions.reason == "interrupted"  # type: ignore[attr-defined]
