"""The evaluation report: observations, per-item and overall tables (Markdown + Parquet) and one plot.

An *observation* is one (item, seed, system) row of metrics, system ``pipeline`` (a cosci session) or
``baseline`` (the single call). The overall table gives, per metric, the mean with its 95 % bootstrap
interval over items and seeds (:func:`cosci.eval.metrics.bootstrap_ci`) for pipeline and baseline side by
side, and their paired difference (pipeline - baseline per item and seed, bootstrapped the same way). The
plot shows inspiration recall (any hypothesis) and best-of-5 match by item, pipeline vs baseline, with the
intervals over seeds as error bars.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from cosci.eval.judge import JUDGED_FIELDS, rubric
from cosci.eval.metrics import (
    EVAL_INTERVAL,
    EVAL_INTERVAL_LABEL,
    EVAL_SEED_INTERVAL_LABEL,
    TOP_KS,
    Interval,
    bootstrap_ci,
)

METRICS = ("recall_any", *(f"recall_at_{k}" for k in TOP_KS), "retrieval_recall",
           *(f"match_best_at_{k}" for k in TOP_KS), "match_best_rank", "judge_invalid", "hypotheses", "cost_usd",
           "tokens", "wall_seconds", "judge_usd")
"""Metric columns of an observation, in report order. Units: recall a share in [0, 1]; match 0-5; rank
1-based; cost USD; tokens; wall time seconds. ``retrieval_recall`` (baseline only) is the share of the true
inspirations among the records the baseline was shown: its recall ceiling."""
SYSTEMS = ("pipeline", "baseline")
PLOTTED = (("recall_any", "inspiration recall (any hypothesis)", (-0.05, 1.05)),
           ("match_best_at_5", "best-of-5 match (0-5)", (-0.25, 5.25)))


def _by_item(rows: Sequence[dict[str, Any]], system: str, metric: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for r in rows:
        if r["system"] == system and not r.get("missing"):
            v = r.get(metric)
            out.setdefault(r["item"], []).append(math.nan if v is None else float(v))
    return out


def _paired(rows: Sequence[dict[str, Any]], metric: str) -> dict[str, list[float]]:
    """pipeline - baseline for each (item, seed) that has both, neither missing."""
    keyed = {(r["item"], r["seed"], r["system"]): r.get(metric) for r in rows if not r.get("missing")}
    out: dict[str, list[float]] = {}
    for (item, seed, system), v in keyed.items():
        if system == "pipeline" and (item, seed, "baseline") in keyed:
            b = keyed[(item, seed, "baseline")]
            out.setdefault(item, []).append(math.nan if v is None or b is None else float(v) - float(b))
    return out


def judge_section(model: str, k: int) -> str:
    """The report header's account of the judge: its model, what it sees of each hypothesis, and its rubric as
    the judge reads it (quoted)."""
    fields = ", ".join(f"`{label}`" for _, label in JUDGED_FIELDS)
    quoted = "\n".join(f"> {line}".rstrip() for line in rubric().splitlines())
    return (f"## Judge\n\n{model}, one call per hypothesis, no thinking, an absolute 0-5 score against the item's "
            f"published hypothesis. Per item and seed it scores the top {k} of the pipeline (leaderboard, best Elo "
            f"first) and of the baseline (its own order), and sees the same fields of each, formatted by one "
            f"function: {fields} (entities, novelty and citations are not shown). Both systems' hypotheses are "
            f"interleaved in one shuffled order (seeded by item id and seed: a rerun shows the same order) under "
            f"neutral ids (`hypothesis-<position>`). Its rubric, verbatim:\n\n{quoted}\n\n"
            f"Tables: mean [{EVAL_INTERVAL}]; recall in [0, 1], match 0-5, cost USD, wall seconds. A missing "
            "observation (a failed run) is left out of every mean and paired difference.")


def missing_section(rows: Sequence[dict[str, Any]], shown: int = 5) -> str:
    """Per system, how many observations (item x seed) are missing and why (the first ``shown`` reasons)."""
    lines = ["## Missing observations", ""]
    for system in SYSTEMS:
        mine = [r for r in rows if r["system"] == system]
        if not mine:
            continue
        gone = [r for r in mine if r.get("missing")]
        line = f"- {system} missing on {len(gone)} of {len(mine)} observations (item x seed)"
        if gone:
            why = "; ".join(f"{r['item']} seed {r['seed']}: {r.get('error')}" for r in gone[:shown])
            line += f": {why}" + (f"; and {len(gone) - shown} more" if len(gone) > shown else "")
        lines.append(line)
    return "\n".join(lines) + "\n"


def calls_section(rows: Sequence[dict[str, Any]]) -> str:
    """The baseline's provider calls per observation, counted from the transcripts (``calls.jsonl``: every
    attempt, a retried transient error included); empty when there is no baseline."""
    counts = [int(r["calls"]) for r in rows if r["system"] == "baseline" and not math.isnan(r.get("calls", math.nan))]
    if not counts:
        return ""
    tally = ", ".join(f"{c} call{'s' if c != 1 else ''} on {counts.count(c)}" for c in sorted(set(counts)))
    return (f"## Baseline calls\n\nSingle-call baseline, calls per observation in the transcripts (calls.jsonl, "
            f"every attempt): {tally} of {len(counts)} observations.\n")


def summary_frame(rows: Sequence[dict[str, Any]], seed: int = 0) -> pl.DataFrame:
    """One row per metric: pipeline, baseline and difference as mean, CI low/high and n (NaN if absent)."""
    out = []
    for metric in METRICS:
        row: dict[str, Any] = {"metric": metric}
        cis = {s: bootstrap_ci(_by_item(rows, s, metric), seed=seed) for s in SYSTEMS}
        cis["difference"] = bootstrap_ci(_paired(rows, metric), seed=seed)
        for name, ci in cis.items():
            row.update({f"{name}_mean": ci.mean, f"{name}_low": ci.low, f"{name}_high": ci.high, f"{name}_n": ci.n})
        out.append(row)
    return pl.DataFrame(out)


def per_item_frame(rows: Sequence[dict[str, Any]], seed: int = 0) -> pl.DataFrame:
    """One row per (item, system, metric): mean over seeds with its bootstrap interval over seeds."""
    out = []
    items = list(dict.fromkeys(r["item"] for r in rows))
    for item in items:
        for system in SYSTEMS:
            for metric in METRICS:
                vals = _by_item([r for r in rows if r["item"] == item], system, metric)
                if vals:
                    ci = bootstrap_ci(vals, seed=seed)
                    out.append({"item": item, "system": system, "metric": metric, "mean": ci.mean,
                                "low": ci.low, "high": ci.high, "n": ci.n})
    schema = {"item": pl.Utf8, "system": pl.Utf8, "metric": pl.Utf8, "mean": pl.Float64, "low": pl.Float64,
              "high": pl.Float64, "n": pl.Int64}
    return pl.DataFrame(out, schema=schema)


def _cell(frame_row: dict[str, Any], name: str) -> str:
    ci = Interval(frame_row[f"{name}_mean"], frame_row[f"{name}_low"], frame_row[f"{name}_high"],
                  int(frame_row[f"{name}_n"]))
    return ci.text(4 if frame_row["metric"] in ("cost_usd", "judge_usd") else 2)


def markdown(summary: pl.DataFrame, header: str) -> str:
    """The overall table as Markdown: metric | pipeline | baseline | difference, each ``mean [low, high]``, under
    the line naming its interval (:data:`cosci.eval.metrics.EVAL_INTERVAL_LABEL`)."""
    lines = [header, "", f"Overall: mean [{EVAL_INTERVAL_LABEL}] over items and seeds.", "",
             "| metric | pipeline | baseline | pipeline - baseline | n (pipeline, baseline, pairs) |",
             "|---|---|---|---|---|"]
    for r in summary.iter_rows(named=True):
        lines.append(f"| {r['metric']} | {_cell(r, 'pipeline')} | {_cell(r, 'baseline')} | "
                     f"{_cell(r, 'difference')} | {r['pipeline_n']}, {r['baseline_n']}, {r['difference_n']} |")
    return "\n".join(lines) + "\n"


PER_ITEM_MD = ("recall_any", "match_best_at_5", "match_best_rank", "cost_usd", "tokens", "wall_seconds")
"""Columns of the per-item Markdown table (all metrics are in ``per_item.parquet``)."""


def per_item_markdown(per_item: pl.DataFrame) -> str:
    """Per item and system: the main metrics as mean over seeds with the interval over seeds."""
    lines = ["| item | system | " + " | ".join(PER_ITEM_MD) + " |", "|---|---|" + "---|" * len(PER_ITEM_MD)]
    items = list(dict.fromkeys(per_item["item"].to_list()))
    for item in items:
        for system in SYSTEMS:
            sub = {r["metric"]: r for r in per_item.filter((pl.col("item") == item)
                                                           & (pl.col("system") == system)).iter_rows(named=True)}
            if sub:
                cells = [Interval(sub[m]["mean"], sub[m]["low"], sub[m]["high"], sub[m]["n"]).text(
                    4 if m == "cost_usd" else 2) if m in sub else "n/a" for m in PER_ITEM_MD]
                lines.append(f"| {item} | {system} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(per_item: pl.DataFrame, path: Path) -> Path:
    """The metric-by-item plot (see module docstring) as a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    items = list(dict.fromkeys(per_item["item"].to_list()))
    fig, axes = plt.subplots(1, len(PLOTTED), figsize=(max(6.0, 1.2 * len(items) + 3), 4), squeeze=False)
    for ax, (metric, label, ylim) in zip(axes[0], PLOTTED, strict=True):
        for j, system in enumerate(SYSTEMS):
            sub = {r["item"]: r for r in per_item.filter((pl.col("metric") == metric)
                                                         & (pl.col("system") == system)).iter_rows(named=True)}
            xs = [i + (j - 0.5) * 0.25 for i, it in enumerate(items) if it in sub]
            rs = [sub[it] for it in items if it in sub]
            means = [r["mean"] for r in rs]
            err = [[max(r["mean"] - r["low"], 0.0) if not math.isnan(r["mean"]) else 0.0 for r in rs],
                   [max(r["high"] - r["mean"], 0.0) if not math.isnan(r["mean"]) else 0.0 for r in rs]]
            ax.errorbar(xs, means, yerr=err, fmt="o", capsize=3, label=system)
        ax.set_xticks(range(len(items)), items, rotation=45, ha="right")
        ax.set_title(label)
        ax.set_ylim(*ylim)
        ax.legend()
    fig.suptitle(f"error bars: {EVAL_SEED_INTERVAL_LABEL}", fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_report(rows: Sequence[dict[str, Any]], folder: Path, header: str) -> dict[str, float]:
    """Write ``observations.parquet``, ``summary.parquet``, ``summary.md``, ``per_item.parquet`` and
    ``metric_by_item.png`` into ``folder``; returns the overall means as ``<system>_<metric>`` metrics and the
    missing observations as ``<system>_missing`` (a count).

    ``summary.md`` opens with ``header``, then :func:`missing_section` and :func:`calls_section`."""
    folder.mkdir(parents=True, exist_ok=True)
    obs = pl.DataFrame(list(rows), infer_schema_length=None)
    obs.write_parquet(folder / "observations.parquet")
    summary = summary_frame(rows)
    summary.write_parquet(folder / "summary.parquet")
    per_item = per_item_frame(rows)
    per_item.write_parquet(folder / "per_item.parquet")
    header = "\n\n".join(x.rstrip("\n") for x in (header, missing_section(rows), calls_section(rows)) if x)
    text = (markdown(summary, header) + f"\n## Per item (mean [{EVAL_SEED_INTERVAL_LABEL}])\n\n"
            + per_item_markdown(per_item))
    (folder / "summary.md").write_text(text, encoding="utf-8")
    plot(per_item, folder / "metric_by_item.png")
    overall = {f"{s}_{r['metric']}": float(r[f"{s}_mean"]) for r in summary.iter_rows(named=True) for s in SYSTEMS}
    overall.update({f"{s}_missing": float(sum(1 for r in rows if r["system"] == s and r.get("missing")))
                    for s in SYSTEMS})
    return overall
