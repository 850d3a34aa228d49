"""What a new reader of the report page meets first and reads in words: the overview on top, the nearest prior
work's search in sentences (never a tool's raw error), the judge statistics in sentences, whole matches on the
Elo plot with refuted hypotheses marked, and counts with the right singular or plural."""

from __future__ import annotations

import html as html_lib
import re

from cosci.report.data import collect
from cosci.report.figures import elo_svg
from cosci.report.prior_search import OFFLINE, failure, summary
from cosci.report.render import render_html
from cosci.text import clip
from cosci.tools.common import ToolBase
from cosci.tools.http import describe
from tests.report.conftest import Session

TOOLS = ["pubmed_search", "europe_pmc_search", "semantic_scholar_search", "arxiv_search", "crossref_lookup"]


class _Tool(ToolBase):
    """A tool only for its error answers: the texts the real tools give the model."""

    def __init__(self, name: str, alternatives: tuple[str, ...]) -> None:
        super().__init__(offline=True)
        self._name, self.alternatives = name, alternatives

    @property
    def name(self) -> str:
        return self._name


def _errors(kind: str) -> dict[str, str]:
    """Each tool's error answer as the novelty search stores it (cut to 160 characters, as cosci.agents.novelty
    does), for ``kind``: offline mode, DNS failure (``httpx.ConnectError``), HTTP 503, or an unknown failure."""
    import httpx

    out = {}
    for name in TOOLS:
        tool = _Tool(name, tuple(t for t in TOOLS if t != name))
        if kind == "offline":
            text = tool.offline_error().text
        elif kind == "dns":
            exc = httpx.ConnectError("[Errno -2] Name or service not known")
            text = tool.error(f"cannot connect ({describe(exc)})", unavailable=True).text
        elif kind == "http":
            text = tool.error("HTTP 503 from api.example.org: Service Unavailable").text
        else:
            text = tool.error("the upstream parser broke (ValueError: bad byte 0x9f at 17)").text
        out[name] = " ".join(text.split())[:160]
    return out


def _event(errors: dict[str, str], found: int = 0, kept: int = 0) -> dict[str, object]:
    queries = ["Metformin depletes leukaemic stem cells through AMPK activation in the bone marrow niche of "
               "relapsed acute myeloid leukaemia patients", "Metformin AMPK"]
    return {"queries": queries, "tools": TOOLS, "errors": errors, "found": found,
            "kept": [f"PMID:{i}" for i in range(kept)], "measure": "", "line": "legacy line"}


def test_the_overview_is_the_first_section(session: Session) -> None:
    html = session.report.read_text(encoding="utf-8")
    main = html[html.index("<main>"):]
    first = re.search(r'<section id="([^"]+)"', main)
    assert first is not None and first[1] == "overview", first
    nav = re.search(r"<nav>(.*?)</nav>", html, re.S)
    assert nav is not None and nav[1].index("#overview") < nav[1].index("#session")


def test_clip_cuts_at_a_word_boundary() -> None:
    text = "cannot connect to the server because the name did not resolve"
    assert clip(text, 20) == "cannot connect to…"
    assert clip(text, 18) == "cannot connect to…"  # the cut falls right after a word: that word stays
    assert clip("short", 20) == "short"
    assert clip("Supercalifragilistic", 8) == "Superca…"  # one word longer than the limit: cut inside it
    assert all(len(clip(text, n)) <= n for n in range(2, 70))


def test_each_kind_of_tool_failure_becomes_one_plain_reason() -> None:
    for kind, want in (("offline", OFFLINE), ("dns", "search failed: no network, the server's name did not resolve"),
                       ("http", "search failed: the server answered HTTP 503")):
        assert {failure(text, tool) for tool, text in _errors(kind).items()} == {want}, kind
    unknown = {failure(text, tool) for tool, text in _errors("other").items()}
    assert unknown == {"search failed: the upstream parser broke"}, unknown


def test_the_search_is_said_once_per_hypothesis_never_as_raw_errors() -> None:
    for kind, said in (("offline", "Not searched: offline (all 5 searches)."),
                       ("dns", "Search failed: no network, the server's name did not resolve (all 5 searches).")):
        s = summary(_event(_errors(kind)))
        assert s is not None and s.found == said, s
        text = str(s)
        assert "ConnectError" not in text and "Errno" not in text and "try " not in text
        assert text.startswith("Searched pubmed_search, europe_pmc_search, semantic_scholar_search, arxiv_search "
                               "and crossref_lookup for 2 queries made from the hypothesis: “Metformin")
        assert "in the bone marrow niche…”" in text  # the long query cut after a whole word
    mixed = summary(_event({"pubmed_search": _errors("http")["pubmed_search"]}, found=7, kept=3))
    assert mixed is not None and mixed.found == (
        "7 records found by europe_pmc_search, semantic_scholar_search, arxiv_search and crossref_lookup (the "
        "nearest 3 listed below); search failed: the server answered HTTP 503 (pubmed_search).")
    one = summary({**_event({}, found=1, kept=1), "queries": ["q"]})
    assert one is not None and one.searched.endswith("for 1 query made from the hypothesis: “q”.")
    assert one.found == "1 record found (the nearest listed below)."
    none = summary(_event({}))
    assert none is not None and none.found == "None found."
    assert summary(None) is None
    assert str(summary({"hypothesis_id": "H-1", "line": "0 record(s) found by a"})) == "0 record(s) found by a"


