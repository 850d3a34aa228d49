"""The embedded SmolLM2-135M, called for real through the gateway (``models=local``): one validated record and
one tournament verdict. Slow (the model runs on the CPU), so marked ``slow``; CI runs it. Plus a fast check of
the strict-JSON clean-up of the model's constrained output.

The bounds of the constrained output are tightened here (shorter strings, shorter lists) so the record takes
seconds rather than most of a minute; the code path is the shipped one. The decoding tests load the model with one
thread, as tests/llm/test_grammar_filter.py and test_local_drafts.py do: beside the other test worker a second
llama.cpp thread mostly waits at its barrier, spinning, on a core that worker needs (docs/development.md, test time,
eleventh pass); the thread count's own rule is tests/llm/test_local_threads.py's.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from cosci.llm.local.model import strict_json
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, TextBlock
from cosci.records import RecordHypothesis, TournamentVerdict, tool_schema
from cosci.tournament.verdict import parse_verdict, rationale_of
from tests.llm.helpers import harness, make_config

PAIR = ("Hypothesis 1: metformin depletes leukemic stem cells by inhibiting complex I.\n"
        "Hypothesis 2: aspirin cures all cancers.\nWhich is the better idea?")


def test_constrained_output_is_made_strict_json() -> None:
    """llama.cpp's JSON grammar allows raw newlines and tabs inside strings; strict parsers reject them."""
    raw = '{"rationale": "Hypothesis 1 is specific.\nHypothesis 2\tis vague.", "better_idea": 1}'
    with pytest.raises(json.JSONDecodeError, match="Invalid control character"):
        json.loads(raw)
    fixed = strict_json(raw)
    assert json.loads(fixed) == json.loads(raw, strict=False)
    assert parse_verdict(fixed) == 1
    cut = '{"title": "cut off at the ca'
    assert strict_json(cut) == cut  # left for the caller to report as truncated


@pytest.mark.slow
@pytest.mark.timeout(180)
async def test_the_embedded_model_answers_through_the_gateway(tmp_path: Path) -> None:
    calls = tmp_path / "calls.jsonl"
    config = make_config(tmp_path / "data", "models=local", "models.local.max_string_chars=60",
                         "models.local.max_list_items=2", f"models.local.call_log={calls}")
    h = harness(config)
    started = time.perf_counter()

    spec = CallSpec(route=h.gateway.router.route("generation", "literature"), action="Literature",
                    system=[TextBlock("You are a biomedical scientist. Answer by calling record_hypothesis.",
                                      cache=True)],
                    messages=[{"role": "user", "content": "Propose one hypothesis on repurposing metformin "
                                                          "for acute myeloid leukemia."}])
    assert spec.route.model == "cosci-local/smollm2-135m-instruct" and spec.thinking_tokens == 0
    hyp, resp = await call_record(h.gateway, spec, RecordHypothesis)

    assert isinstance(hyp, RecordHypothesis)
    assert hyp.title and hyp.statement and hyp.mechanism
    assert len(hyp.entities) <= 2 and len(hyp.citations) <= 2  # lists bounded; none forced (design.md#local)
    assert all(len(s) <= 60 for s in (hyp.title, hyp.statement, hyp.mechanism, *hyp.entities))
    assert all(0 < len(s) <= 60 for s in (hyp.decisive_experiment, hyp.predicted_result, hyp.refuting_result))
    assert resp.tool_calls[0].name == "record_hypothesis" and resp.output_tokens > 0
    assert resp.cost_usd == 0.0  # registered at zero price

    judge = CallSpec(route=h.gateway.router.route("ranking", "pairwise"), action="RunTournamentRound",
                     system=[TextBlock("You judge two research hypotheses.", cache=True)],
                     messages=[{"role": "user", "content": PAIR}],
                     response_schema=tool_schema(TournamentVerdict))
    verdict = await h.gateway.complete(judge)

    assert parse_verdict(verdict.text) in (1, 2)
    assert TournamentVerdict.model_validate_json(verdict.text).better_idea == parse_verdict(verdict.text)
    assert rationale_of(verdict.text)
    assert h.outcomes == ["ok", "ok"]
    assert all(r.model == "cosci-local/smollm2-135m-instruct" for r in h.records)
    assert time.perf_counter() - started < 90
    log = [json.loads(line) for line in calls.read_text().splitlines()]
    assert [(e["schema"], e["valid"]) for e in log] == [(True, True), (True, True)]  # what bench.demo counts
    assert all(1 <= e["threads"] <= 2 for e in log)
    from cosci.llm.local.model import LocalModelProvider

    loaded = LocalModelProvider.instance()._llama
    assert loaded is None or loaded.model_path.endswith(".Q4_0.gguf")  # the default weights (design.md#local-weights)


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize("grammar_last", [True, False])
def test_grammar_constrained_answers_parse_on_either_decoding_path(grammar_last: bool) -> None:
    """``grammar_last`` checks the grammar on the drawn token and redraws among the grammar's tokens when it is
    rejected (design.md#local-decoding); every answer still parses and keeps the schema's bounds."""
    from cosci.llm.local.sampling import GrammarLastSampler
    from cosci.llm.local.state_cache import PromptStateLlama
    from cosci.llm.local.weights import weights_path

    schema = {"type": "object", "properties": {"better_idea": {"type": "integer", "enum": [1, 2]},
                                               "rationale": {"type": "string", "maxLength": 80}},
              "required": ["rationale", "better_idea"]}
    llama: Any = PromptStateLlama(model_path=str(weights_path("q4_0")), n_ctx=1024, n_batch=128, n_threads=1,
                                  verbose=False, seed=0)
    llama.grammar_last = grammar_last
    redrawn = 0
    try:
        for seed in range(3):
            out = llama.create_chat_completion(messages=[{"role": "user", "content": PAIR}], max_tokens=120,
                                               temperature=0.7, seed=seed, repeat_penalty=1.3,
                                               response_format={"type": "json_object", "schema": schema})
            answer = json.loads(out["choices"][0]["message"]["content"], strict=False)
            assert answer["better_idea"] in (1, 2) and len(answer["rationale"]) <= 80
            assert isinstance(llama._sampler.inner, GrammarLastSampler) is grammar_last
            redrawn += llama._sampler.resampled if grammar_last else 0
            assert llama.sampling_seconds > 0  # the draws are timed (llama.cpp's counters time the decode only)
    finally:
        llama.close()
    assert redrawn > 0 or not grammar_last  # the fast path did meet tokens the grammar rejects, and redrew them


