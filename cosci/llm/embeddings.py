"""Embeddings for dedup and clustering: ``embed(texts) -> (n, dim)`` float32, L2-normalised rows.

The chain comes from ``models.embeddings.chain`` (seed 004 "Embedder Chain": Voyage -> OpenAI -> hash):
hosted models go through ``litellm.aembedding``; an entry whose API key is missing is skipped; ``hash`` is the
offline default. The model is chosen once, when the session starts (:meth:`Embedder.choose`), and then kept:
vectors from different models cannot share one FAISS index, so a session never mixes them.

``hash``: scikit-learn's ``HashingVectorizer`` over word 1-2-grams and character 3-5-grams (1024 features
each, signed), summed and L2-normalised. Deterministic, no key, no network, no torch; texts sharing words and
phrasing land close, unrelated texts near cosine 0.
"""

from __future__ import annotations

import asyncio
import logging
import os

import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer

log = logging.getLogger(__name__)
HASH_MODEL = "hash"
HASH_DIM = 1024
KEYS = {"voyage/": "VOYAGE_API_KEY", "text-embedding": "OPENAI_API_KEY", "openai/": "OPENAI_API_KEY",
        "gemini/": "GEMINI_API_KEY", "mistral/": "MISTRAL_API_KEY", "cohere/": "COHERE_API_KEY"}

_WORDS = HashingVectorizer(n_features=HASH_DIM, ngram_range=(1, 2), alternate_sign=True, norm="l2",
                           lowercase=True, stop_words="english")
_CHARS = HashingVectorizer(n_features=HASH_DIM, analyzer="char_wb", ngram_range=(3, 5), alternate_sign=True,
                           norm="l2", lowercase=True)


def l2_normalise(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def hash_embed(texts: list[str]) -> np.ndarray:
    """The offline embedding: ``(n, 1024)`` float32, L2-normalised (see module docstring)."""
    if not texts:
        return np.zeros((0, HASH_DIM), dtype=np.float32)
    words = _WORDS.transform(texts).toarray()
    chars = _CHARS.transform(texts).toarray()
    return l2_normalise(0.6 * words + 0.4 * chars)


def _key_for(model: str) -> str | None:
    return next((env for prefix, env in KEYS.items() if model.startswith(prefix)), None)


class Embedder:
    """The session's embedder.

    Args:
        chain: model names tried in order (``"hash"`` always works).
    """

    def __init__(self, chain: list[str]) -> None:
        self.chain = chain
        self.model = HASH_MODEL

    async def choose(self) -> str:
        """Pick the first chain entry whose key is set and that answers a probe; returns the model name."""
        for model in self.chain:
            if model == HASH_MODEL:
                self.model = model
                return model
            env = _key_for(model)
            if env and not os.environ.get(env):
                log.info("embedding model %s skipped: %s is not set", model, env)
                continue
            try:
                await self._hosted(model, ["probe"])
            except Exception as exc:  # any failure: next in the chain (seed 004)
                log.warning("embedding model %s unavailable (%s); trying the next", model, exc)
                continue
            self.model = model
            return model
        self.model = HASH_MODEL
        return HASH_MODEL

    async def embed(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dim)`` float32, L2-normalised, with the chosen model."""
        if self.model == HASH_MODEL:
            return await asyncio.to_thread(hash_embed, texts)
        return l2_normalise(await self._hosted(self.model, texts))

    @staticmethod
    async def _hosted(model: str, texts: list[str]) -> np.ndarray:
        import litellm

        resp = await litellm.aembedding(model=model, input=texts, num_retries=2)
        return np.asarray([d["embedding"] for d in resp.data], dtype=np.float32)
