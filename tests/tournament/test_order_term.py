"""The first-position bias that varies by pair (cosci/tournament/order_term.py, design.md#judge-memory): its variance
read from scripted verdicts of pairs judged in both orders, the weight it leaves a pair, and the weighted
likelihood's derivatives by finite differences."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from cosci.tournament import bt, bt_model, bt_sample
from cosci.tournament.order_term import CAP, order_variance, order_weights


def _dual(biased: int, even: int) -> tuple[np.ndarray, ...]:
    """Pairs (2k, 2k + 1) of equal strength, each judged once in each order (stored as (first, second), o = +1):
    ``biased`` pairs where the first-shown won both times (alternately: lost both times), ``even`` pairs where the
    same hypothesis won both times (the orders disagree on the first-shown)."""
    a, b, c = [], [], []
    for p in range(biased + even):
        lo, hi = 2 * p, 2 * p + 1
        if p < biased:
            s = 1.0 if p % 2 == 0 else -1.0  # first-shown wins (loses) in both orders
            a += [lo, hi]
            b += [hi, lo]
            c += [s, s]
        else:  # lo wins both times: as first-shown once, as second once
            a += [lo, hi]
            b += [hi, lo]
            c += [1.0, -1.0]
    m = len(a)
    return (np.asarray(a, np.intp), np.asarray(b, np.intp), np.zeros(m, np.intp), np.ones(m), np.asarray(c),
            np.full(m, 0.5), np.full(m, 0.5))


@pytest.mark.parametrize(("biased", "even", "expected"), [(11, 9, 4 * 11 / 20 - 2), (10, 10, 0.0), (3, 17, 0.0),
                                                           (20, 0, CAP)])
def test_the_variance_is_read_from_the_two_orders_residuals(biased: int, even: int, expected: float) -> None:
    """At even odds without ties (w = 1) a pair's S_p is ±1 when its first-shown won (or lost) in both orders, 0
    when the orders disagree, and the noise takes ¼·(1 + 1): σ̂² = (q − ½)/¼ with q the biased pairs' share,
    clipped to [0, CAP]. The sign of a pair's bias does not matter (its spread about the mean is read)."""
    a, b, g, o, c, pw, pl = _dual(biased, even)
    assert order_variance(a, b, g, o, c, pw, pl, 0.0) == pytest.approx(expected)


def test_a_pair_judged_in_one_order_only_says_nothing_and_copies_count_once() -> None:
    a, b, g, o, c, pw, pl = _dual(11, 9)
    one_way = order_variance(a[::2], b[::2], g[::2], o[::2], c[::2], pw[::2], pl[::2], 0.0)
    assert one_way == 0.0
    # every verdict copied once more in its own order: at repeat share 1 the copies add no information, so the
    # noise term is unchanged and so is σ̂²
    a2, b2, g2, o2, c2, pw2, pl2 = (np.repeat(x, 2) for x in (a, b, g, o, c, pw, pl))
    once = order_variance(a, b, g, o, c, pw, pl, 0.0)
    assert order_variance(a2, b2, g2, o2, c2, pw2, pl2, 1.0) == pytest.approx(once)
    # at repeat share 0 they are independent verdicts: less noise, so more of S_p² is read as the order's
    assert order_variance(a2, b2, g2, o2, c2, pw2, pl2, 0.0) > once


def test_a_balanced_pair_keeps_its_weight_and_a_one_order_pair_loses_its_order_noise() -> None:
    # pair (0, 1): once each way, stored as (first, second); pair (2, 3): twice with 2 first; pair (4, 5): once
    a = np.asarray([0, 1, 2, 2, 4])
    b = np.asarray([1, 0, 3, 3, 5])
    g, o, w, v = np.zeros(5, np.intp), np.ones(5), np.full(5, 0.8), np.ones(5)
    np.testing.assert_allclose(order_weights(a, b, g, o, w, v, 0.0), np.ones(5))
    lam = order_weights(a, b, g, o, w, v, 0.25)
    assert lam[:2] == pytest.approx([1.0, 1.0])
    assert lam[2:4] == pytest.approx([1.0 / (1.0 + 2 * 0.8 / 4 * 0.25)] * 2)  # I_p = 2·w/4, f_p = 1
    assert lam[4] == pytest.approx(1.0 / (1.0 + 0.8 / 4 * 0.25))
    # the same verdicts with the order unknown keep weight 1
    np.testing.assert_allclose(order_weights(a, b, g, np.zeros(5), w, v, 0.25), np.ones(5))


