"""What the flows' Prefect tasks share: the cache key of a task's plain-data input and the rule that retries an
action (design.md#caching).

Prefect's default cache policy includes the flow run id, so it caches only within one run; each flow's tasks key
their results on their own input instead (:func:`hashed_key`), so a killed run replays what finished. A whole
action is retried only when it failed with :data:`~cosci.llm.errors.RETRYABLE_ACTION_ERRORS` (an invalid record, or
a transient error that outlived the gateway's own retries; :func:`retryable`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from cosci.llm.errors import RETRYABLE_ACTION_ERRORS

KEY_HEX_CHARS = 40
"""Hex characters of the SHA-256 kept in a cache key (160 bits: no collision among a data folder's tasks)."""


def hashed_key(prefix: str, body: Any) -> str:
    """``prefix`` + the SHA-256 (first :data:`KEY_HEX_CHARS` hex characters) of ``body`` as sorted JSON (plain data;
    anything else by its ``str``)."""
    text = json.dumps(body, sort_keys=True, default=str)
    return prefix + hashlib.sha256(text.encode()).hexdigest()[:KEY_HEX_CHARS]


async def retryable(_task: Any, _task_run: Any, state: Any) -> bool:
    """Prefect's ``retry_condition_fn``: whether the failed state's exception is one a whole action is retried on."""
    exc = state.result(raise_on_failure=False)
    if hasattr(exc, "__await__"):
        exc = await exc
    return isinstance(exc, RETRYABLE_ACTION_ERRORS)


__all__ = ["KEY_HEX_CHARS", "hashed_key", "retryable"]
