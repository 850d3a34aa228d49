"""A fair comparison (design.md#eval-fairness): the judge sees the same fields of a pipeline and a baseline
hypothesis in one format, shuffled and under neutral ids; a failed run is missing, not zero; the baseline is one
call in the transcripts, also on a thinking route. Every model answer is scripted here."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from cosci.config.schema import CosciConfig
from cosci.eval import baseline as bl
from cosci.eval.moose_chem import URL_PREFIX, load_corpus, load_items, write_corpus
from cosci.eval.observe import BASELINE_ACTION, Answer, Scorer, SystemRun, judging_order
from cosci.eval.report import markdown, missing_section, summary_frame
from cosci.eval.runner import ranked_hypotheses
from cosci.ids import hypothesis_id
from cosci.llm.errors import NoRecordCall
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec
from cosci.records import Citation, RecordHypothesis
from cosci.store import SessionStore
from cosci.tools.corpus import LocalCorpus
from tests.contract import CONTRACT

SID = "s-fair"
BLOCK = re.compile(r'<hypothesis_text id="([^"]*)"[^>]*>\n(.*?)\n</hypothesis_text>', re.S)


@pytest.fixture
def corpus(tmp_path: Path) -> LocalCorpus:
    return LocalCorpus.load(write_corpus(load_corpus(150), tmp_path / "corpus.jsonl"))


def _pipeline_store(tmp_path: Path, cites: list[str]) -> Path:
    """A session store with two leaderboard hypotheses whose mechanism and outcomes are distinctive (one with
    line breaks in its statement, as a model may write)."""
    path = tmp_path / "store.sqlite"
    store = SessionStore.open(path, SID)
    store.sessions.create(goal="Design a thermocell.", config_snapshot={}, overrides=[], models_choice="fake",
                          budget_usd=1.0, budget_tokens=None, wall_clock_seconds=60.0)
    for i, elo in enumerate((1300.0, 1250.0)):
        h = RecordHypothesis(title=f"Pipe title {i}", statement=f"Pipe statement {i}\nover two lines.",
                             mechanism=f"PIPE-MECH-{i}: ions order at the cold side", entities=["PVA"],
                             anticipated_outcomes=f"PIPE-OUT-{i}: Seebeck up", novelty_argument="NOVELTY-NOT-SHOWN",
                             **CONTRACT, citations=[Citation(url=URL_PREFIX + c) for c in cites])
        assert store.hypotheses.insert(hypothesis_id(SID, "literature", h.statement), h, elo=elo, task_id=None)
    store.close()
    return path


def _baseline_reply(urls: list[str], k: int = 2) -> FakeReply:
    return FakeReply.record("record_hypotheses", hypotheses=[
        {"title": f"Base title {i}", "statement": f"Base statement {i}.", "mechanism": f"BASE-MECH-{i}: a salt",
         "anticipated_outcomes": f"BASE-OUT-{i}: strength up", "citations": urls} for i in range(k)])


def _score(n: int, score: int = 3) -> list[FakeReply]:
    return [FakeReply.record("record_match_score", score=score, rationale="scripted")] * n


async def test_the_judge_sees_the_same_fields_for_pipeline_and_baseline(
        config: CosciConfig, fake: FakeBackend, tmp_path: Path, corpus: LocalCorpus) -> None:
    item = load_items("1")[0]
    records = bl.retrieve(corpus, item.background_question, 5)
    pipe = SystemRun("pipeline", ranked_hypotheses(_pipeline_store(tmp_path, [records[0].id]), SID))
    fake.script(_baseline_reply([records[1].url]), agent="eval", mode="baseline")
    for reply in _score(4):
        fake.script(reply, agent="eval", mode="judge")
    scorer = Scorer(config, tmp_path / "eval" / "calls.jsonl", "cheap")
    base = await scorer.baseline(item, 1, corpus, 5, [records[0].id])
    await scorer.observe(item, 1, [records[0].id], [pipe, base])

    calls = fake.calls_for(agent="eval", mode="judge")
    assert len(calls) == 4
    shown = [BLOCK.search(c.prompt) for c in calls]
    assert all(shown)
    ids = [m.group(1) for m in shown if m]
    blocks = [m.group(2) for m in shown if m]
    labels = [[line.split(":")[0] for line in b.splitlines()] for b in blocks]
    assert labels == [["Title", "Statement", "Mechanism", "Anticipated outcomes"]] * 4  # one format for both
    text = "\n".join(blocks)
    for tag in ("PIPE-MECH-0", "PIPE-OUT-1", "BASE-MECH-0", "BASE-OUT-1"):  # mechanism and outcomes reach the judge
        assert sum(tag in b for b in blocks) == 1
    assert "Statement: Pipe statement 0 over two lines." in text  # line breaks do not mark the pipeline
    assert "NOVELTY-NOT-SHOWN" not in text and "PVA" not in text  # fields the baseline lacks stay out
    assert ids == [f"hypothesis-{i}" for i in range(1, 5)]  # neutral ids, not H-... or B1
    rest = {BLOCK.sub("", c.prompt) for c in calls}
    assert len(rest) == 1  # everything around the hypothesis is the same prompt
    # the order shown is judging_order's, which interleaves the systems and is the same on a rerun
    order = judging_order(item.id, 1, [pipe, base])
    assert order == judging_order(item.id, 1, [pipe, base])
    assert [a.fields.mechanism.split(":")[0] for _, _, a in order] == [
        re.search(r"Mechanism: ([A-Z]+-MECH-\d)", b).group(1) for b in blocks]  # type: ignore[union-attr]
    orders = {tuple(s for s, _, _ in judging_order(item.id, seed, [pipe, base])) for seed in range(1, 6)}
    assert len(orders) > 1  # shuffled, seeded per item and seed


async def test_a_failed_baseline_is_missing_and_left_out_of_the_paired_difference(
        config: CosciConfig, fake: FakeBackend, tmp_path: Path, corpus: LocalCorpus) -> None:
    item = load_items("1")[0]
    records = bl.retrieve(corpus, item.background_question, 5)
    truth = [records[0].id]
    scorer = Scorer(config, tmp_path / "eval" / "calls.jsonl", "cheap")
    pipe = SystemRun("pipeline", [Answer("H-1", ranked_hypotheses(_pipeline_store(tmp_path, truth), SID)[0].fields,
                                         truth)], spend={"cost_usd": 0.1})
    rows = []
    # seed 1: both answer, both cite the true inspiration (recall 1 each); seed 2: the baseline's answer lacks
    # the mechanism (a wrong answer: invalid record); seed 3: the session failed, the baseline answers
    fake.script(_baseline_reply([records[0].url], k=1), agent="eval", mode="baseline")
    bad = FakeReply.record("record_hypotheses", hypotheses=[{"title": "t", "statement": "s", "citations": []}])
    fake.script(bad, agent="eval", mode="baseline")
    fake.script(_baseline_reply([records[0].url], k=1), agent="eval", mode="baseline")
    for reply in _score(4):
        fake.script(reply, agent="eval", mode="judge")
    failed = SystemRun("pipeline", [], "SessionFailed: no model call succeeded", extra={"session_id": None})
    for seed, p in ((1, pipe), (2, pipe), (3, failed)):
        rows += await scorer.observe(item, seed, truth, [p, await scorer.baseline(item, seed, corpus, 5, truth)])
    assert len(fake.calls_for(agent="eval", mode="judge")) == 4  # nothing of a missing run is judged

    gone = [r for r in rows if r["missing"]]
    assert [(r["system"], r["seed"]) for r in gone] == [("baseline", 2), ("pipeline", 3)]
    assert "InvalidArguments" in gone[0]["error"] and "mechanism" in gone[0]["error"]
    assert all(r["recall_any"] != r["recall_any"] for r in gone)  # NaN, not 0
    recall = summary_frame(rows).filter(pl.col("metric") == "recall_any").row(0, named=True)
    assert (recall["baseline_mean"], recall["baseline_n"]) == (1.0, 2)  # scored 0 it would be 0.67 over 3
    assert (recall["pipeline_mean"], recall["pipeline_n"]) == (1.0, 2)
    assert (recall["difference_mean"], recall["difference_n"]) == (0.0, 1)  # only seed 1 has both
    md = missing_section(rows) + markdown(summary_frame(rows), "# header")  # as summary.md shows them
    assert "- baseline missing on 1 of 3 observations (item x seed): moose-00 seed 2: InvalidArguments" in md
    assert "- pipeline missing on 1 of 3 observations (item x seed): moose-00 seed 3: SessionFailed" in md
    assert "| recall_any | 1.00 [1.00, 1.00] | 1.00 [1.00, 1.00] | 0.00 [0.00, 0.00] | 2, 2, 1 |" in md


async def test_the_baseline_is_one_call_in_the_transcripts_on_a_thinking_route(
        config: CosciConfig, fake: FakeBackend, tmp_path: Path, corpus: LocalCorpus) -> None:
    route = bl.baseline_route(config)
    assert route.thinking_tokens > 0 and route.thinking_form == "budget"  # a forced tool would drop thinking
    item = load_items("1")[0]
    calls = tmp_path / "eval" / "calls.jsonl"
    scorer = Scorer(config, calls, "cheap")
    records = bl.retrieve(corpus, item.background_question, 5)
    fake.script(_baseline_reply([records[0].url]), agent="eval", mode="baseline")
    ok = await scorer.baseline(item, 1, corpus, 5, [])
    text_only = FakeReply(text="Here are my five hypotheses: ...")  # the model forgot the tool
    fake.script(text_only, agent="eval", mode="baseline")
    failed = await scorer.baseline(item, 2, corpus, 5, [])

    assert not ok.missing and len(ok.answers) == 2 and ok.extra["calls"] == 1.0
    assert failed.missing and "NoRecordCall" in (failed.error or "") and failed.extra["calls"] == 1.0
    sent = fake.calls_for(agent="eval", mode="baseline")
    assert len(sent) == 2 and all(c.tool_choice == "auto" and c.thinking for c in sent)  # thinking kept
    rows = [json.loads(x) for x in calls.read_text(encoding="utf-8").splitlines()]
    per_task = [sum(1 for r in rows if r["action"] == BASELINE_ACTION and r["task_id"] == t)
                for t in (f"eval::{item.id}::1::baseline", f"eval::{item.id}::2::baseline")]
    assert per_task == [1, 1]
    # the general structured-output path would have made a second, forced call here
    fake.script(text_only, agent="eval", mode="baseline", times=2)
    spec = CallSpec(route=route, action="Probe", system=[], messages=[{"role": "user", "content": "x"}])
    with pytest.raises(NoRecordCall):
        await call_record(scorer.gateway()[0], spec, bl.RecordHypotheses)
    assert len(fake.calls_for(agent="eval", mode="baseline")) == 4


class _Sent:
    """A port that keeps every spec it is given and passes it on."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.specs = inner, list[CallSpec]()

    async def complete(self, spec: CallSpec) -> Any:
        self.specs.append(spec)
        return await self.inner.complete(spec)


