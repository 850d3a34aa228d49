"""Quoting helpers for untrusted text (design.md#prompts).

Every external text block — literature, web pages, other hypotheses, researcher feedback — reaches a prompt only
through these helpers. The block is wrapped in tags the safety preamble declares to be data, carries a short
sha256 so the model can tell it is intact, cannot close its own wrapper, and has injection prefixes such as
``SYSTEM:``, ``INSTRUCTION:``, ``IGNORE PREVIOUS`` and ``YOU ARE NOW`` neutralised by bracket-prefixing them.

Directives are matched on a normalised view of the text (design.md#resume): Unicode NFKC (full-width ``ＳＹＳＴＥＭ：``
reads as ``SYSTEM:``), escapes undone (``\\ ``, ``\\u0020``, ``\\x20``, ``%20``, ``&nbsp;``, ``&#32;``) and
invisible format characters (zero-width spaces, category Cf) dropped; words of a directive may run together
(``YOU\u200bARE NOW`` reads as ``YOUARE NOW``, still a directive). The marker goes into the original text
at the directive's start, so the quoted text itself is not rewritten.
"""

from __future__ import annotations

import hashlib
import html
import re
import unicodedata

INJECTION_PATTERNS = (
    r"SYSTEM\s*:", r"INSTRUCTIONS?\s*:", r"IGNORE\s*(?:ALL\s*)?(?:THE\s*)?(?:PREVIOUS|PRIOR|ABOVE)",
    r"DISREGARD\s*(?:ALL\s*)?(?:THE\s*)?(?:PREVIOUS|PRIOR|ABOVE)", r"YOU\s*ARE\s*NOW", r"NEW\s*INSTRUCTIONS",
    r"ASSISTANT\s*:", r"DEVELOPER\s*:", r"<\|im_start\|>", r"<\|im_end\|>", r"<\|endoftext\|>",
)
_INJECTION = re.compile("|".join(f"(?:{p})" for p in INJECTION_PATTERNS), re.IGNORECASE)
NEUTRALISED = "[quoted-directive] "
_TAGS = ("untrusted_source", "hypothesis_text")


_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\.|%[0-9a-fA-F]{2}|&#?\w{1,8};", re.DOTALL)


def _unescape(token: str) -> str:
    if token.startswith(("\\u", "\\x")):
        return chr(int(token[2:], 16))
    if token.startswith("\\"):
        return " " if token[1] in "ntr" else token[1]  # a written-out newline or tab still separates words
    if token.startswith("%"):
        return chr(int(token[1:], 16))
    return html.unescape(token)


def normal_view(text: str) -> tuple[str, list[int]]:
    """``text`` NFKC-normalised, unescaped and without format characters, plus, for each character of that view,
    the index in ``text`` of the character (or escape) it came from."""
    chars: list[str] = []
    origin: list[int] = []
    i = 0
    while i < len(text):
        m = _ESCAPE.match(text, i)
        token = m.group(0) if m else text[i]
        piece = _unescape(token) if m else token
        for c in unicodedata.normalize("NFKC", piece):
            if unicodedata.category(c) != "Cf":
                chars.append(c)
                origin.append(i)
        i += len(token)
    return "".join(chars), origin


def neutralise(text: str) -> str:
    """Bracket-prefix every injection directive (matched on :func:`normal_view`) and defuse our wrapper tags."""
    view, origin = normal_view(text)
    starts = sorted({origin[m.start()] for m in _INJECTION.finditer(view)}, reverse=True)
    for start in starts:
        text = f"{text[:start]}{NEUTRALISED}{text[start:]}"
    for tag in _TAGS:
        text = re.sub(rf"<\s*(/?)\s*{tag}", rf"&lt;\1{tag}", text, flags=re.IGNORECASE)
    return text


def _fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def quote_untrusted(text: str, id_: str) -> str:
    """Wrap external text (literature, web, researcher feedback) as ``<untrusted_source>`` data."""
    body = neutralise(text)
    return f'<untrusted_source id="{_attr(id_)}" sha256="{_fingerprint(body)}">\n{body}\n</untrusted_source>'


def quote_hypothesis(text: str, id_: str) -> str:
    """Wrap a hypothesis (model-written, so also untrusted) as ``<hypothesis_text>`` data."""
    body = neutralise(text)
    return f'<hypothesis_text id="{_attr(id_)}" sha256="{_fingerprint(body)}">\n{body}\n</hypothesis_text>'


def _attr(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.:/\-]", "_", value)[:120]
