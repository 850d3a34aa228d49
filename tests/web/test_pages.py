"""Every page of the web UI on sessions of the scripted fake (TestClient): what each shows, and the one line a
page gets for a session or hypothesis it does not know (docs/web.md)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.web.conftest import PROJECT, Sessions


def test_the_sessions_page_lists_status_stop_reason_spend_and_goal(client: TestClient, sessions: Sessions) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert f'href="/sessions/{sessions.done}"' in page.text and f'href="/sessions/{sessions.stopped}"' in page.text
    assert "done" in page.text and "stopped" in page.text  # the shown status: a stopped one's process is gone
    assert "of 1.00" in page.text or " of " in page.text  # spend against the budget (USD)
    assert "Content-Security-Policy" in page.headers and "script-src 'self'" in page.headers["content-security-policy"]


def test_the_new_session_form_offers_experiments_and_models(client: TestClient) -> None:
    page = client.get("/new")
    assert page.status_code == 200
    assert 'name="goal"' in page.text and '<option value="demo">' in page.text and '<option value="fake">' in page.text
    assert 'name="csrf"' in page.text and 'name="budget"' in page.text


def test_the_session_page_shows_the_live_figures_leaderboard_spend_events_and_controls(
        client: TestClient, sessions: Sessions) -> None:
    page = client.get(f"/sessions/{sessions.done}")
    assert page.status_code == 200
    text = page.text
    assert 'id="liveline"' in text and "hypotheses <b" in text and "top Elo" in text
    assert 'id="leaderboard-table"' in text and "95 % interval" in text
    top = sessions.ranked(sessions.done)[0]
    assert f'href="/sessions/{sessions.done}/hypotheses/{top}"' in text
    assert 'id="spend"' in text and "generation" in text and "share" in text
    assert 'class="event"' in text and "session_done" in text
    assert "sse-connect" not in text  # a finished session's log grows no more
    stopped = client.get(f"/sessions/{sessions.stopped}").text
    assert f'sse-connect="/sessions/{sessions.stopped}/events?after=' in stopped and 'sse-close="end"' in stopped
    for control in ("pause", "resume", "abort", "feedback", "result", "release"):
        assert f'/sessions/{sessions.done}/{control}"' in text
    assert sessions.quarantined in text  # the release form offers the quarantined hypothesis


def test_the_fragments_the_stream_refreshes(client: TestClient, sessions: Sessions) -> None:
    live = client.get(f"/sessions/{sessions.done}/live")
    board = client.get(f"/sessions/{sessions.done}/leaderboard")
    assert live.status_code == board.status_code == 200
    assert "<html" not in live.text and 'id="liveline"' in live.text
    assert "<html" not in board.text and 'id="leaderboard-table"' in board.text


def test_the_hypothesis_page(client: TestClient, sessions: Sessions) -> None:
    top = sessions.ranked(sessions.done)[0]
    page = client.get(f"/sessions/{sessions.done}/hypotheses/{top}")
    assert page.status_code == 200
    text = page.text
    for heading in ("Falsification contract", "Nearest prior work", "Lineage", "Reviews", "Matches",
                    "the judge's reasons"):
        assert heading in text, heading
    assert "verdict <strong>" in text  # its reviews


def test_an_upper_case_id_is_found(client: TestClient, sessions: Sessions) -> None:
    top = sessions.ranked(sessions.done)[0]
    assert client.get(f"/sessions/{sessions.done}/hypotheses/{top.upper()}").status_code == 200


def test_evidence_labels_and_excerpts_show(client: TestClient, sessions: Sessions) -> None:
    page = client.get(f"/sessions/{sessions.done}/hypotheses/{sessions.hostile}")
    assert page.status_code == 200
    assert '<ul class="evidence">' in page.text and "<blockquote>&lt;i&gt;x&lt;/i&gt;</blockquote>" in page.text


def test_two_hypotheses_side_by_side_with_the_rating_form(client: TestClient, sessions: Sessions) -> None:
    a, b = sessions.ranked(sessions.done)[:2]
    page = client.get(f"/sessions/{sessions.done}/compare", params={"a": a, "b": b})
    assert page.status_code == 200
    assert page.text.count('class="side"') == 2 and 'id="prefer-a"' in page.text and f'value="{b}"' in page.text


def test_the_overview_page_with_claim_statuses(client: TestClient, sessions: Sessions) -> None:
    page = client.get(f"/sessions/{sessions.done}/overview")
    assert page.status_code == 200
    assert 'id="overview"' in page.text and 'id="claims"' in page.text
    assert "status-" in page.text  # each claim's status, from claims.json
    # the overview's [H-…] ids link to this UI's hypothesis pages (the report links its own sections)
    assert f'href="/sessions/{sessions.done}/hypotheses/{sessions.hostile}"' in page.text
    assert page.text.index('id="overview"') < page.text.index('id="claims"')


def test_an_unknown_session_is_the_cli_line(client: TestClient, sessions: Sessions) -> None:
    page = client.get("/sessions/s-20200101-000000-abcdef")
    assert page.status_code == 404
    assert "no session &#39;s-20200101-000000-abcdef&#39; under" in page.text and "cosci list" in page.text


def test_a_hypothesis_of_another_session_is_refused_naming_it(client: TestClient, sessions: Sessions) -> None:
    other = sessions.ranked(sessions.done)[0]
    page = client.get(f"/sessions/{sessions.stopped}/hypotheses/{other}")
    assert page.status_code == 400
    assert other in page.text and sessions.done in page.text  # the line names the session holding it
    assert "Falsification contract" not in page.text


def test_http_errors_are_the_one_line_page_not_json(client: TestClient, sessions: Sessions) -> None:
    for r, status, line in [
        (client.get("/no/such/page"), 404, "404: no page /no/such/page"),
        (client.get(f"/sessions/{sessions.done}/compare?a=H-0001"), 422, "b: missing"),
        (client.get(f"/sessions/{sessions.done}/events?after=soon"), 422, "after: "),
        (client.put("/"), 405, "405: PUT /: this address takes GET"),
    ]:
        assert r.status_code == status and r.headers["content-type"].startswith("text/html"), r.text
        assert line in r.text and '"detail"' not in r.text
    assert client.head("/").headers["content-type"].startswith("text/html")


def test_a_quarantined_hypothesis_page_offers_the_release_form(client: TestClient, sessions: Sessions) -> None:
    from tests.web.conftest import csrf

    text = client.get(f"/sessions/{sessions.done}/hypotheses/{sessions.quarantined}").text
    assert f'action="/sessions/{sessions.done}/release"' in text and csrf(client) in text
    assert f'name="hypothesis" value="{sessions.quarantined}"' in text and "cosci release" not in text


def test_a_hypothesis_id_does_not_wrap(client: TestClient) -> None:
    css = client.get("/static/web.css").text
    assert "a.hid" in css and "white-space: nowrap" in css.split("a.hid", 1)[1].split("}", 1)[0]


def test_the_project_page(client: TestClient, sessions: Sessions) -> None:
    listed = client.get("/").text
    assert f'href="/projects/{PROJECT}"' in listed
    page = client.get(f"/projects/{PROJECT}")
    assert page.status_code == 200 and sessions.done in page.text
    assert "sessions" in page.text and "best hypotheses" in page.text.lower()


def test_an_unknown_project_is_the_cli_line(client: TestClient) -> None:
    page = client.get("/projects/nosuch")
    assert page.status_code == 400 and "no project &#39;nosuch&#39;" in page.text


def test_the_event_stream_of_a_finished_session_sends_its_events_and_ends(client: TestClient,
                                                                          sessions: Sessions) -> None:
    with client.stream("GET", f"/sessions/{sessions.done}/events", params={"after": 0}) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        body = "".join(r.iter_text())
    assert "event: event\nid:" not in body and "id: 1\nevent: event\ndata: <li class=\"event\"" in body
    assert "session_done" in body and "event: refresh" in body and body.rstrip().endswith("data: no process runs "
                                                                                            "the session")


def test_a_stream_with_nothing_left_to_send_tells_the_browser_to_stop(client: TestClient, sessions: Sessions) -> None:
    store = sessions.store(sessions.done)
    try:
        last = store.logs.last_event_seq()
    finally:
        store.close()
    assert client.get(f"/sessions/{sessions.done}/events", params={"after": last}).status_code == 204


def test_the_stream_resumes_after_the_last_event_id(client: TestClient, sessions: Sessions) -> None:
    store = sessions.store(sessions.done)
    try:
        last = store.logs.last_event_seq()
    finally:
        store.close()
    with client.stream("GET", f"/sessions/{sessions.done}/events", headers={"Last-Event-ID": str(last - 1)}) as r:
        body = "".join(r.iter_text())
    assert body.count("event: event\n") == 1 and f"id: {last}\n" in body


def test_an_event_written_by_another_process_reaches_the_stream_within_2_s(copy: Sessions) -> None:
    """A session run elsewhere (its process holds the folder's lock) writes an event; the open stream sends it."""
    import threading
    import time

    from cosci.session.folder import SessionFolder
    from tests.web.conftest import client_of

    folder = SessionFolder(copy.data, copy.stopped)
    store = copy.store(copy.stopped)
    last = store.logs.last_event_seq()
    folder.lock()
    written: list[float] = []

    def write() -> None:
        time.sleep(1.0)
        written.append(time.monotonic())
        store.logs.event("probe_from_the_terminal", {"n": 1})

    writer = threading.Thread(target=write)
    try:
        with client_of(copy.data) as client, client.stream(
                "GET", f"/sessions/{copy.stopped}/events", params={"after": last}) as r:
            writer.start()
            rest, arrived = [], 0.0
            for line in r.iter_lines():
                if "probe_from_the_terminal" in line and not arrived:
                    arrived = time.monotonic()
                    folder.unlock()  # the process ends: the stream ends after its quiet polls
                rest.append(line)
    finally:
        writer.join()
        folder.unlock()
        store.close()
    assert arrived - written[0] < 2.0
    assert "event: refresh" in rest and "data: no process runs the session" in rest


def test_the_report_page_is_made_of_the_same_parts(client: TestClient, sessions: Sessions) -> None:
    """`cosci report --html` composes the web UI's partials into one file: the overview first, each hypothesis the
    section its web page shows (the same headings), links kept inside the file, nothing fetched."""
    import re

    from cosci.report.commands import elo_initial
    from cosci.report.data import collect
    from cosci.report.render import render_html

    store = sessions.store(sessions.done)
    try:
        page = render_html(collect(store, elo_initial(store)), elo_initial(store))
    finally:
        store.close()
    main = page.split("<main>", 1)[1]
    assert main.lstrip().startswith('<section id="overview">')
    top = sessions.ranked(sessions.done)[0]

    def section(html: str) -> str:
        start = html.index(f'<section class="hypothesis state-in_tournament" id="{top}">')
        return html[start:html.index("</section>", start)]

    web = section(client.get(f"/sessions/{sessions.done}/hypotheses/{top}").text)
    headings = re.compile(r"<h4>([^<(]+)")
    assert headings.findall(section(page)) == headings.findall(web) and "Falsification contract" in web
    assert f'href="#{top}"' in page and f'href="/sessions/{sessions.done}/hypotheses/' in web
    assert not re.search(r'\bsrc="(?!data:)', page)  # self-contained
