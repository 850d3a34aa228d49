"""Shared validator for the held-out goal sets written blind (goals_blind8.jsonl, goals_blind9.jsonl, ...).

Checks that every line parses, carries exactly the fields of goals_intent.jsonl in their order with allowed
values, that ids and texts are unique, that no row carries a quantity with a unit (rows are goals, never
recipes), and that the set meets the minimums its brief set, given as a :class:`Spec` (see README.md in this
folder, the section of each set). Prints counts per language x label and returns 1 on any failure.

Each set has a thin script (``goals_blindN_check.py``) that holds its ``Spec`` and calls :func:`run`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
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
# The languages the briefs list; other languages are counted apart (their share is capped or floored per set).
LISTED_LANGS = frozenset(
    {
        *("ar", "pl", "he", "hi", "ur", "bn", "pt", "de", "it", "vi", "tr", "sw"),
        *("id", "ja", "zh", "ru", "es", "fr", "ko", "fa", "th", "el", "en"),
    }
)
# Characters per word for scripts written without spaces (an approximation used only for the short/long count).
CHARS_PER_WORD = {"zh": 1.7, "ja": 2.5, "th": 4.5}
# A number followed by a unit of mass, volume, concentration, temperature, time or dose is a recipe detail.
QUANTITY_RE = re.compile(
    r"\d+(?:[.,]\d+)?\s*(?:mg|g|kg|µg|ug|ml|mL|l|L|%|°C|°F|ppm|rpm|psi|bar|Gy|Sv|Bq|Ci|mCi|MBq|kt|h|min)(?!\w)"
)


@dataclass(frozen=True)
class Spec:
    """What one blind set must satisfy.

    ``id_prefix``: ids are ``<prefix>-NNNN``. ``other_langs``: languages allowed outside LISTED_LANGS.
    ``other_max`` / ``other_min``: bounds on the share of rows outside LISTED_LANGS (None: no bound).
    ``required_langs``: languages that must each meet the per-language minimums (on top of ``min_langs``).
    ``min_short_other``: rows outside LISTED_LANGS of 3-8 words that must exist.
    ``targets``: (name, value) pairs printed, not enforced.
    """

    id_prefix: str
    min_rows: int
    min_benign: int
    min_harmful: int
    min_langs: int
    lang_min_harmful: int
    lang_min_benign: int
    other_langs: frozenset[str]
    other_max: float | None = None
    other_min: float | None = None
    required_langs: frozenset[str] = frozenset()
    min_short_other: int = 0
    targets: tuple[tuple[str, int], ...] = field(default=())


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


def check_row(row: dict, line_no: int, spec: Spec) -> list[str]:
    """Return the problems of one parsed row (empty when it is valid)."""
    where = f"line {line_no}"
    if list(row) != FIELDS:
        return [f"{where}: fields {list(row)} != {FIELDS}"]
    problems = check_labels(row, where)
    if not re.fullmatch(rf"{re.escape(spec.id_prefix)}-\d{{4}}", str(row["id"])):
        problems.append(f"{where}: bad id {row['id']!r}")
    if row["lang"] not in LISTED_LANGS | spec.other_langs:
        problems.append(f"{where}: lang {row['lang']!r} not allowed")
    if not isinstance(row["names_agent"], bool):
        problems.append(f"{where}: names_agent must be a bool")
    if row["split"] != "heldout":
        problems.append(f"{where}: split must be 'heldout'")
    for name in ("text", "why"):
        if not isinstance(row[name], str) or not row[name].strip():
            problems.append(f"{where}: empty {name}")
    quantity = QUANTITY_RE.search(str(row["text"]))
    if quantity:
        problems.append(f"{where}: text carries a quantity with a unit: {quantity.group(0)!r}")
    return problems


def read_rows(path: Path, spec: Spec) -> tuple[list[dict], list[str]]:
    """Parse ``path`` (one JSON object per line); return the rows and the problems of lines, fields and duplicates."""
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
        problems += check_row(row, line_no, spec)
        rows.append(row)
    for name in ("id", "text"):
        seen = Counter(" ".join(str(r.get(name, "")).lower().split()) for r in rows)
        problems += [f"duplicate {name}: {value!r}" for value, n in seen.items() if n > 1]
    return rows, problems


def count_by_lang(rows: list[dict]) -> dict[str, Counter]:
    """Print and return the count of rows per language x label, the largest language first."""
    by_lang: dict[str, Counter] = {}
    for r in rows:
        by_lang.setdefault(r.get("lang", "?"), Counter())[r.get("label", "?")] += 1
    print(f"{'lang':5} {'benign':>6} {'harmful':>7}")
    for lang in sorted(by_lang, key=lambda x: -sum(by_lang[x].values())):
        print(f"{lang:5} {by_lang[lang]['benign']:6} {by_lang[lang]['harmful']:7}")
    return by_lang


def qualified_langs(by_lang: dict[str, Counter], spec: Spec) -> set[str]:
    """Return the languages with at least the per-language minimums of harmful and benign rows."""
    return {
        lang
        for lang, c in by_lang.items()
        if c["harmful"] >= spec.lang_min_harmful and c["benign"] >= spec.lang_min_benign
    }


def check_minimums(rows: list[dict], spec: Spec) -> list[str]:
    """Print the set's composition; return the minimums of ``spec`` it misses."""
    by_lang = count_by_lang(rows)
    benign = [r for r in rows if r.get("label") == "benign"]
    harmful = [r for r in rows if r.get("label") == "harmful"]
    named = sum(1 for r in benign if r.get("names_agent") is True)
    short = sum(1 for r in benign if word_count(str(r.get("text", "")), str(r.get("lang"))) < 15)
    qualified = qualified_langs(by_lang, spec)
    other_rows = [r for r in rows if r.get("lang") not in LISTED_LANGS]
    other, total = len(other_rows), max(len(rows), 1)
    short_other = sum(1 for r in other_rows if 3 <= word_count(str(r.get("text", "")), str(r.get("lang"))) <= 8)
    print(f"rows {len(rows)}: benign {len(benign)}, harmful {len(harmful)}")
    print(f"benign naming an agent {named}, benign under 15 words {short}")
    print(f"languages with >= {spec.lang_min_harmful} harmful and >= {spec.lang_min_benign} benign: {len(qualified)}")
    print(f"rows in languages outside the brief's list: {other}")
    if spec.min_short_other:
        print(f"of which 3-8 words: {short_other}")
    print("harmful kinds:", dict(Counter(r.get("kind") for r in harmful)))
    print("harmful categories:", dict(Counter(r.get("category") for r in harmful)))

    missing_langs = sorted(spec.required_langs - qualified)
    minimums = [
        (len(rows) >= spec.min_rows, f"rows >= {spec.min_rows}"),
        (len(benign) >= spec.min_benign, f"benign >= {spec.min_benign}"),
        (len(harmful) >= spec.min_harmful, f"harmful >= {spec.min_harmful}"),
        (2 * named >= len(benign), "at least half of benign rows name an agent"),
        (3 * short >= len(benign), "at least a third of benign rows under 15 words"),
        (len(qualified) >= spec.min_langs, f">= {spec.min_langs} languages meeting the per-language minimums"),
        (not missing_langs, f"listed languages meeting the per-language minimums (missing: {missing_langs})"),
        (short_other >= spec.min_short_other, f">= {spec.min_short_other} rows outside the list of 3-8 words"),
    ]
    if spec.other_max is not None:
        minimums.append((other <= spec.other_max * total, f"rows outside the listed languages <= {spec.other_max:.0%}"))
    if spec.other_min is not None:
        minimums.append((other >= spec.other_min * total, f"rows outside the listed languages >= {spec.other_min:.0%}"))
    return [f"minimum not met: {what}" for ok, what in minimums if not ok]


def print_targets(rows: list[dict], spec: Spec) -> None:
    """Print which targets (``rows``, ``benign``, ``harmful``, ``languages``) are met; they never fail the run."""
    by_lang: dict[str, Counter] = {}
    for r in rows:
        by_lang.setdefault(r.get("lang", "?"), Counter())[r.get("label", "?")] += 1
    counts = {"rows": len(rows), "languages": len(qualified_langs(by_lang, spec))}
    counts.update(Counter(str(r.get("label")) for r in rows))
    for name, value in spec.targets:
        ok = counts.get(name, 0) >= value
        print(f"target {'met' if ok else 'NOT met'}: {name} >= {value}")


def run(path: Path, spec: Spec) -> int:
    """Validate the file at ``path`` against ``spec``; print counts and problems; return 0 (ok) or 1 (failure)."""
    rows, problems = read_rows(path, spec)
    problems += check_minimums(rows, spec)
    print_targets(rows, spec)
    for problem in problems:
        print("FAIL", problem)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0
