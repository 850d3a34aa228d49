"""A slot is a model call (design.md#supervisor, "A slot is a model call"): a session's gateway never has more than
``run.concurrency`` provider calls out at once, however many actions wait to call; a call waiting for its slot holds
nothing of the budget, and a retry's wait holds no slot."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.llm.gateway.adapter import Gateway
from tests.llm.helpers import budget_of, make_config, spec_for


class Counted:
    """Wraps the fake's answer: counts the requests out at once, and holds each until :attr:`release` is set."""

    def __init__(self, fake: FakeBackend, monkeypatch: pytest.MonkeyPatch) -> None:
        self.out = self.most = 0
        self.release = asyncio.Event()
        self.release.set()
        respond = fake.respond

        async def counted(*args: Any, **kwargs: Any) -> Any:
            self.out += 1
            self.most = max(self.most, self.out)
            try:
                await asyncio.sleep(0.01)  # a provider's latency: every request is out a while
                await self.release.wait()
                return await respond(*args, **kwargs)
            finally:
                self.out -= 1

        monkeypatch.setattr(fake, "respond", counted)


@pytest.fixture
def counted(fake: FakeBackend, monkeypatch: pytest.MonkeyPatch) -> Iterator[Counted]:
    yield Counted(fake, monkeypatch)


def _gateway(tmp_path: Path, calls: int | None, *overrides: str) -> tuple[Gateway, list[Any]]:
    config = make_config(tmp_path / "data", *overrides)
    records: list[Any] = []
    return Gateway(config, budget_of(config), records.append, calls=calls), records


async def test_never_more_calls_out_than_its_slots(tmp_path: Path, counted: Counted) -> None:
    """Ten actions call at once through a gateway of three call slots: three requests out at most, all ten
    answered."""
    gw, records = _gateway(tmp_path, 3)
    answers = await asyncio.gather(*(gw.complete(spec_for(gw, "ranking", "pairwise")) for _ in range(10)))
    assert all(a.text for a in answers)
    assert counted.most == 3
    assert [r.outcome for r in records] == ["ok"] * 10


async def test_a_gateway_without_slots_does_not_limit(tmp_path: Path, counted: Counted) -> None:
    """A command's own gateway (no ``calls``): every call is out at once, as before."""
    gw, _ = _gateway(tmp_path, None)
    await asyncio.gather(*(gw.complete(spec_for(gw, "ranking", "pairwise")) for _ in range(5)))
    assert counted.most == 5


async def test_a_call_waiting_for_its_slot_holds_no_budget(tmp_path: Path, counted: Counted) -> None:
    """One slot, two calls: while the first is out the second waits unadmitted, so the budget holds one call's
    reservation (as when its action waited for a slot), and both settle in full."""
    gw, _ = _gateway(tmp_path, 1)
    counted.release.clear()
    first = asyncio.create_task(gw.complete(spec_for(gw, "ranking", "pairwise")))
    await asyncio.sleep(0.05)
    held_one = gw.budget.held_usd()
    second = asyncio.create_task(gw.complete(spec_for(gw, "ranking", "pairwise")))
    await asyncio.sleep(0.05)
    assert counted.out == 1
    assert gw.budget.held_usd() == pytest.approx(held_one)  # the waiting call holds nothing
    counted.release.set()
    await asyncio.gather(first, second)
    assert counted.most == 1
    assert gw.budget.held_usd() == (0.0, 0.0, 0.0)


async def test_a_retry_wait_holds_no_slot(tmp_path: Path, fake: FakeBackend, counted: Counted) -> None:
    """One slot: a call told to come back in 0.3 s leaves its slot while it waits, and another call is answered
    meanwhile."""
    gw, records = _gateway(tmp_path, 1, "retry.base_delay_seconds=0", "retry.max_delay_seconds=5")
    fake.script(FakeReply(fault="rate_limit", retry_after=0.3), agent="ranking")
    limited = asyncio.create_task(gw.complete(spec_for(gw, "ranking", "pairwise")))
    await asyncio.sleep(0.05)  # its first attempt is refused: it waits out the Retry-After
    await asyncio.wait_for(gw.complete(spec_for(gw, "reflection", "full")), 0.25)
    await limited
    assert [r.outcome for r in records] == ["retry:rate_limit", "ok", "ok"]

