"""Precision and recall of *verified* on the labelled excerpt set, per kind and overall.

    python -m bench.grounding                      # the reported part (split "report")
    python -m bench.grounding --split tune         # the part the rules were tuned on
    python -m bench.grounding --rows R.jsonl [--sources S.jsonl]   # other rows of the same form
    python -m bench.grounding --failures 20        # also print the first 20 wrong verdicts

Rows (``tests/data/excerpts/rows.jsonl`` and the hand-written ``hand.jsonl``): ``excerpt``, ``label``
(``verify`` | ``reject``), ``kind``, ``split``, and either ``source`` (an id of ``sources.jsonl``) or
``source_text``; an adversarial row may name its ``pair`` (the verbatim row of the same sentence).

Per kind: rows, how many were verified (for a ``reject`` kind, every one is a false verification), recall (share
of ``verify`` rows verified) and precision of *verified*. For an adversarial kind the precision is computed over
its rows together with their paired verbatim rows (how many of those were verified is shown), so that it is the
precision a reader gets on that kind of edit; with no pairs and nothing verified it is 1.00. Overall: every row
once. The
function measured is :func:`cosci.grounding.excerpts.check_excerpt`, the one the session uses.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cosci.grounding.excerpts import check_excerpt

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "excerpts"
SHOULD_VERIFY = ("verbatim", "truncated", "whitespace", "case", "unicode", "hyphenation", "spelling", "ellipsis",
                 "citation_marker", "ellipsis_parenthetical", "ellipsis_list", "ellipsis_adjective", "ellipsis_plain")
MUST_NOT = ("number", "unit", "negation", "direction", "entity", "hedge", "invented", "other_abstract",
            "ellipsis_negation", "ellipsis_hedge", "ellipsis_number", "ellipsis_contrast", "ellipsis_splice",
            "cut_negation", "cut_hedge")
BARS = {"overall_precision": 0.99, "kind_precision": 1.0, "recall": 0.95}
STRICT = ("number", "negation", "direction", "entity", "ellipsis_negation")
"""Adversarial kinds whose precision must be 1.00 (the others: overall precision >= 0.99)."""


@dataclass
class Tally:
    """One kind's rows: how many, how many should verify, how many were verified, and of those how many should;
    ``paired``/``paired_verified``: the verbatim rows an adversarial kind's rows name as their pair."""

    rows: int = 0
    positives: int = 0
    verified: int = 0
    true_verified: int = 0
    paired: int = 0
    paired_verified: int = 0

    @property
    def false_verified(self) -> int:
        return self.verified - self.true_verified

    @property
    def recall(self) -> float | None:
        return self.true_verified / self.positives if self.positives else None

    @property
    def precision(self) -> float:
        """Verified rows that should verify over all verified rows, the paired verbatim rows included."""
        good = self.true_verified + self.paired_verified
        return good / (good + self.false_verified) if good + self.false_verified else 1.0

    def add(self, positive: bool, verified: bool) -> None:
        self.rows += 1
        self.positives += positive
        self.verified += verified
        self.true_verified += positive and verified


def load(rows_path: Path | None, sources_path: Path | None, split: str) -> list[dict[str, Any]]:
    """The rows to measure, each with its ``source_text`` filled in."""
    paths = [rows_path] if rows_path else [DATA / "rows.jsonl", DATA / "hand.jsonl", DATA / "ellipsis.jsonl"]
    sources_file = sources_path or DATA / "sources.jsonl"
    sources = {}
    if sources_file.exists():
        sources = {s["id"]: s["text"] for s in map(json.loads, sources_file.read_text("utf-8").splitlines())}
    rows = [json.loads(line) for p in paths for line in p.read_text("utf-8").splitlines() if line.strip()]
    for r in rows:
        r.setdefault("source_text", sources.get(r.get("source", ""), ""))
    return [r for r in rows if split == "all" or r.get("split", "report") == split]


