"""The report page's content, escaping and links, read as HTML (no browser): cosci.report.render / data."""

from __future__ import annotations

import json
import math
import re
from html.parser import HTMLParser

import pytest

from cosci.domain import BT_INTERVAL_LABEL
from cosci.report import data as report_data
from cosci.report import render
from cosci.report.data import collect
from cosci.report.figures import FigureUnavailable
from cosci.report.render import render_html, safe_url
from tests.report.conftest import HOSTILE_NOTE, HOSTILE_TITLE, HOSTILE_TURN, UNKNOWN_ID, Session


class _Page(HTMLParser):
    """Ids, link targets and script elements of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        for key in ("href", "xlink:href"):
            if a.get(key):
                self.hrefs.append(a[key] or "")
        self.scripts += tag == "script"


def _parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def test_untrusted_text_is_escaped(session: Session) -> None:
    html = session.report.read_text(encoding="utf-8")
    page = _parse(html)
    assert page.scripts == 1, "only the page's own sorting script may be a script element"
    for raw in (HOSTILE_TITLE, HOSTILE_NOTE, HOSTILE_TURN, "<script>window.__pwned = 4</script>"):
        assert raw not in html
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt; Metformin &amp; AMPK" in html
    assert not any(h.lower().startswith("javascript:") for h in page.hrefs)
    assert "javascript:alert(1)" in html  # shown as text, never as a link


def test_every_in_page_link_resolves_and_known_ids_are_linked(session: Session) -> None:
    html = session.report.read_text(encoding="utf-8")
    page = _parse(html)
    local = [h[1:] for h in page.hrefs if h.startswith("#")]
    assert local and set(local) <= page.ids
    overview = html[html.index('<section id="overview">'):html.index('<section id="session">')]
    linked = set(re.findall(r'href="#(H-[0-9a-f]{12})"', overview))
    store = session.store()
    cited = set(re.findall(r"\[(H-[0-9a-f]{12})\]", store.sessions.get().final_overview or ""))
    known = {h.id for h in store.hypotheses.all()}
    store.close()
    assert session.hostile in linked and linked == cited & known
    assert UNKNOWN_ID in overview and UNKNOWN_ID not in linked
    assert 'target="_blank" rel="noopener noreferrer" href="https://example.org/paper"' in overview


def test_sections_leaderboard_and_figures(session: Session) -> None:
    html = session.report.read_text(encoding="utf-8")
    store = session.store()
    hyps = store.hypotheses.all()
    for h in hyps:
        assert f'<section class="hypothesis state-{h.state}" id="{h.id}">' in html
    start = html.index('id="leaderboard-table"')
    leaderboard = html[start:html.index("</table>", start)]
    apart = html[html.index('id="out-of-ranking"'):]
    assert session.quarantined not in leaderboard and session.quarantined in apart[:2000]
    assert leaderboard.count("<tr data-id=") == len([h for h in hyps if h.state not in ("quarantined", "rejected",
                                                                                         "retired")])
    assert bool(store.matches.bt()) == ("BT score" in html)  # BT columns show when the leaderboard has them
    lineage = html[html.index('<section id="lineage">'):html.index('<section id="claims">')]
    assert "<svg" in lineage and 'class="node"' in lineage  # laid out by Graphviz
    edges = [(p, h.id, h.mode) for h in hyps for p in h.parent_ids]
    assert edges and all(s in lineage for _, _, s in edges)
    ratings = html[html.index('<section id="ratings">'):html.index('<section id="lineage">')]
    assert "<svg" in ratings and "Elo rating" in ratings
    for agent, spend in store.logs.spend().items():
        assert f"<td>{agent}</td><td class=\"n\">{spend['usd']:.4f}</td>" in html
    store.close()
    assert "debate transcript (1 turn)" in html and "<details>" in html
    assert 'href="https://pubmed.ncbi.nlm.nih.gov/12345/"' in html


def test_bradley_terry_columns_and_verified_marks_show_when_present(session: Session,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    original = report_data.leaderboard_rows

    def with_bt(record):  # what issue 13 adds to the leaderboard
        rows = original(record)
        n = len(rows)
        return [{**r, "bt_score": float(n - i), "bt_ci_low": float(n - i) - 0.5, "bt_ci_high": float(n - i) + 0.25}
                for i, r in enumerate(rows)]

    monkeypatch.setattr(report_data, "leaderboard_rows", with_bt)
    store = session.store()
    citations = [{"url": "https://example.org/v", "title": "checked", "status": "verified"},
                 {"url": "https://example.org/u", "title": "an older record", "status": "unverified"},
                 {"url": "https://example.org/m", "title": "changed number", "status": "misquoted",
                  "mismatch": "number: the source has '40', the excerpt '90'"}]
    data = collect(store)
    store.close()
    view = next(v for v in data.hypotheses if v.row["id"] == session.hostile)
    view.citations = citations
    html = render_html(data)
    assert data.has_bt and "BT score" in html and f"Bradley–Terry scores with their {BT_INTERVAL_LABEL}" in html
    top = data.leaderboard[0]
    assert f"[{top['bt_ci_low']:+.2f}, {top['bt_ci_high']:+.2f}]" in html
    assert '<span class="mark ok"' in html and html.count('">misquoted</span>') == 2
    assert "(number: the source has &#39;40&#39;, the excerpt &#39;90&#39;)" in html


def test_without_graphviz_the_lineage_is_a_list(session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(*_: object) -> str:
        raise FigureUnavailable("Graphviz could not draw the lineage (ExecutableNotFound)")

    monkeypatch.setattr(render, "lineage_svg", missing)
    store = session.store()
    html = render_html(collect(store))
    store.close()
    lineage = html[html.index('<section id="lineage">'):html.index('<section id="claims">')]
    assert "ExecutableNotFound" in lineage and "<svg" not in lineage and "→" in lineage


def test_the_script_hash_in_the_policy_is_the_script(session: Session) -> None:
    import base64
    import hashlib

    html = session.report.read_text(encoding="utf-8")
    script = re.search(r"<script>(.*?)</script>", html, re.S)
    policy = re.search(r"script-src '(sha256-[^']+)'", html)
    assert script and policy
    assert policy[1] == "sha256-" + base64.b64encode(hashlib.sha256(script[1].encode()).digest()).decode()


@pytest.mark.parametrize(("url", "ok"), [("https://a.org/x", True), ("HTTP://a.org", True),
                                         ("javascript:alert(1)", False), ("data:text/html,x", False),
                                         ("https://a.org/x y", False), (None, False)])
def test_safe_url(url: str | None, ok: bool) -> None:
    assert (safe_url(url) is not None) is ok


def test_the_page_is_self_contained(session: Session) -> None:
    html = session.report.read_text(encoding="utf-8")
    page = _parse(html)
    external = [h for h in page.hrefs if not h.startswith("#")]
    assert all(h.startswith("https://") for h in external)  # links the reader may open, nothing loaded
    assert not re.search(r"<(img|link|iframe)\b[^>]*\b(src|href)=\"https?:", html)
    assert not re.search(r"<script\b[^>]*\bsrc=", html)
    assert json.dumps("default-src 'none'")[1:-1] in html



def test_the_report_loads_no_framework() -> None:
    """The report reads the record only: no MLflow, Prefect, Hydra or LiteLLM (house style: frameworks at the
    edges; the CLI's ``cosci report --html`` stays light)."""
    from tests.test_purity import loaded_frameworks

    assert loaded_frameworks("cosci.report.commands", "cosci.report.data", "cosci.llm.gateway.routing") == set()


def test_a_default_session_measures_its_judge(session: Session, capsys: pytest.CaptureFixture[str]) -> None:
    """The default demo on the fake (no dual-order override): a numeric flip rate, the first-shown win rate with its
    95 % interval and the held-out agreement in ``cosci status``, the report and the MLflow metrics, no NaN
    (design.md#position-bias, design.md#judges)."""
    from cosci.cli import main
    from cosci.report.data import judge_statistics
    from cosci.tournament.judge_stats import session_judge_stats

    store = session.store()
    try:
        stats = session_judge_stats(store)
        figures = judge_statistics(store)
        metrics = stats.metrics()
    finally:
        store.close()
    assert stats.dual_order_matches >= 1 and 0.0 <= stats.flip_rate <= 1.0
    assert stats.first_shown.low <= stats.first_position_win_rate <= stats.first_shown.high
    assert stats.bt_agreement_n > 0 and 0.0 <= stats.bt_agreement <= 1.0
    wanted = {"judge_flip_rate", "judge_first_position_win_rate", "judge_first_position_ci_low",
              "judge_first_position_ci_high", "judge_bt_agreement", "judge_bt_agreement_in_sample",
              "judge_dual_order_matches", "judge_position_bias"}
    assert wanted <= set(metrics) and all(math.isfinite(v) for v in metrics.values())
    main(["--data-dir", str(session.data), "status", session.sid])
    out = capsys.readouterr().out
    assert re.search(r"first-shown wins \d+ % \(95 % Wilson CI \d+–\d+ %, nominal for independent calls\) of \d+ "
                     r"valid calls; flip rate \d+ %", out), out
    assert re.search(r"agrees with the Bradley–Terry order on \d+ % of \d+ held-out verdicts \(5-fold", out)
    html = session.report.read_text(encoding="utf-8")
    assert figures is not None and figures["figures"]["flip_rate"] == stats.flip_rate
    assert 'id="judge"' in html and "held-out verdicts" in html and "95 % Wilson CI" in html
    assert f"changed with the order: {100 * stats.flip_rate:.0f} % (95 % Wilson CI" in html


def test_a_disagreement_and_a_hit_that_did_not_act_are_listed_in_the_safety_section(tmp_path) -> None:
    """A capable classifier allowed what the offline screen would refuse: the report says so, next to a term hit
    that flagged nothing."""
    from cosci.store import SessionStore

    store = SessionStore.open(tmp_path / "store.sqlite", "s-safety")
    store.sessions.create(goal="g", config_snapshot={}, overrides=[], models_choice="opus", budget_usd=1.0,
                          budget_tokens=None, wall_clock_seconds=60.0)
    screen = {"decision": "block", "category": "chemical", "line": 'chemical (term hit): "sarin" + "synthesis"',
              "hits": ['chemical: "sarin" + "synthesis"'], "decided_by": "classifier"}
    store.safety.add("V-1", "goal", None, decision="allow", categories=[], rationale="an assay of residues",
                     prescreen=['chemical: "sarin" + "synthesis"'], acted=False, model="opus", task_id=None,
                     screen=screen, model_decision="allow", disagreement=True)
    store.safety.add("V-2", "hypothesis", "H-0123456789ab", decision="allow", categories=[], rationale="fine",
                     prescreen=['cyber: "ransomware"'], acted=False, model="opus", task_id=None,
                     screen={"decision": "allow", "hits": ['cyber: "ransomware"'], "line": 'cyber (term hit): '
                             '"ransomware"', "decided_by": "classifier"}, model_decision="allow")
    html = render_html(collect(store))
    store.close()
    section = html[html.index('<section id="safety">'):html.index("</section>", html.index('<section id="safety">'))]
    assert "the goal was decided by the safety classifier" in section
    assert "<strong>disagreement</strong>: the offline screen would refuse" in section
    assert "chemical (term hit): &#34;sarin&#34; + &#34;synthesis&#34;" in section
    assert "cyber (term hit): &#34;ransomware&#34;" in section and "H-0123456789ab" in section


def test_the_page_says_an_agreement_of_few_held_out_verdicts_as_a_count_as_status_does(tmp_path) -> None:
    """Four matches by two judge tiers: under ``FEW_VERDICTS`` held-out verdicts the page's judge section gives the
    agreement as `cosci status` does, a count (``2 of 4 held-out verdicts``), in its figures and per tier, never a
    rate such as ``0.500`` (design.md#cli)."""
    from cosci.ids import hypothesis_id
    from cosci.records import RecordHypothesis
    from cosci.store import SessionStore
    from cosci.tournament.judge_stats import FEW_VERDICTS, session_judge_stats
    from tests.contract import CONTRACT

    store = SessionStore.open(tmp_path / "store.sqlite", "s-judge")
    store.sessions.create(goal="g", config_snapshot={}, overrides=[], models_choice="fake", budget_usd=1.0,
                          budget_tokens=None, wall_clock_seconds=60.0)
    ids = []
    for s in ("Metformin depletes stem cells", "Itraconazole blocks SMO", "Disulfiram inhibits ALDH1A1"):
        rec = RecordHypothesis(title=s, statement=s, mechanism="m", entities=[], anticipated_outcomes="",
                               novelty_argument="", **CONTRACT, citations=[])
        ids.append(hypothesis_id("s-judge", "literature", s))
        store.hypotheses.insert(ids[-1], rec, elo=1200.0, task_id=None)
    a, b, c = ids
    for i, (x, y, won, tier) in enumerate([(a, b, a, "cheap"), (b, c, b, "mini"), (a, c, a, "cheap"),
                                           (c, a, a, "mini")]):
        store.matches.apply(f"M-{i}", x, y, mode="pairwise", winner=won, rule=lambda *_: (16.0, 32.0),
                            rationale="r", transcript=[], task_id=None, first_shown=x,
                            verdicts=[{"first": x, "winner": won}], judge=tier)
    stats = session_judge_stats(store)
    html = render_html(collect(store))
    store.close()
    assert 0 < stats.bt_agreement_n < FEW_VERDICTS and len(stats.judges) == 2
    said = stats.lines(0.15)[1].split(" on ")[1].split(" (")[0]  # what `cosci status` says: `k of n held-out ...`
    section = html[html.index('<div id="judge">'):html.index("</div>", html.index('<div id="judge">'))]
    assert f"<li>The Bradley–Terry fit agrees with {said} when each verdict is left out" in section, section
    assert "<th>95 % Wilson CI, nominal for independent calls</th>" in section  # the per-tier column, named
    for tier, j in stats.judges.items():
        row = section[section.index(f"<tr><td>{tier}</td>"):]
        cell = row[:row.index("</tr>")].split('<td class="n">')[4].split("</td>")[0]
        assert cell.endswith(f"of {j.agreement_n} held-out verdict" + ("s" if j.agreement_n != 1 else "")), cell
        assert "%" not in cell and "." not in cell, cell
        line = next(x for x in stats.lines(0.15) if x.startswith(f"judge {tier}: "))  # status's tier line, too
        assert f"held-out agreement {cell}" in line, line


def test_each_grounding_label_is_shown_as_itself(session: Session) -> None:
    """docs/design.md#grounded-debate-hypotheses: a verified quote no support check judged is not "grounded"."""
    store = session.store()
    data = collect(store)
    store.close()
    labels = ["grounded", "quoted (relevance unchecked)", "ungrounded"]
    for view, label in zip(data.hypotheses, labels, strict=False):
        view.row["grounding"] = label
    html = render_html(data)
    shown = labels[:len(data.hypotheses)]
    assert all(f">{label}</span>" in html for label in shown) and len(shown) >= 2
    assert 'title="a verified quote that no support check judged to bear on it">quoted (relevance unchecked)' in html
