"""Microbenchmark of the embedded model's token speeds: ``python -m bench.model_speed [--weights F] [--decoding D]``.

Loads the embedded model as the session does (``models.local.weights``, ``decoding``, the free-cores thread rule)
and times, from llama.cpp's own counters: prompt evaluation of a fresh ~400-token prompt (tokens/s), generation of
free text and generation under a JSON-schema grammar (tokens/s each), best of :data:`REPEATS` to take out other
jobs' bursts. ``bench.demo`` runs it next to each demo session and divides the session's token counts by these
speeds: the time the model needs for that schedule, the limit of the demo's wall (docs/design.md#demo).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict, dataclass
from typing import Any

REPEATS = 2
SCHEMA = {"type": "object", "properties": {
    "title": {"type": "string", "maxLength": 100},
    "statement": {"type": "string", "maxLength": 400},
    "rationale": {"type": "string", "maxLength": 400},
    "predictions": {"type": "array", "maxItems": 2, "items": {"type": "string", "maxLength": 100}}},
    "required": ["title", "statement", "rationale", "predictions"]}
"""A record of the kind the demo's agents write (a hypothesis), bounded as :mod:`cosci.llm.local.schema_bounds` does."""
PROMPT = ("You are a research assistant. Propose one testable hypothesis about how soil microbes affect the drought "
          "tolerance of wheat, with its rationale and two predictions. ") * 12


@dataclass
class Speeds:
    """Tokens per second: prompt evaluation, free generation, grammar-constrained generation; threads used."""

    prompt: float
    generation: float
    grammar: float
    threads: int
    weights: str
    decoding: str


def _timed(llama: Any, **request: Any) -> tuple[int, float, int, float]:
    """One completion from an empty KV cache: ``(prompt tokens, prompt ms, generated tokens, generation ms)``."""
    import llama_cpp

    llama.reset()
    llama._ctx.kv_cache_clear()
    llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
    llama.create_chat_completion(**request)
    perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
    return int(perf.n_p_eval), float(perf.t_p_eval_ms), int(perf.n_eval), float(perf.t_eval_ms)


def measure(weights: str = "q4_0", decoding: str = "grammar_last", n_threads: int | str = "auto") -> Speeds:
    """Load the model as configured and time it (see the module docstring); unloads it after."""
    from cosci.llm.local.model import LocalModelProvider
    from cosci.llm.local.state_cache import PromptStateLlama
    from cosci.llm.local.weights import weights_path

    provider = LocalModelProvider()
    provider.cfg = provider.cfg.model_copy(update={"weights": weights, "decoding": decoding, "n_threads": n_threads})
    threads = provider._first_threads()
    llama = PromptStateLlama(model_path=str(weights_path(weights)), n_ctx=2048, n_batch=256, n_threads=threads,
                             n_threads_batch=threads, verbose=False, seed=0)
    llama.grammar_last = decoding == "grammar_last"
    messages = [{"role": "user", "content": PROMPT}]
    best: dict[str, float] = {"prompt": 0.0, "generation": 0.0, "grammar": 0.0}
    try:
        for i in range(REPEATS):
            p, p_ms, g, g_ms = _timed(llama, messages=messages, max_tokens=64, temperature=0.7, seed=i,
                                      repeat_penalty=1.3)
            best["prompt"] = max(best["prompt"], p / p_ms * 1000)
            best["generation"] = max(best["generation"], g / g_ms * 1000 if g_ms else 0.0)
            _, _, g, g_ms = _timed(llama, messages=messages, max_tokens=96, temperature=0.7, seed=i, repeat_penalty=1.3,
                                   response_format={"type": "json_object", "schema": SCHEMA})
            best["grammar"] = max(best["grammar"], g / g_ms * 1000 if g_ms else 0.0)
    finally:
        llama.close()
    return Speeds(prompt=round(best["prompt"], 1), generation=round(best["generation"], 1),
                  grammar=round(best["grammar"], 1), threads=threads, weights=weights, decoding=decoding)


def token_seconds(log: list[dict[str, Any]], speeds: Speeds) -> float:
    """Seconds the call log's tokens take at ``speeds``: prompt tokens evaluated at the prompt speed, tokens
    generated at the grammar speed for schema-constrained calls and the free speed otherwise."""
    total = 0.0
    for e in log:
        total += e["prompt_evaluated"] / speeds.prompt
        total += e["generated"] / (speeds.grammar if e.get("schema") else speeds.generation)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", default="q4_0", choices=["q4_0", "q8_0", "shipped"])
    parser.add_argument("--decoding", default="grammar_last", choices=["grammar_last", "grammar_first"])
    parser.add_argument("--threads", default="auto")
    args = parser.parse_args(argv)
    threads: int | str = args.threads if args.threads == "auto" else int(args.threads)
    print(json.dumps(asdict(measure(args.weights, args.decoding, threads))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