def measure(rows: list[dict[str, Any]]) -> tuple[dict[str, Tally], Tally, list[dict[str, Any]], float]:
    """Per-kind tallies, the overall tally, the wrong verdicts, and seconds per excerpt."""
    started = time.perf_counter()
    verdicts = {}
    for r in rows:
        verdicts[r.get("id") or id(r)] = check_excerpt(r["excerpt"], r["source_text"])
    seconds = (time.perf_counter() - started) / max(len(rows), 1)
    by_id = {r.get("id"): r for r in rows if r.get("id")}
    kinds: dict[str, Tally] = defaultdict(Tally)
    overall, wrong = Tally(), []
    for r in rows:
        verdict = verdicts[r.get("id") or id(r)]
        positive = r["label"] == "verify"
        kinds[r["kind"]].add(positive, verdict.verified)
        overall.add(positive, verdict.verified)
        if verdict.verified != positive:
            wrong.append({**r, "verdict": verdict})
        pair = by_id.get(r.get("pair") or "")
        if not positive and pair is not None:  # the adversarial kind's precision counts its verbatim pairs
            kinds[r["kind"]].paired += 1
            kinds[r["kind"]].paired_verified += verdicts[pair["id"]].verified
    return dict(kinds), overall, wrong, seconds


def table(kinds: dict[str, Tally], overall: Tally) -> list[str]:
    lines = ["| kind | label | rows | verified | paired verbatim rows verified | precision | recall |",
             "|---|---|---|---|---|---|---|"]
    for kind in [*SHOULD_VERIFY, *MUST_NOT, *sorted(set(kinds) - set(SHOULD_VERIFY) - set(MUST_NOT))]:
        t = kinds.get(kind)
        if t is None:
            continue
        label = "verify" if kind in SHOULD_VERIFY else "reject"
        recall = f"{t.recall:.3f}" if t.recall is not None and kind in SHOULD_VERIFY else "-"
        paired = f"{t.paired_verified} of {t.paired}" if t.paired else "-"
        precision = f"{t.precision:.3f}" if kind not in SHOULD_VERIFY else "-"
        lines.append(f"| {kind} | {label} | {t.rows} | {t.verified} | {paired} | {precision} | {recall} |")
    lines.append(f"| **overall** | | {overall.rows} | {overall.verified} | | {overall.precision:.3f} | "
                 f"{overall.recall or 0:.3f} |")
    return lines


def bars(kinds: dict[str, Tally], overall: Tally) -> list[str]:
    """The acceptance bars that fail (none: the set passes)."""
    out = []
    if overall.precision < BARS["overall_precision"]:
        out.append(f"overall precision {overall.precision:.3f} < {BARS['overall_precision']}")
    out += [f"{k} precision {kinds[k].precision:.3f} < 1.00" for k in STRICT if k in kinds
            and kinds[k].precision < BARS["kind_precision"]]
    out += [f"{k} recall {kinds[k].recall:.3f} < {BARS['recall']}" for k in SHOULD_VERIFY if k in kinds
            and (kinds[k].recall or 0) < BARS["recall"]]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="precision and recall of 'verified' on the labelled excerpt set")
    ap.add_argument("--split", choices=("report", "tune", "all"), default="report")
    ap.add_argument("--rows", type=Path)
    ap.add_argument("--sources", type=Path)
    ap.add_argument("--failures", type=int, default=0, help="print this many wrong verdicts")
    args = ap.parse_args(argv)
    rows = load(args.rows, args.sources, "all" if args.rows else args.split)
    kinds, overall, wrong, seconds = measure(rows)
    made: defaultdict[str, int] = defaultdict(int)
    for r in rows:
        made[r.get("made", "?")] += 1
    print(f"{len(rows)} rows ({', '.join(f'{n} {m}' for m, n in sorted(made.items()))}), split {args.split}; "
          f"{seconds * 1000:.2f} ms per excerpt")
    print("\n".join(table(kinds, overall)))
    for w in wrong[: args.failures]:
        v = w["verdict"]
        print(f"- [{w['kind']}] {w['label']} -> {v.verified} ({v.reason}): {w['excerpt'][:200]!r}")
    failed = bars(kinds, overall)
    print("bars: " + ("all met" if not failed else "NOT MET: " + "; ".join(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
