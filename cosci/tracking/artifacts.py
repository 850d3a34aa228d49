"""Result tables and plots of a session, built from the record (polars, matplotlib): no MLflow here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from cosci.domain import BT_INTERVAL, BT_INTERVAL_LABEL
from cosci.store import SessionStore
from cosci.store.standing import shown, standing

if TYPE_CHECKING:  # polars where a frame is made: the report page reads the rows alone (design.md#startup)
    import polars as pl


def leaderboard_frame(store: SessionStore) -> pl.DataFrame:
    """:func:`leaderboard_rows` as a polars frame (the MLflow artifact's ``leaderboard.parquet``)."""
    import polars as pl

    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "id": pl.Utf8,
        "title": pl.Utf8,
        "elo": pl.Float64,
        "bt_score": pl.Float64,
        "bt_ci_low": pl.Float64,
        "bt_ci_high": pl.Float64,
        "matches": pl.Int64,
        "wins": pl.Int64,
        "state": pl.Utf8,
        "cluster": pl.Int64,
        "mode": pl.Utf8,
        "grounding": pl.Utf8,
        "retracted": pl.Int64,
        "parents": pl.List(pl.Utf8),
        "statement": pl.Utf8,
    }
    return pl.DataFrame(leaderboard_rows(store), schema=schema)


def leaderboard_rows(store: SessionStore) -> list[dict[str, Any]]:
    """One row per hypothesis in the current standing's order (:func:`cosci.store.standing.standing`: the
    ranked ones by BT score, then those out of the ranking; design.md#report): id, title, elo, bt_score,
    bt_ci_low, bt_ci_high (the stored Bradley–Terry fit, logits, the bounds of its :data:`~cosci.domain.BT_INTERVAL`;
    null for a hypothesis outside it),
    matches, wins, state, cluster, mode, grounding (:attr:`~cosci.domain.Hypothesis.grounding`: ``grounded``, a
    verified, not retracted quote judged to support it; ``quoted (relevance unchecked)``; ``ungrounded``),
    retracted (citations whose source is retracted or a retraction notice;
    design.md#retractions), parents.

    A hypothesis quarantined by safety screening keeps its row, with its title and statement withheld
    (:func:`cosci.store.standing.shown`; design.md#safety: its text does not leave the session folder)."""
    bt = store.matches.bt()
    current = standing(store)
    place = {e.id: i for i, e in enumerate(current.ranked + current.apart)}
    return [
        {
            "id": h.id,
            "title": h.title,
            "elo": float(h.elo),
            "bt_score": float(bt[h.id][0]) if h.id in bt else None,
            "bt_ci_low": float(bt[h.id][1]) if h.id in bt else None,
            "bt_ci_high": float(bt[h.id][2]) if h.id in bt else None,
            "matches": h.matches_played,
            "wins": h.wins,
            "state": h.state,
            "cluster": h.dedup_cluster,
            "mode": h.mode,
            "grounding": h.grounding,
            "retracted": h.retracted_citations,
            "parents": h.parent_ids,
            "statement": h.statement,
        }
        for h in sorted(map(shown, store.hypotheses.all()), key=lambda h: place[h.id])
    ]


def matches_frame(store: SessionStore) -> pl.DataFrame:
    """One row per tournament match, oldest first (Elo in points, ``created_at`` in epoch seconds); ``draw`` is a
    first-class verdict (winner null, valid, Elo score 0.5), ``first_shown`` the id shown as hypothesis 1,
    ``dual_order`` whether both orders were judged, ``judge`` the tier that judged it (null before it was kept)."""
    import polars as pl

    rows = [
        {
            "id": m.id,
            "hyp_a": m.hyp_a,
            "hyp_b": m.hyp_b,
            "mode": m.mode,
            "winner": m.winner,
            "verdict_valid": m.verdict_valid,
            "draw": m.draw,
            "first_shown": m.first_shown,
            "dual_order": m.dual_order,
            "judge": m.judge,
            "elo_a_before": m.elo_a_before,
            "elo_b_before": m.elo_b_before,
            "elo_a_after": m.elo_a_after,
            "elo_b_after": m.elo_b_after,
            "created_at": m.created_at,
        }
        for m in store.matches.all()
    ]
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "id": pl.Utf8,
        "hyp_a": pl.Utf8,
        "hyp_b": pl.Utf8,
        "mode": pl.Utf8,
        "winner": pl.Utf8,
        "verdict_valid": pl.Boolean,
        "draw": pl.Boolean,
        "first_shown": pl.Utf8,
        "dual_order": pl.Boolean,
        "judge": pl.Utf8,
        "elo_a_before": pl.Float64,
        "elo_b_before": pl.Float64,
        "elo_a_after": pl.Float64,
        "elo_b_after": pl.Float64,
        "created_at": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema)


