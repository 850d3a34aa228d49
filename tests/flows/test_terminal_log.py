"""The session's terminal log handler follows sys.stderr (a replaced stream closed later is not written to)."""

from __future__ import annotations

import io
import logging
import sys

import pytest

from flows.launch import Terminal, quiet_logging


def test_a_warning_after_the_stream_of_install_closed_reaches_the_current_stderr(
        monkeypatch: pytest.MonkeyPatch) -> None:
    log = logging.getLogger("cosci")
    saved = list(log.handlers), log.propagate
    for h in saved[0]:
        log.removeHandler(h)
    try:
        first = io.StringIO()
        monkeypatch.setattr(sys, "stderr", first)
        quiet_logging()
        assert any(isinstance(h, Terminal) for h in log.handlers)
        first.close()  # the capture the install ran under ends
        second = io.StringIO()
        monkeypatch.setattr(sys, "stderr", second)
        logging.getLogger("cosci.agents.ranking").warning("position bias: %d of %d", 0, 4)
        assert second.getvalue() == "cosci: position bias: 0 of 4\n"
    finally:
        for h in list(log.handlers):
            log.removeHandler(h)
        for h in saved[0]:
            log.addHandler(h)
        log.propagate = saved[1]
