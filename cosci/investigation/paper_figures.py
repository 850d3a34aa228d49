"""The paper's figures, drawn from the evidence with matplotlib (Agg) and listed in ``figures.json``
(docs/design.md#paper): ``evidence`` (each evidence program's mean final score with its interval), ``gains`` (each
paired gain with its interval; only when the run measured one) and ``search`` (the search score of each worker's
cycles). The author is shown the manifest; a figure it names that the manifest lacks is a failing check.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cosci.investigation.paper_sources import Point


@dataclass(frozen=True)
class Figure:
    """One manifest entry: ``id`` (cited as ``[fig:<id>]``), the PDF ``file`` under ``figures/``, its caption and the
    evidence rows it plots."""

    id: str
    file: str
    caption: str
    rows: list[str]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _errorbars(ax: Any, points: list[Point]) -> None:
    ys = list(range(len(points)))
    means = [p.mean for p in points]
    lows = [p.mean - p.low if p.low is not None else 0.0 for p in points]
    highs = [p.high - p.mean if p.high is not None else 0.0 for p in points]
    ax.errorbar(means, ys, xerr=[lows, highs], fmt="o", capsize=4)
    ax.set_yticks(ys, [f"[{p.label}] {p.name[:40]}" for p in points], fontsize=7)
    ax.invert_yaxis()


def draw(points: list[Point], history: list[dict[str, Any]], metric: str, out: Path, interval: str) -> list[Figure]:
    """Draw the figures into ``out`` and return the manifest (a figure without data is not drawn); ``interval``
    names the error bars in the captions (:func:`cosci.investigation.paper_sources.interval_name`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    figures: list[Figure] = []
    for kind, fid, caption in (("mean", "evidence", f"Mean final {metric} of each evidence program over the "
                                                    f"evidence seeds, with its {interval}."),
                               ("gain", "gains", "Paired gains over the evidence seeds (positive = better), with "
                                                 f"their {interval}.")):
        chosen = [p for p in points if p.kind == kind]
        if not chosen:
            continue
        fig, ax = plt.subplots(figsize=(6, 1 + 0.4 * len(chosen)))
        _errorbars(ax, chosen)
        if kind == "gain":
            ax.axvline(0.0, color="grey", lw=0.8)
        ax.set_xlabel(metric if kind == "mean" else f"gain in {metric}")
        fig.tight_layout()
        fig.savefig(out / f"{fid}.pdf")
        plt.close(fig)
        figures.append(Figure(fid, f"{fid}.pdf", caption, [p.label for p in chosen]))
    scored = [r for r in history if isinstance(r.get("score"), int | float)]
    if scored:
        fig, ax = plt.subplots(figsize=(6, 3))
        for w in sorted({r["worker"] for r in scored}):
            mine = sorted((r for r in scored if r["worker"] == w), key=lambda r: r["cycle"])
            ax.plot([r["cycle"] for r in mine], [r["score"] for r in mine], marker="o", label=f"worker {w}")
        ax.set_xlabel("cycle")
        ax.set_ylabel(f"search {metric}")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / "search.pdf")
        plt.close(fig)
        figures.append(Figure("search", "search.pdf", f"Search-evaluator {metric} of each cycle's attempt, per "
                                                      "worker (search data, not the evidence seeds).", ["F1"]))
    return figures


def history(run_root: Path) -> list[dict[str, Any]]:
    """Every worker's cycle results (``workers/w*/history.jsonl``)."""
    rows: list[dict[str, Any]] = []
    for path in sorted((run_root / "workers").glob("w*/history.jsonl")):
        rows += [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return rows
