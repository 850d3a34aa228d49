"""Routing (seed 001 "Model Routing"): tiers, thinking budgets, per-agent overrides, keys, degradation."""

from __future__ import annotations

from pathlib import Path

import pytest

from cosci.config.schema import CosciConfig
from cosci.errors import MissingApiKey
from cosci.llm.errors import ModelUnavailable
from cosci.llm.gateway.routing import Router
from tests.llm.helpers import make_config


def router(tmp_path: Path, *overrides: str) -> Router:
    return Router(make_config(tmp_path / "data", *overrides))


def test_thinking_is_kept_only_on_thinking_tiers(config: CosciConfig) -> None:
    r = Router(config)  # fake: strong thinks, cheap and mini do not
    literature = r.route("generation", "literature")
    assert (literature.tier, literature.thinking_tokens) == ("strong", 4000)
    assert literature.timeout_seconds == 300.0  # thinking calls get 300 s (the fake has no output speed: whole)
    assert not literature.stream
    pairwise = r.route("ranking", "pairwise")  # the mode asks for 4000, but cheap takes no thinking
    assert (pairwise.tier, pairwise.thinking_tokens, pairwise.timeout_seconds) == ("cheap", 0, 120.0)
    assert r.route("reflection", "full").thinking_tokens == 0  # strong tier, mode without a budget
    assert r.route("generation", "literature", tier="cheap").thinking_tokens == 0
    for route in r.all_routes():
        tier = config.models.tiers[route.tier]
        assert route.thinking_form == tier.thinking
        assert route.thinking_tokens == (config.agents[route.agent].modes[route.mode].thinking_tokens
                                         if tier.thinking != "off" else 0)


def test_thinking_follows_the_models_choice(tmp_path: Path) -> None:
    opus = router(tmp_path, "models=opus")
    assert opus.route("metareview", "final").thinking_tokens == 16000
    assert opus.route("metareview", "final").model == "anthropic/claude-opus-5"
    haiku = router(tmp_path, "models=claude45")  # Haiku 4.5 thinks only on the strong tier (budget form)
    assert all(r.thinking_tokens == 0 for r in haiku.all_routes() if r.tier != "strong")
    assert haiku.route("metareview", "final").thinking_tokens == 16000


def test_agent_tiers_override_the_agents_tiers(tmp_path: Path) -> None:
    r = router(tmp_path, "models=openrouter")
    models = {(x.agent, x.mode): x.model for x in r.all_routes()}
    assert models["generation", "literature"] == models["generation", "debate"] == "openrouter/openai/gpt-6.1-sol"
    assert models["reflection", "full"] == models["reflection", "verification"] == \
        "openrouter/anthropic/claude-sonnet-5"
    assert models["ranking", "pairwise"] == "openrouter/google/gemini-3.5-flash"  # agent.mode override
    assert models["ranking", "debate"] == "openrouter/anthropic/claude-sonnet-5"  # conf/agents: cheap
    assert models["metareview", "final"] == "openrouter/anthropic/claude-sonnet-5"
    assert models["metareview", "system"] == "openrouter/anthropic/claude-sonnet-5"
    assert r.route("reflection", "full").tier == "claude"


def test_agent_tiers_override_from_the_command_line(tmp_path: Path) -> None:
    r = router(tmp_path, "+models.agent_tiers.ranking=mini")
    assert {x.model for x in r.all_routes() if x.agent == "ranking"} == {"cosci-fake/mini"}
    assert r.route("generation", "literature").model == "cosci-fake/strong"


def test_check_keys_names_the_missing_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = router(tmp_path, "models=opus")
    with pytest.raises(MissingApiKey) as info:
        r.check_keys()
    assert info.value.variable == "ANTHROPIC_API_KEY"
    assert str(info.value).startswith("ANTHROPIC_API_KEY is not set")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    r.check_keys()
    router(tmp_path).check_keys()  # the fake needs no key
    with pytest.raises(MissingApiKey, match="OPENROUTER_API_KEY"):
        router(tmp_path, "models=openrouter").check_keys()


def test_degradation_walks_the_chain(config: CosciConfig, tmp_path: Path) -> None:
    r = Router(config)
    strong = r.route("generation", "literature")
    cheap = r.degrade(strong)
    assert (cheap.tier, cheap.model, cheap.thinking_tokens) == ("cheap", "cosci-fake/cheap", 0)
    assert r.degrade(cheap).tier == "mini"
    with pytest.raises(ModelUnavailable, match="no model left"):
        r.degrade(r.degrade(cheap))
    sonnet = router(tmp_path, "models=sonnet")  # strong and cheap are the same model: skipped
    haiku = sonnet.degrade(sonnet.route("generation", "literature"))
    assert haiku.model == "anthropic/claude-haiku-4-5-20251001"


@pytest.mark.parametrize(("agent", "mode"), [("reflection", "verification"), ("metareview", "final")])
def test_never_degrade_modes(config: CosciConfig, agent: str, mode: str) -> None:
    route = Router(config).route(agent, mode)
    assert route.degradable is False
    with pytest.raises(ModelUnavailable, match="never degrades"):
        Router(config).degrade(route)


def test_every_shipped_models_choice_passes_the_model_check(tmp_path: Path) -> None:
    from cosci.llm.gateway.providers import check_models

    for choice in ("models=fake", "models=ollama", "models=openrouter", "models=opus", "models=local"):
        check_models(router(tmp_path, choice).config, keys=False)


