"""Prompt caching that hits, and padding only where it pays (design.md#caching).

- A tool loop on the opus tier's Opus-class models (minimum cacheable prefix 4,096 tokens,
  ``models.tiers.<tier>.cache_min_tokens``) carries the research handbook, and its padded prefix is above the
  minimum; no other call carries it, and a tier whose minimum the loop's own prefix clears (Sonnet-class, 1,024) is not
  padded. Tokens are counted with LiteLLM's ``token_counter`` for the model (no Anthropic tokenizer ships offline)
  and with the documented rule of thumb of ~4 characters per token; the lower of the two must pass.
- A recorded Anthropic response with cache reads and writes (``tests/fixtures/anthropic/
  messages_cache_read_write.json``) is priced with Anthropic's cache prices, stored on the call row, and gives
  a nonzero ``cache_read_share``.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import litellm
import pytest
import respx

from cosci.llm.fake.provider import FakeBackend
from cosci.llm.port.types import CallSpec, TextBlock
from cosci.store import SessionStore
from tests.llm.helpers import WHOLE, harness, make_config, spec_for
from tests.llm.test_litellm_replay import ANTHROPIC_URL, recorded, wire  # noqa: F401

CHARS_PER_TOKEN = 4  # OpenAI's and Anthropic's published rule of thumb for English text (~3.5-4 characters)


def prefix_tokens(blocks: list[TextBlock], model: str) -> int:
    """Conservative tokens of the cached prefix: the blocks up to the last one marked for caching."""
    last = max(i for i, b in enumerate(blocks) if b.cache)
    text = "\n\n".join(b.text for b in blocks[: last + 1])
    return min(litellm.token_counter(model=model, text=text), len(text) // CHARS_PER_TOKEN)


LOOP_AGENTS = ("generation", "reflection", "evolution")


@pytest.mark.parametrize("experiment", ["demo", "oncology"])
async def test_a_tool_loop_is_padded_only_where_its_prefix_is_below_the_minimum(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeBackend, experiment: str) -> None:
    """design.md#caching: on the opus tier the Opus-class tool loops get the handbook and their padded prefix clears the
    minimum; no other call carries it (the bench measured it dearer there)."""
    from cosci.session.runtime import SessionRuntime

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")  # no call is made: prompts are only rendered
    # the Opus tier at the largest documented minimum (Opus 4.5/4.6, Haiku 4.5: 4,096 tokens; Opus 4.8's is 1,024)
    config = make_config(tmp_path / "data", "models=opus", f"experiment={experiment}",
                         "models.tiers.strong.cache_min_tokens=4096")
    rt = await SessionRuntime.open(config, models_choice="opus")
    try:
        padded = []
        for agent_name, acfg in config.agents.items():
            agent = rt.agents[agent_name]
            for mode in acfg.modes:
                route = rt.gateway.router.route(agent_name, mode)
                minimum = config.models.tiers[route.tier].cache_min_tokens
                assert minimum in (512, 1024, 2048, 4096), f"{route.model}: no documented minimum configured"
                if not hasattr(agent, "system_blocks"):
                    continue
                blocks = agent.system_blocks(route=route)
                assert not any("Research handbook" in b.text for b in blocks), f"{agent_name}.{mode}"
                if agent_name not in LOOP_AGENTS or mode in ("debate", "grounding"):
                    continue
                spec = CallSpec(route=route, action=mode, system=blocks, messages=[])
                loop = agent.padded(spec, agent.tools())
                if minimum == 4096:
                    assert any("Research handbook" in b.text for b in loop.system), f"{agent_name}.{mode}"
                    assert prefix_tokens(loop.system, route.model) >= minimum
                    padded.append(f"{agent_name}.{mode}")
        assert "generation.literature" in padded and "reflection.full" in padded and "evolution.combine" in padded
    finally:
        await rt.close()


async def test_models_without_a_minimum_get_no_handbook(runtime: object) -> None:
    from cosci.session.runtime import SessionRuntime

    assert isinstance(runtime, SessionRuntime)
    route = runtime.gateway.router.route("generation", "literature")  # the fake: no cache_min_tokens
    agent = runtime.agents["generation"]
    blocks = agent.system_blocks(route=route)
    loop = agent.padded(CallSpec(route=route, action="literature", system=blocks, messages=[]), agent.tools())
    assert not any("Research handbook" in b.text for b in loop.system)
    assert [b.cache for b in blocks[:2]] == [True, True]


async def test_a_tier_whose_prefix_clears_its_minimum_is_not_padded(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   fake: FakeBackend) -> None:
    """A tier whose minimum the loop's own prefix clears (here a minimum of 512 tokens, below the ~900-token prefix
    of this session's literature loop): the handbook would only cost, so it is not sent; at 1024 it is."""
    from cosci.session.runtime import SessionRuntime

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    config = make_config(tmp_path / "data", "models=opus", "++models.agent_tiers.generation=cheap",
                         "models.tiers.cheap.cache_min_tokens=512")
    rt = await SessionRuntime.open(config, models_choice="opus")
    try:
        agent = rt.agents["generation"]
        route = rt.gateway.router.route("generation", "literature")
        assert config.models.tiers[route.tier].cache_min_tokens == 512
        loop = agent.padded(CallSpec(route=route, action="literature", system=agent.system_blocks(route=route),
                                     messages=[]), agent.tools())
        assert not any("Research handbook" in b.text for b in loop.system)
    finally:
        await rt.close()


