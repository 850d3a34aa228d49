"""The bundled offline embedding model (issue 16): loads with no network, embeds, and heads the offline chain."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from cosci.llm.embeddings import wordllama as static_embedding
from cosci.llm.embeddings.embedder import Embedder
from cosci.llm.embeddings.wordllama import WORDLLAMA_DIM, WORDLLAMA_MODEL, StaticModelUnavailable, wordllama_embed

PARAPHRASE = ("Metformin depletes AML leukemic stem cells by inhibiting mitochondrial complex I.",
              "By blocking respiratory complex I, metformin kills the leukemia stem cells of acute myeloid leukemia.")
UNRELATED = "Sourdough bread rises because wild yeast ferments the flour's sugars into carbon dioxide."


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Every socket connection and name lookup fails (and is noted); the model is loaded afresh."""
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise OSError("network blocked in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    static_embedding._model.cache_clear()
    yield attempts
    static_embedding._model.cache_clear()


def test_the_bundled_model_loads_and_embeds_with_sockets_blocked(no_network: list[Any]) -> None:
    x = wordllama_embed([*PARAPHRASE, UNRELATED])
    assert no_network == []  # nothing even tried to connect
    assert x.shape == (3, WORDLLAMA_DIM) == (3, 256) and x.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(x, axis=1), 1.0, rtol=1e-5)
    assert float(x[0] @ x[1]) > float(x[0] @ x[2]) + 0.3  # a paraphrase is close, an unrelated text is not
    assert wordllama_embed([]).shape == (0, 256)


async def test_the_offline_chain_picks_the_bundled_model_first(no_network: list[Any]) -> None:
    embedder = Embedder([WORDLLAMA_MODEL, "hash"])
    assert await embedder.choose() == WORDLLAMA_MODEL
    assert (await embedder.embed(list(PARAPHRASE))).shape == (2, 256)
    assert no_network == []


async def test_without_the_package_the_chain_falls_back_to_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> Any:
        raise StaticModelUnavailable("the 'wordllama' package is not installed")

    monkeypatch.setattr(static_embedding, "package_folder", missing)
    static_embedding._model.cache_clear()
    try:
        embedder = Embedder([WORDLLAMA_MODEL, "hash"])
        assert await embedder.choose() == "hash"
    finally:
        static_embedding._model.cache_clear()