def test_a_card_says_an_offline_search_in_one_sentence(session: Session) -> None:
    """The page's card of a hypothesis whose search every tool refused (what the novelty step stores offline or
    without a network) shows the sentence once and none of the tools' own words."""
    store = session.store()
    try:
        hid = store.hypotheses.ranked()[0].id
        store.logs.event("prior_work_searched", {"hypothesis_id": hid, **_event(_errors("dns"))}, agent="test")
        html = render_html(collect(store))
    finally:
        store.close()
    start = html.index('<section class="hypothesis state-')
    card = html[html.index(f'id="{hid}">', start):]
    card = html_lib.unescape(card[:card.index("</section>")])
    prior = card[card.index("Nearest prior work"):card.index("Reviews (")]
    assert prior.count("Search failed: no network, the server's name did not resolve (all 5 searches).") == 1
    for raw in ("ConnectError", "Errno", "Name or service not known", "is unavailable", "instead", "legacy line"):
        assert raw not in prior, raw


def test_the_judge_statistics_are_sentences(session: Session) -> None:
    from cosci.tournament.judge_stats import session_judge_stats

    html = session.report.read_text(encoding="utf-8")
    section = html[html.index('<div id="judge">'):html.index("</div>", html.index('<div id="judge">'))]
    store = session.store()
    try:
        stats = session_judge_stats(store)
    finally:
        store.close()
    for key in (k for k in stats.flat() if "_" in k):  # no metric name shown as a label ("calls" is a word)
        assert not re.search(rf"\b{key}\b", section), key
    text = html_lib.unescape(section)
    assert (f"The Bradley–Terry fit agrees with {100 * stats.bt_agreement_in_sample:.0f} % of the judge's verdicts "
            "it was fitted on") in text
    s = stats.first_shown
    assert (f"The hypothesis shown first won {100 * s.rate:.0f} % (95 % Wilson CI {100 * s.low:.0f}–"
            f"{100 * s.high:.0f} %, nominal for independent calls) of {s.n} valid judging call") in text


def _x_ticks(svg: str) -> list[str]:
    return re.findall(r'<g id="xtick_\d+">.*?<text[^>]*>([^<]*)</text>', svg, re.S)


def test_the_elo_plot_counts_whole_matches_and_marks_refuted_hypotheses() -> None:
    paths = {"H-aaaaaaaaaaaa": [(0, 1200.0), (1, 1216.0), (2, 1231.0)],
             "H-bbbbbbbbbbbb": [(0, 1200.0), (1, 1184.0)], "H-cccccccccccc": [(1, 1200.0), (2, 1185.0)]}
    svg = elo_svg(paths, 1200.0, {"H-cccccccccccc"})
    ticks = _x_ticks(svg)
    assert ticks and all(re.fullmatch(r"[−-]?\d+", t) for t in ticks), ticks
    assert "H-cccccccccccc (refuted)" in svg and "H-aaaaaaaaaaaa (refuted)" not in svg
    assert "stroke-dasharray" in svg  # the refuted line is dashed
    assert "(refuted)" not in elo_svg(paths, 1200.0)


def test_a_refuted_hypothesis_below_the_top_ten_is_still_drawn() -> None:
    paths = {f"H-{i:012d}": [(0, 1200.0), (1, 1300.0 - i)] for i in range(12)}
    svg = elo_svg(paths, 1200.0, {"H-000000000011"})
    assert "H-000000000011 (refuted)" in svg and "H-000000000010" not in svg


def test_no_count_of_one_takes_a_plural(session: Session) -> None:
    """One match, one debate turn, one screened text, one support-check call... each said in the singular."""
    html = session.report.read_text(encoding="utf-8")
    text = html_lib.unescape(re.sub(r"<[^>]+>", " ", html[html.index("<body"):]))
    text = " ".join(text.split())
    plural = re.findall(r"\b1 (matches|turns|records|calls|texts|items|claims|verdicts|preferences|queries|"
                        r"searches|reruns|reviews|results|ratings)\b", text)
    assert plural == [], plural
    assert "debate transcript (1 turn)" in text
    store = session.store()
    try:
        single = [h.id for h in store.hypotheses.all() if len([m for m in store.matches.all()
                                                               if h.id in (m.hyp_a, m.hyp_b)]) == 1]
    finally:
        store.close()
    assert single, "the fixture session has a hypothesis with exactly one match"
    card = html[html.index('<section class="hypothesis'):]
    card = card[card.index(f'id="{single[0]}">'):]
    meta = card[card.index('<p class="meta">'):card.index("</p>", card.index('<p class="meta">'))]
    assert re.search(r"· 1 match \(", meta), meta


def test_the_page_counts_with_the_one_plural_helper() -> None:
    from cosci.report.render import _environment
    from cosci.text import counted

    assert [counted(n, "match", "matches") for n in (0, 1, 2)] == ["0 matches", "1 match", "2 matches"]
    assert _environment().filters["counted"] is counted
