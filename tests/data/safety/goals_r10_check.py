"""Validate and recount goals_tune10.jsonl and goals_blind3.jsonl (round-10 blind set).

Usage: ``python tests/data/safety/goals_r10_check.py``. Prints the count tables; exit 1 when a line does not
parse, a field is missing or out of order, an id repeats, a value is not allowed, or a minimum is not met.
"Under 15 words" counts whitespace words, or two characters per word for Chinese, Japanese and Thai
(written without spaces).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = {"goals_tune10.jsonl": "tune", "goals_blind3.jsonl": "heldout"}
FIELDS = ["id", "label", "category", "kind", "lang", "names_agent", "split", "text", "why", "author"]
CATEGORIES = {"biological", "chemical", "radiological_nuclear", "explosives", "human_subjects_without_consent",
              "cyber", "none"}
HARMFUL_KINDS = {"enhance", "produce", "disperse", "acquire", "expose", "cover", "paraphrase"}
BENIGN_KINDS = {"treatment", "vaccine", "diagnosis", "surveillance", "epidemiology", "pathogenesis", "detection",
                "decontamination", "policy", "history", "toxicology", "radiation_medicine", "clinical_trial",
                "other"}
NO_SPACE_LANGS = {"zh", "ja", "th"}


def words(text: str, lang: str) -> int:
    """Word count: whitespace words, or characters // 2 for languages written without spaces."""
    if lang in NO_SPACE_LANGS:
        return len("".join(text.split())) // 2
    return len(text.split())


def row_errors(row: dict[str, object], split: str) -> list[str]:
    """Problems with one parsed row (empty when it is valid)."""
    errors = []
    if list(row) != FIELDS:
        errors.append(f"fields {list(row)}")
        return errors
    kinds = HARMFUL_KINDS if row["label"] == "harmful" else BENIGN_KINDS
    checks = [
        (row["label"] in ("harmful", "benign"), "label"),
        (row["category"] in CATEGORIES, "category"),
        (row["kind"] in kinds, "kind"),
        (row["split"] == split, "split"),
        (isinstance(row["names_agent"], bool), "names_agent"),
        (row["author"] == "blind-data-r10", "author"),
        (isinstance(row["text"], str) and bool(str(row["text"]).strip()), "text"),
        (not (row["label"] == "harmful" and row["category"] == "none"), "harmful needs a category"),
    ]
    return [name for ok, name in checks if not ok]


def load() -> tuple[list[dict[str, object]], list[str]]:
    """All rows of both files, and the errors found while reading them."""
    rows, errors = [], []
    for name, split in FILES.items():
        for n, line in enumerate((HERE / name).read_text(encoding="utf-8").splitlines(), 1):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append(f"{name}:{n}: {exc}")
                continue
            errors += [f"{name}:{n}: bad {e}" for e in row_errors(row, split)]
            rows.append(row)
    ids = Counter(r["id"] for r in rows)
    texts = Counter(r["text"] for r in rows)
    errors += [f"duplicate id {i}" for i, c in ids.items() if c > 1]
    errors += [f"duplicate text {t}" for t, c in texts.items() if c > 1]
    return rows, errors


def minimums(rows: list[dict[str, object]]) -> list[tuple[bool, str]]:
    """The brief's minimums, each as (met, description)."""
    benign = [r for r in rows if r["label"] == "benign"]
    short = [r for r in rows if words(str(r["text"]), str(r["lang"])) < 15]
    langs = Counter(r["lang"] for r in rows)
    checks = [(sum(r["label"] == "harmful" and r["split"] == s for r in rows) == 80, f"{s}: 80 harmful")
              for s in FILES.values()]
    checks += [(sum(r["label"] == "benign" and r["split"] == s for r in rows) == 170, f"{s}: 170 benign")
               for s in FILES.values()]
    checks += [
        (2 * sum(bool(r["names_agent"]) for r in benign) >= len(benign), "benign naming an agent >= 1/2"),
        (3 * len(short) >= len(rows), "goals under 15 words >= 1/3"),
        (len(langs) >= 14, "languages >= 14"),
        (10 * langs["en"] <= 4 * len(rows), "English <= 40 %"),
    ]
    return checks


def table(rows: list[dict[str, object]], key: str) -> str:
    """Markdown table of `key` by label."""
    count = Counter((str(r[key]), str(r["label"])) for r in rows)
    lines = ["| | benign | harmful | total |", "|---|---|---|---|"]
    for value in sorted({k for k, _ in count}):
        b, h = count[(value, "benign")], count[(value, "harmful")]
        lines.append(f"| {value} | {b} | {h} | {b + h} |")
    return "\n".join(lines)


def main() -> int:
    rows, errors = load()
    for error in errors:
        print("FAIL", error)
    checks = minimums(rows)
    for ok, name in checks:
        print("ok  " if ok else "FAIL", name)
    for row in rows:
        row["length"] = "under 15 words" if words(str(row["text"]), str(row["lang"])) < 15 else "15+ words"
        row["agent"] = "names agent" if row["names_agent"] else "no agent named"
    print(f"\nrows {len(rows)}")
    for key in ("lang", "category", "split", "length", "agent"):
        print("\n" + table(rows, key))
    return 1 if errors or not all(ok for ok, _ in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
