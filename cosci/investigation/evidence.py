"""After the cycles: the aggregator, the single-change ablations, and the statistics of the evidence
(docs/design.md#evidence).

The aggregator picks the best correct program across workers by the *search* score (each worker's last gate-B
candidate; ties go to the lower worker, then the earlier cycle); with no gate-B candidate anywhere it is the
initial program. Each gate-B change on the selected program's lineage gets one ablation: the selected program
with that change reverted (a three-way merge per file, ``git merge-file``: the change's "after" as base, its
"before" as the other side); a change a later one overlaps cannot be reverted alone and is reported so. Evidence
programs run over seeds with the *final* evaluator; :func:`summary` gives a mean and a t interval, :func:`gain`
a paired (same seeds) difference with its t interval, signed so that positive is better; :func:`outcome` turns the
gains of the attempts that tested a seeded hypothesis into its verdict, both ways from the same replicated evidence.
"""

from __future__ import annotations

import difflib
import math
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scipy import stats

from cosci.investigation.digest import file_digests


@dataclass(frozen=True)
class Selection:
    """The aggregator's choice: ``worker`` and ``cycle`` (0, 0 for the initial program), its folder and search
    score."""

    worker: int
    cycle: int
    program: str
    score: float | None


def select(results: list[dict[str, Any]], initial: str, initial_score: float | None, direction: str) -> Selection:
    """The best correct program across workers (module docstring). ``results``: every cycle result, any order."""
    best = Selection(0, 0, initial, initial_score)
    passed = sorted((r for r in results if r["gate_b"] and r["score"] is not None),
                    key=lambda r: (r["worker"], r["cycle"]))
    for r in passed:
        s = float(r["score"])
        if best.score is None or (s > best.score if direction == "maximize" else s < best.score):
            best = Selection(r["worker"], r["cycle"], r["candidate_dir"], s)
    return best


def lineage(results: list[dict[str, Any]], selection: Selection) -> list[dict[str, Any]]:
    """The gate-B cycles of the selected worker up to the selected cycle, in order: the changes that built it."""
    if selection.worker == 0:
        return []
    return sorted((r for r in results if r["worker"] == selection.worker and r["gate_b"]
                   and r["cycle"] <= selection.cycle), key=lambda r: r["cycle"])


@dataclass
class Ablation:
    """The selected program with one change reverted (``program`` is None when it cannot be: ``note`` says why)."""

    cycle: int
    title: str
    program: str | None
    note: str = ""


def revert(selected: Path, before: Path, after: Path, dest: Path) -> str:
    """Write to ``dest`` the ``selected`` tree with the change ``before -> after`` reverted; "" on success, else
    why not (a file the change touched that later changes overlap)."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(selected, dest, ignore=shutil.ignore_patterns("__pycache__"))
    b, a = file_digests(before), file_digests(after)
    for rel in sorted(set(a) | set(b)):
        if b.get(rel) == a.get(rel):
            continue
        target = dest / rel
        if rel not in b:  # the change added the file
            target.unlink(missing_ok=True)
            continue
        if rel not in a:  # the change removed it
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(before / rel, target)
            continue
        if not target.exists():
            return f"{rel} was removed by a later change"
        merged = subprocess.run(["git", "merge-file", "-p", "-q", str(target), str(after / rel), str(before / rel)],
                                capture_output=True, timeout=60)
        if merged.returncode == 0:
            target.write_bytes(merged.stdout)
            continue
        text = revert_blocks(target.read_text(encoding="utf-8"), (before / rel).read_text(encoding="utf-8"),
                             (after / rel).read_text(encoding="utf-8"))
        if text is None:
            return f"{rel}: a later change overlaps this one (git merge-file: {merged.returncode} conflict(s))"
        target.write_text(text, encoding="utf-8")
    return ""


def revert_blocks(current: str, before: str, after: str) -> str | None:
    """Revert ``before -> after`` in ``current`` block by block, without context lines: each changed block of
    ``after`` must occur exactly once in ``current`` and is put back as it was in ``before``. Used when a
    three-way merge conflicts only because a later change touched an adjacent line; None when a block is gone
    or ambiguous (the change is then not separable), or when the change only deleted lines (no anchor)."""
    b, a = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out = current
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=b, b=a, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        new, old = "".join(a[j1:j2]), "".join(b[i1:i2])
        if not new or out.count(new) != 1:
            return None
        out = out.replace(new, old)
    return out


def ablations(selected: Path, changes: list[dict[str, Any]], folder: Path) -> list[Ablation]:
    """One ablation per change of the lineage (see :func:`revert`)."""
    out: list[Ablation] = []
    for r in changes:
        dest = folder / f"w{r['worker']}_c{r['cycle']:03d}"
        note = revert(selected, Path(r["base_dir"]), Path(r["candidate_dir"]), dest)
        title = (r.get("idea") or {}).get("title", f"cycle {r['cycle']}")
        out.append(Ablation(r["cycle"], title, None if note else str(dest), note))
    return out


@dataclass
class Interval:
    """A mean (or mean difference) with its two-sided t interval at ``level``; ``n`` values. ``low``/``high`` are
    None for a single value (no interval). ``baseline``: for a gain, the mean score of the program without the
    change over the same seeds (the task's metric; None for a plain mean)."""

    mean: float
    low: float | None
    high: float | None
    n: int
    level: float
    values: list[float] = field(default_factory=list)
    baseline: float | None = None

    def excludes_zero(self) -> bool:
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)


