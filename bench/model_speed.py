"""Microbenchmark of the embedded model's token speeds: ``python -m bench.model_speed [--weights F] [--decoding D]``.

Loads the embedded model as the session does (``models.local.weights``, ``decoding``, the free-cores thread rule,
the session's ``n_ctx`` and ``n_batch``) and times: prompt evaluation of a fresh ~400-token prompt (tokens/s, from
llama.cpp's own counters), generation of free text and generation under a JSON-schema grammar (tokens/s each: the
decode of each token, from llama.cpp's counters, plus the time spent drawing it, the sampler chain and the grammar,
which those counters leave out), best of :data:`REPEATS` to take out other jobs' bursts. ``bench.demo`` runs it next
to each demo session and divides the session's token counts by these speeds: the time the model needs for that
schedule, the limit of the demo's wall (docs/design.md#demo). The decode-only speeds are printed beside
(``generation_decode``, ``grammar_decode``: what this benchmark reported before the eighth stop, bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = ("weights", "decoding", "n_threads", "n_ctx", "n_batch")
"""The ``models.local`` settings the microbenchmark takes from the session's configuration."""
ENV_ITEM = re.compile(r"[A-Z_][A-Z0-9_]*=")
"""An environment assignment among an arm's items (``OMP_WAIT_POLICY=PASSIVE``): a name in capitals, then ``=``."""

REPEATS = 2
SCHEMA = {"type": "object", "properties": {
    "title": {"type": "string", "maxLength": 100},
    "statement": {"type": "string", "maxLength": 400},
    "rationale": {"type": "string", "maxLength": 400},
    "predictions": {"type": "array", "maxItems": 2, "items": {"type": "string", "maxLength": 100}}},
    "required": ["title", "statement", "rationale", "predictions"]}
"""A record of the kind the demo's agents write (a hypothesis), bounded as :mod:`cosci.llm.local.schema_bounds` does."""
DEEP = (275, 1000)
"""The demo's usual call (bench/README.md, "The eighth stop"): a 275-token prefix reused from a prompt state (the
system prompt every agent shares), then ~1,000 tokens evaluated after it. Timed as ``prompt_deep``, beside the
token time, not in it."""
PROMPT = ("You are a research assistant. Propose one testable hypothesis about how soil microbes affect the drought "
          "tolerance of wheat, with its rationale and two predictions. ") * 12


@dataclass
class Speeds:
    """Tokens per second: prompt evaluation, free generation, grammar-constrained generation (decode and draw);
    threads used; the generation speeds of the decode alone."""

    prompt: float
    generation: float
    grammar: float
    threads: int
    weights: str
    decoding: str
    generation_decode: float = 0.0
    grammar_decode: float = 0.0
    prompt_deep: float = 0.0


def _timed(llama: Any, **request: Any) -> tuple[int, float, int, float, float]:
    """One completion from an empty KV cache: ``(prompt tokens, prompt ms, generated tokens, decode ms, draw ms)``."""
    import llama_cpp

    llama.reset()
    llama._ctx.kv_cache_clear()
    llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
    llama.sampling_seconds = 0.0
    llama.create_chat_completion(**request)
    perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
    return (int(perf.n_p_eval), float(perf.t_p_eval_ms), int(perf.n_eval), float(perf.t_eval_ms),
            llama.sampling_seconds * 1000)


def _deep(llama: Any) -> tuple[int, float]:
    """:data:`DEEP`'s prompt: its prefix evaluated, then the rest after it as a session's call reuses a prefix
    (llama-cpp-python's prefix match); ``(tokens evaluated after the prefix, their ms)``."""
    import llama_cpp

    prefix, rest = DEEP
    tokens = llama.tokenize((PROMPT * 4).encode())[: prefix + rest]
    llama.reset()
    llama._ctx.kv_cache_clear()
    next(llama.generate(tokens[:prefix], temp=0.0))
    llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
    next(llama.generate(tokens, temp=0.0))
    perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
    return int(perf.n_p_eval), float(perf.t_p_eval_ms)


def _rate(tokens: int, ms: float) -> float:
    return tokens / ms * 1000 if ms else 0.0


