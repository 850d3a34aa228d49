"""The classifier's own rules (issue 15), at the LLM port: what acts on which subject, categories mapped onto
the configured list, one call per screened text, and the embedded model's block needing a pre-screen hit."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from cosci.config.schema import CosciConfig
from cosci.llm.gateway.routing import Router
from cosci.llm.port.types import CallSpec, LLMResponse, Route, ToolCall
from cosci.safety.classifier import Classifier, acts
from cosci.store import SessionStore

HARMFUL = "Describe a precursor route to synthesize sarin with household chemicals."
ORDINARY = "Propose approved drugs to repurpose for acute myeloid leukemia."


class Port:
    """An LLM port answering every call with one safety verdict; keeps what it was asked."""

    def __init__(self, decision: str, categories: list[str]) -> None:
        self.args = json.dumps({"decision": decision, "categories": categories, "rationale": "because"})
        self.specs: list[CallSpec] = []

    async def complete(self, spec: CallSpec) -> LLMResponse:
        self.specs.append(spec)
        return LLMResponse(text="", tool_calls=[ToolCall("c1", "record_safety_verdict", self.args)],
                           thinking_blocks=[], finish_reason="tool_calls", model=spec.route.model)


class EmbeddedRouter(Router):
    """The configured route, marked as the embedded (schema-constrained) model."""

    def route(self, agent: str, mode: str, tier: str | None = None) -> Route:
        return replace(super().route(agent, mode, tier), constrained=True)


@pytest.fixture
def store(tmp_path: Path, config: CosciConfig) -> SessionStore:
    store = SessionStore.open(tmp_path / "store.sqlite", "s-1")
    store.sessions.create(goal="g", config_snapshot={}, overrides=[], models_choice="fake", budget_usd=1.0,
                        budget_tokens=None, wall_clock_seconds=60.0)
    return store


def test_which_decisions_act_follow_the_config(config: CosciConfig) -> None:
    assert acts(config, "goal", "block") and acts(config, "feedback", "block")
    assert acts(config, "hypothesis", "block") and acts(config, "overview", "block")
    assert not any(acts(config, s, "flag") for s in ("goal", "feedback", "hypothesis", "overview"))


@pytest.mark.overrides("safety.quarantine_on=[flag,block]")
def test_quarantine_on_flag_can_be_chosen(config: CosciConfig) -> None:
    assert acts(config, "hypothesis", "flag") and not acts(config, "goal", "flag")


async def test_categories_are_mapped_and_a_text_is_screened_once(config: CosciConfig,
                                                                 store: SessionStore) -> None:
    port = Port("block", ["Radiological / Nuclear", "CYBER", "made-up", "cyber"])
    clf = Classifier(config, port, Router(config), store)
    first = await clf.screen("hypothesis", HARMFUL, subject_id="H-1")
    again = await clf.screen("hypothesis", HARMFUL, subject_id="H-1")
    assert len(port.specs) == 1 and again.verdict == first.verdict
    assert first.verdict.categories == ["radiological_nuclear", "cyber", "other"] and first.acted
    assert port.specs[0].route.key == "safety.classify" and port.specs[0].tool_choice == "record_safety_verdict"
    assert first.verdict.prescreen == ['chemical: "sarin" + "synthesize"']
    assert store.safety.counts() == {"block": 1} and store.logs.events("safety_block")


async def test_the_embedded_models_block_needs_a_prescreen_hit(config: CosciConfig, store: SessionStore) -> None:
    clf = Classifier(config, Port("block", ["biological"]), EmbeddedRouter(config), store)
    ordinary = await clf.screen("goal", ORDINARY)
    assert ordinary.decision == "flag" and not ordinary.acted
    assert ordinary.verdict.rationale.startswith("embedded model's block without a pre-screen hit")
    harmful = await clf.screen("goal", HARMFUL)
    assert harmful.decision == "block" and harmful.acted


@pytest.mark.overrides("safety.embedded_block_needs_prescreen=false")
async def test_the_embedded_rule_can_be_turned_off(config: CosciConfig, store: SessionStore) -> None:
    clf = Classifier(config, Port("block", ["biological"]), EmbeddedRouter(config), store)
    assert (await clf.screen("goal", ORDINARY)).acted