async def test_one_call_forces_the_record_where_thinking_survives_it(config: CosciConfig, fake: FakeBackend,
                                                                    tmp_path: Path) -> None:
    spec = CallSpec(route=replace(bl.baseline_route(config), thinking_form="effort"), action="Probe",
                    system=[], messages=[{"role": "user", "content": "x"}])
    fake.script(_baseline_reply([]), agent="eval", mode="baseline")
    port = _Sent(Scorer(config, tmp_path / "calls.jsonl", "cheap").gateway()[0])
    rec, _ = await bl.one_call_record(port, spec, bl.RecordHypotheses)
    [sent] = port.specs  # one request: the record forced, the thinking budget kept (a reasoning model thinks)
    assert sent.tool_choice == "record_hypotheses" and sent.thinking and len(rec.hypotheses) == 2


def test_a_session_that_raises_is_a_missing_pipeline(config: CosciConfig, fake: FakeBackend, tmp_path: Path,
                                                     corpus: LocalCorpus, monkeypatch: pytest.MonkeyPatch) -> None:
    import flows.launch
    from cosci.errors import SessionFailed
    from cosci.eval.runner import EvalOptions, _observe, _Tracker

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise SessionFailed("no model call succeeded (3 attempts); the last error: 401")

    monkeypatch.setattr(flows.launch, "run_session", failing)
    item = load_items("1")[0]
    scorer = Scorer(config, tmp_path / "eval" / "calls.jsonl", "cheap")
    [row] = _observe(item, 1, [], config, tmp_path / "corpus.jsonl", corpus, scorer, EvalOptions(baseline="none"),
                     5, _Tracker(None, None))
    assert row["missing"] and row["error"].startswith("SessionFailed: no model call succeeded")
    assert row["recall_any"] != row["recall_any"] and not fake.calls  # NaN; nothing judged