@pytest.mark.slow
@pytest.mark.timeout(240)
@pytest.mark.parametrize("compact", [False, True])
def test_jump_forward_evaluates_the_forced_text_in_batches_and_answers_still_parse(compact: bool) -> None:
    """With ``jump_forward`` (design.md#local-decoding) the keys and punctuation the grammar forces are evaluated in
    batches, never drawn: answers parse and keep the schema, and every token is drawn or jumped over."""
    from cosci.llm.local.state_cache import PromptStateLlama
    from cosci.llm.local.weights import weights_path

    schema = {"type": "object", "properties": {"better_idea": {"type": "integer", "enum": [1, 2]},
                                               "rationale": {"type": "string", "maxLength": 80},
                                               "confidence_level": {"type": "string", "enum": ["low", "high"]}},
              "required": ["rationale", "better_idea", "confidence_level"]}
    llama: Any = PromptStateLlama(model_path=str(weights_path("q4_0")), n_ctx=1024, n_batch=128, n_threads=1,
                                  verbose=False, seed=0)
    llama.jump_forward, llama.compact_json = True, compact
    try:
        for seed in range(3):
            llama.jumped_tokens = llama.jump_batches = 0
            out = llama.create_chat_completion(messages=[{"role": "user", "content": PAIR}], max_tokens=120,
                                               temperature=0.7, seed=seed, repeat_penalty=1.3,
                                               response_format={"type": "json_object", "schema": schema})
            text = out["choices"][0]["message"]["content"]
            answer = json.loads(strict_json(text))
            assert answer["better_idea"] in (1, 2) and len(answer["rationale"]) <= 80
            assert answer["confidence_level"] in ("low", "high")
            sampler = llama._sampler.inner
            assert llama.jumped_tokens == sampler.forced_tokens > 0 and llama.jump_batches > 0
            assert not compact or all(f'"{key}": ' not in text for key in schema["properties"])  # no space after keys
    finally:
        llama.close()


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_prompt_state_is_saved_lean_and_restores_the_same_answer() -> None:
    """``PromptStateLlama`` keeps one logits row and one copy of llama.cpp's state (design.md#local): a second
    call of the same prompt is served from the saved state and answers as the first did."""
    from cosci.llm.local.model import gguf_path
    from cosci.llm.local.state_cache import PromptStateCache, PromptStateLlama, state_bytes

    llama = PromptStateLlama(model_path=str(gguf_path()), n_ctx=1024, n_batch=128, n_threads=1, verbose=False, seed=0)
    cache = PromptStateCache(capacity_bytes=64 << 20)
    llama.set_cache(cache)
    messages = [{"role": "user", "content": "Name one drug studied in acute myeloid leukemia. " * 8}]
    first = llama.create_chat_completion(messages=messages, max_tokens=8, temperature=0.0)
    (state,) = cache.cache_state.values()
    assert state.scores.shape[0] == 1 and len(state.llama_state) == state.llama_state_size
    assert state_bytes(state) == cache.cache_size < 64 << 20
    llama.reset()  # the next call must come from the cached state, not from the context's own tokens
    second = llama.create_chat_completion(messages=messages, max_tokens=8, temperature=0.0)
    assert second["choices"][0]["message"]["content"] == first["choices"][0]["message"]["content"]


