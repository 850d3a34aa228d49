"""The models' and vectors' sections: tiers, the embedded model, the fake, embeddings, dedup thresholds (conf/models/;
design.md#routing, #catalogue, #dedup).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from cosci.config.schema.base import (
    MAX_COUNT,
    MAX_SEED,
    MAX_TOKENS,
    Unit,
    _Strict,
)
from cosci.config.thinking import Effort, ThinkingForm


class EmbeddingThresholdsCfg(_Strict):
    dedup_cosine_threshold: Unit = Field(description="Dedup cosine threshold for this embedding model.")
    cluster_threshold: Unit = Field(description="Clustering cosine-distance threshold for this embedding model.")


class VectorsCfg(_Strict):
    dedup_cosine_threshold: Unit = Field(
        description="Cosine similarity at or above which a hypothesis is a duplicate (design.md#dedup: 0.92)."
    )
    cluster_threshold: Unit = Field(description="Max cosine distance merged by clustering (design.md#proximity: 0.15).")
    full_recluster_every_matches: int = Field(
        gt=0, le=MAX_COUNT, description="Proximity re-clusters every N matches (design.md#proximity: 20)."
    )
    recluster_every_hypotheses: int = Field(
        gt=0, le=10000, description="Idle re-clustering once this many hypotheses are unclustered (design.md#proximity:"
        " a cadence, not after every match)."
    )
    models: dict[str, EmbeddingThresholdsCfg] = Field(
        default_factory=dict,
        description="Thresholds per embedding model (design.md#dedup: a static model's cosine scale differs from a "
        "hosted one's; calibrated in bench/README.md); a model not listed uses the two values above.",
    )

    def dedup_threshold(self, model: str) -> float:
        """Dedup cosine threshold for vectors of ``model`` (per-model entry, else the hosted models' value)."""
        entry = self.models.get(model)
        return entry.dedup_cosine_threshold if entry else self.dedup_cosine_threshold

    def cluster_threshold_for(self, model: str) -> float:
        """Clustering cosine-distance threshold for vectors of ``model`` (per-model entry, else the hosted models'
        value)."""
        entry = self.models.get(model)
        return entry.cluster_threshold if entry else self.cluster_threshold


class ModelEntry(_Strict):
    model: str = Field(min_length=1, description="LiteLLM model string, e.g. 'anthropic/claude-opus-5'.")
    thinking: ThinkingForm = Field(
        description="How the model is asked to think: off, budget (budget_tokens), adaptive (adaptive thinking plus "
        "an effort level), effort (reasoning_effort); docs/design.md#thinking-forms. A boolean (sessions frozen "
        "before the forms existed) reads as budget / off.")
    lowest_effort: Effort | None = Field(
        default=None, description="Effort an `effort` tier sends on calls without a thinking budget (the model "
        "reasons anyway): gpt-5 family minimal, o-series and Gemini 3 Pro low; null: no effort field on such calls.")
    min_thinking_tokens: int | None = Field(
        default=None, ge=0, le=MAX_TOKENS, description="Budget a `budget` tier sends on calls without one, tokens: "
        "for models that think unless told (Gemini 2.5: 0 switches Flash off, 128 is Pro's documented minimum); "
        "null: no thinking field on such calls (Anthropic thinks only when asked).")
    output_tokens_per_second: float | None = Field(
        default=None, gt=0, le=100_000, description="Conservative output speed of this model, tokens/s: a call whose "
        "max_tokens at this speed (plus retry.first_token_seconds) outlasts the fixed call timeout is streamed under "
        "that longer deadline (docs/design.md#long-calls); null: never streamed, the fixed timeout applies.")
    api_key_env: str | None = Field(default=None, description="Environment variable holding the API key.")
    api_base: str | None = Field(default=None, description="Endpoint override (Ollama, llama.cpp server).")
    input_usd_per_mtok: float | None = Field(
        default=None,
        ge=0,
        le=10_000,
        description="Price override, USD per 1M input tokens; null = LiteLLM's price map.",
    )
    output_usd_per_mtok: float | None = Field(
        default=None, ge=0, le=10_000, description="Price override, USD per 1M output tokens."
    )
    typical_output_tokens: int | None = Field(
        default=None, gt=0, le=1_000_000,
        description="Typical answer length of this tier, tokens (thinking included): the budget admission's prior"
        " before the session has seen an answer, and the pre-flight estimate's answer size; null = 35 % of the"
        " mode's max_output_tokens (design.md#routing).",
    )
    batch: bool = Field(default=False, description="The provider has a message-batch API the batch pool may use "
                        "(Anthropic, design.md#batches); priced at the price table's batch prices.")
    unable_to_classify: bool = Field(
        default=False, description="The model may not decide safety verdicts: the offline screen decides and the "
        "model's answer is only recorded (docs/design.md#safety-screen). Set at validation for every model without "
        "a measurement as a classifier no worse than the screen's (conf/catalogue, docs/design.md#safety-measured);"
        " false for such a model is refused. The presets of the embedded model and the fake set it true.")
    unable_because: str | None = Field(
        default=None, description="Why the measurement rule marked this tier unable to classify (not measured, "
        "measured on another held-out set or a sample, or worse than the offline screen), filled at validation "
        "and said by the pre-flight (docs/design.md#safety-measured); null: the tier decides or its preset marks it.")
    context_window: int | None = Field(
        default=None, gt=0, le=100_000_000, description="The model's context window, tokens (conf/catalogue): an "
        "Ollama call sends num_ctx up to it and is refused when its prompt and cap do not fit (design.md#routing); "
        "null: LiteLLM's map, or unknown.")
    cache_min_tokens: int | None = Field(
        default=None, gt=0, description="The provider's minimum cacheable prompt prefix for this model, tokens "
        "(Anthropic's prompt-caching docs: 4096 for Opus 4.5-4.7 and Haiku 4.5, 1024 for Sonnet 4.5/4.6); a shorter "
        "marked prefix is silently not cached. When set, the gateway places cache breakpoints, and a tool loop whose "
        "own prefix is shorter gets the research handbook (design.md#caching). null: the provider does not cache "
        "marked blocks.")

    @field_validator("thinking", mode="before")
    @classmethod
    def _legacy_boolean(cls, value: object) -> object:
        """A session frozen before the forms existed said ``thinking: true`` for the budget form it was sent."""
        if isinstance(value, bool):
            return "budget" if value else "off"
        return value


class LocalModelCfg(_Strict):
    n_ctx: int = Field(gt=0, le=MAX_TOKENS, description="llama.cpp context window, tokens.")
    n_threads: int | Literal["auto"] = Field(
        description="CPU threads for llama.cpp: a number, or `auto` = the cores free for this process, read when the "
        "model loads and again before each call (design.md#local-threads).")
    generation_threads: int | None = Field(
        default=None, gt=0, le=1024, description="Threads llama.cpp decodes a generated token with (a batch of one), "
        "at most the threads `n_threads` gives; prompt batches keep all of them. null: as many as `n_threads` "
        "(the behaviour before the setting; conf/models/local.yaml sets 1: design.md#local-threads).")
    weights: Literal["q4_0", "q8_0", "shipped"] = Field(
        default="q4_0", description="Weight format: the shipped Q4_1 GGUF requantised once into the model cache "
        "(`q4_0`, `q8_0`), or the shipped file as is (design.md#local-weights).")
    decoding: Literal["grammar_last", "grammar_first"] = Field(
        default="grammar_last", description="Grammar-constrained sampling: check the grammar on the drawn token "
        "first and over the whole vocabulary only when it is rejected (`grammar_last`), or llama-cpp-python's chain "
        "that matches every vocabulary entry at every token (`grammar_first`; design.md#local-decoding).")
    jump_forward: bool = Field(
        default=False, description="Under `grammar_last`: evaluate the text the JSON-schema grammar admits as its only "
        "continuation (keys, punctuation) in one batch after the drawn token instead of drawing it token by token "
        "(design.md#local-decoding).")
    compact_json: bool = Field(
        default=False, description="Under `grammar_last`: the JSON-schema grammar admits no space between tokens "
        "outside strings, so the keys and punctuation after a value are forced whole, for `jump_forward` "
        "(design.md#local-decoding).")
    draft_tokens: int = Field(
        default=0, ge=0, le=32, description="Speculative decoding by prompt lookup: tokens proposed at most per step "
        "from an earlier occurrence of the last tokens in the prompt or the answer, kept only while the sampler draws "
        "the same token; it changes the answers (a batch's logits differ from a single token's); 0: off, the "
        "behaviour before the setting and the default (design.md#local-drafts). Not with `jump_forward`.")
    caller: Literal["one_thread", "shared_pool"] = Field(
        default="one_thread", description="Which threads make the model's calls: one thread of its own (`one_thread`), "
        "or asyncio's default executor shared with the session's other blocking work (`shared_pool`, the earlier "
        "behaviour, kept to measure it: libgomp then keeps a worker pool per calling thread; design.md#local-threads).")
    n_batch: int = Field(gt=0, le=MAX_TOKENS, description="Prompt tokens llama.cpp evaluates per batch; also the rows "
                         "of its logits buffer (n_batch × 49,152 float32 for SmolLM2: 48 MiB at 256), copied into each "
                         "saved prompt state (design.md#local).")
    max_string_chars: int = Field(
        gt=0, le=1_000_000, description="Bound on each string in schema-constrained output, characters."
    )
    max_list_items: int = Field(gt=0, le=10_000, description="Bound on each list in schema-constrained output.")
    temperature: float = Field(ge=0, le=2.0, description="Sampling temperature.")
    max_tokens: int = Field(gt=0, le=MAX_TOKENS, description="Cap on tokens per schema-constrained answer.")
    max_text_tokens: int = Field(
        gt=0, le=MAX_TOKENS, description="Cap on tokens per free-text answer (debate turns, overview)."
    )
    repeat_penalty: float = Field(
        ge=1.0, le=10.0, description="llama.cpp repeat penalty (>1 discourages the tiny model's loops)."
    )
    quote_chars: int | None = Field(
        default=None, gt=0, le=1_000_000, description="Characters of each quoted block's body (other hypotheses, "
        "reviews, rationales, excerpts) the embedded model is sent of a user message, then '…'; null: whole blocks "
        "(design.md#local-prompt-fit).")
    lead_sections: tuple[str, ...] = Field(
        default=(), description="Headings (prefixes) of a user message's `## ` sections moved right after "
        "its opening for the embedded model, so that calls of one mode share them as a prefix a prompt state serves "
        "(a template's fixed instructions); empty: the order as written (design.md#local-prompt-fit).")
    cache_mb: int = Field(
        ge=1, le=1_048_576, description="RAM for cached prompt states (shared prefixes are not evaluated again), MB: "
        "every byte a state holds, its kept logits included (design.md#local)."
    )
    call_log: str | None = Field(
        description="JSONL file each call's figures are appended to (prompt tokens evaluated and reused, tokens "
        "generated, CPU and wall seconds; read by `python -m bench.demo`); null = none."
    )


class FakeModelCfg(_Strict):
    seed: int = Field(
        ge=0, le=MAX_SEED, description="Seed of the fake's deterministic choices (verdicts, texts, faults)."
    )
    fault_rate: Unit = Field(description="Probability of a transient fault per call.")
    latency_seconds: float = Field(ge=0, le=3_600, description="Simulated latency per call, seconds.")
    call_log: str | None = Field(description="JSONL file every request is appended to; null = memory only.")
    batch_dir: str | None = Field(default=None, description="Folder keeping the fake batch endpoint's batches "
                                  "(they outlive a killed process); null = memory only.")
    batch_polls: int = Field(default=1, ge=1, description="Polls of a fake batch until it has ended.")
    batch_outcome: Literal["succeeded", "errored", "expired"] = Field(
        default="succeeded", description="What every request of a fake batch ends as.")
    searches_per_loop: int = Field(
        default=1, ge=1, le=8, description="Searches the autopilot makes in a tool loop before it records its answer "
        "(1: one search, then the record; more: a literature-heavy session, as `python -m bench.cost` runs).")


class EmbeddingsCfg(_Strict):
    chain: list[str] = Field(
        min_length=1,
        description="Embedding models tried in order; the bundled static model and 'hash' are the offline end "
        "(design.md#embeddings).",
    )
    prices: dict[str, float] = Field(
        default_factory=dict,
        description="USD per 1M input tokens of embedding models LiteLLM does not price (the fake's).",
    )


class ModelsCfg(_Strict):
    name: str = Field(description="Which conf/models option this is.")
    tiers: dict[str, ModelEntry] = Field(min_length=1, description="Tier name -> model (strong, cheap, mini, ...).")
    degradation: list[str] = Field(
        min_length=1, description="Tiers walked, in order, when a model is unavailable (design.md#routing)."
    )
    agent_tiers: dict[str, str] = Field(description="'agent' or 'agent.mode' -> tier, winning over conf/agents.")
    local: LocalModelCfg | None = Field(default=None, description="Settings of the embedded model (models=local).")
    fake: FakeModelCfg | None = Field(default=None, description="Settings of the scripted fake (models=fake).")
    embeddings: EmbeddingsCfg = Field(description="Embedding chain.")