@pytest.mark.parametrize("model", ["nope", "foo/bar", "claude"])
def test_a_model_no_provider_serves_is_refused_before_any_work(tmp_path: Path, model: str) -> None:
    """Fresh-user report: ``models.tiers.strong.model=nope`` ran a whole session whose every call failed."""
    from cosci.errors import UnknownModel
    from cosci.llm.gateway.providers import check_models

    with pytest.raises(UnknownModel, match=rf"^models.tiers.strong.model: '{model}' names no LiteLLM provider"):
        check_models(router(tmp_path, f"models.tiers.strong.model={model}").config)


def test_registering_prices_says_nothing_on_the_terminal(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Fresh-user report: every `cosci estimate` printed LiteLLM's "custom pricing but not in built-in cost map"
    warning for the fake's embedding model."""
    import logging

    from cosci.llm.gateway.providers import register_providers

    with caplog.at_level(logging.WARNING):
        register_providers(router(tmp_path).config)
    assert [r.getMessage() for r in caplog.records if r.name.startswith("LiteLLM")] == []


def test_a_tier_moved_to_a_hosted_model_needs_its_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fresh-user report: `models=fake models.tiers.strong.model=openai/gpt-nope` with no OPENAI_API_KEY ran a
    session whose every call failed (the fake's tier names no key variable, so `check_keys` had nothing to check)."""
    from cosci.llm.gateway.providers import check_models

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = router(tmp_path, "models.tiers.strong.model=openai/gpt-nope").config
    with pytest.raises(MissingApiKey, match=r"^OPENAI_API_KEY is not set: models need it for openai/gpt-nope"):
        check_models(config)
    check_models(config, keys=False)  # an estimate needs no key
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    check_models(config)
    check_models(router(tmp_path, "models=ollama").config)  # a local server (api_base) needs no key


def test_a_local_server_that_refuses_connections_is_one_line_before_any_call(monkeypatch: pytest.MonkeyPatch,
                                                                               tmp_path: Path) -> None:
    """``models=ollama`` (or ``openai_compatible``) with no server: every call was retried until the session ran out
    of work (145 attempts, 2 min 40 s). A loopback api_base that refuses connections is refused at launch, naming
    the tier; a listening one passes; a remote host is left to the calls (no connection is tried)."""
    import socket

    from cosci.errors import ServerUnreachable
    from cosci.llm.gateway.providers import check_servers

    with socket.socket() as probe:  # a port nothing listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    with pytest.raises(ServerUnreachable, match=rf"^models.tiers.strong.api_base: nothing listens at "
                                                rf"http://127.0.0.1:{closed}/v1 \(connection refused\)"):
        check_servers(router(tmp_path, "models=openai_compatible",
                             *(f"models.tiers.{t}.api_base=http://127.0.0.1:{closed}/v1"
                               for t in ("strong", "cheap", "mini"))).config)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_servers(router(tmp_path, "models=ollama", *(f"models.tiers.{t}.api_base=http://localhost:"
                                                            f"{server.getsockname()[1]}" for t in ("strong", "cheap",
                                                                                                     "mini"))).config)

    def no_connection(*_: object, **__: object) -> None:
        raise AssertionError("a remote host was contacted")

    monkeypatch.setattr(socket, "create_connection", no_connection)
    check_servers(router(tmp_path, "models=openai_compatible", *(f"models.tiers.{t}.api_base=https://gw.lab.org/v1"
                                                                 for t in ("strong", "cheap", "mini"))).config)
    check_servers(router(tmp_path, "models=fake").config)  # no api_base: nothing to check


def test_an_effort_tier_leaves_room_for_hidden_reasoning(tmp_path: Path) -> None:
    """gpt-5's reasoning tokens count against its cap: a mode's cap is its answer budget plus the table row's
    reasoning room (conf/config.yaml thinking.efforts: budget 0 -> 2048, 4000 -> 4000, 16000 -> 16000)."""
    r = router(tmp_path, "models=openai")
    agents = r.config.agents
    for agent, mode, room in (("safety", "classify", 2048), ("goal_parsing", "parse_goal", 2048),
                              ("generation", "literature", 4000), ("metareview", "final", 16000)):
        route, cfg = r.route(agent, mode), agents[agent].modes[mode]
        assert route.thinking_form == "effort"
        assert route.max_output_tokens == cfg.max_output_tokens - cfg.thinking_tokens + room
    assert r.route("safety", "classify").max_output_tokens == 1024 + 2048  # was 1024: reasoning ate the answer


def test_a_long_call_is_streamed_under_a_deadline_from_its_speed(tmp_path: Path) -> None:
    """metareview.final on Opus: 24,192 tokens at a conservative 20 tokens/s cannot finish in 300 s; it is
    streamed under 60 s + 24192 / 20 s. A short call stays whole under the fixed timeout."""
    r = router(tmp_path, "models=opus")
    final = r.route("metareview", "final")
    assert final.stream and final.idle_seconds == 90.0
    assert final.timeout_seconds == pytest.approx(60.0 + 24192 / 20)
    classify = r.route("safety", "classify")  # Haiku, 1,024 tokens at 50 tokens/s: 80 s < 120 s
    assert not classify.stream and classify.timeout_seconds == 120.0 and classify.idle_seconds is None
