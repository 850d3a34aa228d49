"""The τ grid's points computed in two threads (``grid_fits(workers=2)``, finalisation's fit: design.md#supervisor,
"The session's end"): the same points and the same fit, to the bit, as one thread, on verdicts scripted here; the
cache keeps one fit for both."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import numpy as np
import pytest

from cosci.tournament import bt, bt_draws, bt_grid, bt_model, fit_cache
from cosci.tournament.bt import BTFit


def session(players: int, verdicts: int, seed: int) -> tuple[list[str], list[tuple[str, str, float]], list[str | None]]:
    """A seeded session: latent strengths, verdicts drawn from them (a few ties), the id shown first of each."""
    rng = random.Random(seed)
    ids = [f"H-{i:02d}" for i in range(players)]
    strength = {h: rng.gauss(0.0, 1.5) for h in ids}
    out, first = [], []
    for _ in range(verdicts):
        a, b = rng.sample(ids, 2)
        p = 1.0 / (1.0 + np.exp(strength[b] - strength[a]))
        out.append((a, b, 0.5 if rng.random() < 0.05 else float(rng.random() < p)))
        first.append(rng.choice([a, b, None]))
    return ids, out, first


@pytest.mark.parametrize(("players", "verdicts", "seed", "prior_sd"), [(20, 120, 2, 1.0), (12, 200, 4, 5.0)])
def test_two_workers_give_the_same_points(players: int, verdicts: int, seed: int, prior_sd: float) -> None:
    """Every grid point (mean, covariance, marginal likelihood) is equal bit for bit: each point is computed from the
    same start and seed whichever thread computes it. The prior sds start the climb in the grid's middle and at its
    high end."""
    ids, vs, first = session(players, verdicts, seed)
    d = bt_model._data(ids, vs, None, first)
    x0 = bt_model._start(d, None)
    one = bt_grid.grid_fits(d, prior_sd, x0, True, bt_draws.verdict_seed(d), bt_grid.HYPERPRIOR)
    two = bt_grid.grid_fits(d, prior_sd, x0, True, bt_draws.verdict_seed(d), bt_grid.HYPERPRIOR, workers=2)
    assert [p.tau for p in one] == [p.tau for p in two]
    for p, q in zip(one, two, strict=True):
        assert p.lml == q.lml and p.info == q.info
        assert np.array_equal(p.mean, q.mean) and np.array_equal(p.cov, q.cov)


def test_the_cache_passes_the_workers_but_keys_without_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``cached_fit(workers=2)`` fits with two workers and keeps the fit under the key one worker reads; the fit is
    the one a single worker makes, bit for bit."""
    monkeypatch.setattr(fit_cache, "cache_dir", lambda: tmp_path / "fits")
    seen: list[int] = []

    def fit_bt(*args: object, workers: int = 1, **kwargs: object) -> BTFit:  # the real one's name: the same key
        seen.append(workers)
        return bt.fit_bt(*args, workers=workers, **kwargs)  # type: ignore[arg-type]

    fit_bt.__module__, fit_bt.__qualname__ = "cosci.tournament.bt", "fit_bt"
    ids, vs, first = session(12, 200, 5)
    made = fit_cache.cached_fit(fit_bt, ids, vs, 1.0, first=first, workers=2)
    again = fit_cache.cached_fit(fit_bt, ids, vs, 1.0, first=first)
    assert seen == [2]
    assert pickle.dumps(made) == pickle.dumps(again)
    assert pickle.dumps(made) == pickle.dumps(bt.fit_bt(ids, vs, 1.0, first=first))
