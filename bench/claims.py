"""The claim checks that have a labelled set: the overclaim guards, and the support check on a model.

    python -m bench.claims                              # the guards on tests/data/claims/overclaims.jsonl
    python -m bench.claims --support local --n 24       # also the support check on models=local (any models
                                                        # config; a hosted one needs its key)

Guards: precision and recall of an ``overclaim`` hit per kind (``terms``: phrases the list is meant to catch;
``missed``: overclaims in words it does not list; ``hedged`` and ``near_miss``: calibrated sentences, some
with a listed word in another sense). The list was written before the set and not changed after measuring.

Support: ``--n`` (claim, source) pairs from the reported part of the labelled excerpt set, a quarter of each
label: the sentence as written (``supported``); one number, unit, negation or direction word changed
(``contradicted``); its hedge removed (``partially_supported``: stated more strongly than the source); a
sentence of another source (``not_supported``). Each pair goes through the session's own path
(:func:`cosci.agents.claim_check.claim_check_prompt`, ``record_claim_checks``, :func:`cosci.grounding.support.apply`),
batched as in a session. Reported per label: the model's raw verdict accuracy, and the status cosci records
(``supported`` only with a quote of the source; on a schema-constrained model every verdict is kept as a note
and the claim is ``unchecked`` unless ``metareview.claim_check_constrained_verdicts``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from bench.grounding import DATA, load
from cosci.grounding.guards import load_guards

CLAIMS = Path(__file__).resolve().parents[1] / "tests" / "data" / "claims" / "overclaims.jsonl"
SUPPORT_LABELS = {"verbatim": "supported", "number": "contradicted", "unit": "contradicted",
                  "negation": "contradicted", "direction": "contradicted", "hedge": "partially_supported",
                  "other_abstract": "not_supported"}


def guards_table() -> list[str]:
    guards = load_guards("overclaim_terms.yaml")
    rows = [json.loads(line) for line in CLAIMS.read_text("utf-8").splitlines() if line.strip()]
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        hit, positive = bool(guards.hits(r["claim"])), r["label"] == "overclaim"
        kinds[r["kind"]].update({"rows": 1, "hits": hit, "true": hit and positive})
        kinds["overall"].update({"rows": 1, "hits": hit, "true": hit and positive, "positives": positive})
    lines = [f"{len(rows)} sentences ({CLAIMS.name})", "| kind | label | rows | flagged overclaim |",
             "|---|---|---|---|"]
    labels = {r["kind"]: r["label"] for r in rows}
    lines += [f"| {k} | {labels[k]} | {c['rows']} | {c['hits']} |" for k, c in kinds.items() if k != "overall"]
    o = kinds["overall"]
    lines.append(f"precision of `overclaim` {o['true'] / max(o['hits'], 1):.2f}, "
                 f"recall {o['true'] / o['positives']:.2f}")
    return lines


def support_pairs(n: int) -> list[dict[str, Any]]:
    """``n`` labelled (claim, source) pairs, a quarter per support label, from the excerpt set's report part."""
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in load(None, DATA / "sources.jsonl", "report"):
        if r.get("made") == "program" and r["kind"] in SUPPORT_LABELS:
            by_label[SUPPORT_LABELS[r["kind"]]].append(r)
    out = []
    for label in ("supported", "contradicted", "partially_supported", "not_supported"):
        out += [{**r, "support_label": label} for r in by_label[label][: n // 4]]
    return out


async def run_support(models: str, n: int) -> list[str]:
    """The support check's table on ``models`` (see module docstring)."""
    pairs, raw, claims, model, size = await support_verdicts(models, n)
    return support_table(pairs, raw, [c.status for c in claims], model, size)


async def support_verdicts(models: str, n: int) -> tuple[list[dict[str, Any]], list[str], list[Any], str, int]:
    """``(pairs, raw verdicts, claims with their recorded status, model, batch size)`` on ``models``."""
    from cosci.agents.claim_check import claim_check_prompt, verdicts_of
    from cosci.config.load import compose, validate
    from cosci.errors import CosciError
    from cosci.grounding.claims import CitableSource, Claim
    from cosci.grounding.support import SupportItem, apply, batches, distrust
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.llm.gateway.adapter import Gateway
    from cosci.llm.gateway.routing import Router
    from cosci.llm.port.structured import call_record
    from cosci.llm.port.types import CallSpec, TextBlock
    from cosci.prompts import render
    from cosci.records import claim_check_record

    config = validate(compose(["experiment=demo", f"models={models}", f"paths.data_dir={tempfile.mkdtemp()}"]))
    route = Router(config).route("metareview", "claim_check")
    cfg = config.metareview
    size = cfg.claim_check_batch_constrained if route.constrained else cfg.claim_check_batch
    chars = cfg.claim_check_source_chars // (4 if route.constrained else 1)
    gateway = Gateway(config, TokenBudget(config.run.budget_usd, {"metareview": 1.0}, 0.0))
    pairs = support_pairs(n)
    claims, items = [], []
    for i, p in enumerate(pairs):
        src = CitableSource("S1", p.get("source", "source"), "", "", p["source_text"])
        claims.append(Claim(p["excerpt"], "main research directions", [], [{"label": "S1"}], "traceable", []))
        items.append(SupportItem(i, p["excerpt"], (), (src,)))
    raw: list[str] = [""] * len(pairs)
    for k, batch in enumerate(batches(items, size)):
        user = claim_check_prompt("Check the claims.", batch, chars)
        spec = CallSpec(route=route, action=f"bench/claim_check{k + 1}",
                        system=[TextBlock(render("_safety_preamble"))], messages=[{"role": "user", "content": user}])
        try:
            rec, _ = await call_record(gateway, spec, claim_check_record(len(batch)))
            verdicts = verdicts_of(rec)
        except CosciError as exc:
            verdicts = {}
            print(f"call {k + 1} failed: {type(exc).__name__}", file=sys.stderr)
        for m, item in enumerate(batch, 1):
            v = verdicts.get(f"c{m}")
            raw[item.index] = v.verdict if v else "no answer"
            apply(claims[item.index], item, v, "the call failed")
            if route.constrained and not cfg.claim_check_constrained_verdicts:
                distrust(claims[item.index], route.model)
    return pairs, raw, claims, route.model, size


def support_table(pairs: list[dict[str, Any]], raw: list[str], status: list[str], model: str,
                  size: int) -> list[str]:
    lines = [f"support check on {model}: {len(pairs)} pairs, {size} per call",
             "| label | pairs | raw verdict right | raw `supported` | recorded supported | recorded unchecked |",
             "|---|---|---|---|---|---|"]
    for label in ("supported", "contradicted", "partially_supported", "not_supported"):
        idx = [i for i, p in enumerate(pairs) if p["support_label"] == label]
        lines.append(f"| {label} | {len(idx)} | {sum(raw[i] == label for i in idx)} | "
                     f"{sum(raw[i] == 'supported' for i in idx)} | {sum(status[i] == 'supported' for i in idx)} | "
                     f"{sum(status[i] == 'unchecked' for i in idx)} |")
    supported = [i for i, s in enumerate(status) if s == "supported"]
    right = sum(pairs[i]["support_label"] == "supported" for i in supported)
    accuracy = sum(r == p["support_label"] for r, p in zip(raw, pairs, strict=True)) / len(pairs)
    precision = f"{right / len(supported):.2f} ({right} of {len(supported)})" if supported else "- (none recorded)"
    said = [i for i, r in enumerate(raw) if r == "supported"]
    raw_precision = (sum(pairs[i]["support_label"] == "supported" for i in said) / len(said)) if said else 0.0
    lines.append(f"raw accuracy {accuracy:.2f} (chance 0.25), precision of a raw `supported` {raw_precision:.2f}; "
                 f"precision of recorded `supported` {precision}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="the overclaim guards and the support check on labelled sets")
    ap.add_argument("--support", metavar="MODELS", help="also run the support check on this models config")
    ap.add_argument("--n", type=int, default=24, help="labelled pairs for the support check (a quarter per label)")
    args = ap.parse_args(argv)
    print("\n".join(guards_table()))
    if args.support:
        print("\n".join(asyncio.run(run_support(args.support, args.n))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
