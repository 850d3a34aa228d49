"""The retraction flags after the excerpt check (design.md#retractions): the once-per-session check, its memo, a
failing source, and which reviews rest on retracted evidence. The check's sources are scripted here."""

from __future__ import annotations

from cosci.grounding.evidence import check_items, flag_retractions, rests_on_withdrawn, withdrawn
from cosci.llm.port.types import ToolSpec
from cosci.records import Citation, Evidence
from cosci.tools.base import Source
from cosci.tools.common import LiteratureHit, SearchTool
from cosci.tools.http import SourceError
from cosci.tools.retractions import RetractionCheck


class Answers(SearchTool):
    """A lookup named ``name`` that answers from ``flags`` (identifier -> flag) and records what it was asked."""

    def __init__(self, name: str, flags: dict[str, str] | None = None, *, fail: bool = False) -> None:
        super().__init__()
        self.spec = ToolSpec(name=name, description="scripted lookup", parameters={})
        self.flags, self.fail, self.asked = flags or {}, fail, list[str]()

    async def lookup(self, kind: str, value: str) -> LiteratureHit | None:
        self.asked.append(f"{kind}:{value}")
        if self.fail:
            raise SourceError("down", "unavailable")
        flag = self.flags.get(f"{kind}:{value}", "")
        return LiteratureHit(id=value, title="t", url="", retraction=flag, notice=f"scripted {flag}" if flag else "")


SOURCE = Source(url="https://europepmc.org/article/MED/1", text="Drug X lowers Y in mice.",
                ids=("PMID:1", "DOI:10.1234/a"))


async def test_the_check_asks_each_identifier_once_and_keeps_the_strongest_flag() -> None:
    crossref = Answers("crossref", {"DOI:10.1234/a": "corrected"})
    epmc = Answers("epmc", {"PMID:1": "retracted"})
    check = RetractionCheck([(crossref, ("DOI",)), (epmc, ("PMID", "DOI"))])
    kept, _, _ = check_items([Citation(url=SOURCE.url, excerpt="Drug X lowers Y in mice.")], [SOURCE])
    first = await flag_retractions(kept, [SOURCE], check)
    again = await flag_retractions(kept, [SOURCE], check)
    assert first == again and first[0].retraction == "retracted" and first[0].retraction_notice == "scripted retracted"
    assert crossref.asked == ["DOI:10.1234/a"] and sorted(epmc.asked) == ["DOI:10.1234/a", "PMID:1"]  # memoised


async def test_a_failing_source_says_nothing_and_no_check_changes_nothing() -> None:
    kept, _, _ = check_items([Citation(url=SOURCE.url, excerpt="Drug X lowers Y in mice.")], [SOURCE])
    down = RetractionCheck([(Answers("down", fail=True), ("PMID", "DOI"))])
    assert (await flag_retractions(kept, [SOURCE], down))[0].retraction is None
    assert await flag_retractions(kept, [SOURCE], None) == kept


def test_the_flag_of_the_hit_reaches_the_citation() -> None:
    flagged = Source(url=SOURCE.url, text=SOURCE.text, ids=SOURCE.ids, retraction="retraction_notice", notice="n")
    (cited,), _, _ = check_items([Citation(url=SOURCE.url, excerpt="Drug X lowers Y")], [flagged])
    assert (cited.retraction, cited.retraction_notice) == ("retraction_notice", "n") and withdrawn(cited)


def test_a_review_rests_on_retracted_evidence_when_half_of_it_is() -> None:
    ok = Evidence(claim="c", url="u", status="verified").model_dump()
    bad = {**ok, "retraction": "retracted"}
    corrected = {**ok, "retraction": "corrected"}
    assert rests_on_withdrawn([bad, ok]) and rests_on_withdrawn([bad])
    assert not rests_on_withdrawn([bad, ok, ok]) and not rests_on_withdrawn([corrected]) and not rests_on_withdrawn([])
