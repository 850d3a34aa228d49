"""The web UI safe by default: model text rendered inert, forms refused without the server's secret or from another
site, the token off the loopback address, and the old `cosci serve` form refused naming `cosci schedule`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cosci.errors import CosciError
from cosci.web import security
from tests.report.conftest import HOSTILE_NOTE, HOSTILE_TITLE
from tests.web.conftest import Sessions, client_of, csrf, written

HOSTILE = [
    "<script>window.__pwned = 1</script>",
    '<img src="x" onerror="window.__pwned = 2">',
    '<a href="javascript:alert(1)">click</a>',
    "[click](javascript:alert(1))",
    "![pixel](https://tracker.example/p.png)",
    '<iframe src="https://example.org"></iframe>',
    '<svg onload="alert(1)"></svg>',
    '<a href="https://example.org" onclick="alert(1)" style="x">ok</a>',
    "<style>body{display:none}</style>",
]


def elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    """The real elements of ``html`` with their attributes (escaped text is no element)."""
    from html.parser import HTMLParser

    found: list[tuple[str, dict[str, str | None]]] = []

    class Collect(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append((tag, dict(attrs)))

    Collect().feed(html)
    return found


@pytest.mark.parametrize("text", HOSTILE)
def test_model_text_renders_inert(text: str) -> None:
    html = str(security.markdown(text))
    for tag, attrs in elements(html):
        assert tag in security.ALLOWED_TAGS, html
        assert not any(name.startswith("on") or name == "style" for name in attrs), html
        assert re.match(r"https?://", attrs.get("href") or "https://"), html


def test_an_allowed_link_and_markdown_stay() -> None:
    html = str(security.markdown("**bold** and [a paper](https://pubmed.ncbi.nlm.nih.gov/1/)"))
    assert "<strong>bold</strong>" in html
    assert re.search(r'<a href="https://pubmed.ncbi.nlm.nih.gov/1/" rel="noopener noreferrer">a paper</a>', html)


def test_the_pages_show_hostile_model_text_as_text(client: TestClient, sessions: Sessions) -> None:
    for path in (f"/sessions/{sessions.done}", f"/sessions/{sessions.done}/hypotheses/{sessions.hostile}",
                 f"/sessions/{sessions.done}/overview"):
        page = client.get(path).text
        found = elements(page)
        assert [a.get("src") for t, a in found if t == "script"] == ["/static/htmx.min.js", "/static/sse.min.js"]
        assert not [(t, a) for t, a in found if any(n.startswith("on") for n in a)], path
        assert not [t for t, _ in found if t in ("img", "iframe", "object", "embed")], path
    detail = client.get(f"/sessions/{sessions.done}/hypotheses/{sessions.hostile}").text
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt; Metformin &amp; AMPK" in detail
    assert HOSTILE_TITLE not in detail and HOSTILE_NOTE not in detail
    assert '&lt;img src="x" onerror="window.__pwned = 2"&gt; reviewer notes' in detail  # shown, as text


def test_a_form_without_the_secret_or_from_another_site_is_refused(copy: Sessions) -> None:
    before = written(copy.data)
    with client_of(copy.data) as client:
        r = client.post(f"/sessions/{copy.stopped}/feedback", data={"kind": "directive", "text": "x y z"})
        assert r.status_code == 403 and "form token" in r.text
        r = client.post(f"/sessions/{copy.stopped}/feedback",
                        data={"csrf": "guessed", "kind": "directive", "text": "x y z"})
        assert r.status_code == 403
        r = client.post(f"/sessions/{copy.stopped}/pause", data={"csrf": csrf(client)},
                        headers={"Origin": "https://evil.example"})
        assert r.status_code == 403 and "another site" in r.text
        r = client.post(f"/sessions/{copy.stopped}/pause", data={"csrf": csrf(client)}, headers={"Origin": "null"})
        assert r.status_code == 403
    assert written(copy.data) == before
    with client_of(copy.data) as client:  # the same site passes
        r = client.post(f"/sessions/{copy.stopped}/pause", data={"csrf": csrf(client)},
                        headers={"Origin": "http://127.0.0.1:7878"})
        assert r.status_code == 200


@pytest.mark.parametrize("host", ["evil.example:7891", "evil.example", "127.0.0.1.evil.example:7878",
                                  "localhost.:7878", "[::2]:7878", ""])
def test_a_request_naming_another_host_is_refused(copy: Sessions, host: str) -> None:
    """DNS rebinding: a page of another site whose name resolves to this machine sends its own name as Host; it
    gets neither a page (with the form secret) nor a POST through, whatever its Origin."""
    before = written(copy.data)
    with client_of(copy.data) as client:
        r = client.get("/", headers={"Host": host})
        assert r.status_code == 400 and "Host" in r.text and csrf(client) not in r.text
        assert len(r.text.strip().splitlines()) == 1
        r = client.post(f"/sessions/{copy.stopped}/pause", data={"csrf": csrf(client)},
                        headers={"Host": host, "Origin": f"http://{host}"})
        assert r.status_code == 400
    assert written(copy.data) == before


def test_the_allowed_hosts_of_a_bind_address(sessions: Sessions) -> None:
    from cosci.web.app import create_app

    for host in ("127.0.0.1:7878", "localhost:7878", "[::1]:7878", "LOCALHOST:7878"):
        assert security.host_ok(host, security.allowed_hosts("127.0.0.1"), 7878)
    assert not security.host_ok("localhost:7879", security.allowed_hosts("127.0.0.1"), 7878)
    assert security.host_ok("10.0.0.5:7878", security.allowed_hosts("10.0.0.5"), 7878)
    assert not security.host_ok("evil.example:7878", security.allowed_hosts("10.0.0.5"), 7878)
    assert security.host_ok("[fd00::5]:80", security.allowed_hosts("fd00::5"), 80)
    assert security.allowed_hosts("0.0.0.0") is None  # every interface: the required token guards it
    with TestClient(create_app(sessions.data, "t" * 24, host="lab.example", port=7878),
                    base_url="http://lab.example:7878") as client:
        assert client.get("/").status_code == 401  # the right Host still needs the token
        assert client.get("/", headers={"Host": "evil.example:7878"}).status_code == 400


def test_each_server_has_its_own_form_secret(sessions: Sessions) -> None:
    with client_of(sessions.data) as one, client_of(sessions.data) as two:
        assert csrf(one) != csrf(two) and len(csrf(one)) >= 32
        assert f'value="{csrf(one)}"' in one.get("/new").text


def test_a_server_with_a_token_admits_only_its_holder(sessions: Sessions) -> None:
    token = "t" * 24
    with client_of(sessions.data, token) as client:
        r = client.get("/")
        assert r.status_code == 401 and "access token" in r.text
        assert client.get("/", params={"token": "wrong" * 5}).status_code == 401
        assert client.get("/static/htmx.min.js").status_code == 401
        r = client.get("/", params={"token": token}, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/"
        assert "httponly" in r.headers["set-cookie"].lower() and "samesite=strict" in r.headers["set-cookie"].lower()
        assert client.get("/").status_code == 200  # the cookie keeps it
    with client_of(sessions.data, token) as client:
        assert client.get("/", headers={"Authorization": f"Bearer {token}"}).status_code == 200


@pytest.mark.parametrize(("host", "token", "refused"), [
    ("127.0.0.1", None, False), ("localhost", None, False), ("::1", None, False),
    ("0.0.0.0", None, True), ("192.168.1.5", None, True), ("::", None, True),
    ("0.0.0.0", "x" * 16, False), ("127.0.0.1", "short", True),
])
def test_the_bind_rule(host: str, token: str | None, refused: bool) -> None:
    if refused:
        with pytest.raises(CosciError):
            security.check_bind(host, token)
    else:
        security.check_bind(host, token)


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    from cosci.cli import main

    try:
        main(list(argv))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def test_serving_beyond_this_machine_without_a_token_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _cli(capsys, "serve", "--host", "0.0.0.0")
    assert code == 2 and err.count("\n") == 1 and "--host 0.0.0.0: serving beyond this machine needs --token" in err


@pytest.mark.parametrize("old", [["--cron", "0 6 * * 1"], ["experiment=demo", "models=fake"], ["--name", "weekly"]])
def test_the_old_serve_form_names_cosci_schedule(old: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _cli(capsys, "serve", *old)
    assert code == 2 and err.count("\n") == 1 and "moved to `cosci schedule`" in err


@pytest.mark.parametrize(("old", "said"), [
    (["--cron"], "(cosci schedule --cron ...)"),
    (["--cron", "0 6 * * 1"], "(cosci schedule --cron '0 6 * * 1')"),
    (["schedule"], "(cosci schedule)"),
    (["schedule", "models=fake", "--name"], "(cosci schedule models=fake --name ...)"),
])
def test_the_old_serve_form_suggests_the_schedule_command_as_typed(old: list[str], said: str,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _cli(capsys, "serve", *old)
    assert code == 2 and err.count("\n") == 1 and said in err and "schedule schedule" not in err


def test_a_data_folder_that_does_not_exist_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from cosci.web import server

    served: list[Path] = []
    monkeypatch.setattr(server, "serve", lambda root, **kw: served.append(root))
    code, err = _cli(capsys, "serve", "--data-dir", str(tmp_path / "nonexistent" / "dir"))
    assert code == 2 and err.count("\n") == 1 and "nonexistent/dir: no such folder" in err and not served
    # a new folder in an existing one is made by the first session started (a fresh project's ./data)
    assert _cli(capsys, "serve", "--data-dir", str(tmp_path / "data"))[0] == 0 and served == [tmp_path / "data"]


def test_the_cap_line_gives_the_real_size() -> None:
    line = security.cap_line(security.UPLOAD_CAP_BYTES + 1)
    assert "10.00 MiB (10485761 bytes) is over" in line  # was "10.0 MiB is over the cap of 10 MiB"


def test_a_wildcard_bind_prints_an_address_a_browser_opens() -> None:
    import socket

    from cosci.web.server import address

    shown = address("0.0.0.0", 7878, "t" * 24)
    assert "0.0.0.0" not in shown and shown == f"http://{socket.getfqdn()}:7878/?token={'t' * 24}"
    assert address("::1", 7878, None) == "http://[::1]:7878/"


def test_a_port_in_use_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        code, err = _cli(capsys, "serve", "--port", str(s.getsockname()[1]))
    assert code == 2 and err.count("\n") == 1 and "cannot listen there" in err
