"""The acceptance run of the writing stage (docs/design.md#paper): a fake investigation of circle packing with
``paper.after_run=true``, then the paper in its run folder, with the designed ablations and the diagnostics among
its evidence (docs/design.md#evidence)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cosci.investigation.paper_checks import NUMBER, ROWS
from cosci.investigation.paper_latex import engine
from cosci.llm.fake.provider import FakeBackend, FakeReply
from cosci.sandbox.bwrap import probe
from flows.investigation_launch import command

pytestmark = [pytest.mark.slow, pytest.mark.skipif(probe() is None, reason="bubblewrap cannot build a sandbox here")]
ROOT = Path(__file__).resolve().parents[2]
CIRCLES = ROOT / "tasks" / "circle_packing"


@pytest.fixture
def harness_api(prefect_server: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import PREFECT_API_URL

    monkeypatch.setenv("PREFECT_API_URL", str(PREFECT_API_URL.value()))


@pytest.mark.usefixtures("harness_api")
def test_a_fake_circle_packing_investigation_ends_in_a_traced_reviewed_paper(fake: FakeBackend,
                                                                           tmp_path: Path) -> None:
    data = tmp_path / "data"
    more = (CIRCLES / "initial" / "program.py").read_text().replace("ITERATIONS = 60 ", "ITERATIONS = 120")
    assert "ITERATIONS = 120" in more  # the first cycle's candidate: a longer hill climb (same seed: no worse)
    fake.script(FakeReply.record("write_candidate", path="program.py", content=more, base="best"),
                agent="execution")
    code = command("run", str(CIRCLES), ["models=fake", f"paths.data_dir={data}", "investigation.workers=1",
                                         "investigation.cycles=2", "evidence.seeds=3", "tracking.enabled=false",
                                         "paper.after_run=true"], None, data)
    assert code == 0
    (run,) = list((data / "investigations").iterdir())
    paper = run / "paper"
    summary = json.loads((run / "summary.json").read_text())
    rows = {r["label"]: r["text"] for r in summary["evidence"]}
    grounding = json.loads((paper / "claims_grounding.json").read_text())
    assert grounding["passed"] and grounding["claims"]
    for claim in grounding["claims"]:  # every number of the text is in an evidence row the claim cites
        stated = NUMBER.findall(ROWS.sub(" ", claim["sentence"]))
        if stated:
            assert claim["status"] == "traced" and claim["rows"], claim
            cited = " ".join(rows.get(label, "") for label in claim["rows"])
            assert all(re.search(rf"(?<![\d.]){re.escape(n)}", cited) for n in stated), claim
    tex = (paper / "paper.tex").read_text()
    assert tex.startswith("% cosci checks: PASSED in round 1")
    assert (paper / "paper.pdf").is_file() == (engine() is not None)
    assert (paper / "reviews" / "chair.json").is_file() and len(list((paper / "reviews").glob("reviewer*.json"))) == 3
    assert summary["selected"]["worker"] == 1  # the longer hill climb beat the initial program
    built = [d for d in summary["designed"] if d["program"]]  # the fake proposer undoes each changed line
    assert [(d["kind"], d["title"]) for d in built] == [("ablation", "without the change to ITERATIONS")]
    design = json.loads((run / "evidence" / "design.json").read_text())
    assert summary["designed_cost_usd"] == design["cost_usd"] > 0  # the fake prices its calls
    assert summary["cost_usd"] >= summary["designed_cost_usd"]  # the total counts the design calls too
    assert design["plan"]["proposals"] and design["screen"]["verdicts"]
    assert any(t.startswith(f"gain of the selected program over the {built[0]['kind']} '{built[0]['title']}'")
               for t in rows.values())
    diagnostics = [t for t in rows.values() if t.startswith("diagnostic of the selected program: ")]
    assert [t.split(": ", 1)[1].split(" ")[0] for t in diagnostics] == ["n_circles", "violations", "seconds"]
    assert all("95 % interval [" in t and "n = 3" in t for t in diagnostics)
    assert {f["id"] for f in json.loads((paper / "figures.json").read_text())} >= {"evidence", "search"}

