"""``cosci investigate write`` on the embedded model (``models=local``, docs/design.md#paper): the stage runs, the
paper compiles, and whatever the small model wrote, each sentence the claims check could not trace is marked in
the text; nothing is called supported. Slow: the model runs on the CPU (about 3 min for a full write here; one
reviewer and one round keep this one shorter)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cosci.investigation.paper_latex import UNTRACED, engine
from cosci.investigation.write_command import write
from tests.investigation.test_write import RUN, finished_run

pytestmark = pytest.mark.slow


def test_the_embedded_model_writes_a_compiling_paper_with_its_untraced_claims_marked(tmp_path: Path) -> None:
    root = finished_run(tmp_path / "data")
    code = write(RUN, ["models=local", "paper.reviewers=1", "paper.max_rounds=1"], tmp_path / "data")
    out = root / "paper"
    status = json.loads((out / "status.json").read_text())
    assert code == (0 if status["passed"] else 1)
    tex = (out / "paper.tex").read_text()
    assert tex.startswith("% cosci checks: PASSED in round 1" if status["passed"] else
                          "% cosci checks: FAILING at the round limit (round 1 of 1)")
    assert (out / "paper.pdf").is_file() == (engine() is not None)
    claims = json.loads((out / "claims_grounding.json").read_text())["claims"]
    assert claims and {c["status"] for c in claims} <= {"traced", "untraced", "cited", "plain"}
    assert tex.count(UNTRACED) == sum(1 for c in claims if c["status"] == "untraced")
    assert (out / "reviews" / "reviewer1.json").is_file() and (out / "reviews" / "chair.json").is_file()
