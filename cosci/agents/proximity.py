"""Proximity: embed what is missing and cluster near-duplicate hypotheses; no LLM call (design.md#proximity).

Clustering (design.md#proximity): scikit-learn ``AgglomerativeClustering(n_clusters=None,
metric="precomputed", linkage="average", distance_threshold=vectors.cluster_threshold)`` on the cosine
distance matrix ``1 - similarity``; each hypothesis's ``dedup_cluster`` is written. Runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import hashlib

import numpy as np

from cosci.agents.base import BaseAgent
from cosci.domain import Task, TaskResult
from cosci.imports import scikit_learn_ready


def cluster(similarity: np.ndarray, threshold: float) -> list[int]:
    """Cluster labels for an ``(n, n)`` cosine similarity matrix; merges below ``threshold`` cosine distance."""
    n = similarity.shape[0]
    if n == 0:
        return []
    if n == 1:
        return [0]
    from sklearn.cluster import AgglomerativeClustering  # heavy (seconds): imported when first used

    scikit_learn_ready()

    distance = np.clip(1.0 - similarity, 0.0, 2.0)
    np.fill_diagonal(distance, 0.0)
    model = AgglomerativeClustering(n_clusters=None, metric="precomputed", linkage="average",
                                    distance_threshold=threshold)
    return [int(x) for x in model.fit_predict(distance)]


class ProximityAgent(BaseAgent):
    name = "proximity"

    async def execute(self, task: Task) -> TaskResult:
        """``UpdateProximityGraph``: embed missing hypotheses, re-cluster, store clusters; ``proximity_updated``."""
        hyps = [h for h in self.store.hypotheses.all() if h.state not in ("rejected", "retired")]
        vectors, embedder = self.deps.vectors, self.deps.embedder
        missing = [h for h in hyps if h.id not in vectors]
        if missing:
            texts = [h.embedding_text() for h in missing]
            vecs = await embedder.embed(texts, action="cluster", task_id=task.id)
            async with vectors.lock:
                for h, text, vec in zip(missing, texts, vecs, strict=True):
                    self.store.hypotheses.add_embedding(h.id, embedder.model, vec,
                                                         hashlib.sha256(text.encode()).hexdigest()[:16], len(vectors))
                    vectors.add(h.id, vec)
        ids = [h.id for h in hyps]
        # per embedding model (design.md#proximity)
        threshold = self.config.vectors.cluster_threshold_for(embedder.model)
        labels = await asyncio.to_thread(cluster, vectors.matrix(ids), threshold)
        self.store.hypotheses.set_clusters(dict(zip(ids, labels, strict=True)))
        n_clusters = len(set(labels))
        return TaskResult("proximity_updated", detail={"hypotheses": len(ids), "clusters": n_clusters,
                                                       "embedded": len(missing)})
