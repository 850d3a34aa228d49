"""Evolution (seed 000 §5): combine takes the most idea-distant pair of the top-K; simplify and feasibility
the best hypothesis not yet evolved that way; out_of_box the top 5. Each records strategy and parent_ids."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from cosci.ids import hypothesis_id
from cosci.llm.embeddings.embedder import HASH_DIM
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.session.runtime import SessionRuntime
from tests.contract import CONTRACT

STATEMENTS = ["Metformin inhibits complex I to deplete leukemic stem cells",
              "Itraconazole blocks SMO to sensitise relapsed blasts to cytarabine",
              "Disulfiram inhibits ALDH1A1 in NPM1-mutant AML stem cells",
              "Atorvastatin starves FLT3-ITD blasts of geranylgeranyl lipids",
              "Niclosamide uncouples mitochondria of TP53-mutant blasts",
              "Auranofin inhibits thioredoxin reductase to induce ferroptosis in AML"]


def unit(*coords: float) -> np.ndarray:
    v = np.zeros(HASH_DIM, dtype=np.float32)
    v[: len(coords)] = coords
    return v / np.linalg.norm(v)


@pytest.fixture
def pool(planned: SessionRuntime, add_player) -> list[str]:
    """Six ranked players, best first (Elo 1350, 1320, ...), each with 6 matches and a hand-made embedding."""
    vectors = [unit(1, 0, 0), unit(0.9, 0.44, 0), unit(0.2, 1, 0.1), unit(0.5, 0.1, 1), unit(1, 1, 1),
               unit(-1, 0, 0)]  # the last one is the most distant of all, but ranked outside the top-K
    ids = []
    for i, (statement, vec) in enumerate(zip(STATEMENTS, vectors, strict=True)):
        hid = add_player(statement, elo=1350.0 - 30 * i, matches=6, embed=False)
        planned.deps.vectors.add(hid, vec)
        ids.append(hid)
    return ids


def rec(**fields: object) -> FakeReply:
    base = {"title": "Evolved", "statement": "An evolved hypothesis about venetoclax and complex I.",
            "mechanism": "m", "entities": [], "anticipated_outcomes": "o", "novelty_argument": "n", **CONTRACT,
            "citations": [{"url": "https://fabricated.example.org/evo"}]}
    return FakeReply.record("record_hypothesis", **{**base, **fields})


async def test_combine_picks_the_most_distant_pair_of_the_top_k(planned: SessionRuntime, fake: FakeBackend,
                                                                run_task, pool: list[str]) -> None:
    top = pool[: planned.config.evolution.top_k]
    sim = planned.deps.vectors.similarity
    (a, b), runner_up = sorted(itertools.combinations(top, 2), key=lambda p: sim(*p))[:2]
    assert (a, b) == (pool[0], pool[2]) and sim(a, b) == pytest.approx(0.195, abs=1e-3)
    assert sim(*runner_up) > sim(a, b) + 0.05  # a unique answer
    assert sim(pool[0], pool[5]) < sim(a, b)  # the outsider is further, but not a top-K hypothesis

    fake.script(rec(strategy="literature", parent_ids=["H-000000000000"]), agent="evolution")
    _, result = await run_task("evolution", "EvolveHypotheses", "e0", payload={"mode": "combine"})
    assert result.kind == "hypothesis_created"
    assert result.detail["parent_ids"] == [a, b]
    assert result.detail["dropped_citations"] == ["https://fabricated.example.org/evo"]
    h = planned.store.hypotheses.get(result.hypothesis_ids[0])
    assert h is not None
    assert (h.mode, h.parent_ids, h.state, h.citations) == ("combine", [a, b], "draft", [])
    assert h.id == hypothesis_id(planned.store.namespace, f"combine:{','.join(sorted([a, b]))}", h.statement)

    (call,) = fake.calls_for("evolution", "combine")
    assert f'<hypothesis_text id="{a}"' in call.prompt and f'<hypothesis_text id="{b}"' in call.prompt
    assert "record_hypothesis" in call.tools


async def test_simplify_takes_the_best_not_yet_simplified(planned: SessionRuntime, fake: FakeBackend,
                                                          run_task, pool: list[str]) -> None:
    fake.script(rec(title="Metformin alone", statement="Metformin alone depletes stem cells."),
                agent="evolution")
    fake.script(rec(title="Itraconazole alone", statement="Itraconazole alone sensitises blasts."),
                agent="evolution")
    _, first = await run_task("evolution", "EvolveHypotheses", "e0", payload={"mode": "simplify"})
    _, second = await run_task("evolution", "EvolveHypotheses", "e1", payload={"mode": "simplify"})
    assert first.detail["parent_ids"] == [pool[0]] and second.detail["parent_ids"] == [pool[1]]
    for result in (first, second):
        h = planned.store.hypotheses.get(result.hypothesis_ids[0])
        assert h is not None and h.mode == "simplify" and h.parent_ids == result.detail["parent_ids"]
    (call, *_) = fake.calls_for("evolution", "simplify")
    assert f'<hypothesis_text id="{pool[0]}"' in call.prompt


async def test_feasibility_lineage_is_independent_of_simplify(planned: SessionRuntime, fake: FakeBackend,
                                                              run_task, pool: list[str]) -> None:
    fake.script(rec(title="Metformin alone", statement="Metformin alone depletes stem cells."),
                agent="evolution")
    fake.script(rec(title="Feasible metformin", statement="Oral metformin at 2 g/day reaches marrow levels."),
                agent="evolution")
    await run_task("evolution", "EvolveHypotheses", "e0", payload={"mode": "simplify"})
    _, result = await run_task("evolution", "EvolveHypotheses", "e1", payload={"mode": "feasibility"})
    assert result.kind == "hypothesis_created" and result.detail["parent_ids"] == [pool[0]]
    h = planned.store.hypotheses.get(result.hypothesis_ids[0])
    assert h is not None and (h.mode, h.parent_ids) == ("feasibility", [pool[0]])


async def test_out_of_box_is_inspired_by_the_top_five(planned: SessionRuntime, fake: FakeBackend, run_task,
                                                      pool: list[str]) -> None:
    _, result = await run_task("evolution", "EvolveHypotheses", "e0", payload={"mode": "out_of_box"})
    assert result.kind == "hypothesis_created" and result.detail["parent_ids"] == pool[:5]
    h = planned.store.hypotheses.get(result.hypothesis_ids[0])
    assert h is not None and (h.mode, h.parent_ids) == ("out_of_box", pool[:5])
    (call, *_) = fake.calls_for("evolution", "out_of_box")
    assert all(f'<hypothesis_text id="{hid}"' in call.prompt for hid in pool[:5])
    assert f'<hypothesis_text id="{pool[5]}"' not in call.prompt


async def test_too_few_ranked_hypotheses_is_nothing_to_do(planned: SessionRuntime, fake: FakeBackend,
                                                          run_task, add_player) -> None:
    add_player(STATEMENTS[0], matches=6)
    add_player(STATEMENTS[1], state="reviewed")
    _, result = await run_task("evolution", "EvolveHypotheses", "e0", payload={"mode": "combine"})
    assert result.kind == "nothing_to_do" and fake.calls_for("evolution") == []
    with pytest.raises(ValueError, match="unknown evolution mode"):
        await run_task("evolution", "EvolveHypotheses", "e1", payload={"mode": "mutate"})
