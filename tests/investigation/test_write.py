"""``cosci investigate write`` (docs/design.md#paper): the claims check on its adversarial kinds, the paper on the
scripted fake, the repair loop against scripted wrong papers (a wrong number, a dangling citation, a missing
figure), the round limit and resume without paying twice (the embedded model's run: test_write_embedded.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cosci.errors import CosciError
from cosci.investigation.evidence import Interval
from cosci.investigation.folder import RunNotFound
from cosci.investigation.paper_checks import check_claim
from cosci.investigation.paper_latex import engine
from cosci.investigation.paper_sources import parse_row, references
from cosci.investigation.report import evidence_rows
from cosci.investigation.write_command import write
from cosci.llm.fake.provider import FakeBackend, FakeReply

ROOT = Path(__file__).resolve().parents[2]
RUN = "inv-0123456789ab"
FAKE = ["models=fake", "retry.base_delay_seconds=0", "retry.max_delay_seconds=0"]
ROWS = {"E1": "selected (5 of 5 seeds correct): mean sum_of_radii 2.5413, 95 % interval [2.5012, 2.5814], n = 5",
        "E2": "initial (5 of 5 seeds correct): mean sum_of_radii 2.1474, 95 % interval [2.0975, 2.1973], n = 5",
        "E3": "gain of the selected program over the initial one: 0.3939, 95 % interval [0.3512, 0.4366], n = 5 "
              "(positive = better)",
        "E4": "gain of 'shrink margin' (cycle 2): selected minus its ablation: -0.0123, 95 % interval "
              "[-0.0301, 0.0055], n = 5 (positive = better)"}


def finished_run(data: Path) -> Path:
    """A finished investigation's folder as ``investigate run`` leaves it (summary, evidence, histories)."""
    root = data / "investigations" / RUN
    shutil.copytree(ROOT / "tasks" / "circle_packing", root / "task" / "circle_packing")
    (root / "manifest.json").write_text(json.dumps({"run_id": RUN, "status": "done", "seeded": []}))
    rows = evidence_rows("sum_of_radii", [("selected", Interval(2.5413, 2.5012, 2.5814, 5, 0.95)),
                                          ("initial", Interval(2.1474, 2.0975, 2.1973, 5, 0.95))],
                         [("the selected program over the initial one", Interval(0.3939, 0.3512, 0.4366, 5, 0.95))])
    summary = {"run_id": RUN, "task": "circle_packing", "workers": 2, "cycles": 3, "cycles_run": 6,
               "isolation": "bwrap", "selected": {"label": "worker 1, cycle 2", "worker": 1, "cycle": 2,
                                                  "score": 2.6021},
               "initial_score": 2.2133, "gates": {"A pass B pass": 2, "A pass B fail": 3, "A fail B pass": 0,
                                                   "A fail B fail": 1},
               "cost_usd": 0.0685, "evidence": [r.__dict__ for r in rows]}
    (root / "summary.json").write_text(json.dumps(summary))
    for w in (1, 2):
        (root / "workers" / f"w{w}").mkdir(parents=True)
        (root / "workers" / f"w{w}" / "history.jsonl").write_text("".join(
            json.dumps({"worker": w, "cycle": c, "score": 2.2 + 0.1 * c * w, "gate_b": True}) + "\n"
            for c in (1, 2, 3)))
    return root


def paper(results: list[str], title: str = "Packing circles") -> dict[str, Any]:
    return {"title": title, "abstract": ["We tune a circle packing program."],
            "sections": [{"heading": "Results", "sentences": results}]}


WRONG = ["The selected program reached a mean of 2.61 [E1].",                 # wrong number (2.5413)
         "Margins were studied before [@nobody2020].",                         # dangling citation
         "The ablation is plotted in [fig:ablation]."]                         # missing figure
RIGHT = ["The selected program reached a mean of 2.54 [E1].", "The gain over the initial program was 0.394 [E3].",
         "The evidence is plotted in [fig:evidence]."]


