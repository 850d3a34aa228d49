"""Dollars per session with the prompt cache modelled: ``python -m bench.cost [--store PATH] [--models opus]``.

Replays every answered request of a session's transcripts (the ``request`` column, the system message from
``system_prompts``) through :mod:`bench.prompt_cache` at the list prices of a models config
(``conf/models/<name>.yaml``: each call's tier mapped to that config's model of the same tier; its
``cache_min_tokens`` and ``output_tokens_per_second`` from the model catalogue, ``conf/catalogue/``, as a session
fills them (:func:`models_config`); prices from LiteLLM's model price map), and prints dollars per agent and mode,
per agent and per session for each placement of cache breakpoints:

- ``configured``: the breakpoints as recorded (the gateway's placement, ``cosci/llm/gateway/cache_marks.py``);
- ``none``: no breakpoint (the same requests uncached, the handbook padding included where it was sent);
- ``system``: only the system prefix (the placement before tool definitions and turns were marked);
- ``system+turn``, ``tools+system``: one part of the configured placement left out;
- ``configured+handbook``: the research handbook (``prompts/_handbook.md``) after the safety preamble of every agent
  call on a tier with ``cache_min_tokens`` ≥ ``--handbook-min`` (1024: every caching tier, the padding cosci sent
  before it padded tool loops only); ``configured-handbook``: the handbook taken out wherever it was sent;
- ``none-handbook``: no breakpoint and no handbook (what the same work costs with no caching and no padding: the
  baseline of the ratios, since the handbook is there only to be cached).

Tokens: LiteLLM's ``token_counter`` for the priced model, per block (a tool definition is its JSON), plus
:data:`FRAMING_TOKENS` per message and :data:`TRAILING_TOKENS` per request (checked against a recorded Anthropic
exchange in ``tests/bench/test_prompt_cache.py``). Output tokens are the recorded ones, priced at the output price.

Time: a cache entry lives 5 minutes, so the replay runs on a clock of the priced models, not the fake's: each call
lasts ``--first-token-seconds`` plus its output tokens at the tier's ``output_tokens_per_second``, calls overlap
``run.concurrency`` at a time (the session's config), a call of a task starts after that task's previous call
ended, and what a call writes is readable from its start plus the time to first token.

The ratios are ``configured`` over ``none-handbook`` (column ``vs plain``); ``configured`` over ``none`` (the padded
baseline, which flatters: it charges the uncached session for padding it would not send) is printed beside them
(``vs padded``). The last line is ``session ratio (cached / uncached, no padding): X``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.prompt_cache import Block, PromptCache, Usage

ROOT = Path(__file__).resolve().parents[1]
FRAMING_TOKENS = 3
"""Tokens of framing per message (role and turn markers), the per-message allowance LiteLLM's counter uses."""
TRAILING_TOKENS = 3
"""Tokens after the last block (the assistant turn's opening) that no breakpoint covers; the recorded exchange shows
``input_tokens: 3`` with the whole prompt cached."""
SESSION_CONTEXT = "## Research goal"
"""How the session context block (``prompts/_session_context.md``) begins: an agent's call, not the classifier's."""
SESSION = ("experiment=oncology", "models=fake", "tools.offline=true", "run.seed=1", "run.concurrency=4",
           "run.max_hypotheses=20", "run.n_initial=4", "run.budget_usd=50",
           "evolution.min_mature=4", "evolution.mature_matches=2", "metareview.every_matches=20",
           "vectors.models.hash.dedup_cosine_threshold=0.6",  # the fake's texts are alike: keep more of them
           "session.corpus_path=bench/data/moose_chem/corpus_300.jsonl", "models.fake.searches_per_loop=3")
"""The recorded session (``--record``): the oncology goal on the fake, whose tool loops search the MOOSE-Chem corpus
(real abstracts) three times before recording; :func:`shaped` adds the priced preset's thinking forms and cache
minimums, so the fake sends what that preset would (the handbook where its minimums call for it, design.md#caching)."""
PLACEMENTS = ("configured", "none", "system", "system+turn", "tools+system", "configured+handbook",
              "configured-handbook", "none-handbook")


