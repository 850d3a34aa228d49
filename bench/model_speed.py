"""Microbenchmark of the embedded model's token speeds: ``python -m bench.model_speed [--weights F] [--decoding D]``.

Loads the embedded model as the session does (``models.local.weights``, ``decoding``, the free-cores thread rule,
the session's ``n_ctx`` and ``n_batch``) and times: prompt evaluation of a fresh ~400-token prompt (tokens/s, from
llama.cpp's own counters), generation of free text and generation under a JSON-schema grammar (tokens/s each: the
decode of each token, from llama.cpp's counters, plus the time spent drawing it, the sampler chain and the grammar,
which those counters leave out), best of :data:`REPEATS` to take out other jobs' bursts. ``bench.demo`` runs it next
to each demo session and divides the session's token counts by these speeds: the time the model needs for that
schedule, the limit of the demo's wall (docs/design.md#demo). The decode-only speeds are printed beside
(``generation_decode``, ``grammar_decode``: what this benchmark reported before the eighth stop, bench/README.md).

**Speeds by depth** (the twelfth stop, bench/README.md; docs/design.md#demo). A token's cost grows with the context
before it (attention over it), and the session's tokens sit deep: its prompts are evaluated after a reused prefix
and ~1,000 tokens of context, its answers generated after the whole prompt. So the same run also times prompt
evaluation in :data:`CHUNK`-token chunks from an empty context to :data:`PROMPT_SPAN` tokens (``prompt_curve``:
each chunk's speed at its middle depth) and free and grammar-constrained generation after a chat prompt of each of
:data:`GEN_DEPTHS` tokens besides the short one (``generation_curve``, ``grammar_curve``: speed at the middle of
the answer). :func:`depth_token_seconds` sums each call of the call log at the depths its tokens sit: the token
time ``bench.demo`` reports as the limit; :func:`token_seconds` (everything at the short-prompt speeds) is printed
beside.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = ("weights", "decoding", "n_threads", "generation_threads", "n_ctx", "n_batch", "jump_forward",
            "compact_json")
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
system prompt every agent shares), then ~1,000 tokens evaluated after it. Its speed is ``prompt_deep``, read from
the prompt curve since the twelfth stop (timed apart before)."""
CHUNK = 256
"""Prompt tokens per timed chunk of ``prompt_curve`` (the session's ``n_batch``: one batch each)."""
PROMPT_SPAN = 2304
"""Depth the prompt curve reaches: past the demo's deepest prompt (~1,650 tokens; conf/models/local.yaml)."""
GEN_DEPTHS = (1024, 2048)
"""Chat prompt lengths (tokens) after which generation is timed for the curves, besides the short prompt's."""
CHAT_TAIL = "<|im_end|>\n<|im_start|>assistant\n"
"""What ends a ChatML user turn and opens the answer (SmolLM2's chat template): a depth's context is cut from a long
user message and closed with it, so the answer is drawn where a session's is."""
PROMPT = ("You are a research assistant. Propose one testable hypothesis about how soil microbes affect the drought "
          "tolerance of wheat, with its rationale and two predictions. ") * 12


@dataclass
class Speeds:
    """Tokens per second: prompt evaluation, free generation, grammar-constrained generation (decode and draw);
    threads used; the generation speeds of the decode alone; ``prompt_deep`` (1,000 tokens after 275, from the
    curve); and the speeds by depth (the ``*_curve`` fields)."""

    prompt: float
    generation: float
    grammar: float
    threads: int
    weights: str
    decoding: str
    generation_decode: float = 0.0
    grammar_decode: float = 0.0
    prompt_deep: float = 0.0
    prompt_curve: list[list[float]] = field(default_factory=list)
    generation_curve: list[list[float]] = field(default_factory=list)
    grammar_curve: list[list[float]] = field(default_factory=list)
    """``[[depth, tokens/s], ...]`` by depth (tokens of context before the token): prompt evaluation per chunk,
    generation with its draws per answer (module docstring)."""
    generation_threads: int = 0
    """Threads a generated token was decoded with (``models.local.generation_threads``; 0: read before it existed)."""


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


