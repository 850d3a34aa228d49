"""llama.cpp's context options on the embedded model's deep prompts: ``python -m bench.llama_options [--rounds N]``.

The demo's prompts are evaluated behind a reused prefix and its tokens generated ~1,300 deep in the context
(bench/README.md, "The tenth stop"; docs/design.md#local-prompt-reuse). For each option set of :data:`VARIANTS`, one
model (q4_0, ``n_ctx`` 4096, **one thread**) times a 400-token prompt from an empty context, 1,000 tokens after a
275-token prefix, and 40 tokens generated after a 1,300-token prompt, in **tokens per CPU-second of this process**
(on a shared machine CPU time moves less with the load than wall time; one thread meets no barrier), and reads the
saved state's bytes per token. Prints one JSON line per variant and round; the rounds alternate the variants.
"""

from __future__ import annotations

import argparse
import json
import resource
from typing import Any

VARIANTS: dict[str, dict[str, Any]] = {
    "today": {},
    "flash_attn": {"flash_attn": True},
    "flash_attn+q8_0_kv": {"flash_attn": True, "type_k": 8, "type_v": 8},  # GGML_TYPE_Q8_0; a quantised V needs it
    "n_batch_512": {"n_batch": 512},
}
"""Keyword arguments to ``Llama`` over the session's own (n_batch 256, no flash attention, f16 KV cache)."""
SHAPES = ((0, 400), (275, 1000))
"""(prefix already evaluated, tokens evaluated after it): the short prompt and the deep one."""
GENERATED, DEPTH = 40, 1300


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(options: dict[str, Any]) -> dict[str, float]:
    """Tokens per CPU-second of one model built with ``options``: ``prompt_short``, ``prompt_deep``,
    ``generation_deep``; and ``state_bytes_per_token`` after the generation."""
    import llama_cpp

    from bench.model_speed import PROMPT
    from cosci.llm.local.state_cache import PromptStateLlama
    from cosci.llm.local.weights import weights_path

    args: dict[str, Any] = {"n_ctx": 4096, "n_batch": 256, "n_threads": 1, "n_threads_batch": 1, "verbose": False,
                            "seed": 0, **options}
    llama = PromptStateLlama(model_path=str(weights_path("q4_0")), **args)
    try:
        tokens = llama.tokenize((PROMPT * 8).encode())
        out: dict[str, float] = {}
        for name, (prefix, n) in zip(("prompt_short", "prompt_deep"), SHAPES, strict=True):
            llama.reset()
            llama._ctx.kv_cache_clear()
            if prefix:
                next(llama.generate(tokens[:prefix], temp=0.0))
            cpu = cpu_seconds()
            next(llama.generate(tokens[:prefix + n], temp=0.0))
            out[name] = round(n / (cpu_seconds() - cpu), 1)
        llama.reset()
        llama._ctx.kv_cache_clear()
        stream = llama.generate(tokens[:DEPTH], temp=0.0)
        next(stream)
        cpu = cpu_seconds()
        for _ in range(GENERATED):
            next(stream)
        out["generation_deep"] = round(GENERATED / (cpu_seconds() - cpu), 1)
        out["state_bytes_per_token"] = llama_cpp.llama_state_get_size(llama._ctx.ctx) // (DEPTH + GENERATED + 1)
        return out
    finally:
        llama.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    for i in range(args.rounds):
        for name, options in VARIANTS.items():
            print(json.dumps({"round": i + 1, "variant": name, **measure(options)}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
