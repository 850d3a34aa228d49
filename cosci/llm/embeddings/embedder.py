"""Embeddings for dedup and clustering: ``embed(texts) -> (n, dim)`` float32, L2-normalised rows.

The chain comes from ``models.embeddings.chain`` (design.md#embeddings: Voyage -> OpenAI -> hash; design.md#routing
puts the bundled static model before ``hash``): hosted models go through the gateway
(:class:`cosci.llm.gateway.embedding_calls.EmbeddingCalls`: proximity's budget share, a transcript row per call, the
gateway's retries); an entry whose API key is missing is skipped; ``wordllama-l2_supercat_256`` is the offline
default (:mod:`cosci.llm.embeddings.wordllama`, weights inside its wheel, no network) and ``hash`` the last resort.
The model is chosen once, when the session starts (:meth:`Embedder.choose`), and then kept: vectors from
different models cannot share one FAISS index, so a session never mixes them.

``hash``: scikit-learn's ``HashingVectorizer`` over word 1-2-grams and character 3-5-grams (1024 features
each, signed), summed and L2-normalised. Deterministic, no key, no network, no torch; texts sharing words and
phrasing land close, unrelated texts near cosine 0, but a paraphrase in other words scores low (~0.42).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from typing import Any, Protocol

import numpy as np

from cosci.imports import scikit_learn_ready
from cosci.llm.embeddings.wordllama import WORDLLAMA_DIM, WORDLLAMA_MODEL, StaticModelUnavailable, wordllama_embed
from cosci.llm.embeddings.wordllama import load as load_static

log = logging.getLogger(__name__)


class HostedEmbeddings(Protocol):
    """Hosted embedding calls (:class:`cosci.llm.gateway.embedding_calls.EmbeddingCalls`: budget, transcripts, retries);
    structural, since that module builds on the gateway, which uses this one."""

    async def embed(self, model: str, texts: list[str], *, action: str = "embed",
                    task_id: str | None = None) -> np.ndarray: ...

HASH_MODEL = "hash"
HASH_DIM = 1024
KEYS = {"voyage/": "VOYAGE_API_KEY", "text-embedding": "OPENAI_API_KEY", "openai/": "OPENAI_API_KEY",
        "gemini/": "GEMINI_API_KEY", "mistral/": "MISTRAL_API_KEY", "cohere/": "COHERE_API_KEY"}



@functools.cache
def _vectorizers() -> tuple[Any, Any]:
    """The word and character ``HashingVectorizer``s (scikit-learn takes seconds to import: loaded on first use,
    so it is off a session's start-up path; design.md#supervisor)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    scikit_learn_ready()
    words = HashingVectorizer(n_features=HASH_DIM, ngram_range=(1, 2), alternate_sign=True, norm="l2",
                              lowercase=True, stop_words="english")
    chars = HashingVectorizer(n_features=HASH_DIM, analyzer="char_wb", ngram_range=(3, 5), alternate_sign=True,
                              norm="l2", lowercase=True)
    return words, chars


def l2_normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def hash_embed(texts: list[str]) -> np.ndarray:
    """The offline embedding: ``(n, 1024)`` float32, L2-normalised (see module docstring)."""
    if not texts:
        return np.zeros((0, HASH_DIM), dtype=np.float32)
    word_vec, char_vec = _vectorizers()
    words = word_vec.transform(texts).toarray()
    chars = char_vec.transform(texts).toarray()
    return l2_normalise(0.6 * words + 0.4 * chars)


def _key_for(model: str) -> str | None:
    return next((env for prefix, env in KEYS.items() if model.startswith(prefix)), None)


class Embedder:
    """The session's embedder.

    Args:
        chain: model names tried in order (``"hash"`` always works).
        hosted: the gateway's embedding calls; without it hosted chain entries are skipped.
    """

    def __init__(self, chain: list[str], hosted: HostedEmbeddings | None = None) -> None:
        self.chain = chain
        self.hosted = hosted
        self.model = HASH_MODEL
        self.dim = HASH_DIM
        """Dimension of the chosen model's vectors (a hosted model's from its probe)."""

    async def choose(self) -> str:
        """Pick the first chain entry that works (key set and a probe answered, or the bundled model loads);
        returns the model name."""
        for model in self.chain:
            if model == HASH_MODEL or (model == WORDLLAMA_MODEL and await self._static_loads()):
                self.model, self.dim = model, HASH_DIM if model == HASH_MODEL else WORDLLAMA_DIM
                return model
            if model == WORDLLAMA_MODEL:
                continue
            env = _key_for(model)
            if env and not os.environ.get(env):
                log.info("embedding model %s skipped: %s is not set", model, env)
                continue
            if self.hosted is None:
                log.info("embedding model %s skipped: no gateway to call it through", model)
                continue
            try:
                probe = await self.hosted.embed(model, ["probe"], action="probe")
            except Exception as exc:  # any failure: next in the chain (design.md#embeddings)
                log.warning("embedding model %s unavailable (%s); trying the next", model, exc)
                continue
            self.model, self.dim = model, int(probe.shape[1])
            return model
        self.model, self.dim = HASH_MODEL, HASH_DIM
        return HASH_MODEL

    async def embed(self, texts: list[str], *, action: str = "embed", task_id: str | None = None) -> np.ndarray:
        """``(len(texts), dim)`` float32, L2-normalised, with the chosen model.

        ``action`` and ``task_id`` label a hosted call's transcript row (``dedup``, ``cluster``).

        Raises:
            BudgetExceeded: a hosted call would pass proximity's share.
        """
        if self.model == HASH_MODEL:
            return await asyncio.to_thread(hash_embed, texts)
        if self.model == WORDLLAMA_MODEL:
            return await asyncio.to_thread(wordllama_embed, texts)
        assert self.hosted is not None  # choose() only picks a hosted model with a gateway
        return l2_normalise(await self.hosted.embed(self.model, texts, action=action, task_id=task_id))

    def warm(self) -> None:
        """Load what the chosen model's first :meth:`embed` would (the hash model's vectorizers: scikit-learn's
        import, about a second of CPU here; the other models load in :meth:`choose` or need nothing). Blocking: a
        session calls it in a thread while its goal is screened and parsed, so the first hypotheses do not each
        wait for the import after their calls (design.md#supervisor, "The session's start")."""
        if self.model == HASH_MODEL:
            _vectorizers()

    @staticmethod
    async def _static_loads() -> bool:
        try:
            await asyncio.to_thread(load_static)
        except StaticModelUnavailable as exc:
            log.warning("bundled embedding model unavailable (%s); trying the next", exc)
            return False
        return True
