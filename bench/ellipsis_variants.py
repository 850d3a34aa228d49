"""Ellipsis excerpts of real sentences for the labelled excerpt set (``tests/data/excerpts/ellipsis.jsonl``).

    python -m bench.ellipsis_variants                       # the committed rows (seed "report")
    python -m bench.ellipsis_variants --seed tune-1 --out /tmp/tune1.jsonl   # other variants, for tuning

Per chosen sentence of ``sources.jsonl`` (those with a negation, hedge, number or contrast marker first):

- *must not verify*: an ellipsis over a gap of 1-12 words that holds the sentence's negation
  (``ellipsis_negation``), hedge (``ellipsis_hedge``), a number qualifying the claim outside brackets
  (``ellipsis_number``) or a contrast marker (``ellipsis_contrast``); the start of one sentence joined to the end
  of the next (``ellipsis_splice``);
- *should verify*: a gap that leaves out a parenthetical or bracketed citation (``ellipsis_parenthetical``), the
  middle items of a list (``ellipsis_list``), adjectives (``ellipsis_adjective``), or 1-12 other words
  (``ellipsis_plain``), none of which holds a negation, hedge, qualifying number or contrast marker.

Edge gaps (ids ``…/lead…``, ``…/trail…``; their own random stream, so the rows above do not depend on them): an
ellipsis mark opening the quote over the sentence's first 1-12 words, or closing it over its last 1-12, labelled
by the same rule (``ellipsis_<class>`` when the gap hides one, else ``ellipsis_plain``).

The word classes are this module's own lists, written from the rule of ``docs/design.md#excerpt-verification``;
nothing here imports :mod:`cosci.grounding`. The split is the excerpt set's (by a hash of the source id).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from bench.excerpt_set import OUT, sentences

WORD = re.compile(r"\S+")
NEGATION = re.compile(r"^(?:not|no|never|without|cannot|neither|nor|none|nothing|nobody|fail|fails|failed|failure|"
                      r"failing|devoid|lack|lacks|"
                      r"lacked|lacking|absence|absent|unable|inability|hardly|barely|rarely|seldom|little|deficient|deficiency|"
                      r"null|\w+n't|"
                      r"(?:non|un|in|im)-?(?:significant(?:ly)?|changed|altered|affected|effective|detectable|"
                      r"detected|responsive|successful|related|correlated|associated|active|sufficient|"
                      r"consistent|possible|feasible|safe|tolerated))$", re.I)
HEDGE = re.compile(r"^(?:may|might|could|possibly|possible|potential(?:ly)?|likely|unlikely|suggests?|suggested|"
                   r"suggesting|suggestive|appears?|appeared|seems?|seemed|putative|presumably|perhaps|probabl[ey]|"
                   r"indicates?|indicated|hypothesi[sz]ed?|hypothesis|tends?|partially|partly|speculative|"
                   r"preliminary|apparently|plausibly|conceivably|tentative(?:ly)?|presumed|postulated|marginally|unclear|"
                   r"uncertain)$", re.I)
CONTRAST = re.compile(r"^(?:but|although|though|whereas|however|while|whilst|yet|despite|nevertheless|nonetheless|"
                      r"conversely|unlike|except|unless|instead|albeit)$", re.I)
QUANTITY = re.compile(r"^[<>≤≥~±]?[−-]?\d(?![\d.,/]*[A-Za-z]{0,3}[-‐][A-Za-z]{3,})"
                      r"(?!.*(?:fold|year|week|day|hour|month)s?\b)|"
                      r"^[<>≤≥~±]?[−-]?\d[\d.,/]*[-‐](?:fold|year|week|day|hour|month)", re.I)
ADJECTIVE = re.compile(r"^[a-z]{4,}(?:al|ive|ous|ic|ical|ary|ible|able|ular|ent|ant|ed)$")
KINDS_REJECT = ("ellipsis_negation", "ellipsis_hedge", "ellipsis_number", "ellipsis_contrast", "ellipsis_splice")
MARKS = (" ... ", " … ", " [...] ", "... ", " (...) ")


def _bare(w: str) -> str:
    return w.strip(".,;:!?\"'“”‘’")


def _depths(ws: list[str]) -> list[int]:
    """Bracket depth of each word (a word starting with a bracket counts as inside it)."""
    out, depth = [], 0
    for w in ws:
        out.append(depth + w.startswith(("(", "[")))
        depth = max(0, depth + w.count("(") + w.count("[") - w.count(")") - w.count("]"))
    return out


def word_class(w: str, inside: bool) -> str | None:
    """The class of one written word that an ellipsis must not leave out, or None."""
    b = _bare(w).strip("()[]")
    if NEGATION.match(b):
        return "negation"
    if HEDGE.match(b):
        return "hedge"
    if CONTRAST.match(b):
        return "contrast"
    if not inside and QUANTITY.match(b) and not re.match(r"^(19|20)\d\d$", b) and not re.search(r"[)\]]\d", w):
        return "number"
    return None


def hides(ws: list[str], a: int, b: int) -> str | None:
    """The first class the words ``ws[a:b]`` hold that the kept words do not (a negation: always)."""
    depth = _depths(ws)
    kept = {p for w in ws[:a] + ws[b:] for p in re.findall(r"[\w.]+", w.lower())} | {
        _bare(w).lower() for w in ws[:a] + ws[b:]}
    for i in range(a, b):
        cls = word_class(ws[i], depth[i] > 0) if not (ws[i].startswith("May") and i) else None  # the month
        low = _bare(ws[i]).lower()
        idiom = low == "but" and i + 1 < len(ws) and _bare(ws[i + 1]).lower() == "also"
        if cls and not idiom and (cls == "negation" or low not in kept):
            return cls
    return None


def _cut(s: str, ws: list[re.Match[str]], a: int, b: int, rng: random.Random) -> str:
    """``s`` with words ``a`` to ``b - 1`` replaced by an ellipsis mark."""
    return s[: ws[a - 1].end()] + rng.choice(MARKS) + s[ws[b].start():]


def _gap_around(i: int, n: int, rng: random.Random) -> tuple[int, int] | None:
    """A gap ``[a, b)`` of 1-12 words holding word ``i``, with 2+ words before it and 1+ after."""
    for _ in range(20):
        length = rng.randint(1, 12)
        a = rng.randint(max(2, i - length + 1), max(2, i))
        b = min(a + length, n - 1)
        if a <= i < b and a >= 2 and b - a >= 1 and a + (n - b) >= 4:
            return a, b
    return None


def _reads_through(ws: list[str], a: int, b: int) -> bool:
    """Whether the kept words also read as one passage of the sentence (the gap then hides nothing)."""
    flat = " ".join(ws).lower()
    return " ".join(ws[:a] + ws[b:]).lower() in flat or " ".join(ws[a - 2:a] + ws[b:b + 1]).lower() in flat


def hidden(cls: str) -> Callable[[str, random.Random], tuple[str, str] | None]:
    """A variant whose gap hides a word of ``cls``."""
    def make(s: str, rng: random.Random) -> tuple[str, str] | None:
        ws = list(WORD.finditer(s))
        words = [m.group(0) for m in ws]
        depth = _depths(words)
        where = [i for i, w in enumerate(words) if word_class(w, depth[i] > 0) == cls and 2 <= i < len(ws) - 1]
        rng.shuffle(where)
        for i in where:
            gap = _gap_around(i, len(ws), rng)
            if gap and hides(words, *gap) == cls and not _reads_through(words, *gap):
                return _cut(s, ws, *gap, rng), f"left out '{' '.join(words[gap[0]:gap[1]])}' ({cls})"
        return None
    return make


def _preserving(s: str, rng: random.Random, gaps: list[tuple[int, int]], what: str) -> tuple[str, str] | None:
    ws = list(WORD.finditer(s))
    words = [m.group(0) for m in ws]
    ok = [(a, b) for a, b in gaps if a >= 2 and b <= len(ws) - 1 and a + len(ws) - b >= 4 and not hides(words, a, b)]
    if not ok:
        return None
    a, b = rng.choice(ok)
    return _cut(s, ws, a, b, rng), f"left out '{' '.join(words[a:b])}' ({what})"


def parenthetical(s: str, rng: random.Random) -> tuple[str, str] | None:
    words = [m.group(0) for m in WORD.finditer(s)]
    gaps, start = [], None
    for i, w in enumerate(words):
        if w.startswith(("(", "[")) and start is None:
            start = i
        if start is not None and (w.rstrip(".,;:").endswith((")", "]"))):
            if i - start < 12:
                gaps.append((start, i + 1))
            start = None
    return _preserving(s, rng, gaps, "parenthetical")


def listed(s: str, rng: random.Random) -> tuple[str, str] | None:
    words = [m.group(0) for m in WORD.finditer(s)]
    commas = [i for i, w in enumerate(words) if w.endswith(",")]
    gaps = [(commas[k] + 1, commas[k + 1] + 1) for k in range(len(commas) - 1)
            if commas[k + 1] - commas[k] <= 4
            and any(w in ("and", "or") for w in words[commas[k + 1]:commas[k + 1] + 4])]
    return _preserving(s, rng, gaps, "list items")


def adjective(s: str, rng: random.Random) -> tuple[str, str] | None:
    words = [m.group(0) for m in WORD.finditer(s)]
    gaps = [(i, i + 1) for i, w in enumerate(words[:-1]) if ADJECTIVE.match(w) and re.match(r"^[a-z]", words[i + 1])]
    gaps += [(a, b + 1) for a, b in zip([g[0] for g in gaps], [g[0] + 1 for g in gaps], strict=True)
             if b < len(words) - 1 and ADJECTIVE.match(words[b].rstrip(","))]
    return _preserving(s, rng, gaps, "adjectives")


def plain(s: str, rng: random.Random) -> tuple[str, str] | None:
    n = len(WORD.findall(s))
    gaps = [(a, a + k) for a in range(2, n - 1) for k in range(1, 13) if a + k <= n - 1]
    rng.shuffle(gaps)
    return _preserving(s, rng, gaps[:40], "other words")


def splice(first: str, second: str, rng: random.Random) -> tuple[str, str] | None:
    a = WORD.findall(first)
    b = WORD.findall(re.sub(r"\s*[(\[][^()\[\]]*[)\]]\s*(?=[.;]?$)", "", second))  # no trailing citation
    if len(a) < 6 or len(b) < 6:
        return None
    k, m = rng.randint(3, len(a) - 2), rng.randint(3, len(b) - 2)
    if " ".join(a[:k]).lower() in second.lower():
        return None  # the start reads on into the next sentence: no splice
    return " ".join(a[:k]) + rng.choice(MARKS) + " ".join(b[-m:]), f"first {k} words + last {m} of the next sentence"


def edges(s: str, rng: random.Random) -> Iterator[tuple[str, str, str]]:
    """``(kind, excerpt, detail)``: up to two edge gaps of a sentence (module docstring), one opening, one closing,
    each preferring a gap that hides a class (a word of one within the edge's 12 words) when there is one."""
    ws = list(WORD.finditer(s))
    words, n = [m.group(0) for m in ws], len(ws)
    depth = _depths(words)
    for side in ("lead", "trail"):
        near = [i for i in range(n) if word_class(words[i], depth[i] > 0) and (i < 12 if side == "lead" else
                                                                                n - i <= 12)]
        i = rng.choice(near) if near and rng.random() < 0.6 else None
        for _ in range(20):
            length = rng.randint(1, 12)
            a, b = (0, length) if side == "lead" else (n - length, n)
            if i is not None:
                a, b = (0, max(b, i + 1)) if side == "lead" else (min(a, i), n)
            if n - (b - a) < 5 or b - a > 12:
                continue
            cls = hides(words, a, b)
            mark = rng.choice(MARKS).strip()
            cut = (f"{mark} {s[ws[b].start():]}" if side == "lead" else f"{s[:ws[a - 1].end()].rstrip('.,;:')} {mark}")
            yield (f"ellipsis_{cls}" if cls else "ellipsis_plain", cut,
                   f"{side}: left out '{' '.join(words[a:b])}'" + (f" ({cls})" if cls else ""))
            break


VARIANTS = {"ellipsis_negation": hidden("negation"), "ellipsis_hedge": hidden("hedge"),
            "ellipsis_number": hidden("number"), "ellipsis_contrast": hidden("contrast"),
            "ellipsis_parenthetical": parenthetical, "ellipsis_list": listed, "ellipsis_adjective": adjective,
            "ellipsis_plain": plain}


def rows_for(src: str, text: str, rng: random.Random,
             edge_rng: random.Random | None = None) -> Iterator[dict[str, str]]:
    """The ellipsis rows of one source text (its edge gaps too when ``edge_rng`` is given)."""
    picked = sentences(text)
    interesting = [s for s in picked if any(word_class(w, False) for w in WORD.findall(s))]
    chosen = rng.sample(interesting, min(6, len(interesting)))
    for n, sent in enumerate(chosen):
        for kind, make in VARIANTS.items():
            out = make(sent, rng)
            if out:
                yield {"id": f"{src}/e{n}/{kind}", "excerpt": out[0], "kind": kind, "detail": out[1],
                       "label": "reject" if kind in KINDS_REJECT else "verify"}
    for n, sent in enumerate(chosen if edge_rng else []):
        for kind, excerpt, detail in edges(sent, edge_rng or rng):
            yield {"id": f"{src}/e{n}/{detail.split(':')[0]}", "excerpt": excerpt, "kind": kind, "detail": detail,
                   "label": "reject" if kind in KINDS_REJECT else "verify"}
    whole = [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text)]
    for n in range(min(3, len(whole) - 1)):
        k = rng.randrange(len(whole) - 1)
        out = splice(whole[k], whole[k + 1], rng)
        if out:
            yield {"id": f"{src}/splice{n}", "excerpt": out[0], "kind": "ellipsis_splice", "detail": out[1],
                   "label": "reject"}