# --- the claims check, kind by kind --------------------------------------------------------------------------
@pytest.mark.parametrize(("sentence", "status"), [
    ("The selected program scored 2.5413 [E1].", "traced"),
    ("The selected program scored 2.54 [E1].", "traced"),                       # rounding the row's number
    ("The selected program scored 2.5 over 5 seeds at 95 % [E1].", "traced"),
    ("The selected program scored 2.55 [E1].", "untraced"),                     # a changed digit
    ("The selected program scored 2.5413 [E2].", "untraced"),                   # the wrong row
    ("The selected program scored 2.5413.", "untraced"),                        # no row cited
    ("The selected program scored 2.5413 [E9].", "untraced"),                   # a row that does not exist
    ("Removing the margin change cost 0.0123 [E4].", "untraced"),               # the sign dropped
    ("Removing the margin change changed the score by -0.0123 [E4].", "traced"),
    ("The program used \"a hexagonal lattice seed\" [E1].", "untraced"),        # a quoted term not in the row
    ("Circle packing is an old problem [@smith2019].", "cited"),                # support unchecked, never supported
    ("We tune a program.", "plain"),
])
def test_each_claim_kind_gets_its_status(sentence: str, status: str) -> None:
    claim = check_claim("s", sentence, ROWS)
    assert claim.status == status, claim.problems
    assert (claim.problems == []) == (status != "untraced")


def test_evidence_rows_parse_back_into_the_numbers_they_were_written_from() -> None:
    rows = evidence_rows("m", [("a", Interval(1.5, 1.0, 2.0, 5, 0.95)), ("b", Interval(3.0, None, None, 1, 0.95))],
                         [("a over b", Interval(-0.25, -0.5, 0.0, 5, 0.95))])
    points = [parse_row(r.label, r.text) for r in rows]
    assert [(p.kind, p.mean, p.low, p.high) for p in points if p] == [
        ("mean", 1.5, 1.0, 2.0), ("mean", 3.0, None, None), ("gain", -0.25, -0.5, 0.0)]


def test_references_are_the_verified_not_retracted_citations_once_each() -> None:
    cites: list[tuple[str, dict[str, Any]]] = [
        ("H-1", {"url": "u1", "title": "Dense packings", "year": 2019, "status": "verified", "support": "supported"}),
             ("H-2", {"url": "u1", "title": "Dense packings", "year": 2019, "status": "verified"}),
             ("H-1", {"url": "u2", "title": "Dense packing again", "year": 2019, "status": "verified"}),
             ("H-1", {"url": "u3", "title": "Misquoted", "status": "misquoted"}),
             ("H-1", {"url": "u4", "title": "Withdrawn", "status": "verified", "retraction": "retracted"})]
    refs = references(cites)
    assert [(r.key, r.hypotheses) for r in refs] == [("dense2019", ["H-1", "H-2"]), ("dense2019a", ["H-1"])]


