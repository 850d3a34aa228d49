"""What the embedded model is sent of a user message (design.md#local-prompt-fit).

Two settings of the local preset, both off by default (they re-drew the demo's schedule: design.md#local-prompt-fit),
applied by the embedded provider alone (a hosted model is sent the agents' prompts as they are; the transcript keeps
the request as the agent made it):

- ``models.local.quote_chars``: each quoted block (``<hypothesis_text>`` and ``<untrusted_source>``: other
  hypotheses, reviews, rationales, excerpts, feedback) keeps the first ``quote_chars`` characters of its body, then
  :data:`CUT`. Measured on the demo, the pool's quoted hypotheses were 44 % of the prompt tokens the 135M model
  evaluated (bench/README.md, "The thirteenth stop").
- ``models.local.lead_sections``: the ``## `` sections whose heading starts with one of these (a template's fixed
  instructions: how to judge, the steps, what to record) move, in their order, right after the message's opening
  text, before the data. Calls of one mode then share them as a prefix, which a prompt state serves instead of
  evaluating them again (design.md#local-prompt-reuse).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

CUT = "…"
"""Ends a quoted block's body that was cut (one token)."""
QUOTED = re.compile(r"(<(hypothesis_text|untrusted_source) [^>\n]*>\n)(.*?)(\n</\2>)", re.S)
"""A block as :mod:`cosci.safety.quoting` writes it: opening tag line, body, closing tag (a body cannot close its
own wrapper: the helpers defuse the tags inside it)."""
SECTION = re.compile(r"(?m)^(?=## )")
LEAD_SECTIONS = ("## Steps", "## Record", "## How to judge", "## How the discussion runs", "## Literature",
                 "## Write the overview", "## <name of the direction>", "## Citation rules", "## What to record")
"""The value of ``models.local.lead_sections`` measured (off by default, see the module docstring): the headings of
the agents' templates whose sections hold the same text in every call of a mode (the overview's ``## <name of the
direction>`` is a line of the example in its "Write the overview" section; bench/prompt_reuse.py ``FIXED``)."""


def clip_quoted(text: str, max_chars: int) -> str:
    """``text`` with the body of every quoted block cut to its first ``max_chars`` characters (then :data:`CUT`);
    its tags, and everything outside the blocks, unchanged. ``max_chars`` > 0."""

    def cut(m: re.Match[str]) -> str:
        body = m.group(3)
        if len(body) > max_chars:
            body = body[:max_chars].rstrip() + CUT
        return m.group(1) + body + m.group(4)

    return QUOTED.sub(cut, text)


def lead_sections(text: str, headings: Sequence[str]) -> str:
    """``text`` with its ``## `` sections whose heading starts with one of ``headings`` moved, in their order, right
    after the opening (the text before the first section), the other sections after them in theirs; sections are
    joined by one blank line and the message's own ending is kept. No such section: ``text`` unchanged."""
    if not headings:
        return text
    parts = SECTION.split(text)
    opening, sections = parts[0], parts[1:]
    lead = [s for s in sections if s.startswith(tuple(headings))]
    if sections[:len(lead)] == lead:  # none, or already first
        return text
    ordered = lead + [s for s in sections if s not in lead]
    return opening + "\n\n".join(s.rstrip("\n") for s in ordered) + text[len(text.rstrip("\n")):]


def fit_user_text(text: str, quote_chars: int | None, headings: Sequence[str]) -> str:
    """A user message as the embedded model is sent it: :func:`clip_quoted` (``quote_chars`` None: whole blocks),
    then :func:`lead_sections`."""
    if quote_chars is not None:
        text = clip_quoted(text, quote_chars)
    return lead_sections(text, headings)
