"""The local corpus's embedding index: every record embedded once with the session's embedder, cached by content,
and fused with BM25 at search time (design.md#own-documents).

Vectors are ``(n_records, dim)`` float32, L2-normalised rows (the embedder's contract), over each record's title
and abstract (a document passage's text). They are cached as ``<cache_dir>/vectors-<sha256>.npy``, the hash over
the embedding model's name and every record's text, so a corpus is embedded once per model. A search ranks the
records by cosine similarity to the query's vector and fuses that order with BM25's by reciprocal rank fusion
(RRF, k = 60: Cormack, Clarke and Büttcher, SIGIR 2009, whose constant is the common default), so a passage that
says the same thing in other words can be found, and a keyword match still counts.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

log = logging.getLogger(__name__)

RRF_K = 60
"""The reciprocal rank fusion constant (module docstring)."""
BATCH = 256
"""Records embedded per call."""


class CorpusEmbedder(Protocol):
    """The session's embedder (:class:`cosci.llm.embeddings.embedder.Embedder`): its chosen ``model`` and
    ``embed(texts) -> (n, dim)`` float32, L2-normalised."""

    model: str

    async def embed(self, texts: list[str], *, action: str = "embed",
                    task_id: str | None = None) -> np.ndarray: ...


def _digest(model: str, texts: Sequence[str]) -> str:
    h = hashlib.sha256(model.encode())
    for t in texts:
        h.update(b"\0" + t.encode("utf-8", "replace"))
    return h.hexdigest()


async def embed_records(embedder: CorpusEmbedder, texts: Sequence[str], cache_dir: Path | None) -> np.ndarray:
    """``(len(texts), dim)`` float32 vectors of ``texts``, from the cache when this model embedded them before.

    Raises:
        whatever the embedder raises (``BudgetExceeded`` for a hosted model past proximity's share).
    """
    file = cache_dir / f"vectors-{_digest(embedder.model, texts)}.npy" if cache_dir is not None else None
    if file is not None and file.exists():
        try:
            found = np.load(file, allow_pickle=False)
            if found.shape[0] == len(texts):
                return np.asarray(found, dtype=np.float32)
        except (OSError, ValueError):
            pass
    parts = [await embedder.embed(list(texts[i:i + BATCH]), action="corpus") for i in range(0, len(texts), BATCH)]
    vectors = np.asarray(np.vstack(parts), dtype=np.float32)
    if file is not None:
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            tmp = file.with_name(f"{file.stem}.{os.getpid()}.tmp.npy")
            np.save(tmp, vectors, allow_pickle=False)
            os.replace(tmp, file)
        except OSError as exc:
            log.debug("corpus vectors not cached (%s): %s", file, exc)
    return vectors


def fuse(keyword_order: Sequence[int], vectors: np.ndarray, query: np.ndarray, n: int) -> list[int]:
    """The ``n`` best record indices by RRF over BM25's ``keyword_order`` and the cosine order of ``vectors``
    against ``query`` (``(dim,)``, L2-normalised); the cosine list is cut at ``len(keyword_order) + n`` records."""
    cosine = vectors @ np.asarray(query, dtype=np.float32)
    semantic = np.argsort(-cosine, kind="stable")[:len(keyword_order) + n]
    score: dict[int, float] = {}
    for order in (keyword_order, semantic.tolist()):
        for rank, i in enumerate(order):
            score[int(i)] = score.get(int(i), 0.0) + 1.0 / (RRF_K + rank + 1)
    return sorted(score, key=lambda i: (-score[i], i))[:n]
