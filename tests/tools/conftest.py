"""Shared fixtures of the tool tests: the composed config, recorded API bodies, a fast HTTP policy, fake DNS.

No test touches the network: HTTP goes through respx (an unmatched request fails the test) and host names
resolve through :func:`fake_dns` only.
"""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from cosci.config.load import compose, validate
from cosci.config.schema import CosciConfig
from cosci.tools import ssrf
from cosci.tools.http import HttpPolicy
from cosci.tools.registry import ToolRegistry, build_registry

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
PUBLIC_IP = "93.184.216.34"
DNS = {
    "example.org": [PUBLIC_IP],
    "www.example.org": [PUBLIC_IP],
    "internal.example.org": ["10.0.0.1"],
    "mixed.example.org": [PUBLIC_IP, "127.0.0.1"],
    "mapped.example.org": ["::ffff:169.254.169.254"],
}


def fixture_text(relpath: str) -> str:
    """A recorded response body from ``tests/fixtures`` (unchanged bytes, decoded as UTF-8)."""
    return (FIXTURES / relpath).read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def recorded() -> Callable[[str], str]:
    """Read a recorded body: ``recorded("pubmed/efetch.xml")``."""
    return fixture_text


@pytest.fixture(scope="session")
def base_config() -> CosciConfig:
    """The shipped configuration, composed and validated once."""
    return validate(compose([]))


def with_tools(config: CosciConfig, *, corpus_path: str | None = None, **tools: Any) -> CosciConfig:
    """``config`` with ``tools.*`` values and ``session.corpus_path`` replaced."""
    return config.model_copy(update={
        "tools": config.tools.model_copy(update=tools),
        "session": config.session.model_copy(update={"corpus_path": corpus_path}),
    })


@pytest.fixture
def configure(base_config: CosciConfig) -> Callable[..., CosciConfig]:
    """``configure(corpus_path=..., offline=True)``: the shipped config with those values."""
    def make(*, corpus_path: str | None = None, **tools: Any) -> CosciConfig:
        return with_tools(base_config, corpus_path=corpus_path, **tools)

    return make


@pytest.fixture
def fast_policy() -> HttpPolicy:
    """Retries with millisecond delays and no rate limiting."""
    return HttpPolicy(attempts=3, base_delay_seconds=0.001, max_delay_seconds=0.5, rate_limits=False)


@pytest.fixture(autouse=True)
def no_api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests start without search API keys, whatever the developer's shell has."""
    for var in ("TAVILY_API_KEY", "BRAVE_API_KEY", "NCBI_API_KEY", "NCBI_EMAIL", "S2_API_KEY", "OPENALEX_API_KEY"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Resolve host names from :data:`DNS` only; returns the names looked up."""
    looked_up: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        looked_up.append(host)
        try:
            return [str(ipaddress.ip_address(host))]
        except ValueError:
            pass
        if host not in DNS:
            raise ssrf.UnsafeUrl(f"cannot resolve host {host!r} (test DNS)")
        return DNS[host]

    monkeypatch.setattr(ssrf, "resolve_host", resolve)
    return looked_up


@pytest.fixture
async def make_registry(base_config: CosciConfig, fast_policy: HttpPolicy,
                        tmp_path: Path) -> AsyncIterator[Callable[..., ToolRegistry]]:
    """Build registries over ``tmp_path/http_cache`` (closed after the test)."""
    made: list[ToolRegistry] = []

    def make(config: CosciConfig | None = None, cache_dir: Path | None = None, **tools: Any) -> ToolRegistry:
        cfg = config or base_config
        if tools:
            cfg = with_tools(cfg, corpus_path=cfg.session.corpus_path, **tools)
        registry = build_registry(cfg, cache_dir or tmp_path / "http_cache", policy=fast_policy)
        made.append(registry)
        return registry

    yield make
    for registry in made:
        await registry.aclose()
