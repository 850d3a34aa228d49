"""The large-pool fit's sparse numerics (design.md#scale): the sparse Hessian is the dense one, the conjugate-gradient
Newton mode is ``trust-exact``'s, the Cholesky inverse is the LU one, on random tournaments (property tests)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cosci.tournament.bt as bt
import cosci.tournament.bt_model as bt_model
from cosci.tournament.bt import fit_bt
from cosci.tournament.bt_model import _data, _terms, _terms_sparse
from cosci.tournament.bt_solve import sparse_step, spd_inverse


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[list[str], list[tuple[str, str, float]], list[str | None], np.ndarray]:
    """``(ids, verdicts, first shown, a point x)``: 2-25 players, 1-120 verdicts (repeats, ties, unknown orders)."""
    n = draw(st.integers(2, 25))
    ids = [f"H-{i:02d}" for i in range(n)]
    m = draw(st.integers(1, 120))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1]),
                          min_size=m, max_size=m))
    scores = draw(st.lists(st.sampled_from([0.0, 1.0, 0.5]), min_size=m, max_size=m))
    shown = draw(st.lists(st.sampled_from(["a", "b", None]), min_size=m, max_size=m))
    verdicts = [(ids[i], ids[j], s) for (i, j), s in zip(pairs, scores, strict=True)]
    first = [None if f is None else (a if f == "a" else b) for (a, b, _), f in zip(verdicts, shown, strict=True)]
    d = _data(ids, verdicts, None, first)
    x = np.asarray(draw(st.lists(st.floats(-3, 3), min_size=d.size, max_size=d.size)), np.float64)
    return ids, verdicts, first, x


@settings(max_examples=150, deadline=None)
@given(tournaments(), st.floats(0.05, 5.0))
def test_the_sparse_hessian_is_the_dense_one(case: tuple, prec: float) -> None:
    ids, verdicts, first, x = case
    d = _data(ids, verdicts, None, first)
    f, g, h = _terms(x, d, prec)
    fs, gs, hs = _terms_sparse(x, d, prec)
    assert fs == pytest.approx(f, rel=1e-12, abs=1e-12)
    assert np.allclose(gs, g, rtol=1e-12, atol=1e-12)
    assert np.allclose(hs.toarray(), h, rtol=1e-12, atol=1e-12)
    # one stored entry per played pair (both ways) and the diagonal, plus the border of log ν and β
    pairs = {(min(a, b), max(a, b)) for a, b in zip(d.a.tolist(), d.b.tolist(), strict=True)}
    border = d.size - d.n
    assert hs.nnz <= 2 * len(pairs) + d.n + 2 * border * d.n + border**2


@settings(max_examples=60, deadline=None)
@given(tournaments(), st.sampled_from(["laplace", "eb_mix"]))
def test_the_sparse_newton_fit_is_the_trust_exact_fit(case: tuple, method: str) -> None:
    ids, verdicts, first, _ = case
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bt, "LARGE_N", 10**9)
        dense = fit_bt(ids, verdicts, first=first, method=method)  # type: ignore[arg-type]
        mp.setattr(bt, "LARGE_N", 1)
        fast = fit_bt(ids, verdicts, first=first, method=method)  # type: ignore[arg-type]
    assert np.allclose(fast.theta, dense.theta, atol=1e-6)
    assert np.allclose(fast.cov, dense.cov, atol=1e-6)
    assert np.allclose(fast.sd, dense.sd, atol=1e-6)
    assert fast.nu == pytest.approx(dense.nu, abs=1e-6)
    assert fast.position_bias == pytest.approx(dense.position_bias, abs=1e-6)


@settings(max_examples=80, deadline=None)
@given(tournaments(), st.floats(0.05, 5.0))
def test_a_conjugate_gradient_step_is_the_cholesky_step(case: tuple, prec: float) -> None:
    ids, verdicts, first, x = case
    d = _data(ids, verdicts, None, first)
    _, g, h = _terms_sparse(x, d, prec)
    step = sparse_step(h, g)
    assert step is not None
    assert np.allclose(h.toarray() @ step, -g, atol=1e-8 * max(1.0, float(np.abs(g).max())))


@settings(max_examples=80, deadline=None)
@given(tournaments(), st.floats(0.05, 5.0))
def test_the_cholesky_inverse_is_the_lu_inverse(case: tuple, prec: float) -> None:
    ids, verdicts, first, x = case
    d = _data(ids, verdicts, None, first)
    h = _terms_sparse(x, d, prec)[2].toarray()
    inv = spd_inverse(h)
    assert np.allclose(inv, np.linalg.inv(h), rtol=1e-9, atol=1e-12)
    assert np.array_equal(inv, inv.T)


def test_a_matrix_that_is_not_positive_definite_falls_back() -> None:
    h = np.asarray([[1.0, 2.0], [2.0, 1.0]])
    assert np.allclose(spd_inverse(h), np.linalg.inv(h))
    from scipy import sparse

    # along the negative curvature the CG "step" climbs: the Cholesky fallback decides, and refuses
    assert sparse_step(sparse.csr_array(h), np.asarray([1.0, -1.0])) is None


def test_several_judges_keep_the_dense_hessian() -> None:
    d = _data(["a", "b"], [("a", "b", 1.0), ("a", "b", 0.0)], ["j1", "j2"])
    with pytest.raises(ValueError, match="one judge"):
        _terms_sparse(np.zeros(d.size), d, 1.0)


def test_a_large_pool_fit_takes_the_sparse_path(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    n = bt.LARGE_N
    ids = [f"H-{i:04d}" for i in range(n)]
    q = rng.normal(0, 1, n)
    verdicts = []
    for _ in range(6 * n):
        i, j = rng.choice(n, 2, replace=False)
        verdicts.append((ids[i], ids[j], float(rng.random() < 1 / (1 + np.exp(q[j] - q[i])))))
    calls = []
    dense = lambda *a: calls.append(a) or (_ for _ in ()).throw(AssertionError("dense"))  # noqa: E731
    monkeypatch.setattr(bt_model, "_terms", dense)
    fit = fit_bt(ids, verdicts, method="laplace")
    assert not calls and fit.theta.shape == (n,)
    assert np.corrcoef(fit.theta, q)[0, 1] > 0.6
