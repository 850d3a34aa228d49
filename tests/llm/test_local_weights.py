"""The embedded model's weight file (``cosci/llm/local/weights.py``): the cache key, the choice of file per format,
and the fall-back to the shipped file when the cache cannot be written. Quantising is replaced by a function that
writes a marker file, except in the one slow test that runs llama.cpp's quantiser on the shipped file."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from cosci.llm.local import weights


@pytest.fixture
def shipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    source = tmp_path / "wheel" / weights.GGUF_NAME
    source.parent.mkdir()
    source.write_bytes(b"GGUF shipped weights v1")
    monkeypatch.setattr(weights, "gguf_path", lambda: source)
    monkeypatch.setattr(weights, "_warned", set())
    return source


@pytest.fixture
def quantized(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, str]]:
    made: list[tuple[Path, str]] = []

    def fake_quantize(source: Path, target: Path, fmt: str) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"requantised " + fmt.encode())
        made.append((target, fmt))

    monkeypatch.setattr(weights, "quantize", fake_quantize)
    return made


def test_the_cache_key_follows_the_shipped_files_bytes_and_the_format(shipped: Path) -> None:
    first = weights.cached_name(shipped, "q4_0")
    assert first.startswith("SmolLM2-135M-Instruct.") and first.endswith(".Q4_0.gguf")
    assert weights.cached_name(shipped, "q8_0") != first
    shipped.write_bytes(b"GGUF shipped weights v2")  # a new wheel: a new file, never the old one's
    assert weights.cached_name(shipped, "q4_0") != first


def test_a_format_is_requantised_once_into_the_cache(shipped: Path, quantized: list, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COSCI_MODEL_CACHE", str(tmp_path / "cache"))
    path = weights.weights_path("q4_0")
    assert path.parent == tmp_path / "cache" and path.read_bytes() == b"requantised q4_0"
    assert weights.weights_path("q4_0") == path
    assert len(quantized) == 1  # the second load reads the cached file
    assert weights.weights_path("shipped") == shipped
    assert len(quantized) == 1


def test_an_unwritable_cache_falls_back_to_the_shipped_file_and_says_so_once(
        shipped: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")  # mkdir fails even for root
    monkeypatch.setenv("COSCI_MODEL_CACHE", str(blocker / "models"))
    with caplog.at_level(logging.WARNING, logger=weights.__name__):
        assert weights.weights_path("q4_0") == shipped
        assert weights.weights_path("q4_0") == shipped
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "shipped" in warnings[0].getMessage()
    assert not list(tmp_path.glob("**/*.part"))


def test_an_unknown_format_is_refused(shipped: Path) -> None:
    with pytest.raises(ValueError, match=r"models\.local\.weights"):
        weights.weights_path("q2_k")


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_llama_cpp_requantises_the_shipped_file(tmp_path: Path) -> None:
    source = weights.gguf_path()
    target = tmp_path / weights.cached_name(source, "q4_0")
    weights.quantize(source, target, "q4_0")
    assert target.read_bytes()[:4] == b"GGUF"
    assert target.stat().st_size != source.stat().st_size
    assert [p.name for p in tmp_path.iterdir()] == [target.name]  # no temporary file left
