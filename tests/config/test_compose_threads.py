"""`compose` from several threads at once, as `cosci mcp` runs two `start_session` or `estimate` calls (each in
`asyncio.to_thread`) and `cosci serve` checks two forms: Hydra's `GlobalHydra` is one per process, and a second
thread's `initialize_config_dir` while the first's was open raised `ValueError: GlobalHydra is already
initialized` (a traceback on the server's stderr, and "Error executing tool start_session" with no reason)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from cosci.config.load import ConfigError, compose


def _compose(models: str) -> str:
    try:
        return str(compose(["experiment=demo", f"models={models}"]).models.name)
    except ConfigError as exc:
        return f"ConfigError: {exc}"


def test_threads_composing_at_once_each_get_their_own_config_or_one_line() -> None:
    asked = ["fake", "local", "fkae"] * 4
    with ThreadPoolExecutor(max_workers=6) as pool:
        got = list(pool.map(_compose, asked))
    for models, answer in zip(asked, got, strict=True):
        if models == "fkae":
            assert answer.startswith("ConfigError: models=fkae: no such choice"), answer
        else:
            assert answer == models, (models, answer)
