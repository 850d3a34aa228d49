"""The report's figures as inline SVG: the lineage graph (Graphviz ``dot``) and the rating plots (matplotlib).

No box is placed by hand: Graphviz lays out the evolution graph (parents → children, the evolution mode on
the edge; design.md#evolution), matplotlib draws the Elo trajectories and, when the leaderboard carries them,
the Bradley–Terry scores with their confidence intervals. Only ids, numbers and mode names (a fixed
vocabulary, filtered again here) enter a figure, never model-written text, so nothing untrusted reaches SVG.

Graphviz needs the ``dot`` program (Debian ``graphviz``); without it :func:`lineage_svg` raises
:class:`FigureUnavailable` and the report shows the edges as a list instead.
"""

from __future__ import annotations

import io
import re
from collections.abc import Collection, Sequence
from typing import Any

from cosci.domain import BT_INTERVAL

MAX_TRAJECTORIES = 10
"""Elo trajectories drawn: the final top ten (more lines are unreadable)."""


class FigureUnavailable(RuntimeError):
    """A figure cannot be drawn here (e.g. Graphviz's ``dot`` is not installed)."""


def _svg_only(text: str) -> str:
    """Drop the XML declaration and DOCTYPE so the SVG can sit inside HTML."""
    start = text.find("<svg")
    return text[start:].strip() if start >= 0 else ""


def _word(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "", text)[:40]


def lineage_svg(nodes: Sequence[dict[str, Any]], edges: Sequence[tuple[str, str, str]]) -> str:
    """The evolution graph as SVG: one node per hypothesis with a parent or child, linked to its section.

    Args:
        nodes: leaderboard rows (``id``, ``elo`` in points, ``state``).
        edges: ``(parent id, child id, mode)``.

    Returns:
        An ``<svg>`` element (empty string when there are no edges).

    Raises:
        FigureUnavailable: Graphviz's ``dot`` program is missing or failed.
    """
    if not edges:
        return ""
    import graphviz

    involved = {p for p, _, _ in edges} | {c for _, c, _ in edges}
    graph = graphviz.Digraph("lineage", graph_attr={"rankdir": "LR", "bgcolor": "transparent"},
                             node_attr={"shape": "box", "style": "rounded,filled", "fillcolor": "#f4f6fb",
                                        "fontname": "Helvetica", "fontsize": "10"},
                             edge_attr={"fontname": "Helvetica", "fontsize": "9", "color": "#666677"})
    for row in nodes:
        hid = _word(row["id"])
        if hid in involved:
            graph.node(hid, label=f"{hid}\\nElo {row['elo']:.0f}", URL=f"#{hid}", target="_self",
                       tooltip=f"{hid} ({_word(row['state'])})")
    for parent, child, mode in edges:
        graph.edge(_word(parent), _word(child), label=_word(mode))
    try:
        return _svg_only(graph.pipe(format="svg", encoding="utf-8"))
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError) as exc:
        raise FigureUnavailable(f"Graphviz could not draw the lineage ({type(exc).__name__}); "
                                "install Debian's graphviz package") from None


def _figure_svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    return _svg_only(buf.getvalue())


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.fonttype"] = "none"  # text stays text: smaller, selectable
    plt.rcParams["svg.hashsalt"] = "cosci"  # stable element ids: the same record draws the same SVG
    return plt


def elo_svg(trajectories: dict[str, list[tuple[int, float]]], initial: float = 1200.0,
            refuted: Collection[str] = ()) -> str:
    """Elo trajectories of the final top hypotheses (x: match number, whole matches; y: Elo points) as SVG.

    ``trajectories`` is :func:`cosci.tracking.artifacts.elo_trajectories` (replayed from the Elo journal);
    ``refuted``: ids a researcher's result refuted, drawn dashed with an ``x`` at each match and labelled
    "(refuted)" in the legend, shown even below the top :data:`MAX_TRAJECTORIES` (a refuted hypothesis's Elo
    stands as the tournament left it, design.md#experimental-results). Returns an empty string when no match
    changed a rating.
    """
    if not trajectories:
        return ""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    ranked = sorted(trajectories, key=lambda h: (-trajectories[h][-1][1], h))
    marked = [h for h in ranked if h in refuted]
    best = ranked[:MAX_TRAJECTORIES] + [h for h in marked if h not in ranked[:MAX_TRAJECTORIES]]
    fig, ax = plt.subplots(figsize=(8, 3.8), dpi=100)
    for hid in best:
        xs, ys = zip(*trajectories[hid], strict=True)
        if hid in refuted:
            ax.plot(xs, ys, label=f"{_word(hid)} (refuted)", linewidth=1.3, linestyle="--", marker="x",
                    markersize=5, color="#b03030")
        else:
            ax.plot(xs, ys, label=_word(hid), linewidth=1.3)
    ax.axhline(initial, color="grey", linewidth=0.6, linestyle="--")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # a match is a whole number
    ax.set_xlabel("match")
    ax.set_ylabel("Elo rating")
    ax.legend(fontsize=7, ncol=2, loc="best")
    fig.tight_layout()
    try:
        return _figure_svg(fig)
    finally:
        plt.close(fig)


def bt_svg(rows: Sequence[dict[str, Any]]) -> str:
    """Bradley–Terry scores with their confidence intervals (error bars), best first, as SVG.

    ``rows``: leaderboard rows with ``bt_score``, ``bt_ci_low``, ``bt_ci_high`` (design.md#tournament; the scale is that
    of the leaderboard). Rows without a score are skipped; returns an empty string if none has one.
    """
    shown = [r for r in rows if r.get("bt_score") is not None][:20]
    if not shown:
        return ""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(shown) + 1.2), dpi=100)
    ys = list(range(len(shown)))[::-1]
    scores = [float(r["bt_score"]) for r in shown]
    low = [s - float(r["bt_ci_low"]) if r.get("bt_ci_low") is not None else 0.0 for s, r in zip(scores, shown,
                                                                                                   strict=True)]
    high = [float(r["bt_ci_high"]) - s if r.get("bt_ci_high") is not None else 0.0 for s, r in zip(scores, shown,
                                                                                                     strict=True)]
    ax.errorbar(scores, ys, xerr=[low, high], fmt="o", capsize=3, color="#3b5b92")
    ax.set_yticks(ys, [_word(r["id"]) for r in shown], fontsize=7)
    ax.set_xlabel(f"Bradley–Terry score (logits), {BT_INTERVAL}")
    fig.tight_layout()
    try:
        return _figure_svg(fig)
    finally:
        plt.close(fig)