def _context(llama: Any) -> tuple[list[int], list[int]]:
    """A long ChatML user turn's tokens (past :data:`PROMPT_SPAN`) and :data:`CHAT_TAIL`'s."""
    text = "<|im_start|>user\n" + PROMPT * 8
    tokens = llama.tokenize(text.encode(), add_bos=False, special=True)
    return tokens[:PROMPT_SPAN], llama.tokenize(CHAT_TAIL.encode(), add_bos=False, special=True)


def _prompt_curve(llama: Any, tokens: list[int]) -> list[tuple[float, float]]:
    """``tokens`` evaluated from an empty context, :data:`CHUNK` at a time: ``[(middle depth, tokens/s)]``."""
    import llama_cpp

    llama.reset()
    llama._ctx.kv_cache_clear()
    out = []
    for start in range(0, len(tokens), CHUNK):
        chunk = tokens[start:start + CHUNK]
        llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
        llama.eval(chunk)
        llama_cpp.llama_synchronize(llama._ctx.ctx)  # llama.cpp adds a decode to its counters when it syncs
        perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
        out.append((start + len(chunk) / 2, _rate(int(perf.n_p_eval), float(perf.t_p_eval_ms))))
    return out


def _answer_at(llama: Any, prompt: list[int], fresh: int, max_tokens: int, seed: int,
               grammar: Any = None) -> tuple[float, float, float]:
    """One answer drawn after ``prompt`` (all but its last ``fresh`` tokens reused from the context, as a session's
    call reuses a prefix; they are evaluated as one batch, so that llama.cpp's generation counter holds the answer
    alone), with the session's sampling: ``(middle depth of the answer, tokens/s with the draws, tokens/s of the
    decode alone)``."""
    import llama_cpp

    vocab = llama_cpp.llama_model_get_vocab(llama._model.model)
    llama.n_tokens = min(llama.n_tokens, len(prompt) - fresh)
    llama.set_seed(seed)
    llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
    llama.sampling_seconds = 0.0
    for n, token in enumerate(llama.generate(prompt, temp=0.7, repeat_penalty=1.3, grammar=grammar), start=1):
        if n >= max_tokens or llama_cpp.llama_vocab_is_eog(vocab, token):
            break
    perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
    g, g_ms = int(perf.n_eval), float(perf.t_eval_ms)
    return len(prompt) + g / 2, _rate(g, g_ms + llama.sampling_seconds * 1000), _rate(g, g_ms)


def _rate(tokens: int, ms: float) -> float:
    return tokens / ms * 1000 if ms else 0.0


