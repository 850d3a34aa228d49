"""The ``/health`` probe (cosci.net.health_status): a plain http URL is asked without loading a certificate store
(the run's own Prefect server is polled every 0.1 s while it boots: design.md#supervisor); https still verifies."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from cosci.net import Unreachable, health_status


class _Health(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/api/health" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture()
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/api"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture()
def loads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every certificate store loaded into an SSL context meanwhile."""
    seen: list[Any] = []
    original = ssl.SSLContext.load_verify_locations

    def load(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        seen.append(args or kwargs)
        original(self, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", load)
    return seen


def test_a_plain_http_probe_loads_no_certificate_store(server: str, loads: list[Any]) -> None:
    assert [health_status(server, 2.0) for _ in range(3)] == [200, 200, 200]
    assert health_status(server.replace("/api", "/other"), 2.0) == 404
    assert loads == []


def test_an_https_probe_still_verifies(loads: list[Any]) -> None:
    with pytest.raises(Unreachable):
        health_status("https://127.0.0.1:1", 1.0)
    assert loads  # the certificate store is loaded for TLS
