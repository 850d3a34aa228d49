"""The report's figures as inline SVG: the lineage graph (Graphviz ``dot``) and the rating plots (matplotlib).

No box is placed by hand: Graphviz lays out the evolution graph (parents → children, the evolution mode on
the edge; design.md#evolution), matplotlib draws the Elo trajectories and, when the leaderboard carries them,
the Bradley–Terry scores with their confidence intervals. Only ids, numbers and mode names (a fixed
vocabulary, filtered again here) enter a figure, never model-written text, so nothing untrusted reaches SVG.

Graphviz needs the ``dot`` program (Debian ``graphviz``); without it :func:`lineage_svg` raises
:class:`FigureUnavailable` and the report shows the edges as a list instead.

The rating plots are kept in the user cache (``<user cache>/cosci/figures/<sha256>.svg``) keyed by what they draw,
matplotlib's version and this module's source (:func:`_cached`): ``cosci rate`` and ``cosci result`` rewrite the
report page of a stopped session, and a plot whose numbers did not move is read, not drawn (matplotlib's import
and the drawing were a fifth of such a command; design.md#startup).
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import re
import tempfile
from collections.abc import Callable, Collection, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
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


MAX_FIGURES = 256
"""Plots kept in the user cache (a few to tens of KB each; the oldest go first)."""


def _figure_dir() -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("cosci") / "figures"


def _cached(kind: str, inputs: Any, draw: Callable[[], str]) -> str:
    """``draw()``, or the SVG it gave before for the same ``kind`` and JSON-able ``inputs`` (module docstring). A
    cache that cannot be read or written is passed by: the figure is drawn."""
    try:
        mpl = version("matplotlib")
    except PackageNotFoundError:
        mpl = "none"
    key = hashlib.sha256(json.dumps([kind, inputs, mpl, _source_hash()], separators=(",", ":")).encode()).hexdigest()
    path = _figure_dir() / f"{key}.svg"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    svg = draw()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(svg)
        os.replace(tmp, path)
        for old in sorted(path.parent.glob("*.svg"), key=lambda p: p.stat().st_mtime)[:-MAX_FIGURES]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
    return svg


@functools.cache
def _source_hash() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def elo_svg(trajectories: dict[str, list[tuple[int, float]]], initial: float = 1200.0,
            refuted: Collection[str] = ()) -> str:
    """Elo trajectories of the final top hypotheses (x: match number, whole matches; y: Elo points) as SVG.

    ``trajectories`` is :func:`cosci.tracking.artifacts.elo_trajectories` (replayed from the Elo journal);
    ``refuted``: ids a researcher's result refuted, drawn dashed with an ``x`` at each match and labelled
    "(refuted)" in the legend, shown even below the top :data:`MAX_TRAJECTORIES` (a refuted hypothesis's Elo
    stands as the tournament left it, design.md#experimental-results). Returns an empty string when no match
    changed a rating. Kept in the user cache (module docstring).
    """
    if not trajectories:
        return ""
    inputs = [sorted((h, [[int(x), float(y)] for x, y in points]) for h, points in trajectories.items()),
              float(initial), sorted(refuted)]
    return _cached("elo", inputs, lambda: _draw_elo(trajectories, initial, refuted))


def _draw_elo(trajectories: dict[str, list[tuple[int, float]]], initial: float, refuted: Collection[str]) -> str:
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
    of the leaderboard). Rows without a score are skipped; returns an empty string if none has one. Kept in the user
    cache (module docstring).
    """
    shown = [r for r in rows if r.get("bt_score") is not None][:20]
    if not shown:
        return ""
    inputs = [[r["id"], *(None if r.get(c) is None else float(r[c]) for c in ("bt_score", "bt_ci_low", "bt_ci_high"))]
              for r in shown]
    return _cached("bt", inputs, lambda: _draw_bt(shown))


def _draw_bt(shown: Sequence[dict[str, Any]]) -> str:
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
