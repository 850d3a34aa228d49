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
