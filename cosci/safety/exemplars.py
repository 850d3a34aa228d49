"""The labelled exemplars the offline screen learns from (``safety.exemplars``, a JSON Lines file under ``conf/``:
the tuning part of the labelled goal set, docs/design.md#safety-screen)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from cosci.errors import CosciError
from cosci.paths import conf_dir


class ExemplarError(CosciError):
    """The exemplar file is missing or malformed."""


@dataclass(frozen=True)
class Exemplar:
    """One labelled goal: ``label`` harmful / benign, ``category`` its hazard category (for a benign goal, the
    category it is close to, or ``none``)."""

    id: str
    text: str
    label: str
    category: str


def load_exemplars(name: str) -> tuple[Exemplar, ...]:
    """Exemplars from a JSON Lines file (``name`` relative to ``conf/`` or absolute) with ``id``, ``text``,
    ``label`` (harmful / benign) and ``category`` per row.

    Raises:
        ExemplarError: missing file, a malformed row, or fewer than two harmful and two benign rows.
    """
    path = Path(name) if Path(name).is_absolute() else conf_dir() / name
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ExemplarError(f"safety.exemplars: cannot read {path} ({type(exc).__name__})") from None
    out = []
    for n, line in enumerate(lines, 1):
        try:
            row = json.loads(line) if line.strip() else None
            if row is not None:
                out.append(Exemplar(str(row["id"]), str(row["text"]), str(row["label"]), str(row["category"])))
        except (ValueError, KeyError, TypeError):
            raise ExemplarError(f"safety.exemplars: {path} line {n} is not a labelled exemplar") from None
    labels = [e.label for e in out]
    if set(labels) - {"harmful", "benign"} or min(labels.count("harmful"), labels.count("benign")) < 2:
        raise ExemplarError(f"safety.exemplars: {path} needs harmful and benign rows (labels harmful / benign)")
    return tuple(out)
