"""web_fetch: the SSRF guard, redirects re-checked per hop, content types, caps, pinning and the cache.

DNS is faked (conftest ``fake_dns``): example.org -> 93.184.216.34, internal.example.org -> 10.0.0.1.
"""

from __future__ import annotations

import httpx
import pytest
import respx

from cosci.tools import ssrf
from cosci.tools.common import urls_in

PAGE = """<!doctype html><html><head><title>YAP and fibrosis</title></head><body>
<nav>Home | About</nav>
<article><h1>YAP drives fibroblast activation</h1>
<p>Mechanical stiffness activates YAP in lung fibroblasts, which then sustain fibrosis in a feed-forward loop
that several groups have now reproduced in mouse models and in precision-cut human lung slices.</p>
<p>The data are described at https://data.example.org/yap-study (see the methods for the protocol).</p>
</article><footer>Copyright</footer></body></html>"""
PINNED = f"http://{'93.184.216.34'}"


@pytest.fixture
def fetch(make_registry):
    return make_registry().get("web_fetch")


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/",
    "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[fd00:ec2::254]/latest/meta-data/",
    "http://10.0.0.1/admin",
    "http://0.0.0.0:8080/",
    "http://localhost:8000/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://internal.example.org/",
    "http://mixed.example.org/",
    "http://mapped.example.org/",
])
@respx.mock
async def test_private_and_metadata_addresses_are_refused(fetch, url: str) -> None:
    result = await fetch({"url": url})  # respx has no route: any request would fail the test
    assert result.is_error and result.source == "web_fetch"
    assert result.text.startswith("web_fetch failed: URL refused:")
    assert "only public addresses are fetched" in result.text or "internal and refused" in result.text


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.org/pub/file.txt",
                                 "gopher://example.org/", "javascript:alert(1)", "//example.org/x"])
@respx.mock
async def test_non_http_schemes_are_refused(fetch, url: str) -> None:
    result = await fetch({"url": url})
    assert result.is_error
    assert "only http:// and https:// URLs can be fetched" in result.text


@respx.mock
async def test_credentials_in_urls_are_refused(fetch) -> None:
    result = await fetch({"url": "http://user:secret@example.org/"})
    assert result.is_error and "credentials" in result.text


@respx.mock
async def test_redirect_to_a_private_address_is_refused(fetch) -> None:
    start = respx.get(f"{PINNED}/start").mock(
        return_value=httpx.Response(302, headers={"Location": "http://10.0.0.1/admin"}))
    result = await fetch({"url": "http://example.org/start"})
    assert start.call_count == 1
    assert result.is_error
    assert "10.0.0.1 resolves to 10.0.0.1, which is private" in result.text


@respx.mock
async def test_redirect_to_an_internal_name_or_file_is_refused(fetch) -> None:
    respx.get(f"{PINNED}/a").mock(return_value=httpx.Response(301, headers={"Location": "http://internal.example.org/"}))
    respx.get(f"{PINNED}/b").mock(return_value=httpx.Response(307, headers={"Location": "file:///etc/passwd"}))
    first = await fetch({"url": "http://example.org/a"})
    second = await fetch({"url": "http://example.org/b"})
    assert first.is_error and "internal.example.org resolves to 10.0.0.1" in first.text
    assert second.is_error and "only http:// and https://" in second.text


@respx.mock
async def test_fetches_a_public_page_pinned_to_the_checked_address(fetch) -> None:
    route = respx.get(f"{PINNED}/article").mock(
        return_value=httpx.Response(200, text=PAGE, headers={"content-type": "text/html; charset=utf-8"}))
    result = await fetch({"url": "http://example.org/article#results"})
    assert not result.is_error and result.source == "web_fetch"
    sent = route.calls.last.request
    assert sent.headers["host"] == "example.org"
    assert result.text.startswith("web_fetch: http://example.org/article#results\nContent-Type: text/html")
    assert "Mechanical stiffness activates YAP in lung fibroblasts" in result.text
    assert "Home | About" not in result.text  # boilerplate dropped by trafilatura
    assert "https://data.example.org/yap-study" in result.urls
    assert result.urls == urls_in(result.text)


@respx.mock
async def test_https_keeps_the_tls_server_name(fetch) -> None:
    route = respx.get("https://93.184.216.34/page").mock(
        return_value=httpx.Response(200, text="plain words", headers={"content-type": "text/plain"}))
    result = await fetch({"url": "https://example.org/page"})
    assert not result.is_error
    assert route.calls.last.request.extensions["sni_hostname"] == "example.org"
    assert route.calls.last.request.headers["host"] == "example.org"
    assert result.text.endswith("plain words")


