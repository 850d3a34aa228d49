"""LiteLLM's loop-change notice stays off the terminal; its other warnings do not (cosci.llm.gateway.adapter)."""

import logging

import cosci.llm.gateway.adapter  # noqa: F401  (installs the filter)


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_loop_change_notice_is_dropped_and_other_warnings_pass() -> None:
    log = logging.getLogger("LiteLLM")
    # a handler of its own, the logger on at WARNING: an earlier test's logging configuration (Hydra's) may have
    # turned propagation, the level or the logger off
    kept, was = _Kept(), (log.disabled, log.level)
    log.addHandler(kept)
    log.disabled = False
    log.setLevel(logging.WARNING)
    try:
        log.warning("LoggingWorker: event loop changed; carried %d pending and revived %d dequeued logging task(s) "
                    "onto the new loop", 1, 0)
        log.warning("LiteLLM: Failed to fetch remote model cost map")
    finally:
        log.removeHandler(kept)
        log.disabled = was[0]
        log.setLevel(was[1])
    assert kept.messages == ["LiteLLM: Failed to fetch remote model cost map"]