def _weighted_data() -> tuple[bt_model._Data, np.ndarray]:
    ids = ["A", "B", "C", "D"]
    verdicts = [("A", "B", 1.0), ("B", "A", 0.5), ("C", "A", 0.0), ("C", "D", 1.0), ("D", "B", 1.0), ("A", "D", 0.5),
                ("B", "C", 0.0)]
    first = ["A", "A", "C", "D", "D", "A", "B"]
    d = bt_model._data(ids, verdicts, None, first)
    d = replace(d, w=np.asarray([0.4, 0.9, 1.0, 0.55, 0.7, 1.0, 0.85]))
    x = np.asarray([0.4, -0.3, 0.1, -0.2, math.log(0.5), 0.35])
    return d, x


def test_the_weighted_likelihoods_gradient_and_hessian_match_finite_differences() -> None:
    """Per-verdict weights (the reruns' effective count times the order term's λ_p) scale each verdict's
    log-likelihood: the gradient and Hessian of :func:`bt_model._terms`, dense and sparse, are its derivatives."""
    d, x = _weighted_data()
    f, grad, hess = bt_model._terms(x, d, 0.8)
    h = 1e-6
    num_grad = np.asarray([(bt_model._terms(x + h * e, d, 0.8)[0] - bt_model._terms(x - h * e, d, 0.8)[0]) / (2 * h)
                           for e in np.eye(x.size)])
    np.testing.assert_allclose(grad, num_grad, rtol=1e-6, atol=1e-7)
    num_hess = np.stack([(bt_model._terms(x + h * e, d, 0.8)[1] - bt_model._terms(x - h * e, d, 0.8)[1]) / (2 * h)
                         for e in np.eye(x.size)])
    np.testing.assert_allclose(hess, num_hess, rtol=1e-5, atol=1e-6)
    f_s, g_s, h_s = bt_model._terms_sparse(x, d, 0.8)
    assert f_s == pytest.approx(f) and g_s == pytest.approx(grad) and h_s.toarray() == pytest.approx(hess)
    assert bt_sample._nlp_batch(np.stack([x, x + 0.1]), d, 0.8) == pytest.approx(
        [f, bt_model._terms(x + 0.1, d, 0.8)[0]])


def test_a_fit_of_balanced_pairs_is_untouched_and_one_order_pairs_widen(monkeypatch: pytest.MonkeyPatch) -> None:
    """With σ̂² forced to 0.5: every pair judged once in each order keeps (within 0.1 %: the two orders' verdicts
    differ a little in information, so its imbalance is not exactly 0) the fit it had at σ̂² = 0; the same
    number of verdicts each judged in one order gets wider intervals (design.md#judge-memory)."""
    rng = np.random.default_rng(5)
    ids = [f"H{i}" for i in range(8)]
    theta = rng.normal(0.0, 1.0, 8)
    pairs = [(i, j) for i in range(8) for j in range(i + 1, 8)]
    balanced, one_way = [], []
    for i, j in pairs:
        for first, second in ((i, j), (j, i)):
            s = 1.0 if rng.random() < 1 / (1 + math.exp(-(theta[first] - theta[second] + 0.3))) else 0.0
            balanced.append((ids[first], ids[second], s))
            one_way.append((ids[i], ids[j], s if first == i else 1.0 - s))
    fits = {}
    for sigma2 in (0.0, 0.5):
        monkeypatch.setattr(bt, "order_variance", lambda *args, s2=sigma2: s2)
        fits[sigma2] = (bt.fit_bt(ids, balanced, first=[v[0] for v in balanced]),
                        bt.fit_bt(ids, one_way, first=[v[0] for v in one_way]))
    np.testing.assert_allclose(fits[0.5][0].sd, fits[0.0][0].sd, rtol=1e-3)
    ratio = fits[0.5][1].sd / fits[0.0][1].sd  # most wider; the two far out, mostly prior, not (τ̂ moves)
    assert float(np.median(ratio)) > 1.02 and int(np.sum(ratio > 1.0)) >= 6