@respx.mock
async def test_public_redirects_are_followed(fetch) -> None:
    respx.get(f"{PINNED}/old").mock(return_value=httpx.Response(301, headers={"Location": "/new"}))
    respx.get(f"{PINNED}/new").mock(return_value=httpx.Response(
        200, json={"title": "moved"}, headers={"content-type": "application/json"}))
    result = await fetch({"url": "http://example.org/old"})
    assert not result.is_error
    assert "Final URL (after redirects): http://example.org/new" in result.text
    assert '"title": "moved"' in result.text or '"title":"moved"' in result.text
    assert result.urls == ("http://example.org/old", "http://example.org/new")


@respx.mock
async def test_redirect_loops_stop(fetch) -> None:
    respx.get(f"{PINNED}/loop").mock(return_value=httpx.Response(302, headers={"Location": "/loop"}))
    result = await fetch({"url": "http://example.org/loop"})
    assert result.is_error and "more than 5 redirects" in result.text


@respx.mock
async def test_binary_content_is_refused(fetch) -> None:
    respx.get(f"{PINNED}/paper.pdf").mock(
        return_value=httpx.Response(200, content=b"%PDF-1.7 ...",
                                    headers={"content-type": "application/pdf"}))
    result = await fetch({"url": "http://example.org/paper.pdf"})
    assert result.is_error
    assert "application/pdf, not HTML, text, JSON or XML" in result.text


@respx.mock
async def test_byte_and_character_caps(make_registry) -> None:
    tool = make_registry(fetch_max_bytes=1000, fetch_max_chars=300).get("web_fetch")
    respx.get(f"{PINNED}/big.txt").mock(
        return_value=httpx.Response(200, text="word " * 5000, headers={"content-type": "text/plain"}))
    result = await tool({"url": "http://example.org/big.txt"})
    assert not result.is_error
    assert "1000 bytes (truncated at the byte cap)" in result.text
    assert result.text.endswith("[... cut at 300 characters]")


@respx.mock
async def test_http_errors_and_bad_arguments_are_error_results(fetch) -> None:
    respx.get(f"{PINNED}/missing").mock(return_value=httpx.Response(404, text="Not Found"))
    missing = await fetch({"url": "http://example.org/missing"})
    assert missing.is_error and "HTTP 404 from example.org" in missing.text
    for bad in ({}, {"url": ""}, {"url": 42}):
        result = await fetch(bad)
        assert result.is_error and "invalid arguments: 'url' must be a non-empty string" in result.text


@respx.mock
async def test_second_fetch_comes_from_the_cache(fetch, fake_dns) -> None:
    route = respx.get(f"{PINNED}/article").mock(
        return_value=httpx.Response(200, text=PAGE, headers={"content-type": "text/html"}))
    first = await fetch({"url": "http://example.org/article"})
    lookups = len(fake_dns)
    second = await fetch({"url": "http://example.org/article"})
    assert route.call_count == 1
    assert len(fake_dns) == lookups  # a cache hit needs no DNS either
    assert second == first


@pytest.mark.parametrize(("address", "problem"), [
    ("93.184.216.34", None),
    ("2606:2800:220:1:248:1893:25c8:1946", None),
    ("127.0.0.1", "loopback"),
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("192.168.1.1", "private"),
    ("100.64.0.1", "not a public address"),
    ("169.254.169.254", "a cloud metadata endpoint"),
    ("169.254.1.1", "link-local"),
    ("168.63.129.16", "a cloud metadata endpoint"),
    ("224.0.0.251", "multicast"),
    ("0.0.0.0", "unspecified"),
    ("240.0.0.1", "reserved"),
    ("::1", "loopback"),
    ("fe80::1%eth0", "link-local"),
    ("fc00::1", "private"),
    ("fd00:ec2::254", "a cloud metadata endpoint"),
    ("ff02::1", "multicast"),
    ("::ffff:10.0.0.1", "private (embedded in ::ffff:a00:1)"),
    ("2002:7f00:1::", "loopback (embedded in 2002:7f00:1::)"),
    ("64:ff9b::a9fe:a9fe", "a cloud metadata endpoint (embedded in 64:ff9b::a9fe:a9fe)"),
])
def test_address_problem(address: str, problem: str | None) -> None:
    assert ssrf.address_problem(address) == problem