async def test_a_recorded_cache_hit_is_priced_and_counted(wire: respx.MockRouter,  # noqa: F811
                                                          tmp_path: Path) -> None:
    body = recorded("anthropic/messages_cache_read_write.json")
    config = make_config(tmp_path / "data", "models=opus", "run.budget_usd=25",
                         "models.tiers.cheap.model=anthropic/claude-sonnet-4-6", *WHOLE)  # Sonnet 4.5's prices
    h = harness(config)
    wire.post(ANTHROPIC_URL).mock(return_value=httpx.Response(200, json=body))

    resp = await h.gateway.complete(spec_for(h.gateway, "ranking", "pairwise", "Which is better?"))

    usage = body["usage"]  # input 3, output 33, cache write 418, cache read 1111
    assert (resp.cache_read_tokens, resp.cache_write_tokens) == (1111, 418)
    assert resp.input_tokens == 3 + 1111 + 418  # LiteLLM counts cached tokens as prompt tokens
    # Anthropic's documented Sonnet 4.5 prices, USD per 1M tokens: input 3, output 15, 5-minute cache write
    # 3.75 (1.25x input), cache read 0.30 (0.1x input)
    documented = (usage["input_tokens"] * 3.0 + usage["output_tokens"] * 15.0
                  + usage["cache_creation_input_tokens"] * 3.75 + usage["cache_read_input_tokens"] * 0.30) / 1e6
    assert resp.cost_usd == pytest.approx(documented, rel=1e-6)
    [row] = h.records
    assert (row.cache_read_tokens, row.cache_write_tokens, row.cost_usd) == (1111, 418, resp.cost_usd)

    store = SessionStore.open(tmp_path / "store.sqlite", "s-test")
    try:
        store.sessions.create(goal="g", config_snapshot={}, overrides=[], models_choice="opus", budget_usd=1.0,
                               budget_tokens=None, wall_clock_seconds=60)
        store.logs.add_call(row)
        shares = store.logs.cache_read_shares()
        assert shares["ranking"] == shares["total"] == pytest.approx(1111 / 1532)
    finally:
        store.close()


def test_status_reports_the_cache_read_share_per_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cosci.cli import main
    from cosci.domain import Call

    sid = "s-20261201-000000-abcdef"
    store = SessionStore.open(tmp_path / "sessions" / sid / "store.sqlite", sid)
    try:
        store.sessions.create(goal="g", config_snapshot={}, overrides=[], models_choice="opus", budget_usd=1.0,
                               budget_tokens=None, wall_clock_seconds=60)
        for agent, inp, read in (("ranking", 1000, 800), ("generation", 3000, 0), ("ranking", 1000, 0)):
            store.logs.add_call(Call(agent=agent, action="a", mode="m", model="x", task_id=None, attempt=1,
                                            outcome="ok", input_tokens=inp, cache_read_tokens=read))
        store.logs.add_call(Call(agent="ranking", action="a", mode="m", model="x", task_id=None, attempt=1,
                                        outcome="error:timeout", input_tokens=0))
        assert store.logs.cache_read_shares() == pytest.approx({"ranking": 0.4, "generation": 0.0, "total": 0.16})
    finally:
        store.close()
    main(["--data-dir", str(tmp_path), "status", sid])
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("cache reads"))
    assert line.split() == ["cache", "reads", "16.0%", "of", "input", "tokens", "generation", "0.0%,", "ranking",
                            "40.0%"]
