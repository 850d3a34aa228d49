"""The screen's patterns made from kept programs are the patterns Python compiles (cosci/safety/compiled.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cosci.safety import compiled


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(compiled, "cache_dir", lambda: tmp_path / "screen")
    return tmp_path / "screen"


PATTERNS = [(r"\b(?:sarin|ricin)\b", re.IGNORECASE), (r"(?P<verb>make|grow) (?P<agent>\w+)", 0),
            (r"^\s*how (?:do|to)\b(?! not)", re.IGNORECASE | re.MULTILINE), (r"[^\W\d_]{2,}\s*[:：]", 0)]
TEXTS = ["How to make Sarin at home", "grow anthrax: a plan", "Goal: ricin\nhow do you", "ordinary text", "目标："]


def _compiled(unique: str) -> list[re.Pattern[str]]:
    re.purge()  # re's own per-process cache would answer before the kept programs are asked
    return [re.compile(p + unique, f) for p, f in PATTERNS]


def test_kept_patterns_match_as_compiled(cache: Path) -> None:
    fresh = [re.compile(p + "(?:)", f) for p, f in PATTERNS]
    with compiled.compiled_once("a-terms.yaml"):
        first = _compiled("(?:)")
    assert len(list(cache.glob("*.pickle"))) == 1
    with compiled.compiled_once("a-terms.yaml"):
        kept = _compiled("(?:)")
    for a, b, c in zip(fresh, first, kept, strict=True):
        assert (a.pattern, a.flags, a.groups, a.groupindex) == (c.pattern, c.flags, c.groups, c.groupindex)
        assert b.flags == c.flags
        for text in TEXTS:
            assert [(m.span(), m.groups()) for m in a.finditer(text)] == [
                (m.span(), m.groups()) for m in c.finditer(text)]


def test_a_kept_build_computes_nothing(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with compiled.compiled_once("b-terms.yaml"):
        _compiled("(?:x?)")
    monkeypatch.setattr(compiled, "program", lambda *_: pytest.fail("compiled again"))
    with compiled.compiled_once("b-terms.yaml"):
        _compiled("(?:x?)")


def test_a_bad_file_or_pattern_is_as_without_the_cache(cache: Path) -> None:
    cache.mkdir()
    (cache / f"{compiled.cache_key('c-terms.yaml')}.pickle").write_bytes(b"not a pickle")
    with compiled.compiled_once("c-terms.yaml"):
        assert _compiled("(?:y?)")[0].pattern.startswith(r"\b(?:sarin")
        with pytest.raises(re.error):
            re.compile(r"(unclosed")
    import re._compiler as compiler  # type: ignore[import-not-found]

    assert compiler.compile.__module__ == compiler.__name__  # restored after the block
