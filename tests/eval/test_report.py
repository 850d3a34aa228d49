"""The eval report: pipeline vs baseline side by side, the paired difference, the files; CLI input errors."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from cosci.cli import main
from cosci.eval.report import summary_frame, write_report


def _rows() -> list[dict]:
    rows = []
    for item, pipe, base in (("a", [1.0, 0.5], [0.0, 0.5]), ("b", [1.0, 1.0], [0.5, 0.5])):
        for seed, (p, b) in enumerate(zip(pipe, base, strict=True), 1):
            rows.append({"item": item, "seed": seed, "system": "pipeline", "recall_any": p, "cost_usd": 0.1})
            rows.append({"item": item, "seed": seed, "system": "baseline", "recall_any": b, "cost_usd": 0.01})
    return rows


def test_summary_side_by_side_with_paired_difference() -> None:
    summary = summary_frame(_rows())
    r = summary.filter(pl.col("metric") == "recall_any").row(0, named=True)
    assert r["pipeline_mean"] == pytest.approx(3.5 / 4) and r["baseline_mean"] == pytest.approx(1.5 / 4)
    assert r["difference_mean"] == pytest.approx(0.5) and r["difference_n"] == 4
    assert r["difference_low"] <= 0.5 <= r["difference_high"]
    cost = summary.filter(pl.col("metric") == "cost_usd").row(0, named=True)
    assert cost["difference_low"] == cost["difference_high"] == pytest.approx(0.09)  # constant: zero width
    absent = summary.filter(pl.col("metric") == "match_best_at_5").row(0, named=True)
    assert absent["pipeline_n"] == 0 and math.isnan(absent["pipeline_mean"])


def test_report_files(tmp_path: Path) -> None:
    overall = write_report(_rows(), tmp_path, "# header")
    files = {p.name for p in tmp_path.iterdir() if p.is_file()}  # conftest's XDG_CONFIG_HOME is tmp_path/xdg
    assert files == {"observations.parquet", "summary.parquet", "per_item.parquet", "summary.md", "metric_by_item.png"}
    md = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "| recall_any | 0.88 [" in md and "| match_best_at_5 | n/a | n/a | n/a | 0, 0, 0 |" in md
    assert "- baseline missing on 0 of 4 observations (item x seed)\n" in md
    # every interval is named by its method and what its coverage rests on (design.md#eval)
    assert ("Overall: mean [95 % percentile bootstrap interval, 2,000 resamples (two stages: items, then each drawn "
            "item's seeds, resampled; coverage not measured)] over items and seeds.") in md
    assert ("## Per item (mean [95 % percentile bootstrap interval, 2,000 resamples over one item's seeds "
            "(coverage not measured)])") in md
    assert "95 % CI" not in md and "bootstrap CI" not in md
    assert "| a | pipeline | 0.75 [0.50, 1.00] | n/a |" in md
    assert overall["pipeline_recall_any"] == pytest.approx(0.875)
    assert overall["baseline_missing"] == overall["pipeline_missing"] == 0.0
    per_item = pl.read_parquet(tmp_path / "per_item.parquet")
    a = per_item.filter((pl.col("item") == "a") & (pl.col("system") == "pipeline")
                        & (pl.col("metric") == "recall_any")).row(0, named=True)
    assert a["mean"] == pytest.approx(0.75) and a["n"] == 2


@pytest.mark.parametrize("argv,message", [
    (["--items", "moose-99"], "unknown item id 'moose-99'"),
    (["--seeds", "0"], "--seeds: 0 must be at least 1"),
    (["run.max_hypotheses=0"], "run.max_hypotheses"),
])
def test_cli_input_errors_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["eval", "moose-chem", "models=fake", f"paths.data_dir={tmp_path}", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "eval").exists()  # nothing written


def test_the_plot_names_its_error_bars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``metric_by_item.png``'s error bars are named by method and coverage basis (design.md#eval)."""
    from matplotlib.figure import Figure

    from cosci.eval.report import per_item_frame, plot

    titles: list[str] = []
    save = Figure.savefig

    def savefig(self: Figure, *args: Any, **kwargs: Any) -> None:
        titles.append(self.get_suptitle())
        save(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", savefig)
    plot(per_item_frame(_rows()), tmp_path / "plot.png")
    assert titles == ["error bars: 95 % percentile bootstrap interval, 2,000 resamples over one item's seeds "
                      "(coverage not measured)"]
