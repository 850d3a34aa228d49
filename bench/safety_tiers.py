"""A tier's model measured as the safety classifier on the intent set's held-out part (design.md#safety-measured).

    python -m bench.safety_tiers --models local --tier mini              # the embedded SmolLM2 (a long run)
    python -m bench.safety_tiers --models local --tier mini --sample 120 # a fixed sample of 120 held-out goals
    python -m bench.safety_tiers --models ollama --tier mini             # a local Ollama server's small model
    python -m bench.safety_tiers --heldout-hash                          # the held-out part's sha256 (and write it)

Each held-out goal of ``tests/data/safety/goals_intent.jsonl`` goes through the session's own screening path
(:class:`cosci.safety.classifier.Classifier`) with the tier made able to classify: the offline screen reads the goal,
then the tier's model is asked with the full screening prompt (the screen's notes included) and its answer is the
decision (a failed call: ``block`` where the screen refuses, else ``flag``, as in a session). The offline screen's
decision on the same goals in the same run is the figure it is compared with. The run prints both, and the
``classifier:`` entry to record under the model in ``conf/catalogue/<provider>.yaml``; a tier decides in a session
only when that entry is on the current held-out set and no worse than the screen on both rates
(:func:`cosci.config.measured.shortfall`).

A sample (``--sample N``: the first N goals in sha256 order of their ids, as ``python -m bench.safety
--model-sample`` takes them) is recorded with its size; its rates are compared on the same sample.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import hashlib
import json
import logging
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import yaml

from bench.safety_intent import INTENT, Row, intent_rows, summary
from cosci.config.measured import HELDOUT_FILE, ClassifierMeasurement, Heldout
from cosci.config.schema import CosciConfig
from cosci.paths import conf_dir


def heldout_sha256(rows: Sequence[Row]) -> str:
    """The sha256 of the held-out rows: one JSON line ``[id, text, label, category]`` per row, sorted by id."""
    lines = sorted(json.dumps([r.id, r.text, r.label, r.category], ensure_ascii=False) for r in rows)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def heldout() -> Heldout:
    """The current held-out part of the intent set as recorded in ``conf/`` (:data:`HELDOUT_FILE`)."""
    rows = intent_rows(INTENT, "heldout")
    return Heldout(set=f"tests/data/safety/{INTENT.name}", part="heldout", rows=len(rows), sha256=heldout_sha256(rows))


def sample(rows: Sequence[Row], size: int | None) -> list[Row]:
    """The first ``size`` rows in sha256 order of their ids (all rows when ``size`` is None)."""
    if size is None or size >= len(rows):
        return list(rows)
    return sorted(rows, key=lambda r: hashlib.sha256(r.id.encode()).hexdigest())[:size]


def capable(config: CosciConfig, tier: str) -> CosciConfig:
    """``config`` with the safety classifier routed to ``tier`` and that tier able to classify (only here: a
    measurement is how a tier earns it)."""
    tiers = {**config.models.tiers, tier: config.models.tiers[tier].model_copy(update={"unable_to_classify": False})}
    agent_tiers = {**config.models.agent_tiers, "safety.classify": tier}
    models = config.models.model_copy(update={"tiers": tiers, "agent_tiers": agent_tiers})
    return config.model_copy(update={"models": models})


def decisions(config: CosciConfig, rows: Sequence[Row], log_path: Path | None = None
              ) -> tuple[list[str], list[str], float]:
    """``(screen decisions, tier decisions, seconds a goal)`` of ``rows`` through the classifier path; each goal's
    pair is appended to ``log_path`` (JSONL) as it is decided."""
    from cosci.llm.budget.token_budget import TokenBudget
    from cosci.llm.gateway.adapter import Gateway
    from cosci.safety.classifier import Classifier
    from cosci.store import SessionStore

    store = SessionStore.open(Path(tempfile.mkdtemp()) / "store.sqlite", "bench-safety-tiers")
    store.sessions.create(goal="bench", config_snapshot={}, overrides=[], models_choice=config.models.name,
                          budget_usd=1e6, budget_tokens=None, wall_clock_seconds=1e9)
    budget = TokenBudget(cap_usd=1e6, shares={a: c.budget_share for a, c in config.agents.items()},
                         reserve_share=config.budget.reserve_share, cap_tokens=None)
    gateway = Gateway(config, budget, store.logs.add_call)
    classifier = Classifier(config, gateway, gateway.router, store)
    logging.getLogger("cosci.safety").setLevel(logging.ERROR)  # every hit would be said: not a bench's output

    async def run() -> tuple[list[str], list[str]]:
        screen, tier = [], []
        for i, r in enumerate(rows, 1):
            v = (await classifier.screen("goal", r.text, subject_id=r.id)).verdict
            screen.append(str(v.screen.get("decision")))
            tier.append(v.decision)
            if log_path is not None:
                with log_path.open("a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"id": r.id, "screen": screen[-1], "tier": v.decision}) + "\n")
            if i % 20 == 0:
                print(f"  {i}/{len(rows)} goals", file=sys.stderr, flush=True)
        return screen, tier

    started = time.perf_counter()
    screen, tier = asyncio.run(run())
    return screen, tier, (time.perf_counter() - started) / max(len(rows), 1)


def measure(config: CosciConfig, tier: str, rows: Sequence[Row], command: str, held: Heldout,
            log_path: Path | None = None) -> ClassifierMeasurement:
    """The tier's measurement on ``rows`` beside the offline screen's on the same rows (one run)."""
    assert config.safety is not None
    refuse = tuple(config.safety.refuse_categories)
    screen, model, per_goal = decisions(capable(config, tier), rows, log_path)
    ours, theirs = summary(rows, model, refuse), summary(rows, screen, refuse)
    print(f"{len(rows)} held-out goals, {per_goal:.1f} s a goal (screen and model)", file=sys.stderr)
    return ClassifierMeasurement(
        goals=len(rows), refused=ours["recall_refuse"].k, harmful=ours["recall_refuse"].n,
        falsely_refused=ours["false_refusal"].k,
        benign=ours["false_refusal"].n, screen_refused=theirs["recall_refuse"].k,
        screen_falsely_refused=theirs["false_refusal"].k, heldout_sha256=held.sha256, measured=dt.date.today(),
        command=command)


def entry_text(model: str, m: ClassifierMeasurement) -> str:
    """The catalogue lines to record under ``model`` (YAML)."""
    return yaml.safe_dump({model: {"classifier": json.loads(m.model_dump_json())}}, sort_keys=False, width=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.safety_tiers", description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="local", help="the models preset (conf/models/<name>.yaml)")
    parser.add_argument("--tier", default="mini", help="the tier whose model is measured")
    parser.add_argument("--sample", type=int, default=None, metavar="N", help="a fixed sample of N held-out goals")
    parser.add_argument("--heldout-hash", action="store_true", help=f"print the held-out part's sha256 and write "
                        f"conf/{HELDOUT_FILE}")
    parser.add_argument("--log", type=Path, default=None, help="append each goal's decisions to this JSONL")
    parser.add_argument("overrides", nargs="*", help="Hydra overrides (models.tiers.mini.model=...)")
    args = parser.parse_args(argv)
    held = heldout()
    if args.heldout_hash:
        (conf_dir() / HELDOUT_FILE).write_text(held.model_dump_json(indent=2) + "\n", encoding="utf-8")
        print(f"{held.set} ({held.part}, {held.rows} rows): {held.sha256}; wrote conf/{HELDOUT_FILE}")
        return 0
    from cosci.config.load import ConfigError, compose, validate

    try:
        config = validate(compose([f"models={args.models}", "experiment=demo",
                                   f"paths.data_dir={tempfile.mkdtemp()}", *args.overrides]))
    except ConfigError as exc:
        print(f"python -m bench.safety_tiers: {exc}", file=sys.stderr)
        return 2
    if args.tier not in config.models.tiers:
        print(f"--tier: {args.tier} is not a tier of models={args.models} ({', '.join(config.models.tiers)})")
        return 2
    rows = sample(intent_rows(INTENT, "heldout"), args.sample)
    command = " ".join(["python -m bench.safety_tiers", f"--models {args.models}", f"--tier {args.tier}",
                        *([f"--sample {args.sample}"] if args.sample else []), *args.overrides])
    m = measure(config, args.tier, rows, command, held, args.log)
    model = config.models.tiers[args.tier].model
    print(f"tier {args.tier} ({model}) as classifier: refused {m.recall:.3f} of {m.harmful} refuse-category requests, "
          f"falsely refused {m.false_refusal:.3f} of {m.benign} benign goals; the offline screen on the same goals: "
          f"{m.screen_recall:.3f} / {m.screen_false_refusal:.3f}")
    from cosci.config.measured import shortfall

    gap = shortfall(m, held)
    print(f"decides in a session: {'yes' if gap is None else 'no, ' + gap}")
    print(f"\nrecord under the model in conf/catalogue/<provider>.yaml:\n\n{entry_text(model, m)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
