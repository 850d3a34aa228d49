"""Build the labelled excerpt set in ``tests/data/excerpts/`` from real abstracts (run once; the output is
committed, the hand-written rows in ``hand.jsonl`` are kept as they are).

    python -m bench.excerpt_set [--fixtures DIR]   # DIR: the recorded API bodies (default: the workspace's
                                                   # shared/fixtures beside the repository)

Sources: every abstract or paragraph of the recorded API bodies (PubMed efetch, Europe PMC search and full
text, arXiv, Crossref, ClinicalTrials.gov) and every tenth abstract of the vendored MOOSE-Chem corpus
(``bench/data/moose_chem/corpus_1000.jsonl``). For each chosen sentence: the sentence itself (``verbatim``) and
its variants (:mod:`bench.excerpt_variants`); per source an invented sentence and a sentence of another
source. A negative variant that still reads as a passage of its source is discarded. The split is by source
(``tune`` for about a third, ``report`` for the rest), so no sentence is in both.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import random
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

from bench import excerpt_variants as v

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "excerpts"
CORPUS = ROOT / "bench" / "data" / "moose_chem" / "corpus_1000.jsonl"
POSITIVE = {"verbatim": v.verbatim, "truncated": v.truncated, "whitespace": v.whitespace, "case": v.case,
            "unicode": v.unicode_forms, "hyphenation": v.hyphenation, "spelling": v.spelling,
            "ellipsis": v.ellipsis, "citation_marker": v.citation_marker}
NEGATIVE = {"number": v.number, "unit": v.unit, "negation": v.negation, "direction": v.direction,
            "hedge": v.hedge}
LISTS = {
    "organism": "mice mouse rats rat humans zebrafish yeast bacteria Drosophila nematodes primates dogs pigs fish "
                "plants Arabidopsis rabbits sheep cattle chickens",
    "cell": "fibroblasts macrophages neurons hepatocytes keratinocytes lymphocytes monocytes blasts spermatozoa "
            "oocytes erythrocytes platelets neutrophils astrocytes myocytes adipocytes osteoblasts cardiomyocytes",
    "drug": "pembrolizumab abexinostat nivolumab metformin cisplatin doxorubicin paclitaxel tamoxifen imatinib "
            "rituximab venetoclax azacitidine cytarabine sorafenib gemcitabine",
    "element": "copper iron zinc gold silver platinum palladium nickel cobalt lithium sodium potassium carbon "
               "nitrogen oxygen hydrogen sulfur titanium manganese magnesium calcium aluminum silicon",
    "material": "graphene silica zeolite perovskite polymer hydrogel nanotubes nanoparticles nanosheets "
                "electrolyte cathode anode membrane catalyst crystals",
}
CHEMICAL = re.compile(r"^[a-z]{3,}(?:ide|ine|ene|ane|yne|ol|ium|ose|ase|amide|azole)$")
NOT_CHEMICAL = set(v.words(
    """determine examine combine define decline machine provide inside outside side wide guide routine
