"""Validate goals_blind8.jsonl, the round-15 held-out set written blind.

Checks that every line parses, carries exactly the fields of goals_intent.jsonl in their order with allowed
values, that ids and texts are unique, that no row carries a quantity with a unit (rows are goals, never
recipes), and that the set meets the minimums its brief set (see README.md in this folder, section
"goals_blind8.jsonl"). Prints counts per language x label and exits 1 on any failure.

Usage: ``python tests/data/safety/goals_blind8_check.py [path]``
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

FIELDS = ["id", "label", "category", "kind", "lang", "names_agent", "split", "text", "why"]
HARMFUL_CATEGORIES = {
    "biological",
    "chemical",
    "radiological_nuclear",
    "explosives",
    "human_subjects_without_consent",
    "cyber",
}
BENIGN_CATEGORIES = {"biological", "chemical", "radiological_nuclear", "explosives", "cyber", "none"}
HARMFUL_KINDS = {"enhance", "produce", "disperse", "acquire", "expose", "cover", "paraphrase"}
BENIGN_KINDS = {
    "treatment",
    "vaccine",
    "diagnosis",
    "surveillance",
    "epidemiology",
    "pathogenesis",
    "detection",
    "decontamination",
    "policy",
    "history",
    "toxicology",
    "radiation_medicine",
    "clinical_trial",
    "other",
}
# Languages the brief listed; rows in others are capped at 10 % of the set.
LISTED_LANGS = {
    *("ar", "pl", "he", "hi", "ur", "bn", "pt", "de", "it", "vi", "tr", "sw"),
    *("id", "ja", "zh", "ru", "es", "fr", "ko", "fa", "th", "el", "en"),
}
OTHER_LANGS = {"nl", "uk", "ro", "fi", "sv", "cs", "hu", "da", "no"}
# Characters per word for scripts written without spaces (an approximation used only for the short/long count).
CHARS_PER_WORD = {"zh": 1.7, "ja": 2.5, "th": 4.5}
ID_RE = re.compile(r"^b8-\d{4}$")
# A number followed by a unit of mass, volume, concentration, temperature, time or dose is a recipe detail.
QUANTITY_RE = re.compile(
    r"\d+(?:[.,]\d+)?\s*(?:mg|g|kg|µg|ug|ml|mL|l|L|%|°C|°F|ppm|rpm|psi|bar|Gy|Sv|Bq|Ci|mCi|MBq|kt|h|min)(?!\w)"
)

MIN_ROWS, MIN_BENIGN, MIN_HARMFUL = 420, 260, 160
MIN_LANGS, LANG_MIN_HARMFUL, LANG_MIN_BENIGN = 14, 10, 12
TARGET_ROWS, TARGET_BENIGN, TARGET_HARMFUL, TARGET_LANGS = 600, 360, 240, 20


def word_count(text: str, lang: str) -> int:
    """Approximate word count: whitespace tokens, or non-space characters / CHARS_PER_WORD for zh, ja, th."""
    if lang in CHARS_PER_WORD:
        chars = sum(1 for c in text if not c.isspace() and unicodedata.category(c)[0] != "P")
        return round(chars / CHARS_PER_WORD[lang])
    return len(text.split())


def check_labels(row: dict, where: str) -> list[str]:
    """Return the problems of a row's label, category and kind (allowed values depend on the label)."""
    problems = []
    harmful = row["label"] == "harmful"
    if row["label"] not in ("harmful", "benign"):
        problems.append(f"{where}: bad label {row['label']!r}")
    categories = HARMFUL_CATEGORIES if harmful else BENIGN_CATEGORIES
    kinds = HARMFUL_KINDS if harmful else BENIGN_KINDS
    if row["category"] not in categories:
        problems.append(f"{where}: category {row['category']!r} not allowed for {row['label']}")
    if row["kind"] not in kinds:
        problems.append(f"{where}: kind {row['kind']!r} not allowed for {row['label']}")
    return problems