@dataclass
class Request:
    """One recorded call, in the provider's block order: tools, system blocks, message blocks (each ``(text,
    marked)``), and what prices it."""

    seq: int
    agent: str
    mode: str
    task_id: str | None
    tier: str
    tools: list[tuple[str, bool]]
    system: list[tuple[str, bool]]
    messages: list[list[tuple[str, bool]]]
    salt: str
    output_tokens: int
    loop: bool

    @property
    def key(self) -> str:
        return f"{self.agent}.{self.mode}"


@dataclass
class Tally:
    usd: float = 0.0
    calls: int = 0
    usage: list[Usage] = field(default_factory=list)


# --- reading a session ---------------------------------------------------------------------------------------------

def _marked(part: Any) -> bool:
    return isinstance(part, dict) and part.get("cache_control") is not None


def _text_blocks(content: Any) -> list[tuple[str, bool]]:
    if isinstance(content, str):
        return [(content, False)]
    out = []
    for p in content or []:
        if isinstance(p, dict):
            out.append((str(p.get("text") or p.get("thinking") or json.dumps(p, sort_keys=True)), _marked(p)))
    return out


def message_blocks(m: dict[str, Any]) -> list[tuple[str, bool]]:
    """The blocks Anthropic receives for one OpenAI-format message: its text parts, then one ``tool_use`` per tool
    call; a tool message is one ``tool_result``. A message-level ``cache_control`` marks its last block."""
    blocks = [(str(b.get("thinking", "")), False) for b in m.get("thinking_blocks") or []]
    blocks += [b for b in _text_blocks(m.get("content")) if b[0]]
    blocks += [(f"{c['function']['name']}({c['function'].get('arguments', '')})", False)
               for c in m.get("tool_calls") or []]
    if not blocks:
        blocks = [("", False)]
    if _marked(m):
        blocks[-1] = (blocks[-1][0], True)
    return blocks


def tier_of(model: str, models: dict[str, Any]) -> str:
    """The tier of a recorded model string: ``cosci-fake/<tier>``, or the tier of ``models`` that serves it."""
    for tier, entry in models["tiers"].items():
        if entry["model"] == model:
            return tier
    return model.rsplit("/", 1)[-1]


def load(store_path: Path, models: dict[str, Any]) -> tuple[list[Request], int]:
    """The answered requests of the session in ``store_path``, oldest first, and its ``run.concurrency``."""
    from cosci.store.db import Database

    db = Database(store_path)
    try:
        systems = {r["sha256"]: json.loads(r["content"])
                   for r in db.query("SELECT sha256, content FROM system_prompts")}
        snap = db.query("SELECT config_snapshot FROM sessions")
        concurrency = int(((json.loads(snap[0]["config_snapshot"]) or {}).get("run") or {}).get("concurrency") or 1)
        rows = db.query("SELECT seq, agent, mode, task_id, model, output_tokens, request, system_sha256"
                        " FROM transcripts WHERE outcome='ok' AND request IS NOT NULL ORDER BY seq")
    finally:
        db.close()
    out = []
    for r in rows:
        req = json.loads(r["request"])
        tools = [(json.dumps(t.get("function", t), sort_keys=True), _marked(t))
                 for t in req.get("tool_definitions") or []]
        if not tools and req.get("tools"):  # recorded before definitions were kept: names only (an undercount)
            tools = [(name, False) for name in req["tools"]]
        salt = json.dumps([req.get("tool_choice"), req.get("thinking"), req.get("output_config"),
                           req.get("reasoning_effort")], sort_keys=True, default=str)
        names = req.get("tools") or []
        out.append(Request(
            seq=r["seq"], agent=r["agent"], mode=r["mode"], task_id=r["task_id"], tier=tier_of(r["model"], models),
            tools=tools, system=_text_blocks(systems.get(r["system_sha256"], [])),
            messages=[message_blocks(m) for m in req.get("messages") or []], salt=salt,
            output_tokens=int(r["output_tokens"] or 0),
            loop=any(not n.startswith("record_") for n in names) and req.get("tool_choice") == "auto"))
    return out, concurrency


