"""Malformed model output (issue 12): every kind the scripted fake can send ends in a typed, recorded outcome.

A *crash* is any exception that is not one of cosci's own (``CosciError``: a typed LLM or record error the
flow retries or records). Each kind is sent for every call of one action; afterwards the action either
produced a result or failed with a typed error, and the answer is in the record (``transcripts``; for a
tournament judge, the match row with its verdict or none).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from cosci.errors import CosciError
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.session.runtime import SessionRuntime
from tests.contract import CONTRACT

HYP = {"title": "Metformin", "statement": "Metformin depletes AML stem cells.", "mechanism": "Complex I.",
       "entities": ["metformin"], "anticipated_outcomes": "Fewer colonies.", "novelty_argument": "Untested.",
       **CONTRACT, "citations": []}
NESTED = "[" * 5000 + "]" * 5000

RECORD_KINDS: dict[str, FakeReply] = {
    "empty": FakeReply.empty(),
    "truncated_json": FakeReply.malformed("record_hypothesis"),
    "wrong_types": FakeReply.record("record_hypothesis", **{**HYP, "title": 123, "entities": "metformin"}),
    "extra_fields": FakeReply.record("record_hypothesis", **HYP, surprise={"nested": True}),
    "prose_instead_of_tool_call": FakeReply.no_tool_call("The hypothesis is that metformin works."),
    "unknown_tool": FakeReply.record("delete_everything", confirm=True),
    "repeated_tool_calls": FakeReply(tool_calls=[("record_hypothesis", HYP), ("record_hypothesis", HYP)]),
    "arguments_array": FakeReply(tool_calls=[("record_hypothesis", "[1, 2, 3]")]),
    "arguments_null": FakeReply(tool_calls=[("record_hypothesis", "null")]),
    "deeply_nested": FakeReply(tool_calls=[("record_hypothesis", NESTED)]),
    "nan_values": FakeReply(tool_calls=[("record_hypothesis", json.dumps(HYP)[:-1] + ', "novelty": NaN}')]),
    "huge_output": FakeReply(text="metformin " * 60_000),
    "invalid_utf8": FakeReply(text="r\udcffesult \ud800 caf\xe9".encode("utf-8", "surrogatepass").decode("latin-1")
                              + "\udcff"),
    "refusal": FakeReply.no_tool_call("I'm sorry, but I can't help with that request."),
    "empty_tool_name": FakeReply(tool_calls=[("", HYP)]),
    "fenced_json_text": FakeReply(text="```json\n" + json.dumps(HYP) + "\n```"),
}
VERDICT_KINDS: dict[str, str] = {
    "verdict_missing": "Both hypotheses have merit; more data is needed.",
    "verdict_hypothesis_2": "After weighing both, Hypothesis 2 is the better idea.",
    "verdict_fenced_json": '```json\n{"better_idea": 2}\n```',
    "verdict_out_of_range": "better idea: 3",
    "verdict_both": "better idea: 1\nbetter idea: 2 or maybe 1",
    "verdict_empty": "",
    "verdict_invalid_utf8": "better idea: \udcff1",
}


def _no_crash(exc: BaseException | None) -> None:
    assert exc is None or isinstance(exc, CosciError), f"crash: {type(exc).__name__}: {exc}"


async def _execute(runtime: SessionRuntime, agent: str, action: str, key: str, **kw: Any) -> tuple[str, Any]:
    tid = runtime.store.tasks.enqueue(agent, action, key, **kw)
    assert tid is not None
    task = runtime.store.tasks.get(tid)
    assert task is not None
    try:
        return tid, await runtime.execute(task)
    except BaseException as exc:  # judged by _no_crash
        return tid, exc


@pytest.mark.parametrize("kind", sorted(RECORD_KINDS))
async def test_malformed_records_never_crash_and_are_recorded(planned: SessionRuntime, fake: FakeBackend,
                                                              kind: str) -> None:
    fake.script(RECORD_KINDS[kind], agent="generation", times=30)
    tid, outcome = await _execute(planned, "generation", "GenerateHypothesis", f"g-{kind}")
    _no_crash(outcome if isinstance(outcome, BaseException) else None)
    rows = planned.store.db.query("SELECT outcome, response FROM transcripts WHERE task_id=?", (tid,))
    outcomes = [r["outcome"] for r in rows]
    assert "ok" in outcomes and set(outcomes) <= {"ok", "error:budget"}, outcomes  # each answer kept as it came
    if not isinstance(outcome, BaseException):  # a record got through: it is a valid one
        for hid in outcome.hypothesis_ids:
            assert planned.store.hypotheses.get(hid) is not None


@pytest.mark.parametrize("kind", sorted(VERDICT_KINDS))
async def test_malformed_verdicts_never_crash_and_the_match_is_recorded(planned: SessionRuntime,
                                                                        fake: FakeBackend, add_player,
                                                                        kind: str) -> None:
    a = add_player("Metformin inhibits complex I to deplete leukemic stem cells", elo=1300.0, matches=6)
    b = add_player("Itraconazole blocks SMO to sensitise relapsed blasts", elo=1100.0, matches=6)
    fake.script(FakeReply(text=VERDICT_KINDS[kind]), agent="ranking", times=30)
    _, outcome = await _execute(planned, "ranking", "RunTournamentRound", f"b-{kind}")
    _no_crash(outcome if isinstance(outcome, BaseException) else None)
    matches = planned.store.db.query("SELECT winner, verdict_valid FROM tournament_matches")
    assert len(matches) == 1  # the match is recorded whatever the judge said
    elo = {h.id: h.elo for h in planned.store.hypotheses.all()}
    if not matches[0]["verdict_valid"]:  # no valid verdict: Elo unchanged
        assert (elo[a], elo[b]) == (1300.0, 1100.0)


def test_at_least_fifteen_kinds() -> None:
    assert len(RECORD_KINDS) + len(VERDICT_KINDS) >= 15
