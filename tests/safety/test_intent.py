"""The intent model's harm probability: the linear logit combined with the nearest labelled requests' vote, how close
those neighbours are, and the term readings (a hit, a protective purpose, a named agent with a harmful step and no
purpose; docs/design.md#safety-screen). The toy models are built here, with embeddings and labels chosen so that the
linear score and the neighbours disagree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cosci.safety.intent import READINGS, TERMS, IntentModel, fit_combination, load_intent, term_readings
from cosci.safety.prescreen import load_prescreen

DIM = 4


def unit(*v: float) -> np.ndarray:
    x = np.array(v, dtype=np.float32)
    return x / np.linalg.norm(x)


def toy(combine: np.ndarray | None) -> IntentModel:
    """Linear logit -2 everywhere (it allows); the training rows near (1, 0, 0, 0) are harmful, those near
    (0, 1, 0, 0) benign."""
    rows = np.stack([unit(1, 0.05 * i, 0, 0) for i in range(5)] + [unit(0.05 * i, 1, 0, 0) for i in range(5)])
    return IntentModel(np.zeros(DIM), -2.0, np.zeros((1, DIM)), np.zeros(1), ("biological",), "x",
                       rows.astype(np.float16), np.array([True] * 5 + [False] * 5), combine)


# weights: linear 1, vote 6, nearest cosine 0, vote x cosine 0, term hit 2.5, purpose -1, agent with a harmful step
# and no purpose 2; intercept -3
COMBINE = np.array([1.0, 6.0, 0.0, 0.0, 2.5, -1.0, 2.0, -3.0])
HIT, PURPOSE_HIT, AGENT_HIT = np.array([[1.0, 0, 0]]), np.array([[1.0, 1, 0]]), np.array([[1.0, 0, 1]])


def test_the_neighbours_vote_raises_a_request_the_linear_score_allows() -> None:
    near_harmful, near_benign = unit(1, 0.02, 0, 0)[None], unit(0.02, 1, 0, 0)[None]
    linear_only = toy(None)
    assert linear_only.harm(near_harmful)[0] == pytest.approx(1 / (1 + np.exp(2.0)))  # 0.12: the linear score alone
    combined = toy(COMBINE)
    assert combined.vote(near_harmful)[0] == pytest.approx(1.0) and combined.vote(near_benign)[0] == pytest.approx(0)
    assert combined.harm(near_harmful)[0] == pytest.approx(1 / (1 + np.exp(-(-2 + 6 - 3))))  # 0.73
    assert combined.harm(near_benign)[0] == pytest.approx(1 / (1 + np.exp(-(-2 - 3))))  # 0.007


def test_the_terms_are_readings_of_the_harm_probability_not_a_decision() -> None:
    near_benign = unit(0.02, 1, 0, 0)[None]
    model = toy(COMBINE)
    without = model.harm(near_benign)[0]
    hit, purpose, agent = (model.harm(near_benign, t)[0] for t in (HIT, PURPOSE_HIT, AGENT_HIT))
    assert hit == pytest.approx(1 / (1 + np.exp(-(-2 + 2.5 - 3)))) and hit > without  # 0.08 > 0.007
    assert purpose < hit < agent == pytest.approx(1 / (1 + np.exp(-(-2 + 2.5 + 2 - 3))))  # 0.38: still allowed
    readings = model.readings(near_benign, AGENT_HIT)
    assert readings.shape == (1, len(READINGS)) and readings[0, len(READINGS) - len(TERMS):].tolist() == [1, 0, 1]
    assert readings[0, READINGS.index("nearest cosine")] > 0.99


@pytest.mark.parametrize(("text", "terms"), [
    ("Increase the transmissibility of Nipah virus between people.", [1, 0, 1]),  # agent + harmful step
    ("Increase the transmissibility of a virus between people.", [1, 0, 0]),  # a class word: no named agent
    ("Which antivirals treat Nipah virus encephalitis?", [0, 1, 0]),  # a purpose, no harmful step
    ("Increase the transmissibility of Nipah virus to test a vaccine.", [1, 1, 0]),  # purpose stated
])
def test_the_term_readings_read_action_object_and_purpose(text: str, terms: list[int]) -> None:
    assert term_readings(load_prescreen("safety_prescreen.yaml"), [text])[0].tolist() == terms


def test_the_combination_is_fitted_on_readings_and_survives_a_save(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    harmful = np.arange(200) % 2 == 0
    readings = np.column_stack([rng.normal(size=200), harmful + rng.normal(scale=0.3, size=200),
                                np.full(200, 0.9), np.zeros(200), np.zeros((200, len(TERMS)))])
    combine = fit_combination(readings, harmful)
    assert combine.shape == (len(READINGS) + 1,) and combine[1] > 2 * abs(combine[0])  # the vote carries the label
    model = toy(combine)
    model.save(tmp_path / "m.npz")
    loaded = load_intent(str(tmp_path / "m.npz")).combine
    assert loaded is not None and np.allclose(loaded, combine)


def test_the_shipped_model_combines_its_readings() -> None:
    model = load_intent()
    assert model.combine is not None and model.combine.shape == (len(READINGS) + 1,)
    assert model.combine[READINGS.index("vote")] > 0 and model.combine[READINGS.index("term hit")] > 0
    assert model.combine[READINGS.index("agent with a harmful step, no purpose")] > 0
