"""Embeddings (seed 004 "Embedder Chain"): the offline ``hash`` embedder and the chain's choice of model."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import litellm
import numpy as np
import pytest

from cosci.config.schema import CosciConfig
from cosci.llm.embeddings.embedder import HASH_DIM, Embedder, hash_embed
from cosci.llm.gateway.embedding_calls import EmbeddingCalls
from tests.llm.helpers import Harness, harness

TEXTS = ["Metformin inhibits mitochondrial complex I and depletes leukemic stem cells in AML.",
         "Metformin depletes leukaemic stem cells in AML by inhibiting mitochondrial complex I.",
         "Sourdough bread rises because wild yeast ferments the flour's sugars into carbon dioxide."]


def test_hash_embeddings_are_normalised_float32() -> None:
    x = hash_embed(TEXTS)
    assert x.shape == (3, HASH_DIM) == (3, 1024)
    assert x.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0, rtol=1e-5)
    assert hash_embed([]).shape == (0, 1024)


def test_hash_embeddings_are_deterministic() -> None:
    np.testing.assert_array_equal(hash_embed(TEXTS), hash_embed(list(TEXTS)))
    np.testing.assert_array_equal(hash_embed(TEXTS)[1], hash_embed([TEXTS[1]])[0])  # independent of the batch


def test_similar_texts_are_closer_than_unrelated_ones() -> None:
    a, b, c = hash_embed(TEXTS)
    assert float(a @ b) > 0.5
    assert float(a @ b) > float(a @ c) + 0.3
    assert abs(float(a @ c)) < 0.2


class FakeHosted:
    """Stands in for ``litellm.aembedding``: records the models asked, fails for the ones in ``broken``."""

    def __init__(self, *broken: str) -> None:
        self.asked: list[str] = []
        self.broken = set(broken)

    async def __call__(self, model: str, input: list[str], **kwargs: Any) -> Any:
        self.asked.append(model)
        if model in self.broken:
            raise litellm.APIConnectionError(message="down", llm_provider="voyage", model=model)
        return SimpleNamespace(data=[{"embedding": [3.0, 4.0] + [0.0] * 6} for _ in input])


def hosted(config: CosciConfig) -> tuple[EmbeddingCalls, Harness]:
    h = harness(config)
    return EmbeddingCalls(h.gateway), h


async def test_the_chain_skips_a_hosted_model_without_its_key(monkeypatch: pytest.MonkeyPatch,
                                                             config: CosciConfig) -> None:
    fake_hosted = FakeHosted()
    monkeypatch.setattr(litellm, "aembedding", fake_hosted)
    calls, h = hosted(config)
    embedder = Embedder(["voyage/voyage-3-large", "text-embedding-3-small", "hash"], calls)  # no keys in tests

    assert await embedder.choose() == "hash"
    assert embedder.model == "hash"
    assert fake_hosted.asked == [] and h.records == []  # skipped without a request
    assert (await embedder.embed(TEXTS)).shape == (3, 1024)


async def test_the_chain_takes_the_first_model_whose_key_is_set(monkeypatch: pytest.MonkeyPatch,
                                                                config: CosciConfig) -> None:
    fake_hosted = FakeHosted()
    monkeypatch.setattr(litellm, "aembedding", fake_hosted)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    calls, h = hosted(config)
    embedder = Embedder(["voyage/voyage-3-large", "text-embedding-3-small", "hash"], calls)

    assert await embedder.choose() == "text-embedding-3-small"
    assert embedder.model == "text-embedding-3-small"
    assert fake_hosted.asked == ["text-embedding-3-small"]  # one probe; voyage skipped (no VOYAGE_API_KEY)
    x = await embedder.embed(TEXTS[:2], action="dedup", task_id="T-1")
    assert x.shape == (2, 8) and x.dtype == np.float32
    np.testing.assert_allclose(x[0, :2], [0.6, 0.8], rtol=1e-6)  # L2-normalised
    assert [(r.agent, r.mode, r.action, r.task_id, r.outcome) for r in h.records] == [
        ("proximity", "embedding", "probe", None, "ok"), ("proximity", "embedding", "dedup", "T-1", "ok")]


async def test_a_failing_hosted_model_falls_through(monkeypatch: pytest.MonkeyPatch, config: CosciConfig) -> None:
    fake_hosted = FakeHosted("voyage/voyage-3-large")
    monkeypatch.setattr(litellm, "aembedding", fake_hosted)
    monkeypatch.setenv("VOYAGE_API_KEY", "test-key")
    calls, h = hosted(config)
    embedder = Embedder(["voyage/voyage-3-large", "hash"], calls)
    assert await embedder.choose() == "hash" and embedder.model == "hash"
    # one retry owner: the gateway retried the connection error (seed 004: 3 attempts), LiteLLM did not
    assert fake_hosted.asked == ["voyage/voyage-3-large"] * config.retry.timeout_attempts
    assert h.outcomes == ["retry:connection", "retry:connection", "error:connection"]


async def test_without_a_gateway_hosted_models_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_hosted = FakeHosted()
    monkeypatch.setattr(litellm, "aembedding", fake_hosted)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    assert await Embedder(["text-embedding-3-small", "hash"]).choose() == "hash"
    assert fake_hosted.asked == []