GOVERNING = re.compile(r"^(?:may|might|could)$", re.I)


def relabel(rows: list[dict[str, str]]) -> int:
    """Label the programmatic ``ellipsis`` and ``truncated`` rows of ``rows.jsonl`` by what their cut leaves out:
    an ellipsis whose gap :func:`hides` a class becomes ``ellipsis_<class>`` (reject); a last-words truncation
    that starts just after a negation (within two words) or a modal hedge becomes ``cut_negation`` /
    ``cut_hedge`` (reject). Returns how many rows changed; rows already relabelled are left as they are."""
    sentence = {r["id"].rsplit("/", 1)[0]: r["excerpt"] for r in rows if r["kind"] == "verbatim"}
    changed = 0
    for r in rows:
        ws = WORD.findall(sentence.get(r["id"].rsplit("/", 1)[0], ""))
        m = re.match(r"words (\d+)-(\d+) left out$", r.get("detail") or "")
        if r["kind"] == "ellipsis" and m and (cls := hides(ws, int(m.group(1)) - 1, int(m.group(2)))):
            r.update(label="reject", kind=f"ellipsis_{cls}", detail=f"{r['detail']}; the gap holds a {cls}")
            changed += 1
        t = re.match(r"last (\d+) words$", r.get("detail") or "")
        if r["kind"] == "truncated" and t:
            at = len(ws) - int(t.group(1))
            before = [_bare(w) for w in ws[max(0, at - 2):at]]
            cls = ("negation" if any(NEGATION.match(w) for w in before) and before[-1:] != ["only"] else
                   "hedge" if before and GOVERNING.match(before[-1]) else None)
            if cls:
                after = " ".join(before)
                r.update(label="reject", kind=f"cut_{cls}", detail=f"{r['detail']}; it starts after '{after}'")
                changed += 1
    return changed


def build(seed: str) -> list[dict[str, str]]:
    rows = []
    for line in (OUT / "sources.jsonl").read_text("utf-8").splitlines():
        s = json.loads(line)
        split = "tune" if int(hashlib.sha256(s["id"].encode()).hexdigest(), 16) % 3 == 0 else "report"
        rng, edge_rng = random.Random(f"ellipsis:{seed}:{s['id']}"), random.Random(f"edges:{seed}:{s['id']}")
        rows += [{**r, "pair": None, "source": s["id"], "split": split, "made": "program"}
                 for r in rows_for(s["id"], s["text"], rng, edge_rng)]
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", default="report", help="variant seed (the committed rows: 'report')")
    ap.add_argument("--out", type=Path, default=OUT / "ellipsis.jsonl")
    ap.add_argument("--relabel", action="store_true", help="also relabel the ellipsis and truncated rows of "
                    "rows.jsonl (relabel)")
    args = ap.parse_args(argv)
    if args.relabel:
        path = OUT / "rows.jsonl"
        old = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
        n = relabel(old)
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in old), "utf-8")
        print(f"{n} rows of {path} relabelled")
    rows = build(args.seed)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    print(f"{len(rows)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