def test_unload_frees_the_loaded_model_and_the_next_call_loads_it_again() -> None:
    from cosci.llm.local.model import LocalModelProvider

    class Loaded:
        closed = False

        def close(self) -> None:
            self.closed = True

    provider = LocalModelProvider.instance()
    before, loaded = provider._llama, Loaded()
    provider._llama = loaded
    try:
        LocalModelProvider.unload()
        assert loaded.closed and provider._llama is None
        LocalModelProvider.unload()  # nothing loaded: nothing to do
    finally:
        provider._llama = before


def test_every_model_call_runs_in_one_thread_whichever_thread_or_task_makes_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """libgomp keeps a worker pool per thread that calls llama.cpp: calls from several threads left the process with
    more OpenMP threads than cores, and libgomp then cut its spin (design.md#local-threads). Every call, async from
    concurrent tasks or sync from other threads, runs in the provider's one caller thread, with its context."""
    import asyncio
    import contextvars
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from cosci.llm.local.model import LocalModelProvider

    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="none")
    seen: list[tuple[int, str]] = []

    def recording(self: LocalModelProvider, model: str, messages: list[dict[str, Any]],
                  params: dict[str, Any]) -> str:
        seen.append((threading.get_ident(), marker.get()))
        time.sleep(0.01)
        return "ok"

    monkeypatch.setattr(LocalModelProvider, "_complete", recording)
    provider = LocalModelProvider.instance()
    args: tuple[Any, ...] = ("m", [], "", {}, None, None, None, None, None, {})

    async def concurrent() -> list[Any]:
        async def one(i: int) -> Any:
            marker.set(f"task {i}")
            return await provider.acompletion(*args)

        return await asyncio.gather(*(one(i) for i in range(4)))

    assert asyncio.run(concurrent()) == ["ok"] * 4
    with ThreadPoolExecutor(max_workers=3) as pool:  # sync callers on three other threads
        assert list(pool.map(lambda _: provider.completion(*args), range(3))) == ["ok"] * 3
    assert len({ident for ident, _ in seen}) == 1 and seen[0][0] != threading.get_ident()
    assert sorted(m for _, m in seen[:4]) == [f"task {i}" for i in range(4)]  # each call kept its task's context


def test_the_shared_pool_caller_makes_calls_from_asyncio_worker_threads_as_the_earlier_code_did(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``models.local.caller: shared_pool`` is the earlier behaviour, kept to measure it against (bench/README.md,
    "The eighth stop"): async calls run in asyncio's default executor, so concurrent calls come from several threads,
    and a sync call runs in the thread that makes it."""
    import asyncio
    import threading

    from cosci.llm.local.model import DEFAULT_CFG, LocalModelProvider

    seen: list[int] = []

    def recording(self: LocalModelProvider, model: str, messages: list[dict[str, Any]],
                  params: dict[str, Any]) -> str:
        seen.append(threading.get_ident())
        time.sleep(0.05)
        return "ok"

    monkeypatch.setattr(LocalModelProvider, "_complete", recording)
    provider = LocalModelProvider()
    provider.cfg = DEFAULT_CFG.model_copy(update={"caller": "shared_pool"})
    args: tuple[Any, ...] = ("m", [], "", {}, None, None, None, None, None, {})

    async def concurrent() -> list[Any]:
        return await asyncio.gather(*(provider.acompletion(*args) for _ in range(3)))

    assert asyncio.run(concurrent()) == ["ok"] * 3
    assert len(set(seen)) == 3 and threading.get_ident() not in seen
    assert provider.completion(*args) == "ok" and seen[-1] == threading.get_ident()
