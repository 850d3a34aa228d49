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
