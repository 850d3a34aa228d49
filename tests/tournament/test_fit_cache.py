"""Bradley–Terry fits kept in the user cache by their inputs' hash (design.md#startup): a second call with the same
inputs reads the fit the first made, any change of the inputs (or of the fitting function) fits anew, and an
unreadable file is fitted over."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from cosci.tournament import fit_cache
from cosci.tournament.bt import BTFit, fit_bt

VERDICTS = [("H-a", "H-b", 1.0), ("H-b", "H-c", 1.0), ("H-a", "H-c", 0.5), ("H-c", "H-a", 0.0)]
IDS = ["H-a", "H-b", "H-c"]


@pytest.fixture
def counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The cache in ``tmp_path``; the list grows by one per real fit."""
    monkeypatch.setattr(fit_cache, "cache_dir", lambda: tmp_path / "fits")
    calls: list[int] = []

    def counting_fit(*args: object, **kwargs: object) -> BTFit:
        calls.append(1)
        return fit_bt(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fit_cache, "_counting_fit", counting_fit, raising=False)
    return calls


def test_the_same_inputs_are_fitted_once_and_give_the_same_fit(counted: list[int]) -> None:
    fn = fit_cache._counting_fit  # type: ignore[attr-defined]
    first = fit_cache.cached_fit(fn, IDS, VERDICTS, 1.0, first=["H-a", "H-b", "H-a", "H-c"])
    again = fit_cache.cached_fit(fn, IDS, VERDICTS, 1.0, first=["H-a", "H-b", "H-a", "H-c"])
    assert counted == [1]
    assert again.ids == first.ids and np.array_equal(again.theta, first.theta)
    assert np.array_equal(again.ci_sd, first.ci_sd) and repr(again.rerun) == repr(first.rerun)  # NaN when none
    direct = fit_bt(IDS, VERDICTS, 1.0, first=["H-a", "H-b", "H-a", "H-c"])
    assert np.allclose(again.theta, direct.theta, atol=1e-9)  # what the uncached call gives


@pytest.mark.parametrize("change", ["verdict", "prior", "ids", "first", "method", "judges"])
def test_any_changed_input_is_fitted_anew(counted: list[int], change: str) -> None:
    fn = fit_cache._counting_fit  # type: ignore[attr-defined]
    fit_cache.cached_fit(fn, IDS, VERDICTS, 1.0)
    args: dict[str, object] = {"ids": IDS, "verdicts": VERDICTS, "prior_sd": 1.0}
    extra: dict[str, object] = {}
    if change == "verdict":
        args["verdicts"] = [*VERDICTS[:-1], ("H-c", "H-a", 1.0)]
    elif change == "prior":
        args["prior_sd"] = 1.5
    elif change == "ids":
        args["ids"] = [*IDS, "H-d"]
    elif change == "first":
        extra["first"] = ["H-a", "H-b", "H-c", "H-c"]
    elif change == "method":
        extra["method"] = "laplace"
    else:
        extra["judges"] = ["j1", "j2", "j1", "j2"]
    fit_cache.cached_fit(fn, args["ids"], args["verdicts"], args["prior_sd"], **extra)  # type: ignore[arg-type]
    assert counted == [1, 1]


def test_another_fitting_function_or_code_misses(counted: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    fn = fit_cache._counting_fit  # type: ignore[attr-defined]
    key = fit_cache.fit_key(fn, IDS, VERDICTS, 1.0, None, None, "eb_is")
    assert key != fit_cache.fit_key(fit_bt, IDS, VERDICTS, 1.0, None, None, "eb_is")
    monkeypatch.setattr(fit_cache, "code_version", lambda: "another version of bt.py")
    assert key != fit_cache.fit_key(fn, IDS, VERDICTS, 1.0, None, None, "eb_is")


def test_a_broken_file_is_fitted_over(counted: list[int], tmp_path: Path) -> None:
    fn = fit_cache._counting_fit  # type: ignore[attr-defined]
    fit_cache.cached_fit(fn, IDS, VERDICTS, 1.0)
    [path] = (tmp_path / "fits").glob("*.pickle")
    path.write_bytes(b"not a pickle")
    fit = fit_cache.cached_fit(fn, IDS, VERDICTS, 1.0)
    assert counted == [1, 1] and fit.ids == tuple(IDS)
    assert fit_cache.cached_fit(fn, IDS, VERDICTS, 1.0).ids == tuple(IDS) and counted == [1, 1]


def test_the_oldest_fits_go_beyond_the_limit(counted: list[int], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fit_cache, "MAX_FILES", 2)
    fn = fit_cache._counting_fit  # type: ignore[attr-defined]
    for prior in (1.0, 1.5, 2.0):
        fit_cache.cached_fit(fn, IDS, VERDICTS, prior, method="laplace")
    assert len(list((tmp_path / "fits").glob("*.pickle"))) == 2


def test_a_full_cache_is_pruned_an_eighth_below_its_limit_oldest_first(counted: list[int], tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Over the limit the oldest go, down to an eighth below it, so a full cache reads its files' times once per
    eighth of its size, not at every fit kept (bench/README.md, "Seventh pass")."""
    monkeypatch.setattr(fit_cache, "MAX_FILES", 16)
    fn = fit_cache._counting_fit  # type: ignore[attr-defined]
    folder = tmp_path / "fits"
    for k in range(16):
        fit_cache.cached_fit(fn, IDS, VERDICTS, 1.0 + k / 10, method="laplace")
    assert len(list(folder.glob("*.pickle"))) == 16  # at the limit: nothing goes
    for i, p in enumerate(sorted(folder.glob("*.pickle"))):
        os.utime(p, ns=(i * 10**9, i * 10**9))  # distinct times: the first in name order is the oldest
    oldest = sorted(folder.glob("*.pickle"))[:3]
    fit_cache.cached_fit(fn, IDS, VERDICTS, 9.0, method="laplace")  # the 17th
    left = list(folder.glob("*.pickle"))
    assert len(left) == 14  # 16 - 16 // 8
    assert not any(p in left for p in oldest)
