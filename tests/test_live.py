"""Opt-in tests against real providers: `pytest -m live` with the provider's key set. Never run in CI."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from tests.conftest import make_config

pytestmark = pytest.mark.live


@pytest.mark.parametrize(("models", "key"), [("sonnet", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")])
def test_a_real_provider_records_a_research_plan(models: str, key: str, tmp_path: Path) -> None:
    if not os.environ.get(key):
        pytest.skip(f"{key} is not set")
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.llm.gateway.adapter import Gateway
    from cosci.llm.port.structured import call_record
    from cosci.llm.port.types import CallSpec, TextBlock
    from cosci.prompts import render
    from cosci.records import RecordResearchPlan

    config = make_config(tmp_path / "data", f"models={models}")
    gateway = Gateway(config, TokenBudget(1.0, {a: c.budget_share for a, c in config.agents.items()}, 0.08))
    spec = CallSpec(route=gateway.router.route("goal_parsing", "parse_goal"), action="live",
                    system=[TextBlock(render("_safety_preamble"), cache=True)],
                    messages=[{"role": "user", "content": render("parse_goal", goal=config.session.goal)}])
    plan, resp = asyncio.run(call_record(gateway, spec, RecordResearchPlan))
    assert plan.objective and resp.cost_usd > 0 and resp.input_tokens > 0


LIVE_FAMILIES = [("opus", "ANTHROPIC_API_KEY"), ("claude45", "ANTHROPIC_API_KEY"), ("sonnet", "ANTHROPIC_API_KEY"),
                 ("openai", "OPENAI_API_KEY"), ("openai_o", "OPENAI_API_KEY"), ("gemini", "GEMINI_API_KEY"),
                 ("gemini3", "GEMINI_API_KEY"), ("openrouter", "OPENROUTER_API_KEY")]
"""Every hosted family of conf/models (Ollama: a local server, checked by `cosci check models=ollama`)."""


@pytest.mark.parametrize(("models", "key"), LIVE_FAMILIES, ids=[m for m, _ in LIVE_FAMILIES])
def test_every_family_passes_cosci_check(models: str, key: str, tmp_path: Path) -> None:
    """One probe per distinct request shape in `cosci check`'s form: the provider accepts the requests the
    contract tests pin, returns the record, and each probe that does not think costs under a cent at list prices (a
    thinking probe carries its mode's real budget or effort, docs/design.md#check)."""
    if not os.environ.get(key):
        pytest.skip(f"{key} is not set")
    from cosci.llm.gateway.check import CENT, report, run_check

    config = make_config(tmp_path / "data", f"models={models}")
    probes = asyncio.run(run_check(config))
    lines = report(config, probes)
    assert probes and not [p.fix for p in probes if p.fix], "\n".join(lines)
    assert all(p.cost_usd < CENT or p.form != "no thinking" for p in probes), "\n".join(lines)
