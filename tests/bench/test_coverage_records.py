"""Coverage records (bench/ranking_calibration.py): the shipped interval's coverage read from a record equals the
coverage bench's own count on the same trial, so a widening can be chosen and scored without refitting."""

import pickle
from pathlib import Path

import numpy as np
import pytest

from bench import ranking_calibration as rc
from bench.ranking_coverage import REGIMES, coverage_trial
from cosci.tournament import bt


@pytest.mark.parametrize("model", ["memory", "independent"])
def test_a_record_counts_the_same_hits_as_the_coverage_bench(model: str, tmp_path: Path) -> None:
    spread, per_h, bias = 1.0, 5, 0.6  # few verdicts: where the repeat-share term moves the interval most
    rec = rc.record_trial((spread, per_h, bias, 4, model))
    hits, total, _, _ = coverage_trial((spread, per_h, bias, 4, ("eb_is+order",), 0, None, 4, model))["eb_is+order"]
    records = [[rec] if r == REGIMES.index((spread, per_h, bias)) else [] for r in range(len(REGIMES))]
    path = tmp_path / "r.pkl"
    path.write_bytes(pickle.dumps({"model": model, "first": 4, "trials": 1, "records": records}))
    loaded = rc.load_records([str(path)])
    data = rc.Stacked([loaded[model][0]])
    cell = REGIMES.index((spread, per_h, bias))
    assert data.coverage(bt.CI_FAMILY)[cell] == pytest.approx(hits / total)
    z, counts, tau, beta, deff, rho = rec
    by_hand = z <= bt.Z95 * bt.ci_inflation(tau, counts, beta, rho) * np.sqrt(deff)
    assert data.coverage(bt.CI_FAMILY)[cell] == pytest.approx(by_hand.mean())
    with pytest.raises(ValueError, match="already pooled"):
        rc.load_records([str(path), str(path)])  # a trial is counted once


def test_the_band_loss_counts_every_cell_outside_the_band_not_only_the_worst() -> None:
    inside = np.array([0.94, 0.95, 0.96])
    assert rc.band_loss(inside) == pytest.approx(0.01 * np.mean([0.01, 0.0, 0.01]))  # only the slope term
    one = np.array([0.975, 0.95, 0.95])
    two = np.array([0.975, 0.925, 0.95])
    assert rc.band_loss(one) == pytest.approx(0.01 + 0.01 * 0.025 / 3)
    assert rc.band_loss(two) == pytest.approx(0.02 + 0.01 * 0.05 / 3)
    assert rc.stacked_loss(one) == pytest.approx(rc.stacked_loss(two) - 0.1 * 0.025 / 3)  # minimax: both 0.025 worst


def test_the_few_verdict_term_is_read_the_same_from_records_and_acts_below_ten_verdicts_only() -> None:
    """``chosen-few``'s family (bench/README.md, twenty-first stop): ``+ (k + l·log τ̂)·min(log(n_i/10), 0)``, read
    by :class:`~bench.ranking_calibration.Stacked` as :func:`cosci.tournament.bt.inflation_family` computes it."""
    counts = np.array([2.0, 5.0, 9.0, 10.0, 30.0])
    coef = (*bt.CI_FAMILY, 0.1, 0.2)
    tau, beta, rho = 1.7, 0.3, 0.4
    shipped = bt.inflation_family(bt.CI_FAMILY, tau, counts, beta, rho)
    ratio = bt.inflation_family(coef, tau, counts, beta, rho) / shipped
    y = np.log(counts / 10.0)
    assert ratio == pytest.approx(np.exp((0.1 + 0.2 * np.log(tau)) * np.minimum(y, 0.0)))
    assert ratio[3:] == pytest.approx([1.0, 1.0])  # 10 verdicts and more: untouched
    deff = np.array([1.0, 1.2, 1.0, 1.1, 1.0])
    z = np.array([0.99, 1.5, 0.5, 0.9, 1.1]) * bt.Z95 * np.sqrt(deff) * bt.ci_inflation(tau, counts, beta, rho)
    rec = (z, counts, tau, beta, deff, rho)
    cell = 3
    data = rc.Stacked([[[rec] if r == cell else [] for r in range(len(REGIMES))]])
    by_hand = z <= bt.Z95 * bt.inflation_family(coef, tau, counts, beta, rho) * np.sqrt(deff)
    assert data.coverage(coef)[cell] == pytest.approx(by_hand.mean())
    # 2 verdicts: narrower, a hit lost
    assert data.coverage(coef)[cell] != pytest.approx(data.coverage(bt.CI_FAMILY)[cell])