def measure(weights: str = "q4_0", decoding: str = "grammar_last", n_threads: int | str = "auto", n_ctx: int = 4096,
            n_batch: int = 256, jump_forward: bool = False, compact_json: bool = False,
            generation_threads: int | None = None) -> Speeds:
    """Load the model as configured (the session's context and batch sizes by default, conf/models/local.yaml) and
    time it (see the module docstring); unloads it after."""
    from cosci.llm.local.model import LocalModelProvider
    from cosci.llm.local.state_cache import PromptStateLlama
    from cosci.llm.local.weights import weights_path

    provider = LocalModelProvider()
    provider.cfg = provider.cfg.model_copy(update={"weights": weights, "decoding": decoding, "n_threads": n_threads,
                                                   "generation_threads": generation_threads})
    threads = provider._first_threads()
    llama = PromptStateLlama(model_path=str(weights_path(weights)), n_ctx=n_ctx, n_batch=n_batch,
                             n_threads=provider._generation(threads), n_threads_batch=threads, verbose=False, seed=0)
    llama.grammar_last = decoding == "grammar_last"
    llama.jump_forward, llama.compact_json = jump_forward, compact_json
    if llama.grammar_last:
        llama.piece_index()  # built before the timing, as a session's model load builds it
    messages = [{"role": "user", "content": PROMPT}]
    best: dict[str, float] = dict.fromkeys(("prompt", "generation", "grammar", "generation_decode", "grammar_decode"),
                                           0.0)
    curves: dict[str, dict[float, float]] = {"prompt_curve": {}, "generation_curve": {}, "grammar_curve": {}}

    def keep(curve: str, depth: float, rate: float) -> None:  # best of REPEATS at each depth (depths vary a little)
        points = curves[curve]
        near = next((d for d in points if abs(d - depth) <= CHUNK / 4), depth)
        points[near] = max(points.get(near, 0.0), rate)

    try:
        from llama_cpp import LlamaGrammar

        grammar = LlamaGrammar.from_json_schema(json.dumps(SCHEMA), verbose=False)  # as a json_object request makes it
        context, tail = _context(llama)
        for i in range(REPEATS):
            p, p_ms, g, g_ms, s_ms = _timed(llama, messages=messages, max_tokens=64, temperature=0.7, seed=i,
                                            repeat_penalty=1.3)
            best["prompt"] = max(best["prompt"], _rate(p, p_ms))
            best["generation"] = max(best["generation"], _rate(g, g_ms + s_ms))
            best["generation_decode"] = max(best["generation_decode"], _rate(g, g_ms))
            keep("generation_curve", p + g / 2, _rate(g, g_ms + s_ms))
            p, _, g, g_ms, s_ms = _timed(llama, messages=messages, max_tokens=96, temperature=0.7, seed=i,
                                         repeat_penalty=1.3, response_format={"type": "json_object", "schema": SCHEMA})
            best["grammar"] = max(best["grammar"], _rate(g, g_ms + s_ms))
            best["grammar_decode"] = max(best["grammar_decode"], _rate(g, g_ms))
            keep("grammar_curve", p + g / 2, _rate(g, g_ms + s_ms))
            for depth, rate in _prompt_curve(llama, context):
                keep("prompt_curve", depth, rate)
            for depth in sorted(GEN_DEPTHS, reverse=True):  # deepest first: each reuses the curve's context
                prompt = context[:depth - len(tail)] + tail
                d, rate, _ = _answer_at(llama, prompt, len(tail), 64, i)
                keep("generation_curve", d, rate)
                d, rate, _ = _answer_at(llama, prompt, len(tail), 96, i, grammar)
                keep("grammar_curve", d, rate)
    finally:
        llama.close()
    out = {k: [[round(d, 1), round(r, 1)] for d, r in sorted(v.items())] for k, v in curves.items()}
    best["prompt_deep"] = DEEP[1] / _span_seconds(DEEP[0], sum(DEEP), _costs(out["prompt_curve"]))
    rates = {k: round(v, 1) for k, v in best.items()}
    return Speeds(prompt=rates["prompt"], generation=rates["generation"], grammar=rates["grammar"], threads=threads,
                  weights=weights, decoding=decoding, generation_decode=rates["generation_decode"],
                  grammar_decode=rates["grammar_decode"], prompt_deep=rates["prompt_deep"],
                  prompt_curve=out["prompt_curve"], generation_curve=out["generation_curve"],
                  grammar_curve=out["grammar_curve"], generation_threads=provider._generation(threads))


def token_seconds(log: list[dict[str, Any]], speeds: Speeds) -> float:
    """Seconds the call log's tokens take at ``speeds``' short-prompt figures: prompt tokens evaluated at the prompt
    speed, tokens generated at the grammar speed for schema-constrained calls and the free speed otherwise (the limit
    ``bench.demo`` reported before the twelfth stop; printed beside :func:`depth_token_seconds`)."""
    total = 0.0
    for e in log:
        total += (e["prompt_evaluated"] + e.get("jumped", 0)) / speeds.prompt
        total += e["generated"] / (speeds.grammar if e.get("schema") else speeds.generation)
    return total


