"""A session's embedded-model calls replayed with and without drafts: ``python -m bench.draft_replay``.

Two steps (bench/README.md, "The fifteenth stop"; docs/design.md#local-drafts):

- ``capture REQUESTS [HYDRA OVERRIDE ...]`` runs ``python -m cosci.run`` in this process with every request the
  embedded provider hands llama.cpp (the fitted messages, the bounded schema, the seed, the caps) appended to
  ``REQUESTS`` (JSON lines) as it is made;
- ``batches`` times one llama.cpp decode of a batch of 1, 3 and 9 tokens ~1,000 tokens deep (one thread, CPU and wall
  milliseconds), with logits at every position (a draft's batch) and at the last only: what a drafted row costs
  against a drawn token's decode;
- ``replay REQUESTS [--drafts 0,4,8] [--rounds 2] [--threads 2]`` loads the model as a session does (the configured
  weights, decoding, prompt-state cache and generation threads) and makes those calls again in order, in a bare
  process (no session, Prefect or MLflow), once per draft setting per round, the settings alternated within each
  round so that the machine's load falls on each alike. The prompt-state cache is emptied before each pass.

Printed per setting and round (JSON lines), summed over the calls: process CPU seconds, wall seconds, llama.cpp's
milliseconds for prompts and for generated tokens (a draft's batches counted with the generated tokens), the draws'
milliseconds, tokens generated, drafted and kept, draft batches, valid structured answers, and how many answers
equal the first setting's of the same round, text for text (a draft must not change what is drawn). CPU seconds are
the figure to read under load: the calls are the same in every pass, so a difference between settings is the
drafts'.
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
import time
from pathlib import Path
from typing import Any


def capture(requests: Path, overrides: list[str]) -> None:
    """Run one session (``cosci.run`` with ``overrides``) here, logging each embedded-model request to ``requests``."""
    from cosci.llm.local.model import LocalModelProvider

    original = LocalModelProvider._run

    def logged(self: LocalModelProvider, request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        with open(requests, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(request) + "\n")
        return original(self, request)

    LocalModelProvider._run = logged  # type: ignore[method-assign]
    sys.argv = ["cosci.run", *overrides]
    runpy.run_module("cosci.run", run_name="__main__")


def replay_pass(provider: Any, requests: list[dict[str, Any]]) -> tuple[dict[str, float], list[str]]:
    """The calls made once in order with the provider's current settings: totals and the answers' texts."""
    from cosci.llm.local.model import cpu_seconds, parses, strict_json
    from cosci.llm.local.state_cache import PromptStateCache

    llama = provider.llama()
    llama.reset()
    llama.set_cache(PromptStateCache(capacity_bytes=provider.cfg.cache_mb << 20))
    keys = ("prompt_evaluated", "prompt_eval_ms", "generated", "generation_ms", "sampling_ms", "drafted",
            "draft_accepted", "draft_batches")
    total: dict[str, float] = dict.fromkeys(("cpu_seconds", "wall_seconds", "valid", *keys), 0)
    texts: list[str] = []
    cpu, wall = cpu_seconds(), time.perf_counter()
    for request in requests:
        out, cost = provider._run(request)
        choice = out["choices"][0]
        text = choice["message"].get("content") or ""
        if "response_format" in request:
            text = strict_json(text)
            total["valid"] += choice.get("finish_reason") != "length" and parses(text)
        texts.append(text)
        for key in keys:
            total[key] += cost[key]
    total["cpu_seconds"], total["wall_seconds"] = cpu_seconds() - cpu, time.perf_counter() - wall
    return {k: round(v, 3) for k, v in total.items()}, texts


def replay(requests: Path, drafts: list[int], rounds: int, threads: int | str, weights: str) -> list[dict[str, Any]]:
    """Every setting of ``drafts`` once per round, alternated (module docstring); one JSON-able row per pass."""
    from cosci.llm.local.model import DEFAULT_CFG, LocalModelProvider

    calls = [json.loads(line) for line in requests.read_text().splitlines() if line.strip()]
    provider = LocalModelProvider()
    rows: list[dict[str, Any]] = []
    for r in range(rounds):
        first: list[str] | None = None
        for k in drafts if r % 2 == 0 else list(reversed(drafts)):
            provider.configure(DEFAULT_CFG.model_copy(update={"n_threads": threads, "weights": weights,
                                                             "draft_tokens": k}))
            total, texts = replay_pass(provider, calls)
            first = texts if first is None else first
            row = {"round": r, "draft_tokens": k, "calls": len(calls), **total,
                   "same_answers": sum(a == b for a, b in zip(texts, first, strict=True))}
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def batch_costs(depth: int = 1000, sizes: tuple[int, ...] = (1, 3, 9), reps: int = 40, rounds: int = 2,
                weights: str = "q4_0") -> list[dict[str, Any]]:
    """CPU and wall milliseconds of one llama.cpp decode of a batch of each of ``sizes`` tokens ``depth`` tokens deep,
    one thread, with logits at every position (a draft's batch) and at the last only (a prompt's), the mean of
    ``reps``; the sizes alternated within each of ``rounds``. A batch of one is a drawn token's decode."""
    from bench.model_speed import PROMPT
    from cosci.llm.local.model import cpu_seconds
    from cosci.llm.local.state_cache import PromptStateLlama
    from cosci.llm.local.weights import weights_path

    llama = PromptStateLlama(model_path=str(weights_path(weights)), n_ctx=4096, n_batch=256, n_threads=1,
                             n_threads_batch=1, verbose=False, seed=0)
    text = PROMPT.encode()
    tokens = llama.tokenize(text * (1 + depth * 5 // max(len(text), 1)), add_bos=False)[: depth + max(sizes)]
    llama.eval(tokens[:depth])
    rows: list[dict[str, Any]] = []
    for r in range(rounds):
        for n in sizes:
            for every in (True, False) if n > 1 else (False,):
                cpu, wall = cpu_seconds(), time.perf_counter()
                for _ in range(reps):
                    llama._ctx.kv_cache_seq_rm(-1, depth, -1)
                    llama._batch.set_batch(batch=tokens[depth: depth + n], n_past=depth, logits_all=every)
                    llama._ctx.decode(llama._batch)
                row = {"round": r, "depth": depth, "batch": n, "logits": "every" if every else "last",
                       "cpu_ms": round((cpu_seconds() - cpu) / reps * 1000, 2),
                       "wall_ms": round((time.perf_counter() - wall) / reps * 1000, 2)}
                print(json.dumps(row), flush=True)
                rows.append(row)
    llama.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    cap = sub.add_parser("capture", help="run one session, logging the embedded model's requests")
    cap.add_argument("requests", type=Path)
    cap.add_argument("overrides", nargs="*")
    rep = sub.add_parser("replay", help="replay the logged requests with each draft setting")
    rep.add_argument("requests", type=Path)
    rep.add_argument("--drafts", default="0,4,8", help="models.local.draft_tokens values, comma-separated")
    rep.add_argument("--rounds", type=int, default=2)
    rep.add_argument("--threads", default="2", help="models.local.n_threads (auto: the free cores)")
    rep.add_argument("--weights", default="q4_0")
    sub.add_parser("batches", help="CPU of a decode by batch size, one thread, ~1,000 tokens deep")
    args = parser.parse_args(argv)
    if args.step == "batches":
        batch_costs()
        return 0
    if args.step == "capture":
        capture(args.requests, args.overrides)
        return 0
    threads: int | str = args.threads if args.threads == "auto" else int(args.threads)
    replay(args.requests, [int(x) for x in args.drafts.split(",")], args.rounds, threads, args.weights)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
