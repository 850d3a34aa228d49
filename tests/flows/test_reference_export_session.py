"""End to end on the fake: a Zotero-style BibTeX export with two attached PDFs (made here) as
``session.corpus_path``; the session cites ``<file>.pdf#page=N`` and the citation carries the entry's DOI;
``cosci export --format bibtex|ris`` read back with bibtexparser and rispy name every cited DOI
(design.md#reference-managers). The fake quotes what the tool returned and writes no DOI: the DOI is cosci's."""

from __future__ import annotations

import re
from pathlib import Path

import bibtexparser
import pytest
import rispy

from cosci.llm.fake.provider import FakeBackend
from cosci.report.citations import TOP
from cosci.store import SessionStore
from cosci.store.standing import standing
from tests.conftest import make_config, run_cli
from tests.flows.test_session_flow import SMALL, _run
from tests.tools.minimal_pdf import write_pdf

pytestmark = pytest.mark.slow

SMITH: list[str | None] = [
    "Metformin inhibits mitochondrial complex I in acute myeloid leukemia blasts and reduced their colony formation "
    "by 40 percent at 5 mM.",
    "Normal CD34 progenitors were spared by metformin at the same dose in every donor sample tested."]
LEE: list[str | None] = [
    "Disulfiram, approved for alcohol dependence, killed leukemia stem cells in culture when combined with copper, "
    "and spared normal hematopoietic progenitors."]
DOIS = {"smith.pdf": "10.1000/aml.2020.17", "lee.pdf": "10.1000/dsf.2021.3"}
BIBTEX = r"""@article{smith2020,
  title = {Metformin in {AML} blasts},
  author = {Smith, Jane and Doe, John},
  journal = {Leukemia Research},
  year = {2020},
  doi = {10.1000/aml.2020.17},
  file = {Full Text PDF:files/12/smith.pdf:application/pdf}
}

@article{lee2021,
  title = {Disulfiram and copper against leukemia stem cells},
  author = {Lee, Min},
  year = {2021},
  doi = {10.1000/dsf.2021.3},
  file = {Full Text PDF:files/31/lee.pdf:application/pdf;Snapshot:files/31/lee.html:text/html}
}
"""


def library(root: Path) -> Path:
    """A Zotero export folder: ``My Library.bib`` and ``files/<n>/<name>.pdf``."""
    for folder in ("12", "31"):
        (root / "files" / folder).mkdir(parents=True)
    write_pdf(root / "files" / "12" / "smith.pdf", SMITH, title="smith-final-v2")
    write_pdf(root / "files" / "31" / "lee.pdf", LEE)
    (root / "My Library.bib").write_text(BIBTEX, encoding="utf-8")
    return root


def test_a_session_over_a_zotero_export_cites_pages_with_dois_and_exports_them(
        prefect_server: None, fake: FakeBackend, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = make_config(tmp_path / "data", f"session.corpus_path={library(tmp_path / 'zotero')}", *SMALL)
    summary = _run(config)
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    cites = [c for h in store.hypotheses.all() for c in h.citations]
    pages = [c for c in cites if re.search(r"/(smith|lee)\.pdf#page=\d$", c["url"])]
    assert pages, cites
    for c in pages:  # each page cited names its paper's DOI, and the record it matched is that page
        name = re.search(r"(\w+\.pdf)#page=(\d)$", c["url"])
        assert name and c["doi"] == DOIS[name.group(1)], c
        assert c["source_id"].endswith(f"{name.group(1)}#page={name.group(2)}"), c
    top = standing(store).ids(TOP)
    cited = {c["doi"] for h in store.hypotheses.all() if h.id in top for c in h.citations
             if c.get("doi") and c.get("status") in ("verified", "misquoted")}
    assert cited & set(DOIS.values()), cites
    sid = summary["session_id"]
    code, bib, err = run_cli(capsys, "export", sid, "--format", "bibtex")
    assert code == 0, err
    parsed = bibtexparser.parse_string(bib)
    assert not parsed.failed_blocks
    assert cited <= {e.fields_dict["doi"].value for e in parsed.entries if "doi" in e.fields_dict}
    page_entry = next(e for e in parsed.entries if e.fields_dict.get("doi") and
                      e.fields_dict["doi"].value in {c["doi"] for c in pages})
    assert "pages" in page_entry.fields_dict and sid in page_entry.fields_dict["note"].value
    out = tmp_path / "cited.ris"
    code, _, err = run_cli(capsys, "export", sid, "--format", "ris", "--out", str(out))
    assert code == 0, err
    assert cited <= {e["doi"] for e in rispy.loads(out.read_text(encoding="utf-8")) if e.get("doi")}
