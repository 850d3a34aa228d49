"""The paper's LaTeX compiles with the installed TeX engine and its page limit is read from the built PDF
(docs/design.md#paper): a scripted short paper passes, a scripted long one fails the ``pages`` check with its count,
and the repair loop gets that failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cosci.investigation.paper_latex import body_pages, check_pages, compile_pdf, engine, render
from cosci.investigation.paper_records import RecordPaper
from cosci.investigation.write_command import write
from cosci.llm.fake.provider import FakeBackend, FakeReply
from tests.investigation.test_write import FAKE, ROWS, RUN, finished_run, paper

needs_tex = pytest.mark.skipif(engine() is None, reason="no TeX engine installed (make system-deps installs "
                                                       "Debian's TeX Live): nothing to compile")
LONG = ["Another sentence of a long discussion restates the question in many words, padding the body further. " * 3
        ] * 40  # no number, no term: the claims check passes it and only the page limit can fail


def _record(sentences: list[str], sections: int = 1) -> RecordPaper:
    return RecordPaper.model_validate({
        "title": "Packing circles", "abstract": ["We tune a program [E1]."],
        "sections": [{"heading": f"Part {k}", "sentences": sentences} for k in range(sections)]})


@needs_tex
def test_a_short_paper_compiles_and_its_body_is_counted_before_the_appendix(tmp_path: Path) -> None:
    tex = tmp_path / "paper.tex"
    tex.write_text(render(_record(["The mean was 2.54 [E1]."]), ROWS, [], [], ["status line"]))
    assert compile_pdf(tex).status == "pass"
    body, total = body_pages(tmp_path / "paper.pdf")
    assert (body, total) == (1, 2)  # the evidence rows' appendix starts on a page of its own
    assert check_pages(tmp_path / "paper.pdf", 1).status == "pass"


@needs_tex
def test_a_long_paper_fails_the_page_limit_with_its_count(tmp_path: Path) -> None:
    tex = tmp_path / "paper.tex"
    tex.write_text(render(_record(LONG, sections=4), ROWS, [], [], ["status line"]))
    assert compile_pdf(tex).status == "pass"
    body, total = body_pages(tmp_path / "paper.pdf")
    assert body > 3 and total == body + 1
    check = check_pages(tmp_path / "paper.pdf", 3)
    assert check.status == "fail"
    assert check.failures == [f"the body runs to {body} pages ({total} with the appendix and references), over "
                              f"paper.max_pages (3): shorten it"]


def test_no_pdf_leaves_the_page_check_skipped_and_a_broken_file_fails_it(tmp_path: Path) -> None:
    assert check_pages(tmp_path / "none.pdf", 8).status == "skipped"
    (tmp_path / "bad.pdf").write_bytes(b"not a pdf")
    check = check_pages(tmp_path / "bad.pdf", 8)
    assert check.status == "fail" and check.failures[0].startswith("bad.pdf cannot be read")


@needs_tex
def test_a_paper_over_the_page_limit_goes_back_to_repair_and_the_shorter_one_passes(
        tmp_path: Path, fake: FakeBackend) -> None:
    root = finished_run(tmp_path / "data")
    long = paper(["The mean was 2.54 [E1].", *LONG[:30]])
    long["sections"] *= 4
    fake.script(FakeReply.record("record_paper", **long), agent="author", action="Write/1")
    fake.script(FakeReply.record("record_paper", **paper(["The mean was 2.54 [E1]."])), agent="author",
                action="Repair1/1")
    # the author's cap raised: the fake cuts an answer at max_tokens as a provider does, and this paper is longer
    assert write(RUN, [*FAKE, "paper.max_pages=2", "paper.max_words=50000",
                       "paper.agents.author.modes.write.max_output_tokens=65536"], tmp_path / "data") == 0
    rounds = [s for s in map(json.loads, (root / "paper" / "stages.jsonl").read_text().splitlines())
              if s["stage"] == "round"]
    assert [r["passed"] for r in rounds] == [False, True]
    assert len(rounds[0]["failures"]) == 1 and rounds[0]["failures"][0].startswith("[pages] the body runs to ")
    repair = next(c for c in fake.calls_for(agent="author") if (c.action or "").startswith("Repair1")).prompt
    assert "over paper.max_pages (2)" in repair
    tex = (root / "paper" / "paper.tex").read_text()
    assert tex.startswith("% cosci checks: PASSED in round 2") and "compile: pass; pages: pass" in tex
    assert (root / "paper" / "paper.pdf").is_file()


@needs_tex
def test_whatever_characters_the_model_writes_the_paper_compiles(tmp_path: Path) -> None:
    odd = "A packing 中文 with « quotes », emoji 😀, Привет, ŋ and Ħ, 50% & ~ ^ \\end{document} #1 $x$."
    tex = tmp_path / "paper.tex"
    tex.write_text(render(_record([odd]), ROWS, [], [], ["status line"]))
    check = compile_pdf(tex)
    assert check.status == "pass", check.failures
    assert "[U+4E2D]" in tex.read_text() and "[U+00AB]" in tex.read_text()  # set as code points, not dropped
