"""Who decides at the classifier (docs/design.md#safety-measured): a tier whose model has no measurement, a stale one
or one worse than the offline screen's is unable to classify, so the screen decides and the reason is recorded; a
measured, good-enough tier's answer decides. The model's answers are scripted here, wrong ones included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cosci.config.load import compose, validate
from cosci.config.schema import CosciConfig
from cosci.llm.gateway.routing import Router
from cosci.llm.port.types import CallSpec, LLMResponse
from cosci.safety.classifier import Classifier
from cosci.store import SessionStore
from tests.config.test_measured import HELD, MINI, book, measurement
from tests.conftest import FAST
from tests.safety.test_classifier import HARMFUL, ORDINARY, Port


def config(tmp_path: Path, classifier: dict[str, Any] | None) -> CosciConfig:
    """The test schedule on the Ollama preset (no key), its mini model measured as ``classifier`` says."""
    overrides = [o for o in FAST if o != "models=fake"]
    return validate(compose([*overrides, "models=ollama", f"paths.data_dir={tmp_path / 'data'}"]),
                    book=book(tmp_path, classifier), heldout=HELD, require_goal=True)


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore.open(tmp_path / "store.sqlite", "s-1")
    store.sessions.create(goal="g", config_snapshot={}, overrides=[], models_choice="ollama", budget_usd=1.0,
                          budget_tokens=None, wall_clock_seconds=60.0)
    return store


class Answers(Port):
    """A port giving one scripted verdict per call, in order: ``(decision, categories)``."""

    def __init__(self, *answers: tuple[str, list[str]]) -> None:
        super().__init__("allow")
        self.answers = list(answers)

    async def complete(self, spec: CallSpec) -> LLMResponse:
        decision, categories = self.answers.pop(0)
        self.args = json.dumps({"decision": decision, "categories": categories, "rationale": "because"})
        return await super().complete(spec)


@pytest.mark.parametrize("classifier", [None, measurement(refused=29), measurement(heldout_sha256="b" * 64)],
                         ids=["unmeasured", "worse", "stale"])
async def test_an_unmeasured_worse_or_stale_tier_leaves_the_decision_to_the_screen(
        tmp_path: Path, store: SessionStore, classifier: dict[str, Any] | None) -> None:
    cfg = config(tmp_path, classifier)
    clf = Classifier(cfg, Answers(("allow", []), ("block", ["chemical"])), Router(cfg), store)
    allowing = await clf.screen("goal", HARMFUL)  # the model allows a sarin route: it does not decide
    assert allowing.decision == "block" and allowing.acted and allowing.verdict.model_decision == "allow"
    assert allowing.verdict.screen["decided_by"] == "screen" and not allowing.verdict.disagreement
    blocking = await clf.screen("goal", ORDINARY)  # nor does its false alarm refuse
    assert blocking.decision == "allow" and not blocking.acted and blocking.verdict.model_decision == "block"
    [event] = store.logs.events("safety_unmeasured")  # once for the run, with the reason the pre-flight prints
    because = cfg.models.tiers["mini"].unable_because
    assert because and event["payload"]["because"] == because and event["payload"]["model"] == MINI
    assert event["payload"]["line"] == f"safety: tier mini ({MINI}) {because}; the offline screen decides " \
                                       "(docs/design.md#safety-measured)"


async def test_a_measured_tier_no_worse_than_the_screen_decides(tmp_path: Path, store: SessionStore) -> None:
    cfg = config(tmp_path, measurement())
    clf = Classifier(cfg, Answers(("allow", []), ("block", ["chemical"])), Router(cfg), store)
    wrong = await clf.screen("goal", HARMFUL)  # its answer decides, even a wrong one: a disagreement
    assert wrong.decision == "allow" and not wrong.acted and wrong.verdict.disagreement
    assert wrong.verdict.screen["decided_by"] == "classifier"
    right = await clf.screen("goal", HARMFUL + " Quickly.")
    assert right.decision == "block" and right.acted and right.verdict.categories == ["chemical"]
    assert store.logs.events("safety_unmeasured") == []
