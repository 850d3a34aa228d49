"""Proximity (seed 000 §6): embed what is missing, cluster by average-linkage cosine distance, store the
clusters."""

from __future__ import annotations

import numpy as np

from cosci.agents.proximity import cluster
from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime


def test_cluster_merges_below_the_distance_threshold() -> None:
    sim = np.array([[1.0, 0.95, 0.1, 0.0],
                    [0.95, 1.0, 0.1, 0.0],
                    [0.1, 0.1, 1.0, 0.88],
                    [0.0, 0.0, 0.88, 1.0]])
    labels = cluster(sim, threshold=0.15)  # distance 0.05 merges, 0.12 merges, 0.9 does not
    assert labels[0] == labels[1] and labels[2] == labels[3] and labels[0] != labels[2]
    assert len(set(cluster(sim, threshold=0.08))) == 3  # 0.12 is now too far
    assert cluster(np.zeros((0, 0)), 0.15) == [] and cluster(np.ones((1, 1)), 0.15) == [0]


async def test_update_embeds_missing_and_near_identical_texts_share_a_cluster(planned: SessionRuntime,
                                                                              fake: FakeBackend, run_task,
                                                                              add_player) -> None:
    twin_a = add_player("Metformin inhibits mitochondrial complex I to deplete leukemic stem cells in AML",
                        embed=False)
    twin_b = add_player("Metformin inhibits mitochondrial complex I to deplete leukaemic stem cells in AML",
                        embed=False)
    other = add_player("Itraconazole blocks smoothened signalling to sensitise relapsed blasts", embed=False)
    third = add_player("Auranofin inhibits thioredoxin reductase and triggers ferroptosis", state="draft")
    gone = add_player("Digoxin blocks HIF-1alpha translation", state="rejected", embed=False)

    _, result = await run_task("proximity", "UpdateProximityGraph", "p0")
    assert result.kind == "proximity_updated"
    assert result.detail == {"hypotheses": 4, "clusters": 3, "embedded": 3}
    assert fake.calls_for("proximity") == []  # no LLM call
    clusters = {h.id: h.dedup_cluster for h in planned.store.hypotheses.all()}
    assert clusters[twin_a] == clusters[twin_b]
    assert len({clusters[twin_a], clusters[other], clusters[third]}) == 3
    assert clusters[gone] is None and gone not in planned.deps.vectors
    stored, vectors = planned.store.hypotheses.embeddings("hash")
    assert set(stored) == {twin_a, twin_b, other, third} and vectors.shape == (4, 1024)
    assert planned.deps.vectors.similarity(twin_a, twin_b) > 0.85

    _, again = await run_task("proximity", "UpdateProximityGraph", "p1")
    assert again.detail["embedded"] == 0
    assert {h.id: h.dedup_cluster for h in planned.store.hypotheses.all()}[twin_a] is not None
