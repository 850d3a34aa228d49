"""A reference manager's export as ``session.corpus_path`` (design.md#reference-managers): BibTeX, RIS and CSL JSON
entries with their attached PDFs made here; a malformed export is one line naming the key."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from cosci.tools.corpus import CorpusError, LocalCorpus
from cosci.tools.references import read_export
from tests.tools.minimal_pdf import write_pdf

PAGES: list[str | None] = ["Metformin inhibits mitochondrial complex I in leukemia blasts.",
                          "Colony formation fell by 40 percent."]


def _pdf(folder: Path, name: str = "paper.pdf") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_pdf(folder / name, PAGES)
    return folder / name


@pytest.mark.parametrize("form", ["zotero", "mendeley", "bare"])
def test_each_bibtex_file_form_links_the_pdf_pages_to_the_entry(tmp_path: Path, form: str) -> None:
    pdf = _pdf(tmp_path / "files" / "7")
    field = {"zotero": "Full Text PDF:files/7/paper.pdf:application/pdf",
             "mendeley": ":" + str(pdf).replace(":", "\\:") + ":pdf", "bare": "files/7/paper.pdf"}[form]
    (tmp_path / "lib.bib").write_text("@article{k1, title={Metformin in {AML}}, year={2020}, doi={10.1/AB.c}, "
                                      f"file={{{field}}}}}\n", encoding="utf-8")
    corpus = LocalCorpus.load(tmp_path)
    assert [(r.id, r.doi, r.title) for r in corpus.records] == [
        ("files/7/paper.pdf#page=1", "10.1/AB.c", "Metformin in AML"),
        ("files/7/paper.pdf#page=2", "10.1/AB.c", "Metformin in AML")]  # the attached PDF is not read twice


def test_ris_and_csl_json_entries_link_their_files_and_keep_unattached_entries(tmp_path: Path) -> None:
    _pdf(tmp_path / "files")
    (tmp_path / "lib.ris").write_text("TY  - JOUR\nTI  - Metformin in AML\nDO  - 10.1/ris\nPY  - 2019\n"
                                      "L1  - files/paper.pdf\nER  - \n\nTY  - JOUR\nTI  - No file here\n"
                                      "AB  - An abstract only.\nDO  - 10.1/nofile\nER  - \n", encoding="utf-8")
    ris = read_export(tmp_path / "lib.ris")
    assert [(e.title, e.doi, e.year, [f.name for f in e.files]) for e in ris] == [
        ("Metformin in AML", "10.1/ris", 2019, ["paper.pdf"]), ("No file here", "10.1/nofile", None, [])]
    csl = [{"id": "c1", "title": "CSL paper", "DOI": "10.1/csl", "issued": {"date-parts": [[2021, 3]]},
            "author": [{"family": "Lee", "given": "Min"}], "file": "files/paper.pdf"}]
    (tmp_path / "lib.json").write_text(json.dumps(csl, indent=2), encoding="utf-8")
    (entry,) = read_export(tmp_path / "lib.json")
    assert (entry.doi, entry.year, entry.authors, entry.files[0].name) == ("10.1/csl", 2021, ("Lee, Min",), "paper.pdf")
    corpus = LocalCorpus.load(tmp_path)
    unattached = next(r for r in corpus.records if r.doi == "10.1/nofile")
    assert unattached.url == "https://doi.org/10.1/nofile" and unattached.abstract == "An abstract only."


@pytest.mark.parametrize(("name", "text"), [
    ("broken.bib", "@article{k1, title = {Unclosed, doi = {10.1/x}\n"),
    ("broken.ris", "this is not RIS at all\n"),
    ("broken.json", "[{\"title\": \"cut here\""),
])
def test_a_malformed_export_is_one_line_naming_the_key(tmp_path: Path, name: str, text: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        LocalCorpus.load(tmp_path / name)
    line = str(err.value)
    assert "\n" not in line and line.startswith(f"session.corpus_path: {name} ")
    assert capsys.readouterr().out == ""  # the parser's own messages are not printed


def test_a_missing_attachment_is_named_in_one_warning_and_the_entry_kept(tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "lib.bib").write_text("@article{k9, title={Gone}, doi={10.1/gone}, file={:files/none.pdf:pdf}}\n",
                                      encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="cosci.tools.corpus"):
        corpus = LocalCorpus.load(tmp_path)
    assert [r.title for r in corpus.records] == ["Gone"]
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "k9: none.pdf (not found)" in said[0]


def test_pages_of_one_paper_stay_records_of_their_own_and_a_citation_gets_the_papers_doi() -> None:
    from cosci.grounding.evidence import check_items
    from cosci.records import Citation
    from cosci.tools.base import Source
    from cosci.tools.sources import merge_records

    pages = [Source(url=f"file:///lib/a.pdf#page={n}", ids=(f"corpus:a.pdf#page={n}", "DOI:10.1/a"),
                    text=f"Page {n} says metformin reduced colonies by {n}0 percent.") for n in (1, 2)]
    pubmed = Source(url="https://pubmed.ncbi.nlm.nih.gov/1/", text="The abstract.", ids=("PMID:1", "DOI:10.1/a"))
    assert len(merge_records([*pages, pubmed])) == 3
    cite = Citation(url="file:///lib/a.pdf#page=2", excerpt="metformin reduced colonies by 20 percent")
    (kept,), _, _ = check_items([cite], [*pages, pubmed])
    assert (kept.status, kept.source_id, kept.doi) == ("verified", "corpus:a.pdf#page=2", "10.1/a")
