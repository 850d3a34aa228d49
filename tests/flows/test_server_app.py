"""cosci's temporary Prefect server builds Prefect's app with the collector paused (design.md#startup) and serves
it through uvicorn from :mod:`flows.server_app`."""

from __future__ import annotations

import gc
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from flows import server as server_module
from flows import server_app
from flows.server import APP_FACTORY, TemporaryServer


def _fake_prefect(monkeypatch: pytest.MonkeyPatch, seen: list[bool]) -> object:
    app = object()

    def create_app() -> object:
        seen.append(gc.isenabled())
        return app

    fake = types.ModuleType("prefect.server.api.server")
    fake.create_app = create_app  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "prefect.server.api.server", fake)  # found before its parents are imported
    return app


def test_prefects_app_is_built_with_the_collector_paused_then_frozen_and_resumed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    app = _fake_prefect(monkeypatch, seen)
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    assert server_app.create_app() is app
    assert seen == [False]  # Prefect's imports and the app's construction ran without the collector's passes
    assert gc.isenabled()
    assert gc.get_freeze_count() > frozen  # the app's objects are no longer walked by later full passes


def test_a_collector_turned_off_before_stays_off_and_an_error_still_resumes_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    _fake_prefect(monkeypatch, seen)
    gc.disable()
    try:
        server_app.create_app()
        assert not gc.isenabled()
    finally:
        gc.enable()

    def broken() -> Any:
        raise RuntimeError("no database")

    monkeypatch.setattr(sys.modules["prefect.server.api.server"], "create_app", broken)
    with pytest.raises(RuntimeError):
        server_app.create_app()
    assert gc.isenabled()


def test_the_server_process_serves_cosci_s_factory_from_this_tree(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    got: dict[str, list[str]] = {}

    def popen(args: list[str], **_kwargs: Any) -> None:
        got["args"] = args
        raise OSError("not started")

    monkeypatch.setattr(server_module.subprocess, "Popen", popen)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    server = TemporaryServer(tmp_path / "home")
    try:
        with pytest.raises(OSError):
            server.launch()
    finally:
        server._start_lock.close()
    args = got["args"]
    assert args[args.index("--factory") + 1] == APP_FACTORY == "flows.server_app:create_app"
    app_dir = Path(args[args.index("--app-dir") + 1])
    assert (app_dir / "flows" / "server_app.py").resolve() == Path(server_app.__file__).resolve()