def _costs(curve: list[list[float]]) -> list[tuple[float, float]]:
    """A speed curve ``[[depth, tokens/s]]`` as seconds per token by depth, sorted."""
    return sorted((float(d), 1.0 / float(r)) for d, r in curve if r > 0)


def _span_seconds(start: float, stop: float, costs: list[tuple[float, float]]) -> float:
    """Seconds for the tokens from depth ``start`` to ``stop`` (context tokens before the first, before the end):
    the integral of the seconds per token, linear between the measured depths and held at the nearest measured one
    outside them (so a call deeper than the deepest point is counted at the deepest point's speed, never at a guessed
    slower one). ``costs``: ``[(depth, seconds per token)]``, sorted, at least one."""
    if stop <= start:
        return 0.0
    depths = [d for d, _ in costs]

    def cost(x: float) -> float:
        if x <= depths[0]:
            return costs[0][1]
        if x >= depths[-1]:
            return costs[-1][1]
        i = next(k for k in range(1, len(depths)) if x <= depths[k])
        (d0, c0), (d1, c1) = costs[i - 1], costs[i]
        return c0 + (c1 - c0) * (x - d0) / (d1 - d0)

    knots = [start, *(d for d in depths if start < d < stop), stop]  # cost is linear between knots: trapezoids exact
    return sum((b - a) * (cost(a) + cost(b)) / 2 for a, b in itertools.pairwise(knots))


def depth_token_seconds(log: list[dict[str, Any]], speeds: Speeds) -> float:
    """Seconds the call log's tokens take at the depths they sit (the limit for this schedule; module docstring).

    Per call: its evaluated prompt tokens lie from depth ``prompt_tokens - prompt_evaluated`` (the prefix reused from
    a prompt state) to ``prompt_tokens``, at ``speeds.prompt_curve``; its generated tokens from ``prompt_tokens`` on,
    at ``grammar_curve`` for a schema-constrained call and ``generation_curve`` otherwise, and the forced tokens a
    jump-forward evaluated in batches among them (``jumped``) at the prompt curve just after (their depths differ
    from the drawn tokens' by tens of tokens); see :func:`_span_seconds` for the interpolation. Without curves (a
    microbenchmark from before them) it is :func:`token_seconds`."""
    if not (speeds.prompt_curve and speeds.generation_curve and speeds.grammar_curve):
        return token_seconds(log, speeds)
    prompt, free, grammar = (_costs(c) for c in (speeds.prompt_curve, speeds.generation_curve, speeds.grammar_curve))
    total = 0.0
    for e in log:
        end = float(e["prompt_tokens"])
        total += _span_seconds(max(end - e["prompt_evaluated"], 0.0), end, prompt)
        total += _span_seconds(end, end + e["generated"], grammar if e.get("schema") else free)
        total += _span_seconds(end + e["generated"], end + e["generated"] + e.get("jumped", 0), prompt)
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
    parser.add_argument("--generation-threads", default="None", help="threads for a generated token (None: as "
                        "many as --n-threads gives; conf/models/local.yaml)")
    parser.add_argument("--n-ctx", type=int, default=4096, help="context window, tokens (the session's: 4096)")
    parser.add_argument("--n-batch", type=int, default=256, help="prompt tokens per batch (the session's: 256)")
    for flag in ("--jump-forward", "--compact-json"):
        parser.add_argument(flag, default="False", choices=["True", "False", "true", "false"],
                            help="under grammar_last (conf/models/local.yaml)")
    args = parser.parse_args(argv)
    threads: int | str = args.n_threads if args.n_threads == "auto" else int(args.n_threads)
    print(json.dumps(asdict(measure(args.weights, args.decoding, threads, args.n_ctx, args.n_batch,
                                    args.jump_forward.lower() == "true", args.compact_json.lower() == "true",
                                    None if args.generation_threads in ("None", "null") else
                                    int(args.generation_threads)))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
