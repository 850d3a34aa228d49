"""LiteLLM's loop-change notice stays off the terminal; its other warnings do not (cosci.llm.gateway.adapter)."""

import logging

import pytest

import cosci.llm.gateway.adapter  # noqa: F401  (installs the filter)


def test_loop_change_notice_is_dropped_and_other_warnings_pass(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    log = logging.getLogger("LiteLLM")
    log.warning("LoggingWorker: event loop changed; carried %d pending and revived %d dequeued logging task(s) "
                "onto the new loop", 1, 0)
    log.warning("LiteLLM: Failed to fetch remote model cost map")
    assert [r.getMessage() for r in caplog.records] == ["LiteLLM: Failed to fetch remote model cost map"]
