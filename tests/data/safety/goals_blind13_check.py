"""Validate goals_blind13.jsonl, the fourteenth-stop held-out set written blind.

The checks live in goals_blind_check.py (shared by the blind sets); this script holds the minimums the brief of
this set gave (see README.md in this folder, section "goals_blind13.jsonl"): fields of goals_intent.jsonl in their
order, ids ``b13-NNNN``, split "heldout", no quantity with a unit, >= 700 rows with 400 benign and 300 harmful,
every one of the 23 listed languages and Ukrainian with >= 10 harmful and >= 12 benign rows, >= 26 languages
meeting those minimums, and on top: >= 14 harmful and >= 14 benign rows each in Russian, Thai, Arabic, French,
Persian, Italian and Polish; >= 8 % of rows in languages outside the brief's list (which, unlike the shared
LISTED_LANGS, includes Ukrainian), >= 10 of them short (3-8 words); and >= 4 benign rows each in Finnish,
Hungarian, Slovak, Croatian, Danish, Norwegian, Amharic and Malay. Exits 1 on any failure.

Usage: ``python tests/data/safety/goals_blind13_check.py [path]``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from goals_blind_check import LISTED_LANGS, Spec, run

SPEC = Spec(
    id_prefix="b13",
    min_rows=700,
    min_benign=400,
    min_harmful=300,
    min_langs=26,
    lang_min_harmful=10,
    lang_min_benign=12,
    other_langs=frozenset({"cs", "ro", "tl", "nl", "uk", "fi", "hu", "ms", "ta", "am", "sv", "da", "no", "sk", "hr"}),
    other_min=0.08,
    required_langs=LISTED_LANGS | {"uk"},
    min_short_other=10,
)
# Languages the brief asked more rows of: each needs this many harmful AND this many benign rows.
EXTRA_LANGS = ("ru", "th", "ar", "fr", "fa", "it", "pl")
EXTRA_MIN = 14
# Languages outside the list the brief named, each with at least this many benign rows.
SMALL_LANGS = ("fi", "hu", "sk", "hr", "da", "no", "am", "ms")
SMALL_MIN_BENIGN = 4
# The brief's list holds Ukrainian; the share of "other" rows is counted without it.
BRIEF_OTHER_MIN = 0.08


def count(rows: list[dict], lang: str, label: str) -> int:
    """Return the number of rows in ``lang`` with ``label``."""
    return sum(1 for r in rows if r.get("lang") == lang and r.get("label") == label)


def check_extra(path: Path) -> int:
    """Check the per-language floors of EXTRA_LANGS and SMALL_LANGS and the share outside the brief's list."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    problems = []
    for lang in EXTRA_LANGS:
        harmful, benign = count(rows, lang, "harmful"), count(rows, lang, "benign")
        print(f"{lang}: harmful {harmful}, benign {benign}")
        if min(harmful, benign) < EXTRA_MIN:
            problems.append(f"minimum not met: >= {EXTRA_MIN} harmful and benign rows in {lang}")
    for lang in SMALL_LANGS:
        benign = count(rows, lang, "benign")
        print(f"{lang}: benign {benign}")
        if benign < SMALL_MIN_BENIGN:
            problems.append(f"minimum not met: >= {SMALL_MIN_BENIGN} benign rows in {lang}")
    other = sum(1 for r in rows if r.get("lang") not in LISTED_LANGS | {"uk"})
    print(f"rows outside the brief's list (Ukrainian counted in it): {other} of {len(rows)}")
    if other < BRIEF_OTHER_MIN * max(len(rows), 1):
        problems.append(f"minimum not met: >= {BRIEF_OTHER_MIN:.0%} rows outside the brief's list")
    for problem in problems:
        print("FAIL", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("goals_blind13.jsonl")
    sys.exit(run(target, SPEC) | check_extra(target))
