"""YAML parsed once and kept in the user cache (cosci/parsed.py): the data of ``yaml.safe_load``, an edited file
parsed anew, an unreadable cache file parsed again with one log line."""

from __future__ import annotations

import logging
import pickle
from pathlib import Path

import pytest
import yaml

from cosci import parsed
from cosci.paths import conf_dir


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(parsed, "cache_dir", lambda: tmp_path / "yaml")
    return tmp_path / "yaml"


def _no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsed.yaml, "load", lambda *_a, **_k: pytest.fail("parsed again"))


@pytest.mark.parametrize("name", ["safety_gloss.yaml", "safety_prescreen.yaml", "catalogue/anthropic.yaml",
                                  "config.yaml"])
def test_the_shipped_files_read_as_safe_load_reads_them(name: str, cache: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = conf_dir() / name
    expected = yaml.safe_load(path.read_text(encoding="utf-8"))  # the pure-Python loader, as before the cache
    assert parsed.load(path) == expected  # parsed (libyaml's loader where PyYAML has it)
    assert len(list(cache.glob("*.pickle"))) == 1
    _no_parse(monkeypatch)
    assert parsed.load(path) == expected  # from the cache


def test_an_edited_file_is_parsed_anew(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "terms.yaml"
    path.write_text("categories:\n  chemical: [sarin]\n", encoding="utf-8")
    assert parsed.load(path) == {"categories": {"chemical": ["sarin"]}}
    path.write_text("categories:\n  chemical: [sarin, tabun]\n", encoding="utf-8")
    assert parsed.load(path) == {"categories": {"chemical": ["sarin", "tabun"]}}
    assert len(list(cache.glob("*.pickle"))) == 2
    path.write_text("categories:\n  chemical: [sarin]\n", encoding="utf-8")  # the first text again: kept
    assert parsed.load(path) == {"categories": {"chemical": ["sarin"]}}
    assert len(list(cache.glob("*.pickle"))) == 2


@pytest.mark.parametrize("garbage", [b"", b"not a pickle", pickle.dumps({"x": 1})[:-3], b"\x80\x05K"])
def test_an_unreadable_cache_file_is_parsed_again_with_one_line(garbage: bytes, tmp_path: Path, cache: Path,
                                                                caplog: pytest.LogCaptureFixture,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "gloss.yaml"
    text = "words:\n  зарин: sarin\n"
    path.write_text(text, encoding="utf-8")
    cache.mkdir()
    kept = cache / f"{parsed.cache_key(text)}.pickle"
    kept.write_bytes(garbage)
    with caplog.at_level(logging.WARNING, logger="cosci.parsed"):
        assert parsed.load(path) == {"words": {"зарин": "sarin"}}
    lines = [r for r in caplog.records if r.name == "cosci.parsed"]
    assert len(lines) == 1 and "gloss.yaml" in lines[0].getMessage() and "parsed again" in lines[0].getMessage()
    caplog.clear()
    _no_parse(monkeypatch)  # the file was replaced by a good one
    assert parsed.load(path) == {"words": {"зарин": "sarin"}}
    assert not caplog.records


def test_bad_yaml_raises_and_keeps_nothing(tmp_path: Path, cache: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("categories: [unclosed\n", encoding="utf-8")
    with pytest.raises(yaml.YAMLError):
        parsed.load(path)
    assert not cache.exists() or not list(cache.glob("*.pickle"))
    with pytest.raises(OSError):
        parsed.load(tmp_path / "missing.yaml")


def test_an_unwritable_cache_only_means_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.setattr(parsed, "cache_dir", lambda: blocker / "yaml")  # a folder under a file: cannot be made
    path = tmp_path / "a.yaml"
    path.write_text("a: [1, 2]\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="cosci.parsed"):
        assert parsed.load(path) == {"a": [1, 2]}
        assert parsed.load(path) == {"a": [1, 2]}
    assert not caplog.records  # nothing to say: no cache is no error


def test_at_most_max_files_are_kept(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parsed, "MAX_FILES", 3)
    for i in range(5):
        path = tmp_path / f"{i}.yaml"
        path.write_text(f"n: {i}\n", encoding="utf-8")
        assert parsed.load(path) == {"n": i}
    assert len(list(cache.glob("*.pickle"))) == 3
    assert not list(cache.glob("*.tmp"))
