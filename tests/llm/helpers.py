"""Helpers of the LLM-gateway tests: a gateway over a config, with its transcript and its retry waits.

Every gateway here records each call attempt (the transcripts table's rows) in :attr:`Harness.records`;
unless asked for real sleeps, it notes each retry wait in :attr:`Harness.waits` instead of sleeping, so retry
tests are fast and can assert the exact wait.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import litellm
import pytest
import respx

from cosci.config.schema import CosciConfig
from cosci.domain import Call
from cosci.llm.budget.token_budget import TokenBudget
from cosci.llm.gateway.adapter import Gateway
from cosci.llm.port.types import CallSpec, TextBlock
from tests.conftest import make_config

__all__ = ["FIXTURES", "WHOLE", "Harness", "budget_of", "harness", "make_config", "recorded", "replayed_wire",
           "spec_for"]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
"""The recorded provider bodies (``tests/fixtures/README.md``)."""

WHOLE = [f"++models.tiers.{tier}.output_tokens_per_second=null" for tier in ("strong", "cheap", "mini")]
"""Overrides that send every call whole, not streamed: for replays of recorded whole (JSON) response bodies. The
streamed path is replayed from a recorded event stream in ``tests/llm/test_long_calls.py``."""


def recorded(relpath: str) -> dict[str, Any]:
    """The recorded JSON body ``tests/fixtures/<relpath>``."""
    return json.loads((FIXTURES / relpath).read_text(encoding="utf-8"))


@contextmanager
def replayed_wire(monkeypatch: pytest.MonkeyPatch, keys: Sequence[str]) -> Iterator[respx.MockRouter]:
    """respx over LiteLLM's httpx transport, with ``keys`` set to a dummy value; unmocked requests fail the test.

    LiteLLM's client cache is flushed before (no client built with the aiohttp transport) and after.
    """
    for key in keys:
        monkeypatch.setenv(key, "test-key")
    monkeypatch.setattr(litellm, "disable_aiohttp_transport", True)
    litellm.in_memory_llm_clients_cache.flush_cache()
    with respx.mock(assert_all_mocked=True, assert_all_called=False) as router:
        yield router
    litellm.in_memory_llm_clients_cache.flush_cache()


def budget_of(config: CosciConfig) -> TokenBudget:
    """The session budget a runtime builds from ``config`` (cap, agent shares, reserve)."""
    return TokenBudget(config.run.budget_usd, {a: c.budget_share for a, c in config.agents.items()},
                       config.budget.reserve_share, config.run.budget_tokens)


@dataclass
class Harness:
    """A gateway plus what it reported: transcript records and the retry waits it asked for (seconds)."""

    gateway: Gateway
    budget: TokenBudget
    records: list[Call] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)

    @property
    def outcomes(self) -> list[str]:
        return [r.outcome for r in self.records]


def harness(config: CosciConfig, *, budget: TokenBudget | None = None, real_sleep: bool = False) -> Harness:
    """A gateway over ``config`` whose recorder (and, unless ``real_sleep``, sleep) are the harness's own."""
    records: list[Call] = []
    waits: list[float] = []

    async def note_wait(seconds: float) -> None:
        waits.append(seconds)

    budget = budget or budget_of(config)
    kwargs: dict[str, Any] = {} if real_sleep else {"sleep": note_wait}
    return Harness(Gateway(config, budget, records.append, **kwargs), budget, records, waits)


def spec_for(gw: Gateway, agent: str, mode: str, user: str = "Propose one hypothesis.",
             **kw: Any) -> CallSpec:
    """A call of ``agent.mode``: a cached preamble, an uncached per-task block, one user message."""
    return CallSpec(route=gw.router.route(agent, mode), action=kw.pop("action", f"Test{agent.title()}"),
                    system=[TextBlock("You are a careful scientist.", cache=True),
                            TextBlock("Task context.")],
                    messages=[{"role": "user", "content": user}], **kw)