def summary(values: list[float], level: float) -> Interval:
    """Mean and t interval of ``values`` (a zero spread gives a zero-width interval)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return Interval(mean, None, None, n, level, list(values))
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n, level, list(values))


def gain(with_change: dict[int, float], without: dict[int, float], direction: str, level: float) -> Interval | None:
    """The paired gain over the evidence seeds both programs have, positive = better in ``direction``; None
    without common seeds."""
    seeds = sorted(set(with_change) & set(without))
    if not seeds:
        return None
    sign = 1.0 if direction == "maximize" else -1.0
    out = summary([sign * (with_change[s] - without[s]) for s in seeds], level)
    out.baseline = sum(without[s] for s in seeds) / len(seeds)
    return out


def refutes(g: Interval, margin: float) -> bool:
    """Whether a paired gain ``g`` refutes its idea (design.md#evidence): an interval (2 seeds at least), a mean at
    or below 0 and an upper bound under the practical-equivalence margin, ``margin`` (a fraction) times
    ``|g.baseline|`` in the task's metric: the evidence seeds rule out any gain worth acting on. With a baseline
    of 0 the margin is 0 and only an upper bound below 0 (measured worse) refutes."""
    if g.low is None or g.high is None or g.mean > 0:
        return False
    return g.high < margin * abs(g.baseline or 0.0)


def outcome(tried: list[dict[str, Any]], gains: Mapping[str, Interval | None], margin: float) -> str:
    """A seeded hypothesis's outcome from the attempts that tested it (design.md#evidence), each way from the same
    evidence: the paired final-evaluator gain (over the evidence seeds) of an attempt whose program passed gate A
    (the idea implemented, by its rubrics) over the program it started from.

    ``supported``: one such gain has an interval above 0. ``refuted``: at least one was measured and every one
    measured :func:`refutes` the idea (``margin``: ``evidence.equivalence_margin``, a fraction of the baseline's
    mean). Otherwise ``inconclusive``: never tried, never implemented correctly, not measured (one seed, or none
    correct), an interval that includes a practically relevant gain, or attempts that disagree (an improving
    attempt followed by a retry that did not improve is not a refutation). A gate-B miss alone (one search run that
    did not beat the worker's best) decides nothing. ``gains``: by ``"w<K>c<N>"``; ``tried`` rows have
    ``worker``, ``cycle``, ``gate_a``.
    """
    measured = [g for r in tried if r.get("gate_a")
                and (g := gains.get(f"w{r['worker']}c{r['cycle']}")) is not None and g.low is not None]
    if any(g.low is not None and g.low > 0 for g in measured):
        return "supported"
    if measured and all(refutes(g, margin) for g in measured):
        return "refuted"
    return "inconclusive"
