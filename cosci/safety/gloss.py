"""A word-for-word English gloss of text in scripts the offline screen cannot read (Cyrillic, Chinese, Japanese,
Arabic, Persian, Hindi, Korean).

The gloss (``conf/safety_gloss.yaml``) replaces the words that carry a request (agents, harmful steps,
protective purposes, a few function words) by their English, so the term patterns and the learned harm score
read a Russian, Chinese, Japanese, Arabic, Persian, Hindi or Korean goal as they read an English one
(docs/design.md#safety-screen). A text with no character of those scripts is returned unchanged, so the gloss
never moves a decision on any other text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import yaml

from cosci.paths import conf_dir

GLOSS_FILE = "safety_gloss.yaml"
"""The gloss, under ``conf/``."""
FOREIGN_SCRIPTS = ("\u0400-\u04ff\u0600-\u06ff\u0750-\u077f\u0900-\u097f\u1100-\u11ff\u3040-\u30ff\u3130-\u318f"
                   "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\ufb50-\ufdff\ufe70-\ufeff")
"""Character ranges of the glossed scripts: Cyrillic, Arabic (and Persian), Devanagari, Hangul, kana, CJK."""
_FOREIGN = re.compile(f"[{FOREIGN_SCRIPTS}]")
_CYRILLIC_WORD = re.compile(r"[\u0400-\u04ff]+(?:-[\u0400-\u04ff]+)*")


@dataclass(frozen=True)
class Gloss:
    """``phrases``, ``cjk`` and ``other``: substrings (longest first; ``other``: Arabic, Persian, Devanagari,
    Hangul); ``words``: exact Cyrillic words; ``stems``: Cyrillic stems, a word that starts with one is replaced
    (the longest stem wins)."""

    phrases: tuple[tuple[str, str], ...]
    words: dict[str, str]
    stems: tuple[tuple[str, str], ...]
    cjk: tuple[tuple[str, str], ...]
    other: tuple[tuple[str, str], ...] = ()

    def apply(self, text: str) -> str:
        """``text`` lower-cased with every listed word replaced by `` english ``; unchanged without a character of
        the glossed scripts (:data:`FOREIGN_SCRIPTS`)."""
        if not _FOREIGN.search(text):
            return text
        text = text.lower()
        for source, english in (*self.phrases, *self.cjk, *self.other):
            text = text.replace(source, f" {english} ")
        return _CYRILLIC_WORD.sub(self._word, text)

    def _word(self, match: re.Match[str]) -> str:
        word = match[0].replace("ё", "е")
        if word in self.words:
            return f" {self.words[word]} "
        for stem, english in self.stems:
            if word.startswith(stem):
                return f" {english} "
        return match[0]


def _longest_first(items: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(((k.lower(), v) for k, v in items.items()), key=lambda kv: -len(kv[0])))


@cache
def load_gloss() -> Gloss:
    """The shipped gloss (``conf/safety_gloss.yaml``); an absent file glosses nothing."""
    path = conf_dir() / GLOSS_FILE
    data = yaml.safe_load(path.read_text(encoding="utf-8")) if path.exists() else {}
    words = {k.lower(): v for k, v in (data.get("words") or {}).items()}
    return Gloss(_longest_first(data.get("phrases") or {}), words, _longest_first(data.get("stems") or {}),
                 _longest_first(data.get("cjk") or {}), _longest_first(data.get("other") or {}))
