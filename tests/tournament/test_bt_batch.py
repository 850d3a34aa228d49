"""The importance sampler's log density (``bt_draws.nlp_batch``) is computed in blocks of draws with its work arrays
reused in place, to make a fit cheaper (bench/README.md, thirteenth stop): the blocks must not change a number.
Checked against the whole-batch expression it replaced (written out here), with and without ties, first-shown ids
and judge labels, on batches that do and do not divide into blocks, and end to end: an ``eb_is`` fit and a
coverage record do not depend on the block size."""

from __future__ import annotations

import numpy as np
import pytest

from bench import ranking_calibration as rc
from cosci.tournament import bt_draws, bt_model
from cosci.tournament.bt import fit_bt


def whole_batch(xs: np.ndarray, d: bt_model._Data, prec: float) -> np.ndarray:
    """The earlier ``_nlp_batch``: every draw × verdict at once, a new array per step."""
    n, off = d.n, d.off
    theta = xs[:, :n]
    diff = theta[:, d.a] - theta[:, d.b]
    r = np.exp(xs[:, off:] @ d.lift[d.g].T) if len(d.judges) > 1 else 1.0
    u = 0.5 * r * diff
    if d.order_known:
        u = u + 0.5 * xs[:, [d.beta]] * d.o
    eta = xs[:, [n]] if d.ties else np.zeros((xs.shape[0], 1))
    a = np.abs(u)
    e = np.exp(-a)
    log_z = a + np.log1p(e * (e + np.exp(np.minimum(eta, 700.0)))) if d.ties else a + np.log1p(e * e)
    f = -(u @ d.c - log_z.sum(axis=1)) + 0.5 * prec * np.sum(theta**2, axis=1)
    if d.ties:
        f -= eta[:, 0] * float(d.t.sum()) - 0.5 * eta[:, 0] ** 2 / bt_model.NU_PRIOR_SD**2
    if d.order_known:
        f += 0.5 * xs[:, d.beta] ** 2 / bt_model.BETA_PRIOR_SD**2
    if len(d.judges) > 1:
        f += 0.5 * np.sum(xs[:, off:] ** 2, axis=1) / bt_model.RHO_PRIOR_SD**2
    return f


def verdicts(seed: int, ties: bool) -> list[tuple[str, str, float]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(150):
        i, j = rng.choice(12, 2, replace=False)
        out.append((f"H{i:02d}", f"H{j:02d}", float(rng.choice([0.0, 0.5, 1.0] if ties else [0.0, 1.0]))))
    return out


@pytest.mark.parametrize(("ties", "order", "labels"), [(True, True, False), (False, False, False),
                                                       (True, False, True), (False, True, True)])
@pytest.mark.parametrize("draws", [1, 300, 1024])
def test_the_blocked_density_equals_the_whole_batch(ties: bool, order: bool, labels: bool, draws: int) -> None:
    ids = [f"H{i:02d}" for i in range(12)]
    vs = verdicts(3, ties)
    d = bt_model._data(ids, vs, ["cheap" if k % 3 else "mini" for k in range(len(vs))] if labels else None,
                       [v[0] if k % 4 else v[1] for k, v in enumerate(vs)] if order else None)
    xs = np.random.default_rng(5).normal(0.0, 1.5, (draws, d.size))
    want = whole_batch(xs, d, 0.7)
    got = bt_draws.nlp_batch(xs, d, 0.7)
    assert got.shape == (draws,)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0.0)


def test_a_fit_and_a_coverage_record_do_not_depend_on_the_block(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default block against blocks of ten draws (1,000 elements of 100 verdicts) and of every draw at once."""
    job = (1.0, 5, 0.6, 2, "memory")  # few verdicts: three adapted stages of 4,096 draws
    ids = [f"H{i:02d}" for i in range(10)]
    vs = verdicts(4, True)
    first = [v[0] for v in vs]
    base, record = fit_bt(ids, vs, first=first), rc.record_trial(job)
    for block in (1000, 1 << 30):
        monkeypatch.setattr(bt_draws, "BLOCK", block)
        other = fit_bt(ids, vs, first=first)
        np.testing.assert_allclose(other.theta, base.theta, rtol=0.0, atol=1e-12)
        np.testing.assert_allclose(other.sd, base.sd, rtol=1e-12)
        again = rc.record_trial(job)
        for mine, theirs in zip(again, record, strict=True):
            np.testing.assert_allclose(np.asarray(mine, np.float64), np.asarray(theirs, np.float64), rtol=1e-12)
