"""The session's terminal log handler follows sys.stderr (a replaced stream closed later is not written to)."""

from __future__ import annotations

import io
import logging
import shutil
import sys
from pathlib import Path

import pytest

from flows.launch import LogFile, Terminal, quiet_logging


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


def test_a_log_file_whose_folder_is_gone_never_raises_into_the_caller(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """An earlier in-process session's data folder deleted while the process runs on: its Prefect log file is
    reopened on the next record and cannot be; logging reports it, the task that logged goes on."""
    monkeypatch.setattr(logging, "raiseExceptions", False)
    (tmp_path / "gone").mkdir()
    handler = LogFile(tmp_path / "gone" / "prefect.log")
    handler.close()
    shutil.rmtree(tmp_path / "gone")
    handler.emit(logging.LogRecord("prefect.task", logging.WARNING, __file__, 1, "a state line", None, None))
