"""End to end on the fake: a demo session over a folder of PDFs made here (one with a text layer on two pages, one
scanned without one) cites a page as ``<file>.pdf#page=<n>`` with a verified excerpt, and names the scanned PDF in
one warning (design.md#own-documents). The fake quotes what the tool returned; this checks what cosci made of it."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from cosci.llm.fake.provider import FakeBackend
from cosci.store import SessionStore
from tests.conftest import make_config
from tests.flows.test_session_flow import SMALL, _run
from tests.tools.minimal_pdf import write_pdf

pytestmark = pytest.mark.slow

PAGES = ["Metformin inhibits mitochondrial complex I in acute myeloid leukemia blasts and reduced their colony "
         "formation by 40 percent at 5 mM, with little effect on normal CD34 progenitors.",
         "Disulfiram, approved for alcohol dependence, killed leukemia stem cells in culture when combined with "
         "copper, and spared normal hematopoietic progenitors."]


def test_a_session_over_pdfs_cites_a_page_with_a_verified_excerpt(prefect_server: None, fake: FakeBackend,
                                                                  tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    library = tmp_path / "library"
    library.mkdir()
    write_pdf(library / "aml_preprint.pdf", PAGES, title="Repurposing drugs in AML (lab preprint)")
    write_pdf(library / "scan.pdf", [None])
    config = make_config(tmp_path / "data", f"session.corpus_path={library}", *SMALL)
    with caplog.at_level(logging.WARNING, logger="cosci.tools.corpus"):
        summary = _run(config)
    warnings = [r.getMessage() for r in caplog.records if "without a text layer" in r.getMessage()]
    assert warnings == ["session.corpus_path: 1 PDF without a text layer (scanned, no OCR) cannot be searched: "
                        "scan.pdf"]
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    cites = [c for h in store.hypotheses.all() for c in h.citations]
    pages = [c for c in cites if re.search(r"/aml_preprint\.pdf#page=[12]$", c["url"])]
    verified = [c for c in pages if c["status"] == "verified"]
    assert verified, cites
    for c in verified:  # the excerpt is on the page the citation names
        page = int(c["url"].rsplit("=", 1)[1])
        assert c["source_id"] == f"corpus:aml_preprint.pdf#page={page}"
        assert " ".join(c["excerpt"].split()[-4:]) in PAGES[page - 1] + " Repurposing drugs in AML (lab preprint)"
    assert list((tmp_path / "data" / "corpus_index").glob("*.json"))  # cached by content hash