def measure(weights: str = "q4_0", decoding: str = "grammar_last", n_threads: int | str = "auto", n_ctx: int = 4096,
            n_batch: int = 256) -> Speeds:
    """Load the model as configured (the session's context and batch sizes by default, conf/models/local.yaml) and
    time it (see the module docstring); unloads it after."""
    from cosci.llm.local.model import LocalModelProvider
    from cosci.llm.local.state_cache import PromptStateLlama
    from cosci.llm.local.weights import weights_path

    provider = LocalModelProvider()
    provider.cfg = provider.cfg.model_copy(update={"weights": weights, "decoding": decoding, "n_threads": n_threads})
    threads = provider._first_threads()
    llama = PromptStateLlama(model_path=str(weights_path(weights)), n_ctx=n_ctx, n_batch=n_batch, n_threads=threads,
                             n_threads_batch=threads, verbose=False, seed=0)
    llama.grammar_last = decoding == "grammar_last"
    if llama.grammar_last:
        llama.piece_index()  # built before the timing, as a session's model load builds it
    messages = [{"role": "user", "content": PROMPT}]
    best: dict[str, float] = dict.fromkeys(("prompt", "generation", "grammar", "generation_decode", "grammar_decode",
                                            "prompt_deep"), 0.0)
    try:
        for i in range(REPEATS):
            p, p_ms, g, g_ms, s_ms = _timed(llama, messages=messages, max_tokens=64, temperature=0.7, seed=i,
                                            repeat_penalty=1.3)
            best["prompt"] = max(best["prompt"], _rate(p, p_ms))
            best["generation"] = max(best["generation"], _rate(g, g_ms + s_ms))
            best["generation_decode"] = max(best["generation_decode"], _rate(g, g_ms))
            _, _, g, g_ms, s_ms = _timed(llama, messages=messages, max_tokens=96, temperature=0.7, seed=i,
                                         repeat_penalty=1.3, response_format={"type": "json_object", "schema": SCHEMA})
            best["grammar"] = max(best["grammar"], _rate(g, g_ms + s_ms))
            best["grammar_decode"] = max(best["grammar_decode"], _rate(g, g_ms))
            best["prompt_deep"] = max(best["prompt_deep"], _rate(*_deep(llama)))
    finally:
        llama.close()
    return Speeds(threads=threads, weights=weights, decoding=decoding, **{k: round(v, 1) for k, v in best.items()})


def token_seconds(log: list[dict[str, Any]], speeds: Speeds) -> float:
    """Seconds the call log's tokens take at ``speeds``: prompt tokens evaluated at the prompt speed, tokens
    generated at the grammar speed for schema-constrained calls and the free speed otherwise."""
    total = 0.0
    for e in log:
        total += e["prompt_evaluated"] / speeds.prompt
        total += e["generated"] / (speeds.grammar if e.get("schema") else speeds.generation)
    return total


def split_arm(items: list[str]) -> tuple[dict[str, str], list[str]]:
    """An arm's items for ``bench.demo``: environment assignments (:data:`ENV_ITEM`, e.g. ``OMP_WAIT_POLICY=PASSIVE``,
    the waiting the earlier code set; design.md#local-threads) and Hydra overrides (the rest), apart."""
    env = dict(item.split("=", 1) for item in items if ENV_ITEM.match(item))
    return env, [item for item in items if not ENV_ITEM.match(item)]


def local_settings(overrides: list[str]) -> dict[str, str]:
    """The :data:`SETTINGS` of ``models.local`` as conf/models/local.yaml sets them, with any
    ``models.local.KEY=VALUE`` override applied."""
    import yaml

    local = yaml.safe_load((ROOT / "conf" / "models" / "local.yaml").read_text())["local"]
    out = {k: str(local[k]) for k in SETTINGS}
    for item in overrides:
        key, _, value = item.partition("=")
        if key.startswith("models.local.") and key.split(".", 2)[2] in out:
            out[key.split(".", 2)[2]] = value
    return out


def model_speeds(overrides: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """This microbenchmark for a session's settings (``overrides``) in a subprocess with the session's environment
    additions (``env``): tokens per second and threads, as :class:`Speeds`' fields."""
    cfg = local_settings(overrides)
    cmd = [sys.executable, "-m", "bench.model_speed", *(f"--{k.replace('_', '-')}={v}" for k, v in cfg.items())]
    done = subprocess.run(cmd, cwd=ROOT, env={**os.environ, **(env or {}), "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", default="q4_0", choices=["q4_0", "q8_0", "shipped"])
    parser.add_argument("--decoding", default="grammar_last", choices=["grammar_last", "grammar_first"])
    parser.add_argument("--n-threads", "--threads", dest="n_threads", default="auto")
    parser.add_argument("--n-ctx", type=int, default=4096, help="context window, tokens (the session's: 4096)")
    parser.add_argument("--n-batch", type=int, default=256, help="prompt tokens per batch (the session's: 256)")
    args = parser.parse_args(argv)
    threads: int | str = args.n_threads if args.n_threads == "auto" else int(args.n_threads)
    print(json.dumps(asdict(measure(args.weights, args.decoding, threads, args.n_ctx, args.n_batch))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
