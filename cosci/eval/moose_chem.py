"""The MOOSE-Chem benchmark (Yang et al., arXiv 2410.07076; MIT License): its items and candidate corpora.

The data is vendored in ``bench/data/moose_chem/`` (see its README: source commit, licence, what was kept).
An item is a chemistry paper published in 2024 with its research question, a background survey, the 1-3
papers that inspired it (by title) and its main hypothesis (the ground truth). A corpus (150, 300 or 1,000
candidate inspiration papers, title and abstract) holds the true inspirations among distractors.

Corpus records get a stable synthetic id, ``mc-`` + sha256(normalised title)[:10], and URL
``https://moose-chem.invalid/paper/<id>`` (``.invalid`` never resolves, RFC 2606), so the same paper has the
same id in every corpus size and a hypothesis citation (a URL) maps back to a paper id. Titles are
normalised by lower-casing and collapsing every run of non-alphanumerics to one space: with it all 116
inspiration titles of the 34 items match a corpus record (the source README: 109 match on lower-casing alone).
Records with the same normalised title are one paper (kept once, first abstract).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cosci.errors import CosciError
from cosci.paths import moose_chem_dir

CORPUS_SIZES = (150, 300, 1000)
URL_PREFIX = "https://moose-chem.invalid/paper/"
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


class BenchmarkError(CosciError):
    """Bad benchmark arguments (unknown item id, corpus size); ``str(err)`` is one line."""


@dataclass(frozen=True)
class Item:
    """One benchmark item: ``inspiration_titles`` (1-3) and ``main_hypothesis`` are the ground truth."""

    id: str
    title: str
    date: str
    background_question: str
    background_survey: str
    inspiration_titles: tuple[str, ...]
    main_hypothesis: str


@dataclass(frozen=True)
class CorpusPaper:
    """A candidate inspiration paper with its synthetic ``id`` and ``url``."""

    id: str
    title: str
    abstract: str

    @property
    def url(self) -> str:
        return URL_PREFIX + self.id


def normalise_title(title: str) -> str:
    """Lower-cased, every run of non-alphanumeric characters one space, stripped."""
    return _NON_ALNUM.sub(" ", title.lower()).strip()


def paper_id(title: str) -> str:
    """The stable synthetic id of a paper: ``mc-`` + sha256(normalised title)[:10]."""
    return "mc-" + hashlib.sha256(normalise_title(title).encode()).hexdigest()[:10]


def id_of_url(url: str) -> str | None:
    """The record id a synthetic URL names (trailing punctuation and slashes ignored), else None."""
    url = url.strip().rstrip("/.,;)")
    if not url.startswith(URL_PREFIX):
        return None
    rid = url[len(URL_PREFIX):]
    return rid if re.fullmatch(r"mc-[0-9a-f]{10}", rid) else None


def _jsonl(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_items(select: str | None = None, root: Path | None = None) -> list[Item]:
    """The benchmark items, in file order.

    Args:
        select: ``None`` (all 34), a count ``"N"`` (the first N), or comma-separated ids (``moose-00,moose-03``).
        root: the data folder (default: the vendored copy).

    Raises:
        BenchmarkError: a count outside 1..34 or an unknown id.
    """
    rows = _jsonl((root or moose_chem_dir()) / "items.jsonl")
    items = [Item(id=str(r["id"]), title=str(r["title"]), date=str(r["date"]),
                  background_question=str(r["background_question"]),
                  background_survey=str(r["background_survey"]),
                  inspiration_titles=tuple(str(t) for t in r["inspiration_titles"]),  # type: ignore[attr-defined]
                  main_hypothesis=str(r["main_hypothesis"])) for r in rows]
    if select is None or not select.strip():
        return items
    if select.strip().isdigit():
        n = int(select)
        if not 1 <= n <= len(items):
            raise BenchmarkError(f"--items: {n} is outside 1..{len(items)}")
        return items[:n]
    by_id = {i.id: i for i in items}
    wanted = [s.strip() for s in select.split(",") if s.strip()]
    unknown = [w for w in wanted if w not in by_id]
    if unknown:
        raise BenchmarkError(f"--items: unknown item id {unknown[0]!r} (known: {items[0].id}, {items[1].id}, "
                             f"... {items[-1].id}; see bench/data/moose_chem/items.jsonl)")
    return [by_id[w] for w in wanted]


def load_corpus(size: int, root: Path | None = None) -> list[CorpusPaper]:
    """The candidate corpus of ``size`` records (duplicates by normalised title kept once).

    Raises:
        BenchmarkError: ``size`` is not 150, 300 or 1000.
    """
    if size not in CORPUS_SIZES:
        raise BenchmarkError(f"--corpus: {size} is not one of {', '.join(map(str, CORPUS_SIZES))}")
    seen: dict[str, CorpusPaper] = {}
    for r in _jsonl((root or moose_chem_dir()) / f"corpus_{size}.jsonl"):
        title = str(r.get("title") or "")
        rid = paper_id(title)
        if title and rid not in seen:
            seen[rid] = CorpusPaper(id=rid, title=title, abstract=str(r.get("abstract") or ""))
    return list(seen.values())


def write_corpus(records: Sequence[CorpusPaper], path: Path) -> Path:
    """Write ``records`` as a local corpus JSONL (``id``, ``title``, ``abstract``, ``url``) for
    ``session.corpus_path``; returns ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps({"id": r.id, "title": r.title, "abstract": r.abstract, "url": r.url}) + "\n")
    return path


def inspiration_ids(item: Item, corpus: Sequence[CorpusPaper]) -> tuple[str, ...]:
    """Record ids of the item's true inspirations that are in ``corpus`` (each found once, in item order)."""
    present = {r.id for r in corpus}
    return tuple(dict.fromkeys(rid for t in item.inspiration_titles if (rid := paper_id(t)) in present))
