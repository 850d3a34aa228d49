"""A provider host that cannot be reached at all stops in seconds, not minutes (docs/design.md#unreachable-hosts).

No network and no fake at the port: the failures are the real ones, through LiteLLM's own transport (aiohttp) —
a closed port on this machine (the connection refused) and a ``.invalid`` host (RFC 6761: its name never resolves).
A flaky error (a 5xx) keeps its retries: scripted at the port by respx, the test's own response.
"""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import litellm
import pytest
import respx

from cosci.config.schema import CosciConfig
from cosci.llm import errors as E
from cosci.llm.gateway import check
from cosci.llm.port.types import CallSpec, TextBlock
from tests.llm.helpers import harness, make_config


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def at(tmp_path: Path, base: str, *extra: str) -> CosciConfig:
    """The Ollama models, every tier at ``base``."""
    tiers = (f"models.tiers.{t}.api_base={base}" for t in ("strong", "cheap", "mini"))
    return make_config(tmp_path / "data", "models=ollama", *tiers, *extra)


def spec(config: CosciConfig, h: object) -> CallSpec:
    gw = h.gateway  # type: ignore[attr-defined]
    return CallSpec(route=gw.router.route("goal_parsing", "parse_goal"), action="ParseGoal",
                    system=[TextBlock("Safety preamble.")], messages=[{"role": "user", "content": "Hello."}])


@pytest.fixture(autouse=True)
def fresh_clients() -> None:
    litellm.in_memory_llm_clients_cache.flush_cache()


@pytest.mark.parametrize(("base", "host", "why"), [
    (None, None, "it refused the connection"),
    ("http://cosci-nowhere.invalid:11434", "cosci-nowhere.invalid:11434", "its name does not resolve"),
])
async def test_an_unreachable_host_is_tried_twice_then_named(tmp_path: Path, base: str | None, host: str | None,
                                                             why: str) -> None:
    port = closed_port()
    base = base or f"http://127.0.0.1:{port}"
    host = host or f"127.0.0.1:{port}"
    config = at(tmp_path, base)
    h = harness(config)
    with pytest.raises(E.HostUnreachable) as caught:
        await h.gateway.complete(spec(config, h))
    assert h.outcomes == ["retry:unreachable", "error:unreachable"]  # retry.unreachable_attempts, not 3 or 5
    assert caught.value.host == host
    text = str(caught.value)
    assert f"cannot reach {host}: {why}" in text and "proxy" in text and "api_base" in text
    assert E.repeats(caught.value)  # a permanent error every later call meets: the session ends failed


async def test_a_5xx_keeps_its_retries(tmp_path: Path) -> None:
    config = at(tmp_path, "http://localhost:11434")
    h = harness(config)
    saved = litellm.disable_aiohttp_transport
    litellm.disable_aiohttp_transport = True
    try:
        with respx.mock(assert_all_mocked=True) as wire:
            wire.post("http://localhost:11434/api/chat").mock(return_value=httpx.Response(503, text="busy"))
            with pytest.raises(E.TransientLLMError):
                await h.gateway.complete(spec(config, h))
    finally:
        litellm.disable_aiohttp_transport = saved
        litellm.in_memory_llm_clients_cache.flush_cache()
    assert len(h.outcomes) > config.retry.unreachable_attempts  # a flaky server is retried as before
    assert "unreachable" not in " ".join(h.outcomes)


async def test_check_sends_one_attempt_per_host_and_says_it_once(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    port = closed_port()
    config = at(tmp_path, f"http://127.0.0.1:{port}")
    sent: list[str] = []
    real = litellm.acompletion

    async def counted(**kwargs: object) -> object:
        sent.append(str(kwargs["model"]))
        return await real(**kwargs)

    monkeypatch.setattr(litellm, "acompletion", counted)
    probes = await check.run_check(config)
    assert len(probes) > 1 and all(p.fix for p in probes)
    assert len(sent) == 1  # one attempt for the host, not one per model or probe
    fixes = [line for line in check.report(config, probes) if line.startswith("fix")]
    assert len(fixes) == 1, fixes
    assert f"cannot reach 127.0.0.1:{port}: it refused the connection" in fixes[0] and "api_base" in fixes[0]


def test_check_exits_as_a_run_for_an_unreachable_host(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: `cosci check` exited 1 for a host that cannot be reached, where a run that meets it exits 2
    (and `check` itself exits 2 for a local server that is down): 2, with the host's fix line."""
    from tests.conftest import run_cli

    tiers = (f"models.tiers.{t}.api_base=http://cosci-nowhere.invalid:11434" for t in ("strong", "cheap", "mini"))
    code, out, _ = run_cli(capsys, "check", "models=ollama", *tiers, f"paths.data_dir={tmp_path / 'data'}")
    assert code == 2, out
    assert "cannot reach cosci-nowhere.invalid:11434: its name does not resolve" in out


def test_check_says_the_unreachable_host_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Fresh-user trial: the host's line was the last of 37 (below the routes and every probe's row): it is the
    first line, as `cosci run`'s is, and is not said again below the rows."""
    from tests.conftest import run_cli

    tiers = (f"models.tiers.{t}.api_base=http://cosci-nowhere.invalid:11434" for t in ("strong", "cheap", "mini"))
    code, out, _ = run_cli(capsys, "check", "models=ollama", *tiers, f"paths.data_dir={tmp_path / 'data'}")
    lines = out.splitlines()
    assert code == 2 and len(lines) > 10, out
    assert lines[0].startswith("fix       cosci-nowhere.invalid:11434 (") and "its name does not resolve" in lines[0]
    assert lines[1].startswith("check     ollama:"), out
    assert sum("cannot reach" in line for line in lines) == 1, out
