"""Quoting helpers for untrusted text (seed 003 "Untrusted Source Wrapping").

Every external text block — literature, web pages, other hypotheses, researcher feedback — reaches a prompt only
through these helpers. The block is wrapped in tags the safety preamble declares to be data, carries a short
sha256 so the model can tell it is intact, cannot close its own wrapper, and has injection prefixes such as
``SYSTEM:``, ``INSTRUCTION:``, ``IGNORE PREVIOUS`` and ``YOU ARE NOW`` neutralised by bracket-prefixing them.
"""

from __future__ import annotations

import hashlib
import re

INJECTION_PATTERNS = (
    r"SYSTEM\s*:", r"INSTRUCTIONS?\s*:", r"IGNORE\s+(?:ALL\s+)?(?:THE\s+)?(?:PREVIOUS|PRIOR|ABOVE)",
    r"DISREGARD\s+(?:ALL\s+)?(?:THE\s+)?(?:PREVIOUS|PRIOR|ABOVE)", r"YOU\s+ARE\s+NOW", r"NEW\s+INSTRUCTIONS",
    r"ASSISTANT\s*:", r"DEVELOPER\s*:", r"<\|im_start\|>", r"<\|im_end\|>", r"<\|endoftext\|>",
)
_INJECTION = re.compile("|".join(f"(?:{p})" for p in INJECTION_PATTERNS), re.IGNORECASE)
NEUTRALISED = "[quoted-directive] "
_TAGS = ("untrusted_source", "hypothesis_text")


def neutralise(text: str) -> str:
    """Bracket-prefix every injection directive and defuse our wrapper tags inside ``text``."""
    text = _INJECTION.sub(lambda m: f"{NEUTRALISED}{m.group(0)}", text)
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