online baseline decide medium premium equilibrium minimum maximum potential control protocol alcohol
purpose close dose those whose propose suppose expose alone done none tone zone bone phase release
increase decrease base case genuine pristine doctrine discipline medicine engine divine fine line
mine nine shine spine vaccine cuisine marine feminine masculine magazine framework hole role pole
whole console"""
))
SYMBOL = re.compile(r"^(?=.*\d)(?=.*[A-Z])[A-Za-z0-9]{2,10}[+-]?$")
ACRONYM = re.compile(r"^[A-Z]{2,6}s?$")


def classify(word: str) -> str | None:
    """The entity class of a word as written, for choosing a swap of the same class."""
    for cls, names in LISTS.items():
        if word.lower() in names.lower().split():
            return cls
    if SYMBOL.match(word):
        return "symbol"
    if ACRONYM.match(word) and word not in ("II", "III", "IV", "VI", "OR", "AND"):
        return "acronym"
    if CHEMICAL.match(word) and word not in NOT_CHEMICAL:
        return "chemical"
    return None


def plain(html_text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", html_text)).split())


def _literature(root: Path) -> Iterator[tuple[str, str, str]]:
    for i, a in enumerate(ET.parse(root / "pubmed" / "efetch.xml").iter("Abstract")):
        yield f"pubmed-{i}", "pubmed/efetch.xml", " ".join("".join(a.itertext()).split())
    for i, r in enumerate(json.loads((root / "europepmc" / "search_core.json").read_text())["resultList"]["result"]):
        if r.get("abstractText"):
            yield f"europepmc-{i}", "europepmc/search_core.json", plain(r["abstractText"])
    for f in sorted((root / "europepmc_fulltext").glob("fulltextxml_*.xml")):
        paragraphs = [" ".join("".join(p.itertext()).split()) for p in ET.parse(f).iter("p")]
        for i, p in enumerate(x for x in paragraphs if len(x) >= 300):
            yield f"{f.stem}-{i}", f"europepmc_fulltext/{f.name}", p


def _preprints_and_trials(root: Path) -> Iterator[tuple[str, str, str]]:
    atom = "{http://www.w3.org/2005/Atom}"
    for i, e in enumerate(ET.parse(root / "arxiv" / "query.xml").getroot().iter(f"{atom}entry")):
        yield f"arxiv-{i}", "arxiv/query.xml", " ".join((e.findtext(f"{atom}summary") or "").split())
    items = json.loads((root / "crossref" / "works_query_ecology_rows2.json").read_text())["message"]["items"]
    for i, it in enumerate(items):
        if it.get("abstract"):
            yield f"crossref-{i}", "crossref/works_query_ecology_rows2.json", plain(it["abstract"])
    trials = json.loads((root / "clinicaltrials" / "search_query_intr_keytruda_fields_limit3.json").read_text())
    studies = [*trials["studies"], json.loads((root / "clinicaltrials" / "study_NCT00184067.json").read_text())]
    for i, s in enumerate(studies):
        text = s["protocolSection"].get("descriptionModule", {}).get("briefSummary", "")
        if text:
            yield f"clinicaltrials-{i}", "clinicaltrials/*.json briefSummary", " ".join(text.split())


def fixture_sources(root: Path) -> Iterator[tuple[str, str, str]]:
    """``(id, origin, text)`` of each abstract or long paragraph in the recorded bodies."""
    yield from _literature(root)
    yield from _preprints_and_trials(root)


def corpus_sources(every: int = 10) -> Iterator[tuple[str, str, str]]:
    for i, line in enumerate(CORPUS.read_text(encoding="utf-8").splitlines()):
        if i % every == 0:
            rec = json.loads(line)
            yield f"moose-{i}", "bench/data/moose_chem/corpus_1000.jsonl", " ".join(rec["abstract"].split())


INTERESTING = re.compile(r"\d\s?(?:%|[a-zA-Zµμ°]{1,3}\b)|\b(?:may|might|could|suggests?|likely|potential|not|no|"
                         r"without|never)\b")
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


def sentences(text: str) -> list[str]:
    out = [s.strip() for s in SENTENCE.split(text)]
    return [s for s in out if 8 <= len(s.split()) <= 45 and not re.search(r"(et al|e\.g|i\.e|Fig)\.$", s)]


def flat(s: str) -> str:
    return " ".join(re.sub(r"[^\w%]+", " ", s.lower()).split())


def invented(rng: random.Random, pool: dict[str, list[str]]) -> str:
    a, b = rng.choice(pool["chemical"] or ["the compound"]), rng.choice(pool["material"])
    verb = rng.choice(["increased", "reduced", "doubled", "abolished"])
    return (f"In a randomized trial, {a} {verb} the activity of the {b} by {rng.randint(11, 95)} percent "
            f"within {rng.randint(2, 48)} hours in {rng.choice(pool['organism'])}.")


def rows_for(src: str, text: str, rng: random.Random, pool: dict[str, list[str]],
             others: list[str]) -> Iterator[dict[str, str | None]]:
    picked = sentences(text)
    rng.shuffle(picked)
    picked.sort(key=lambda x: -len(INTERESTING.findall(x)))  # numbers, units, hedges, negations first
    for n, sent in enumerate(picked[:4]):
        base = f"{src}/s{n}"
        yield {"id": f"{base}/verbatim", "excerpt": sent, "label": "verify", "kind": "verbatim", "pair": None,
               "detail": "the sentence as written"}
        for kind, make in {**POSITIVE, **NEGATIVE, "entity": None}.items():
            if kind == "verbatim":
                continue
            out = v.entity(sent, rng, pool, classify) if kind == "entity" else make(sent, rng)
            if out is None:
                continue
            excerpt, detail = out
            negative = kind in NEGATIVE or kind == "entity"
            if negative and (flat(excerpt) in flat(text) or flat(excerpt) == flat(sent)):
                continue
            yield {"id": f"{base}/{kind}", "excerpt": excerpt, "label": "reject" if negative else "verify",
                   "kind": kind, "pair": f"{base}/verbatim" if negative else None, "detail": detail}
    yield {"id": f"{src}/invented", "excerpt": invented(rng, pool), "label": "reject", "kind": "invented",
           "pair": None, "detail": "a sentence made from the set's vocabulary"}
    other = next((s for o in others for s in sentences(o) if flat(s) not in flat(text)), None)
    if other:
        yield {"id": f"{src}/other_abstract", "excerpt": other, "label": "reject", "kind": "other_abstract",
               "pair": None, "detail": "a sentence of another source"}


def build(fixtures: Path) -> tuple[list[dict[str, str]], list[dict[str, str | None]]]:
    sources = [{"id": i, "origin": o, "text": t} for i, o, t in [*fixture_sources(fixtures), *corpus_sources()]]
    pool: dict[str, list[str]] = {cls: sorted(set(n.split())) for cls, n in LISTS.items()} | {
        "symbol": [], "acronym": [], "chemical": []}
    for s in sources:
        for w in re.findall(r"[A-Za-z0-9][\w+/-]*[\w+]", s["text"]):
            cls = classify(w)
            if cls and w not in pool[cls]:
                pool[cls].append(w)
    rows = []
    for k, s in enumerate(sources):
        rng = random.Random(f"excerpts:{s['id']}")
        others = [sources[(k + d) % len(sources)]["text"] for d in (7, 13, 29)]
        split = "tune" if int(hashlib.sha256(s["id"].encode()).hexdigest(), 16) % 3 == 0 else "report"
        for row in rows_for(s["id"], s["text"], rng, pool, others):
            rows.append({**row, "source": s["id"], "split": split, "made": "program"})
    return sources, rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fixtures", type=Path, default=next((p for p in (ROOT.parent / "shared" / "fixtures",
                                                                       ROOT.parents[1] / "shared" / "fixtures")
                                                           if p.is_dir()), None))
    args = ap.parse_args(argv)
    if args.fixtures is None:
        print("no fixtures folder: pass --fixtures DIR", file=sys.stderr)
        return 2
    sources, rows = build(args.fixtures)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "sources.jsonl").write_text("".join(json.dumps(s, ensure_ascii=False) + "\n" for s in sources), "utf-8")
    (OUT / "rows.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"{len(sources)} sources, {len(rows)} rows -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