# --- the command on the scripted fake ----------------------------------------------------------------------------
def test_write_on_the_fake_traces_every_number_and_keeps_the_reviews(tmp_path: Path, fake: FakeBackend,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    root = finished_run(tmp_path / "data")
    assert write(RUN, FAKE, tmp_path / "data") == 0
    out = root / "paper"
    tex = (out / "paper.tex").read_text()
    grounding = json.loads((out / "claims_grounding.json").read_text())
    numbered = [c for c in grounding["claims"] if any(ch.isdigit() for ch in c["sentence"].replace("[E", ""))]
    assert numbered and all(c["status"] == "traced" and c["rows"] for c in numbered)
    assert all(c["status"] != "untraced" for c in grounding["claims"])
    manifest = json.loads((out / "figures.json").read_text())
    assert {f["id"] for f in manifest} == {"evidence", "gains", "search"}
    named = ("95 % Student t interval over the evidence seeds (a gain's is paired: the same seeds with and without "
             "the change); coverage nominal under normal, independent seed noise, not measured")
    captions = {f["id"]: f["caption"] for f in manifest}  # the error bars named by method and coverage basis
    assert captions["evidence"].endswith(f"with its {named}.") and captions["gains"].endswith(f"their {named}.")
    assert "95 \\% Student t interval over the evidence seeds" in tex
    assert all((out / "figures" / f["file"]).stat().st_size > 1000 for f in manifest)
    assert "\\ref{fig:evidence}" in tex and "\\includegraphics[width=0.9\\linewidth]{figures/evidence.pdf}" in tex
    if engine() is None:  # the compile check is honest about a machine without TeX
        assert tex.splitlines()[1] == "% compile: not compiled: no TeX engine (tectonic, pdflatex, xelatex, " \
                                      "lualatex) is installed" and not (out / "paper.pdf").exists()
    else:
        assert (out / "paper.pdf").is_file()
    reviews = sorted(p.name for p in (out / "reviews").iterdir())
    assert reviews == ["chair.json", "reviewer1.json", "reviewer2.json", "reviewer3.json", "reviews.md"]
    table = (out / "reviews" / "reviews.md").read_text()
    assert "| 3 | 3/4 | 3/4 | 2/4 | 5/10 | 2/5 |" in table and "## Area chair: reject (5/10)" in table
    assert json.loads((out / "reviews" / "chair.json").read_text())["decision"] in ("accept", "reject")
    for call in fake.calls_for(agent="reviewer"):  # the reviewers are told nothing of the checks
        assert "cosci checks" not in call.prompt and "untraced" not in call.prompt
    assert [s["stage"] for s in map(json.loads, (out / "stages.jsonl").read_text().splitlines())] == [
        "sources", "plan", "draft", "round", "references", "final", "reviews"]
    assert "area chair" in capsys.readouterr().out


def test_a_wrong_number_a_dangling_citation_and_a_missing_figure_are_named_and_repaired(
        tmp_path: Path, fake: FakeBackend) -> None:
    root = finished_run(tmp_path / "data")
    fake.script(FakeReply.record("record_paper", **paper(WRONG)), agent="author", action="Write/1")
    fake.script(FakeReply.record("record_paper", **paper(RIGHT)), agent="author", action="Repair1/1")
    assert write(RUN, FAKE, tmp_path / "data") == 0
    stages = [json.loads(x) for x in (root / "paper" / "stages.jsonl").read_text().splitlines()]
    first, second = [s for s in stages if s["stage"] == "round"]
    failures = "\n".join(first["failures"])
    assert "2.61 matches no number of E1" in failures
    assert "\\cite{nobody2020} resolves to no entry of references.bib" in failures
    assert "figure fig:ablation is referenced but is not in the figure manifest" in failures
    assert len(first["failures"]) == 3 and second["passed"] and second["failures"] == []
    repair = next(c for c in fake.calls_for(agent="author") if (c.action or "").startswith("Repair1")).prompt
    assert "2.61 matches no number" in repair and "nobody2020" in repair and "fig:ablation" in repair
    audit = fake.calls_for(agent="auditor")[0].prompt  # the auditor reads the paper blind to the verdicts
    assert "2.61" in audit and "matches no number" not in audit and "resolves to no entry" not in audit
    status = json.loads((root / "paper" / "status.json").read_text())
    assert status["passed"] and status["round"] == 2
    assert (root / "paper" / "paper.tex").read_text().startswith("% cosci checks: PASSED in round 2")


def test_the_plan_keeps_only_rows_figures_and_references_the_sources_have_and_the_draft_follows_it(
        tmp_path: Path, fake: FakeBackend) -> None:
    root = finished_run(tmp_path / "data")
    fake.script(FakeReply.record("record_paper_plan", thesis="The selected program packs better [E3].",
                                 emphasis=["E3", "E9"], figures=["evidence", "ablation"],
                                 references=[{"key": "ghost2020", "use": "prior packings"}]),
                agent="author", action="Plan/1")
    assert write(RUN, FAKE, tmp_path / "data") == 0
    kept = json.loads((root / "paper" / "plan.json").read_text())
    assert kept["dropped"] == ["row E9", "figure ablation", "reference ghost2020"]
    assert kept["plan"]["emphasis"] == ["E3"] and kept["plan"]["figures"] == ["evidence"]
    assert kept["plan"]["references"] == []
    draft = next(c for c in fake.calls_for(agent="author") if c.action == "Write/1").prompt
    assert "Thesis: The selected program packs better [E3]." in draft and "Lead with: E3. Figures: evidence." in draft
    assert "ghost2020" not in draft and "E9" not in draft.split("# Your plan", 1)[1]
    stages = [json.loads(x) for x in (root / "paper" / "stages.jsonl").read_text().splitlines()]
    assert next(s for s in stages if s["stage"] == "references")["uncited"] == []  # no reference in this run


def test_a_paper_still_failing_at_the_round_limit_says_so_first_and_marks_its_claims(
        tmp_path: Path, fake: FakeBackend) -> None:
    root = finished_run(tmp_path / "data")
    fake.script(FakeReply.record("record_paper", **paper(WRONG)), agent="author", action="Write/1")
    fake.script(FakeReply.record("record_paper", **paper(WRONG)), agent="author", action="Repair1/1")
    assert write(RUN, [*FAKE, "paper.max_rounds=2"], tmp_path / "data") == 1
    tex = (root / "paper" / "paper.tex").read_text()
    assert tex.startswith("% cosci checks: FAILING at the round limit (round 2 of 2)")
    assert "2.61 (E1). \\textbf{[untraced: not in the evidence]}" in tex
    grounding = json.loads((root / "paper" / "claims_grounding.json").read_text())
    assert [c["status"] for c in grounding["claims"] if "2.61" in c["sentence"]] == ["untraced"]
    assert not grounding["passed"]


def test_a_write_killed_mid_repair_resumes_without_paying_a_finished_call_twice(
        tmp_path: Path, fake: FakeBackend) -> None:
    root = finished_run(tmp_path / "data")
    fake.script(FakeReply.record("record_paper", **paper(WRONG)), agent="author", action="Write/1")
    fake.script(FakeReply(fault="bad_request"), agent="author", action="Repair1/1")
    with pytest.raises(CosciError, match="investigate write stopped"):
        write(RUN, FAKE, tmp_path / "data")
    paid = [(c.agent, c.action) for c in fake.calls if not c.fault]
    assert ("author", "Write/1") in paid and ("auditor", "Audit1/1") in paid
    fake.calls.clear()
    assert write(RUN, FAKE, tmp_path / "data") == 0  # the autopilot's repair is right
    again = [(c.agent, c.action) for c in fake.calls]
    assert not set(paid) & set(again)  # the draft and the first audit replayed from paper/calls/
    assert again[0] == ("author", "Repair1/1")
    assert json.loads((root / "paper" / "status.json").read_text())["round"] == 2


def test_an_unknown_or_unfinished_run_is_one_line(tmp_path: Path, fake: FakeBackend) -> None:
    with pytest.raises(RunNotFound):
        write("inv-ffffffffffff", FAKE, tmp_path / "data")
    root = finished_run(tmp_path / "data")
    (root / "summary.json").unlink()
    with pytest.raises(CosciError, match="has not finished"):
        write(RUN, FAKE, tmp_path / "data")
    assert fake.calls == [] and not (root / "paper").exists()


def test_the_command_line_says_a_bad_run_in_one_line_and_exits_2(tmp_path: Path, fake: FakeBackend,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from cosci.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["--data-dir", str(tmp_path / "data"), "investigate", "write", "inv-ffffffffffff", "models=fake"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no investigation inv-ffffffffffff" in err[0] and fake.calls == []


def test_the_bibliography_is_the_seeded_hypotheses_verified_citations_and_a_cited_claim_stays_unchecked(
        tmp_path: Path, fake: FakeBackend) -> None:
    from cosci.ids import hypothesis_id
    from cosci.records import Citation, RecordHypothesis
    from cosci.session.folder import SessionFolder
    from tests.contract import CONTRACT

    data = tmp_path / "data"
    store = SessionFolder(data, "S-write").open_store()
    try:
        store.sessions.create(goal="Pack circles", config_snapshot={}, overrides=[], models_choice="fake",
                              budget_usd=1.0, budget_tokens=None, wall_clock_seconds=60.0)
        cites = [Citation(url="https://example.org/a", title="Dense circle packings", year=2019, status="verified",
                          support="supported"),
                 Citation(url="https://example.org/b", title="A misquoted source", status="misquoted"),
                 Citation(url="https://example.org/c", title="Hexagonal lattices revisited", year=2021,
                          status="verified")]
        h = RecordHypothesis(title="Idea", statement="A hexagonal start raises the sum of radii.", mechanism="m",
                             entities=[], anticipated_outcomes="o", novelty_argument="n", **CONTRACT, citations=cites)
        hid = hypothesis_id(store.namespace, "literature", h.statement)
        store.hypotheses.insert(hid, h, elo=1300.0, task_id=None)
    finally:
        store.close()
    root = finished_run(data)
    (root / "manifest.json").write_text(json.dumps({"run_id": RUN, "status": "done", "from_session": "S-write",
                                                    "seeded": [{"id": hid, "text": "Idea"}]}))
    assert write(RUN, FAKE, data) == 0
    bib = (root / "paper" / "references.bib").read_text()
    assert bib.count("@misc{") == 2 and "@misc{dense2019," in bib and "session support check: supported" in bib
    tex = (root / "paper" / "paper.tex").read_text()
    assert "\\cite{dense2019}" in tex and "\\bibitem{dense2019} Dense circle packings." in tex
    assert "hexagonal2021" not in tex  # the bibliography lists what the text cites; the bib file keeps every one
    stages = [json.loads(x) for x in (root / "paper" / "stages.jsonl").read_text().splitlines()]
    assert next(s for s in stages if s["stage"] == "references")["uncited"] == ["hexagonal2021"]
    claims = json.loads((root / "paper" / "claims_grounding.json").read_text())["claims"]
    (cited,) = [c for c in claims if c["citations"]]
    assert cited["status"] == "cited" and cited["references"][0]["support"] == "supported"
    planning, writing = fake.calls_for(agent="author")[:2]  # the references reach the plan and the draft quoted
    assert all("<untrusted_source" in c.prompt.split("# References", 1)[1] for c in (planning, writing))
    assert json.loads((root / "paper" / "plan.json").read_text())["plan"]["references"][0]["key"] == "dense2019"


def test_model_text_is_escaped_and_a_figure_file_that_is_gone_fails_the_figure_check(tmp_path: Path) -> None:
    from cosci.investigation.paper_checks import check_figures
    from cosci.investigation.paper_latex import sentence_tex

    assert sentence_tex("Score ≥ 2.5 & 50% of runs_x \\input{x} [E1] [@k] [fig:a].") == (
        "Score $\\geq$ 2.5 \\& 50\\% of runs\\_x \\textbackslash{}input\\{x\\} (E1) \\cite{k} Figure~\\ref{fig:a}.")
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "a.pdf").write_bytes(b"%PDF")
    tex = "\\ref{fig:a} \\includegraphics[width=1cm]{figures/a.pdf} \\includegraphics{figures/b.pdf}"
    check = check_figures(tex, {"a": "a.pdf"}, tmp_path / "figures")
    assert check.status == "fail" and check.failures == ["\\includegraphics{figures/b.pdf}: the file does not exist"]


# --- a fresh user's runs: torn logs, broken or unfinished runs, a reviewer count that changed -------------------
def test_a_torn_last_line_of_the_calls_log_is_skipped_once_and_a_surviving_record_is_not_paid_again(
        tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str]) -> None:
    root = finished_run(tmp_path / "data")
    assert write(RUN, FAKE, tmp_path / "data") == 0
    out, log = root / "paper", root / "paper" / "calls.jsonl"
    paid = len(log.read_text().splitlines())
    with log.open("a") as fh:  # a kill during an append: half a row, no newline
        fh.write('{"t": 1.0, "agent": "author", "action": "Wri')
    shutil.rmtree(out / "calls")
    (out / "paper.tex").unlink()
    capsys.readouterr()
    for _ in range(2):  # every rerun, not only the first
        assert write(RUN, FAKE, tmp_path / "data") == 0
        notes = [x for x in capsys.readouterr().out.splitlines() if x.startswith("note")]
        assert notes == ["note         1 torn line(s) of paper/calls.jsonl skipped (a write killed mid-append): "
                         "their calls are not in the cost"]
    rows = log.read_text().splitlines()
    assert rows[paid] == '{"t": 1.0, "agent": "author", "action": "Wri'  # the torn line stays alone on its line
    assert all(isinstance(json.loads(x), dict) for i, x in enumerate(rows) if i != paid)
    assert (out / "paper.tex").is_file() and len(rows) == 1 + 2 * paid  # the records were gone: paid again once
    fake.calls.clear()
    assert write(RUN, FAKE, tmp_path / "data") == 0  # the records in paper/calls/ survive: nothing is paid
    assert fake.calls == [] and len(log.read_text().splitlines()) == len(rows)


@pytest.mark.parametrize("text", ['{"broken', "[1, 2]", '{"run_id": "x"}'])
def test_a_corrupt_run_summary_is_one_line_naming_it_and_nothing_is_written(
        tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str], text: str) -> None:
    from cosci.cli import main

    root = finished_run(tmp_path / "data")
    (root / "summary.json").write_text(text)
    with pytest.raises(SystemExit) as exit_:
        main(["--data-dir", str(tmp_path / "data"), "investigate", "write", RUN, "models=fake"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and len(err) == 1 and str(root / "summary.json") in err[0], err
    assert fake.calls == [] and not (root / "paper").exists()


def test_zero_reviewers_is_refused_and_fewer_reviewers_leave_no_stale_review(tmp_path: Path,
                                                                              fake: FakeBackend) -> None:
    from cosci.config.load import ConfigError

    root = finished_run(tmp_path / "data")
    assert write(RUN, FAKE, tmp_path / "data") == 0
    reviews = root / "paper" / "reviews"
    before = (reviews / "reviews.md").read_text()
    with pytest.raises(ConfigError, match=r"paper\.reviewers: Input should be greater than or equal to 1"):
        write(RUN, [*FAKE, "paper.reviewers=0"], tmp_path / "data")
    assert (reviews / "reviews.md").read_text() == before
    assert write(RUN, [*FAKE, "paper.reviewers=1"], tmp_path / "data") == 0
    assert sorted(p.name for p in reviews.iterdir()) == ["chair.json", "reviewer1.json", "reviews.md"]
    assert "| 1 |" in (reviews / "reviews.md").read_text() and "| 2 |" not in (reviews / "reviews.md").read_text()


def test_an_unfinished_run_held_by_another_process_is_said_to_be_running(tmp_path: Path, fake: FakeBackend) -> None:
    from cosci.investigation.folder import RunBusy, RunFolder

    root = finished_run(tmp_path / "data")
    (root / "summary.json").unlink()
    running = RunFolder.existing(tmp_path / "data", RUN)
    running.lock()  # as `investigate run` holds it (a flock on its own open file: another holder)
    try:
        with pytest.raises(RunBusy, match=f"investigation {RUN} is running in another process"):
            write(RUN, FAKE, tmp_path / "data")
    finally:
        running.unlock()
    with pytest.raises(CosciError, match="has not finished"):
        write(RUN, FAKE, tmp_path / "data")
    assert fake.calls == [] and not (root / "paper").exists()


def test_a_run_folder_without_its_manifest_is_said_incomplete_not_absent(tmp_path: Path, fake: FakeBackend) -> None:
    root = finished_run(tmp_path / "data")
    (root / "manifest.json").unlink()
    with pytest.raises(RunNotFound, match=r"is there but incomplete \(no manifest\.json\)"):
        write(RUN, FAKE, tmp_path / "data")
    (root / "summary.json").unlink()
    with pytest.raises(RunNotFound, match=f"{RUN}: its folder .* is there but incomplete "
                                          "\\(no manifest.json and no summary.json\\)"):
        write(RUN, FAKE, tmp_path / "data")
    assert fake.calls == [] and not (root / "paper").exists()


@pytest.mark.parametrize("action", ["write", "resume"])
def test_an_override_in_the_run_id_place_says_the_run_id_is_missing(
        tmp_path: Path, fake: FakeBackend, capsys: pytest.CaptureFixture[str], action: str) -> None:
    from cosci.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["--data-dir", str(tmp_path / "data"), "investigate", action, "models=fake"])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and len(err) == 1, err
    assert "needs the run id first" in err[0] and "'models=fake' is an override" in err[0]
    assert "no investigation" not in err[0] and not (tmp_path / "data").exists()
