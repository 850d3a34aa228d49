"""The offline screen's costs: the term lists' RE2 guard (``cosci/safety/guard.py``), never narrower than the
lists, and what it saves; the intent model's part of a call.

``python -m bench.screen_guard`` prints, in one run:

- **widening**: for every term list of the shipped screen and every window of every labelled safety text
  (``tests/data/safety/*.jsonl``) and of the 134 recorded abstracts (``tests/data/excerpts/sources.jsonl``), the
  windows the exact Python alternation matches and the guard does not (must be 0: the guard may only widen), and how
  often the guard matches where the alternation does not (the share asked twice);
- **cost**: CPU seconds of the offline screen over the abstracts read as hypotheses (``subject="hypothesis"``, the
  screen of every new hypothesis in a session), with the guard, with the guard at RE2's default memory budget (8 MB,
  as before the twentieth stop: ``guard.GUARD_MEMORY``) and without it, interleaved over ``--rounds`` rounds, the
  median of each and their ratio; the same for every ``--every``-th labelled text read as a goal (one round); and
  whether every decision, rule and score is the same every way (``--cost-only``: this part alone);
- **intent model**: ms of CPU of the model's part of a call of two windows, its training rows kept as float32 or
  converted on every call (:func:`model_cost`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.safety import _config
from cosci.safety.guard import fast_guard, finds_nothing
from cosci.safety.intent import IntentModel
from cosci.safety.prescreen import Terms
from cosci.safety.screen import OfflineScreen, screen_for
from cosci.safety.text import normalise, sentences, windows

ROOT = Path(__file__).resolve().parents[1]
SAFETY = ROOT / "tests" / "data" / "safety"
ABSTRACTS = ROOT / "tests" / "data" / "excerpts" / "sources.jsonl"
DEFAULT_MEMORY = 8 << 20
"""RE2's own memory budget (bytes), the guard's before the twentieth stop."""


def term_lists(node: object, depth: int = 0) -> Iterator[Terms]:
    """Every :class:`Terms` reachable from ``node`` (the prescreen's fields, dicts of them)."""
    if isinstance(node, Terms):
        yield node
    elif depth < 4 and isinstance(node, dict):
        for value in node.values():
            yield from term_lists(value, depth + 1)
    elif depth < 4 and hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            yield from term_lists(getattr(node, name), depth + 1)


def safety_texts() -> list[str]:
    """The ``text`` of every labelled row under tests/data/safety."""
    out = []
    for path in sorted(SAFETY.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if isinstance(row.get("text"), str):
                out.append(row["text"])
    return out


def abstracts() -> list[str]:
    return [json.loads(line)["text"] for line in ABSTRACTS.read_text(encoding="utf-8").splitlines() if line.strip()]


def widening(lists: list[Terms], texts: list[str]) -> dict[str, int]:
    """Windows the exact alternation matches and the guard does not (``narrower``), and the reverse (``wider``)."""
    parts = list(dict.fromkeys(p for t in texts for n in [normalise(t)] for p in [n, *windows(n), *sentences(n)]))
    narrower = wider = both = asked = 0
    for terms in lists:
        if terms.fast is None or terms.any_of is None:
            continue
        for part in parts:
            exact, fast = terms.any_of.search(part) is not None, not finds_nothing(terms.fast, part)
            asked += 1
            narrower += exact and not fast
            wider += fast and not exact
            both += exact and fast
    return {"lists": len(lists), "guarded": sum(t.fast is not None for t in lists), "windows": len(parts),
            "asked": asked, "narrower": narrower, "wider": wider, "both": both}


ARMS = ("on", "default memory", "off")
"""The guards a cost is measured with: the shipped ones, the same at RE2's default budget, none."""


def _guards(lists: list[Terms], arm: str, kept: dict[tuple[int, str], object]) -> None:
    for terms in lists:
        if (id(terms), "on") not in kept:
            kept[id(terms), "on"] = terms.fast
            kept[id(terms), "default memory"] = fast_guard(terms.patterns, memory=DEFAULT_MEMORY)
            kept[id(terms), "off"] = None
        object.__setattr__(terms, "fast", kept[id(terms), arm])
        terms._recent.clear()


@dataclass(frozen=True)
class Cost:
    """CPU seconds (medians over ``rounds``) of screening ``texts`` with the guard, with it at RE2's default memory
    (``default``) and without it."""

    texts: int
    rounds: int
    on: float
    default: float
    off: float
    same: bool


def cost(screen: OfflineScreen, lists: list[Terms], texts: list[str], rounds: int, subject: str) -> Cost:
    """CPU seconds of screening ``texts`` as ``subject`` with each of :data:`ARMS`, interleaved after one untimed
    pass; ``same``: every decision, rule and score equal every way."""
    kept: dict[tuple[int, str], object] = {}
    seconds: dict[str, list[float]] = {arm: [] for arm in ARMS}
    results: dict[str, list[tuple[str, str | None, float]]] = {}
    for t in texts:  # the embeddings, kept per text, are computed once before any arm is timed
        screen.check(t, subject=subject)
    for _ in range(rounds):
        for arm in ARMS:
            _guards(lists, arm, kept)
            start = time.process_time()
            out = [screen.check(t, subject=subject) for t in texts]
            seconds[arm].append(time.process_time() - start)
            results[arm] = [(r.decision, r.rule, round(r.score, 9)) for r in out]
    _guards(lists, "on", kept)
    on, default, off = (statistics.median(seconds[arm]) for arm in ARMS)
    return Cost(len(texts), rounds, on, default, off, results["on"] == results["default memory"] == results["off"])


def _line(name: str, c: Cost) -> str:
    return (f"{name}: {c.texts} texts, median of {c.rounds} interleaved rounds: with the guard {c.on:.2f} s CPU "
            f"({1000 * c.on / c.texts:.1f} ms a text), at RE2's default memory {c.default:.2f} s "
            f"({1000 * c.default / c.texts:.1f} ms), without {c.off:.2f} s ({1000 * c.off / c.texts:.1f} ms); "
            f"ratio {c.on / c.off:.2f}; decisions, rules and scores the same: {c.same}")


def search_cost(lists: list[Terms], texts: list[str], windows_kept: int = 600) -> dict[str, float]:
    """µs of CPU a search of one window by one list: Python's alternation, the guard, and the guard with exact
    Unicode word classes for ``\\w`` (``[\\pL\\pM\\pN_]``, the variant not adopted); the first ``windows_kept``
    windows of ``texts``, each guard warmed once (RE2 builds its automaton as it reads), over the lists whose
    exact-class guard RE2 compiles within its default memory (``lists``: how many)."""
    parts = [w for t in texts for w in windows(normalise(t))][:windows_kept]
    exact = [fast_guard(t.patterns, word="[\\pL\\pM\\pN_]") for t in lists]
    kept = [i for i, g in enumerate(exact) if g is not None]  # the lists whose exact-class guard RE2 compiles
    arms = {"python": [lists[i].any_of for i in kept], "guard": [lists[i].fast for i in kept],
            "exact_words": [exact[i] for i in kept]}
    out = {"lists": float(len(kept))}
    for name, guards in arms.items():
        for g in guards:
            for part in parts:
                g.search(part)  # type: ignore[union-attr]
        start = time.process_time()
        for g in guards:
            for part in parts:
                g.search(part)  # type: ignore[union-attr]
        out[name] = 1e6 * (time.process_time() - start) / (len(guards) * len(parts))
    return out


def model_cost(model: IntentModel, calls: int = 100, rounds: int = 5) -> tuple[float, float]:
    """ms of CPU of the intent model's part of one call of two windows (harm and support), with the training rows
    kept as float32 (the shipped code) and converted on every call (as before the sixteenth stop), interleaved over
    ``rounds``: the medians ``(kept, converted)``."""
    x = np.random.default_rng(0).standard_normal((2, 384)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    seconds: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(rounds):
        for kept in (True, False):
            start = time.process_time()
            for _ in range(calls):
                if not kept:
                    model.__dict__.pop("_rows", None)  # made again, as every call made it before
                model.harm(x)
                model.support(x)
            seconds[kept].append(1000 * (time.process_time() - start) / calls)
    return statistics.median(seconds[True]), statistics.median(seconds[False])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.screen_guard", description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the cost (default 3)")
    parser.add_argument("--every", type=int, default=20, help="every Nth labelled text screened as a goal both ways")
    parser.add_argument("--cost-only", action="store_true", help="the cost lines alone (the widening's check of every "
                        "labelled window takes minutes of CPU)")
    args = parser.parse_args(argv)
    screen = screen_for(_config().safety)
    assert isinstance(screen, OfflineScreen)
    lists = list({id(t): t for t in term_lists(screen.prescreen)}.values())
    screen.check("a warm-up goal about measles vaccine stability", subject="goal")
    if args.cost_only:
        hyp = cost(screen, lists, abstracts(), args.rounds, "hypothesis")
        print(_line("cost, the abstracts read as hypotheses", hyp))
        goals = cost(screen, lists, safety_texts()[::args.every], 1, "goal")
        print(_line(f"cost, every {args.every}th labelled text read as a goal", goals))
        return 0 if hyp.same and goals.same else 1
    w = widening(lists, [*safety_texts(), *abstracts()])
    print(f"widening: {w['guarded']} of {w['lists']} term lists guarded; {w['windows']} windows, {w['asked']} asked; "
          f"narrower than the lists {w['narrower']} (must be 0); the lists match {w['both']}, the guard alone "
          f"{w['wider']} ({w['wider'] / max(w['asked'], 1):.1%} asked twice for nothing)")
    us = search_cost(lists, abstracts())
    print(f"search of a window by a list, µs of CPU, over the {us['lists']:.0f} of {len(lists)} lists whose guard "
          f"with exact Unicode word classes compiles: Python's alternation {us['python']:.1f}, the guard "
          f"{us['guard']:.1f}, that guard (not adopted) {us['exact_words']:.1f}")
    kept, converted = model_cost(screen.intent)
    print(f"intent model ({len(screen.intent.support_x)} training rows), one call of two windows, ms of CPU, median of "
          f"5 interleaved rounds of 100: rows kept as float32 {kept:.2f}, converted every call {converted:.2f}")
    hyp = cost(screen, lists, abstracts(), args.rounds, "hypothesis")
    print(_line("cost, the abstracts read as hypotheses", hyp))
    goals = cost(screen, lists, safety_texts()[::args.every], 1, "goal")
    print(_line(f"cost, every {args.every}th labelled text read as a goal", goals))
    return 0 if w["narrower"] == 0 and hyp.same and goals.same else 1

if __name__ == "__main__":
    raise SystemExit(main())
