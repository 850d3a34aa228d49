"""The intent model's two harm readings (cosci/safety/intent.py, docs/design.md#safety-screen): the stored kernel
machine is the one scikit-learn fitted, and a refusal needs both readings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from cosci.safety.intent import DIM, fit_intent


def _rows(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two clusters on the unit sphere (harmful around one direction, benign around another), ``(n, 384)``."""
    rng = np.random.default_rng(seed)
    harmful = np.arange(n) % 3 == 0
    centre = np.where(harmful[:, None], np.eye(DIM)[0], np.eye(DIM)[1])
    x = centre + 0.35 * rng.standard_normal((n, DIM)) / np.sqrt(DIM) * 8
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32), harmful


@pytest.fixture(scope="module")
def fitted():
    x, harmful = _rows(0, 150)
    cats = np.where(np.arange(len(x)) % 2 == 0, "chemical", "biological")
    return fit_intent(x, harmful, list(cats), "test", 10.0), x, harmful


def test_the_stored_kernel_reading_is_the_machine_scikit_learn_fitted(fitted) -> None:
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC

    model, x, harmful = fitted
    xs = x.astype(np.float16).astype(np.float32)
    machine = CalibratedClassifierCV(SVC(C=10.0, kernel="rbf", gamma="scale", class_weight="balanced"),
                                     method="sigmoid", cv=5, ensemble=False).fit(xs, harmful)
    linear = LogisticRegression(C=10.0, max_iter=5000, class_weight="balanced").fit(x, harmful)
    new, _ = _rows(1, 40)
    assert np.allclose(model.kernel_harm(new), machine.predict_proba(new)[:, 1], atol=1e-3)
    assert np.allclose(model.linear_harm(new), linear.predict_proba(new)[:, 1], atol=1e-6)
    assert np.array_equal(model.harm(new), model.harm(new))  # deterministic


def test_a_refusal_needs_both_readings(fitted) -> None:
    """The harm score is the lower reading: a text both readings put among harmful requests scores high; with
    either reading turned around (the other unchanged and still high) it scores low."""
    model, _, _ = fitted
    near = np.eye(DIM, dtype=np.float32)[[0]]
    assert float(model.linear_harm(near)[0]) > 0.9 and float(model.kernel_harm(near)[0]) > 0.9
    assert float(model.harm(near)[0]) > 0.9
    no_linear = replace(model, harm_coef=-model.harm_coef, harm_intercept=-model.harm_intercept)
    assert float(no_linear.harm(near)[0]) < 0.1 < 0.9 < float(no_linear.kernel_harm(near)[0])
    no_kernel = replace(model, kernel_dual=-model.kernel_dual, kernel_intercept=-model.kernel_intercept)
    assert float(no_kernel.harm(near)[0]) < 0.1 < 0.9 < float(no_kernel.linear_harm(near)[0])
    both = np.stack([model.linear_harm(near), model.kernel_harm(near)]).min(axis=0)
    assert np.array_equal(model.harm(near), both)


def test_no_rows_score_nothing(fitted) -> None:
    model, _, _ = fitted
    assert model.harm(np.zeros((0, DIM), dtype=np.float32)).shape == (0,)


def test_the_threshold_choice_keeps_the_earlier_benign_goals_under_their_bar() -> None:
    """bench.safety_intent.choose: the highest recall on the reported rows, among thresholds that also refuse at
    most the guard's share of the earlier batches' benign goals."""
    from bench.safety_intent import Row, choose
    from cosci.safety.screen import Evidence, Thresholds

    def row(i: int, label: str) -> Row:
        return Row(f"r{i}", "t", label, "chemical", "k", "en", False, "tune", "b")

    def window(score: float) -> list[Evidence]:
        return [Evidence("a window of five words", score, (), {}, {"chemical": 1.0}, support=1.0)]

    rows = [row(0, "harmful"), row(1, "harmful"), row(2, "benign")]
    evidence = [window(0.92), window(0.62), window(0.31)]
    base = Thresholds(0.5, 0.5, 0.5, 0.5, ("chemical",))
    free, _ = choose(rows, evidence, base, 0.0)
    assert free.alone_score < 0.62  # both harmful rows refused, the benign one not
    earlier = ([row(3, "benign")], [window(0.7)], 0.0)
    guarded, rates = choose(rows, evidence, base, 0.0, guard=earlier)
    assert 0.7 < guarded.alone_score <= 0.92 and rates["recall_refuse"].k == 1