def elo_trajectories(store: SessionStore, initial: float) -> dict[str, list[tuple[int, float]]]:
    """Per hypothesis, ``(match number, Elo after it)`` replayed from the Elo journal (points)."""
    elo: dict[str, float] = {}
    paths: dict[str, list[tuple[int, float]]] = {}
    rows = store.db.query(
        "SELECT hyp_a, hyp_b, delta_a, delta_b FROM elo_journal WHERE session_id=? ORDER BY seq", (store.session_id,)
    )
    for n, r in enumerate(rows, 1):
        for hid, d in ((r["hyp_a"], r["delta_a"]), (r["hyp_b"], r["delta_b"])):
            if hid not in elo:
                elo[hid] = initial
                paths[hid] = [(n - 1, initial)]
            elo[hid] += d
            paths[hid].append((n, elo[hid]))
    return paths


def pyplot() -> Any:
    """matplotlib's ``pyplot`` on the Agg backend (files only, no display), imported on first use: about half a
    second of CPU, which the session's MLflow worker spends beside its last model calls (:func:`warm_plots`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def warm_plots() -> None:
    """Import what the plots below draw with (:func:`pyplot`) ahead of the session's finish: run on the MLflow
    worker while the final overview is written (``flows.tracker.BackgroundTracker.prepare_finish``), so the
    MLflow run's closing, after the session's last model call, no longer waits for the import (docs/design.md#demo,
    "The finish")."""
    pyplot()


def elo_trajectory_png(store: SessionStore, initial: float, path: Path, top: int = 10) -> Path:
    """Plot the Elo trajectories of the final top hypotheses to ``path`` (PNG)."""
    plt = pyplot()
    paths = elo_trajectories(store, initial)
    best = sorted(paths, key=lambda h: -paths[h][-1][1])[:top]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    for hid in best:
        xs, ys = zip(*paths[hid], strict=True)
        ax.plot(xs, ys, label=hid, linewidth=1.4)
    ax.axhline(initial, color="grey", linewidth=0.6, linestyle="--")
    ax.set_xlabel("match")
    ax.set_ylabel("Elo rating")
    ax.set_title(f"Elo trajectories, top {len(best)} hypotheses")
    if best:
        ax.legend(fontsize=7, ncol=2, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def bt_png(store: SessionStore, path: Path, top: int = 15) -> Path:
    """Plot the stored Bradley–Terry scores with their intervals (titled :data:`~cosci.domain.BT_INTERVAL_LABEL`) of
    the best ``top`` hypotheses to ``path`` (PNG);
    the Elo plot's companion (Elo is the tournament's rating, BT the statistics a scientist reads)."""
    plt = pyplot()

    bt = sorted(store.matches.bt().items(), key=lambda kv: (-kv[1][0], kv[0]))[:top]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    if bt:
        ids = [h for h, _ in bt][::-1]
        score = [v[0] for _, v in bt][::-1]
        err = [[v[0] - v[1] for _, v in bt][::-1], [v[2] - v[0] for _, v in bt][::-1]]
        ax.errorbar(score, range(len(ids)), xerr=err, fmt="o", capsize=3, linewidth=1.2)
        ax.set_yticks(range(len(ids)), ids, fontsize=7)
    ax.axvline(0.0, color="grey", linewidth=0.6, linestyle="--")
    ax.set_xlabel(f"Bradley–Terry score (logits), {BT_INTERVAL}")
    ax.set_title(BT_INTERVAL_LABEL, fontsize=8)
    ax.set_title(f"Bradley–Terry scores, top {len(bt)} hypotheses")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
