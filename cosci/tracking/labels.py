"""Plot and table labels for compared sessions (design.md#deployment): each session by what sets it apart."""

from __future__ import annotations

from collections import Counter

import polars as pl

LABEL_WIDTH = 40
"""Characters in a plot label."""

def _overrides(text: str) -> dict[str, str]:
    """``key=value`` pairs of a space-joined override list (a word without ``=`` continues the last value)."""
    pairs: dict[str, str] = {}
    key = None
    for word in text.split():
        if "=" in word and not word.startswith("="):
            key, _, value = word.partition("=")
            pairs[key] = value
        elif key is not None:
            pairs[key] += " " + word
    return pairs


def _differing(settings: list[dict[str, str]]) -> list[str]:
    """The keys (in first-seen order) whose values are not the same in every one of ``settings``."""
    keys = list(dict.fromkeys(k for s in settings for k in s))
    return [k for k in keys if len({s.get(k) for s in settings}) > 1]


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def distinguishing(frame: pl.DataFrame) -> list[str]:
    """Per session, the settings that differ between the compared sessions (``""`` when none do).

    The sweep overrides (tag ``cosci.sweep_overrides``) that differ, e.g. ``run.max_hypotheses=4``; for a session
    without overrides, or whose overrides match the others', the params (``param.*``) that differ.
    """
    n = frame.height
    cols = set(frame.columns)
    texts = frame["tag.sweep_overrides"].to_list() if "tag.sweep_overrides" in cols else [None] * n
    overrides = [_overrides(t or "") for t in texts]
    param_cols = [c for c in frame.columns if c.startswith("param.")]
    params = [
        {c.removeprefix("param."): str(v) for c, v in row.items() if v is not None}
        for row in frame.select(param_cols).iter_rows(named=True)
    ] if param_cols else [{} for _ in range(n)]
    by_override, by_param = _differing(overrides), _differing(params)
    out = []
    for i in range(n):
        parts = [f"{k}={overrides[i][k]}" for k in by_override if k in overrides[i]]
        if not parts:
            parts = [f"{k}={params[i][k]}" for k in by_param if k in params[i]]
        out.append(" ".join(parts))
    return out


def session_labels(frame: pl.DataFrame, width: int = LABEL_WIDTH) -> list[str]:
    """Short plot labels: :func:`distinguishing` cut to ``width`` characters, else the session id.

    Labels that would still coincide get the end of their session id, e.g. ``run.seed=1 (3f5ba9)``.
    """
    sids = [str(s) for s in frame["session_id"].to_list()]
    labels = [_shorten(d, width) if d else sid for d, sid in zip(distinguishing(frame), sids, strict=True)]
    counts = Counter(labels)
    return [
        f"{lab} ({sid[-6:]})" if counts[lab] > 1 and lab != sid else lab
        for lab, sid in zip(labels, sids, strict=True)
    ]