# --- placements ----------------------------------------------------------------------------------------------------

def _unmarked(blocks: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    return [(t, False) for t, _ in blocks]


def _mark_last(blocks: list[tuple[str, bool]]) -> list[tuple[str, bool]]:
    return [*blocks[:-1], (blocks[-1][0], True)] if blocks else blocks


def _system_marked(r: Request) -> int | None:
    return max((i for i, (_, m) in enumerate(r.system) if m), default=None)


def placed(r: Request, placement: str, handbook: str, handbook_tiers: set[str]) -> Request:
    """``r`` with the breakpoints of ``placement`` (module docstring). The parts of the configured placement are
    read off the recording: the system block it marked, and whether it marked tools and the last turn."""
    if placement == "configured":
        return r
    tools, system = _unmarked(r.tools), _unmarked(r.system)
    messages = [_unmarked(m) for m in r.messages]
    if placement == "none":
        return _with(r, tools, system, messages)
    if placement == "none-handbook":
        return _with(r, tools, [b for b in system if b[0].strip() != handbook.strip()], messages)
    at = _system_marked(r)
    tools_marked = any(m for _, m in r.tools)
    turn_marked = any(m for _, m in r.messages[-1]) if r.messages else False
    if placement.startswith("configured"):
        return _handbook(r, placement, handbook, handbook_tiers)
    want_tools = tools_marked and "tools" in placement
    want_turn = turn_marked and "turn" in placement
    if at is not None:
        system[at] = (system[at][0], True)
    return _with(r, _mark_last(tools) if want_tools else tools, system,
                 [*messages[:-1], _mark_last(messages[-1])] if want_turn else messages)


def _handbook(r: Request, placement: str, handbook: str, handbook_tiers: set[str]) -> Request:
    """The configured breakpoints with the handbook added after the safety preamble (on ``handbook_tiers``) or taken
    out; the system breakpoint stays on the last cached system block, after the handbook."""
    system = [b for b in r.system if b[0].strip() != handbook.strip()]
    agent_call = any(t.lstrip().startswith(SESSION_CONTEXT) for t, _ in system)  # not the safety classifier's
    if placement.endswith("+handbook") and r.tier in handbook_tiers and agent_call:
        system = [system[0], (handbook, False), *system[1:]]
    return _with(r, r.tools, system, r.messages)


def _with(r: Request, tools: list[tuple[str, bool]], system: list[tuple[str, bool]],
          messages: list[list[tuple[str, bool]]]) -> Request:
    return Request(r.seq, r.agent, r.mode, r.task_id, r.tier, tools, system, messages, r.salt, r.output_tokens,
                   r.loop)


# --- pricing -------------------------------------------------------------------------------------------------------

@lru_cache(maxsize=200_000)
def count(model: str, text: str) -> int:
    """Tokens of ``text`` by LiteLLM's counter for ``model``."""
    import litellm

    return int(litellm.token_counter(model=model, text=text)) if text else 0


def blocks_of(r: Request, model: str) -> tuple[list[Block], int]:
    """The cache model's blocks of ``r`` (message blocks keyed with the tool choice and thinking) and the trailing
    tokens."""
    out = [Block("T" + text, count(model, text), m) for text, m in r.tools]
    out += [Block("S" + text, count(model, text), m) for text, m in r.system]
    for msg in r.messages:
        for i, (text, m) in enumerate(msg):
            out.append(Block("M" + r.salt + text, count(model, text) + (FRAMING_TOKENS if i == 0 else 0), m))
    return out, TRAILING_TOKENS


@dataclass(frozen=True)
class Prices:
    """USD per input and output token of one model (LiteLLM's price map)."""

    input: float
    output: float


def models_config(path: Path) -> dict[str, Any]:
    """The models config at ``path`` with each tier's facts filled from the model catalogue, as a session's config
    load fills them (``cosci.config.catalogue.fill_tiers``): a preset names models only, so read alone it has no
    ``cache_min_tokens`` and the replay would cache nothing."""
    from cosci.config.catalogue import catalogue, fill_tiers

    return fill_tiers(yaml.safe_load(path.read_text(encoding="utf-8")), catalogue())


def shaped(models: dict[str, Any]) -> list[str]:
    """Overrides that shape the fake's tiers as ``models`` (filled, :func:`models_config`) sends: each tier's
    thinking form and cache minimum (the fake's own tiers have none, so no handbook would be sent)."""
    out = []
    for name, tier in models["tiers"].items():
        if tier.get("thinking") is not None:
            out.append(f"models.tiers.{name}.thinking={tier['thinking']}")
        if tier.get("cache_min_tokens") is not None:
            out.append(f"++models.tiers.{name}.cache_min_tokens={int(tier['cache_min_tokens'])}")
    return out


def prices(model: str) -> Prices:
    import litellm

    row = litellm.model_cost.get(model) or litellm.model_cost.get(model.split("/", 1)[-1])
    if row is None:
        raise SystemExit(f"bench.cost: {model} is not in LiteLLM's price map")
    return Prices(float(row["input_cost_per_token"]), float(row["output_cost_per_token"]))


def replay(requests: list[Request], models: dict[str, Any], concurrency: int, *, placement: str, handbook: str,
           handbook_min: int, first_token: float) -> dict[str, Tally]:
    """Dollars per ``agent.mode`` of ``requests`` under ``placement`` (module docstring: the clock)."""
    tiers = models["tiers"]
    handbook_tiers = {t for t, e in tiers.items() if (e.get("cache_min_tokens") or 0) >= handbook_min}
    cache = PromptCache()
    tallies: dict[str, Tally] = defaultdict(Tally)
    clock, task_end = 0.0, dict[str | None, float]()
    for r in requests:
        entry = tiers[r.tier]
        model = entry["model"]
        p = prices(model)
        duration = first_token + r.output_tokens / float(entry.get("output_tokens_per_second") or 30)
        clock += duration / concurrency
        start = max(clock - duration, task_end.get(r.task_id, 0.0)) if r.task_id else clock - duration
        task_end[r.task_id] = start + duration
        blocks, trailing = blocks_of(placed(r, placement, handbook, handbook_tiers), model)
        usage = cache.send(model, blocks, at=start, min_tokens=int(entry.get("cache_min_tokens") or 0) or 10**9,
                           trailing=trailing, visible_at=start + first_token)
        t = tallies[r.key]
        t.usd += usage.input_units() * p.input + r.output_tokens * p.output
        t.calls += 1
        t.usage.append(usage)
    return tallies


# --- the command ---------------------------------------------------------------------------------------------------

def latest_store(data_dir: Path) -> Path:
    stores = sorted((data_dir / "sessions").glob("*/store.sqlite"), key=lambda p: p.stat().st_mtime)
    if not stores:
        raise SystemExit(f"bench.cost: no session store under {data_dir / 'sessions'}")
    return stores[-1]


def rows(results: dict[str, dict[str, Tally]]) -> Iterator[tuple[str, dict[str, float], int]]:
    keys = sorted({k for t in results.values() for k in t})
    for k in keys:
        yield k, {p: results[p][k].usd for p in results}, results["none"][k].calls


def _ratios(usd: dict[str, float]) -> str:
    """``configured`` over the plain baseline (``none-handbook``) and over the padded one (``none``), as columns."""
    plain = usd["configured"] / usd["none-handbook"] if usd["none-handbook"] else 1.0
    padded = usd["configured"] / usd["none"] if usd["none"] else 1.0
    return f"{plain:>10.3f}{padded:>11.3f}"


def report(results: dict[str, dict[str, Tally]], out: Callable[[str], None] = print) -> float:
    """Print the table (USD per agent.mode and placement, and the cached / uncached ratios: module docstring);
    returns the session ratio against no cache and no padding (``configured`` / ``none-handbook``)."""
    names = list(results)
    out(f"{'agent.mode':<26}{'calls':>6}" + "".join(f"{n:>21}" for n in names) + f"{'vs plain':>10}{'vs padded':>11}")
    for key, usd, calls in rows(results):
        out(f"{key:<26}{calls:>6}" + "".join(f"{usd[n]:>21.4f}" for n in names) + _ratios(usd))
    for agent in sorted({k.split(".", 1)[0] for k in results["none"]}):
        usd = {n: sum(t.usd for k, t in results[n].items() if k.split(".", 1)[0] == agent) for n in names}
        calls = sum(t.calls for k, t in results["none"].items() if k.split(".", 1)[0] == agent)
        out(f"{'agent ' + agent:<26}{calls:>6}" + "".join(f"{usd[n]:>21.4f}" for n in names) + _ratios(usd))
    totals = {n: sum(t.usd for t in results[n].values()) for n in names}
    out(f"{'session':<26}{sum(t.calls for t in results['none'].values()):>6}"
        + "".join(f"{totals[n]:>21.4f}" for n in names) + _ratios(totals))
    read = sum(u.read for t in results["configured"].values() for u in t.usage)
    written = sum(u.written for t in results["configured"].values() for u in t.usage)
    total = sum(u.total for t in results["configured"].values() for u in t.usage)
    out(f"configured: {total:,} input tokens, {read:,} read from cache, {written:,} written")
    plain = totals["configured"] / totals["none-handbook"] if totals["none-handbook"] else 1.0
    padded = totals["configured"] / totals["none"] if totals["none"] else 1.0
    out(f"against the padded baseline (uncached, handbook sent as configured): {padded:.3f}")
    out(f"session ratio (cached / uncached, no padding): {plain:.3f}")
    return plain


def record(data_dir: Path, extra: list[str]) -> Path:
    """Run :data:`SESSION` (plus ``extra`` overrides) through the real entry point into ``data_dir``; its store."""
    import subprocess

    env = {**os.environ, "COSCI_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "cosci.run", *SESSION, *extra], env=env, cwd=ROOT,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"bench.cost: the session failed: {proc.stderr[-2000:]}")
    return latest_store(data_dir)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.cost", description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, help="a session's store.sqlite (default: the newest under --data-dir)")
    ap.add_argument("--data-dir", type=Path, default=ROOT / "bench" / "results" / "cost")
    ap.add_argument("--models", default="opus", help="conf/models/<name>.yaml whose prices and minimums apply")
    ap.add_argument("--first-token-seconds", type=float, default=3.0)
    ap.add_argument("--handbook-min", type=int, default=1024,
                    help="configured+handbook adds the handbook on tiers whose cache_min_tokens is at least this")
    ap.add_argument("--record", action="store_true",
                    help="first run the bench's fake session (SESSION) into --data-dir")
    ap.add_argument("overrides", nargs="*", help="with --record: more Hydra overrides for the session")
    args = ap.parse_args(argv)
    models_file = ROOT / "conf" / "models" / f"{args.models}.yaml"
    if not models_file.is_file():
        print(f"bench.cost: no models config {models_file}", file=sys.stderr)
        return 2
    models = models_config(models_file)
    store = (record(args.data_dir, [*shaped(models), *args.overrides]) if args.record
             else args.store or latest_store(args.data_dir))
    if not store.is_file():
        print(f"bench.cost: no store {store}", file=sys.stderr)
        return 2
    requests, concurrency = load(store, models)
    from cosci.prompts import render

    handbook = render("_handbook")
    print(f"{store}: {len(requests)} answered calls, concurrency {concurrency}, priced at models={args.models}")
    results = {p: replay(requests, models, concurrency, placement=p, handbook=handbook,
                         handbook_min=args.handbook_min, first_token=args.first_token_seconds)
               for p in PLACEMENTS}
    report(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
