"""An excerpt quoted from the full text (not the abstract) of a recorded Europe PMC article verifies once the full
text was returned in the loop, and only then (tests/fixtures/europepmc_fulltext/fulltextxml_PMC13261293.xml, a real
JATS body; README there)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from cosci.grounding.evidence import check_items
from cosci.records import Citation
from cosci.tools.common import LiteratureHit
from cosci.tools.jats import parse_fulltext
from cosci.tools.sources import to_source

BODY = Path(__file__).resolve().parents[1] / "fixtures" / "europepmc_fulltext" / "fulltextxml_PMC13261293.xml"
URL = "https://europepmc.org/article/PMC/PMC13261293"
RESULTS = ("Surgical excision resulted in complete clinical resolution of pain")  # in the abstract too
DISCUSSION = ("removal or effective treatment of the pulmonary lesion frequently results in regression of the "
              "clinical signs associated with HO")


def hit() -> LiteratureHit:
    root = ET.parse(BODY).getroot()
    text = " ".join("".join(root.iter("abstract").__next__().itertext()).split())
    title = " ".join("".join(root.iter("article-title").__next__().itertext()).split())
    return LiteratureHit(id="PMC13261293", title=title, url=URL, source="PMC", abstract=text)


def test_a_full_text_quote_verifies_only_against_the_full_text() -> None:
    abstract_only = hit()
    full = parse_fulltext(BODY.read_bytes())
    assert full is not None and DISCUSSION not in abstract_only.abstract
    with_text = replace(abstract_only, full_text=full.text)
    cites = [Citation(url=URL, excerpt=DISCUSSION), Citation(url=URL, excerpt=RESULTS),
             Citation(url=URL, excerpt=DISCUSSION.replace("frequently", "never"))]
    kept, _, counts = check_items(cites, [to_source(abstract_only, "europe_pmc_search")])
    assert [c.status for c in kept] == ["misquoted", "verified", "misquoted"]
    kept, _, counts = check_items(cites, [to_source(with_text, "europe_pmc_search")])
    assert [c.status for c in kept] == ["verified", "verified", "misquoted"] and counts.verified == 2
    assert kept[0].source_id == "PMCID:PMC13261293"
