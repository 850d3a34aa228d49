"""One FAISS ``IndexFlatIP`` per session over L2-normalised hypothesis embeddings (inner product = cosine).

design.md#dedup: one index per session, asyncio-locked, committed only after the hypothesis row is inserted. In cosci
the vectors themselves are kept in the session store (``embeddings_meta.vector``), so the index is derived state:
:meth:`VectorStore.load` rebuilds it from the store and a killed session can never leave index and store
out of step. :attr:`VectorStore.lock` serialises "check for a duplicate, then insert" across concurrent
Generation and Evolution actions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

import faiss
import numpy as np


@dataclass(frozen=True)
class Neighbour:
    id: str
    similarity: float  # cosine in [-1, 1]


class VectorStore:
    """Hypothesis id -> vector, searchable by cosine similarity.

    Args:
        dim: embedding dimension (1024 for the offline hash embedder).
    """

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.index = faiss.IndexFlatIP(dim)
        self.ids: list[str] = []
        self._offset: dict[str, int] = {}
        self.lock = asyncio.Lock()

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, hid: object) -> bool:
        return hid in self._offset

    def load(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        """Replace the index with ``vectors`` (``(n, dim)`` float32, L2-normalised) for ``ids``."""
        self.index.reset()
        self.ids, self._offset = [], {}
        if len(ids):
            self.add_many(ids, vectors)

    def add(self, hid: str, vector: np.ndarray) -> int:
        """Add one vector; returns its offset. Adding a known id is a no-op returning its offset."""
        if hid in self._offset:
            return self._offset[hid]
        self.add_many([hid], vector.reshape(1, -1))
        return self._offset[hid]

    def add_many(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        vecs = np.ascontiguousarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        self.index.add(vecs)
        for hid in ids:
            self._offset[hid] = len(self.ids)
            self.ids.append(hid)

    def nearest(self, vector: np.ndarray, k: int = 1) -> list[Neighbour]:
        """The ``k`` most similar stored hypotheses, most similar first."""
        if not self.ids:
            return []
        sims, idx = self.index.search(
            np.ascontiguousarray(vector, dtype=np.float32).reshape(1, -1), min(k, len(self.ids))
        )
        return [Neighbour(self.ids[i], float(s)) for s, i in zip(sims[0], idx[0], strict=True) if i >= 0]

    def vector(self, hid: str) -> np.ndarray | None:
        off = self._offset.get(hid)
        return None if off is None else self.index.reconstruct(off)

    def similarity(self, a: str, b: str) -> float:
        """Cosine similarity of two stored hypotheses; 0.0 if either is unknown."""
        va, vb = self.vector(a), self.vector(b)
        return 0.0 if va is None or vb is None else float(np.dot(va, vb))

    def matrix(self, ids: Sequence[str]) -> np.ndarray:
        """``(n, n)`` cosine similarity matrix of the given stored ids."""
        rows = [self.vector(h) for h in ids]
        if any(r is None for r in rows):
            raise KeyError(f"not in the vector store: {[h for h, r in zip(ids, rows, strict=True) if r is None][:3]}")
        vecs = np.stack(rows) if ids else np.zeros((0, self.dim), dtype=np.float32)  # type: ignore[arg-type]
        return np.clip(vecs @ vecs.T, -1.0, 1.0)

    def similarities(self, ids: Sequence[str]) -> np.ndarray:
        """``(n, n)`` float32 cosine similarities of ``ids``, 0.0 in the rows and columns of an id not stored (as
        :meth:`similarity`): one call for the many pairs of the pairing's large-pool path (design.md#scale)."""
        known = [h in self._offset for h in ids]
        vecs = np.zeros((len(ids), self.dim), dtype=np.float32)
        for i, h in enumerate(ids):
            if known[i]:
                vecs[i] = self.index.reconstruct(self._offset[h])
        return np.clip(vecs @ vecs.T, -1.0, 1.0)

    def save(self, path: str) -> None:
        """Write the index to ``path`` atomically (a copy for inspection; the session store is the source of truth)."""
        tmp = f"{path}.tmp"
        faiss.write_index(self.index, tmp)
        import os

        os.replace(tmp, path)