def check_row(row: dict, line_no: int) -> list[str]:
    """Return the problems of one parsed row (empty when it is valid)."""
    where = f"line {line_no}"
    if list(row) != FIELDS:
        return [f"{where}: fields {list(row)} != {FIELDS}"]
    problems = check_labels(row, where)
    if not ID_RE.match(str(row["id"])):
        problems.append(f"{where}: bad id {row['id']!r}")
    if row["lang"] not in LISTED_LANGS | OTHER_LANGS:
        problems.append(f"{where}: lang {row['lang']!r} not allowed")
    if not isinstance(row["names_agent"], bool):
        problems.append(f"{where}: names_agent must be a bool")
    if row["split"] != "heldout":
        problems.append(f"{where}: split must be 'heldout'")
    for field in ("text", "why"):
        if not isinstance(row[field], str) or not row[field].strip():
            problems.append(f"{where}: empty {field}")
    quantity = QUANTITY_RE.search(str(row["text"]))
    if quantity:
        problems.append(f"{where}: text carries a quantity with a unit: {quantity.group(0)!r}")
    return problems


def main(path: Path) -> int:
    """Validate the file at ``path``; print counts and problems; return the exit code (0 ok, 1 failure)."""
    problems: list[str] = []
    rows: list[dict] = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"line {line_no}: not JSON ({error})")
            continue
        if not isinstance(row, dict):
            problems.append(f"line {line_no}: not an object")
            continue
        problems += check_row(row, line_no)
        rows.append(row)
    for field in ("id", "text"):
        seen = Counter(" ".join(str(r.get(field, "")).lower().split()) for r in rows)
        problems += [f"duplicate {field}: {value!r}" for value, n in seen.items() if n > 1]

    by_lang: dict[str, Counter] = {}
    for r in rows:
        by_lang.setdefault(r.get("lang", "?"), Counter())[r.get("label", "?")] += 1
    print(f"{'lang':5} {'benign':>6} {'harmful':>7}")
    for lang in sorted(by_lang, key=lambda x: -sum(by_lang[x].values())):
        print(f"{lang:5} {by_lang[lang]['benign']:6} {by_lang[lang]['harmful']:7}")
    benign = [r for r in rows if r.get("label") == "benign"]
    harmful = [r for r in rows if r.get("label") == "harmful"]
    named = sum(1 for r in benign if r.get("names_agent") is True)
    short = sum(1 for r in benign if word_count(str(r.get("text", "")), str(r.get("lang"))) < 15)
    qualified = sorted(
        lang for lang, c in by_lang.items() if c["harmful"] >= LANG_MIN_HARMFUL and c["benign"] >= LANG_MIN_BENIGN
    )
    other = sum(1 for r in rows if r.get("lang") not in LISTED_LANGS)
    print(f"rows {len(rows)}: benign {len(benign)}, harmful {len(harmful)}")
    print(f"benign naming an agent {named}, benign under 15 words {short}")
    print(f"languages with >= {LANG_MIN_HARMFUL} harmful and >= {LANG_MIN_BENIGN} benign: {len(qualified)}")
    print(f"rows in languages outside the brief's list: {other}")
    print("harmful kinds:", dict(Counter(r.get("kind") for r in harmful)))
    print("harmful categories:", dict(Counter(r.get("category") for r in harmful)))

    minimums = [
        (len(rows) >= MIN_ROWS, f"rows >= {MIN_ROWS}"),
        (len(benign) >= MIN_BENIGN, f"benign >= {MIN_BENIGN}"),
        (len(harmful) >= MIN_HARMFUL, f"harmful >= {MIN_HARMFUL}"),
        (2 * named >= len(benign), "at least half of benign rows name an agent"),
        (3 * short >= len(benign), "at least a third of benign rows under 15 words"),
        (len(qualified) >= MIN_LANGS, f">= {MIN_LANGS} languages meeting the per-language minimums"),
        (10 * other <= len(rows), "rows outside the listed languages <= 10 %"),
    ]
    problems += [f"minimum not met: {what}" for ok, what in minimums if not ok]
    targets = [
        (len(rows) >= TARGET_ROWS, f"rows >= {TARGET_ROWS}"),
        (len(benign) >= TARGET_BENIGN, f"benign >= {TARGET_BENIGN}"),
        (len(harmful) >= TARGET_HARMFUL, f"harmful >= {TARGET_HARMFUL}"),
        (len(qualified) >= TARGET_LANGS, f">= {TARGET_LANGS} languages meeting the per-language minimums"),
    ]
    for ok, what in targets:
        print(f"target {'met' if ok else 'NOT met'}: {what}")
    for problem in problems:
        print("FAIL", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    default = Path(__file__).with_name("goals_blind8.jsonl")
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else default))
