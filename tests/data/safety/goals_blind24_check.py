"""Validate goals_blind24.jsonl, the twenty-fourth-stop held-out set written blind.

Checks, with the shared validator (goals_blind_check.py) and goals_blind13's extra floors: every line parses and
carries the fields of goals_intent.jsonl in their order with allowed values, ids ``b24-NNNN``, split "heldout",
unique ids and texts, no quantity with a unit; every one of the 23 listed languages and Ukrainian with >= 10
harmful and >= 12 benign rows, >= 26 languages meeting those minimums; >= 14 harmful and >= 14 benign rows each in
ru, th, ar, fr, fa, it, pl; >= 8 % of rows outside the brief's list, >= 10 of them 3-8 words; >= 4 benign rows
each in fi, hu, sk, hr, da, no, am, ms. This set's brief (see README.md in this folder, section
"goals_blind24.jsonl") keeps goals_blind22/23's floors, checked here on top: >= 750 rows with >= 400 benign and
>= 330 harmful; >= 50 harmful and >= 50 benign rows in English; >= 15 harmful and >= 16 benign rows in each
weighted language (WEIGHTED_LANGS, which this brief redrew: fr, es, zh, hi, ar, bn, pt, ru, ja, id, vi, th, he,
el, nl, cs, ur); and >= 4 benign rows in Romanian and Tagalog as well. Exits 1 on any failure.

Usage: ``python tests/data/safety/goals_blind24_check.py [path]``
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from goals_blind13_check import SPEC as SPEC13
from goals_blind13_check import check_extra, count
from goals_blind_check import run

SPEC = dataclasses.replace(SPEC13, id_prefix="b24", min_rows=750, min_harmful=330)
# (harmful, benign) floors per language the brief weighted; English carries the most rows.
WEIGHTED_LANGS = {"en": (50, 50)} | {
    lang: (15, 16)
    for lang in (
        *("fr", "es", "zh", "hi", "ar", "bn", "pt", "ru", "ja"),
        *("id", "vi", "th", "he", "el", "nl", "cs", "ur"),
    )
}
# Small languages the brief added to goals_blind13's list, each with at least this many benign rows.
MORE_SMALL_LANGS = ("ro", "tl")
SMALL_MIN_BENIGN = 4


def check_weighted(path: Path) -> int:
    """Check the per-language floors of WEIGHTED_LANGS and MORE_SMALL_LANGS; print them; return 0 or 1."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    problems = []
    for lang, (min_harmful, min_benign) in WEIGHTED_LANGS.items():
        harmful, benign = count(rows, lang, "harmful"), count(rows, lang, "benign")
        print(f"weighted {lang}: harmful {harmful}, benign {benign}")
        if harmful < min_harmful or benign < min_benign:
            problems.append(f"minimum not met: >= {min_harmful} harmful and >= {min_benign} benign rows in {lang}")
    for lang in MORE_SMALL_LANGS:
        benign = count(rows, lang, "benign")
        print(f"{lang}: benign {benign}")
        if benign < SMALL_MIN_BENIGN:
            problems.append(f"minimum not met: >= {SMALL_MIN_BENIGN} benign rows in {lang}")
    for problem in problems:
        print("FAIL", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("goals_blind24.jsonl")
    sys.exit(run(target, SPEC) | check_extra(target) | check_weighted(target))
