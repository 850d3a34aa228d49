"""The prompt templates: which file serves which agent mode, and rendering them (design.md#prompts).

Prompts are Markdown Jinja2 files in ``prompts/`` (found through :func:`cosci.paths.prompts_dir`); no prompt
text lives in Python. Rendering uses ``StrictUndefined``: a variable a template needs but the caller did not
pass is an error (:class:`PromptError`), never a silently empty string. Optional variables are defaulted
inside the templates themselves (``{% if x is defined and x %}``).

Untrusted text (literature, hypotheses, researcher feedback) must reach :func:`render` already wrapped by
:mod:`cosci.safety.quoting`; templates place it as given and never quote it again. Autoescaping is off because
the output is a prompt, not HTML.

Keys are the ``agent.mode`` names (design.md#prompts; and ``safety.classify``, design.md#safety, with
``safety.record``, its short form for a tier unable to classify, design.md#safety-screen) plus the partials
(leading underscore) that callers render as system blocks: ``_safety_preamble`` heads every system prompt,
``_session_context`` is the cached research goal and plan, ``_feedback_context`` the latest system feedback and
researcher directives, and
``_debate_record`` the follow-up that turns a finished generation debate into a ``record_hypothesis`` call,
``_handbook`` the research handbook that lengthens the cached prefix for providers with a minimum (design.md#caching),
``_loop_last_call`` and ``_loop_record`` the last turn of a tool loop that cannot force its record while thinking
and the separate record call that follows it when no record came (design.md#thinking-forms), ``_claim_check`` the
support check of the overview's claims, ``_debate_grounding`` the citations of a debate hypothesis and
``_citation_support`` the support check of a hypothesis's verified quotes (``docs/design.md#claim-statuses``,
``#grounded-debate-hypotheses``).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from jinja2 import (
    Environment,
    FileSystemLoader,
    StrictUndefined,
    Template,
    TemplateNotFound,
    TemplateSyntaxError,
    UndefinedError,
)

from cosci import domain
from cosci.errors import CosciError
from cosci.paths import jinja_bytecode, prompts_dir

TEMPLATES: dict[str, str] = {
    "parse_goal": "parse_goal.md",
    "generation.literature": "generation_literature.md",
    "generation.debate": "generation_debate.md",
    "reflection.full": "reflection_review.md",
    "reflection.verification": "reflection_verification.md",
    "reflection.observation": "reflection_observation.md",
    "ranking.pairwise": "ranking_pairwise.md",
    "ranking.debate": "ranking_debate.md",
    "evolution.combine": "evolution_combine.md",
    "evolution.simplify": "evolution_simplify.md",
    "evolution.feasibility": "evolution_feasibility.md",
    "evolution.out_of_box": "evolution_out_of_box.md",
    "metareview.system": "metareview_system.md",
    "metareview.final": "metareview_final.md",
    "safety.classify": "safety_classify.md",
    "safety.record": "safety_record.md",
    "_safety_preamble": "_safety_preamble.md",
    "_session_context": "_session_context.md",
    "_feedback_context": "_feedback_context.md",
    "_debate_record": "_debate_record.md",
    "_articles": "_articles.md",
    "_instructions": "_instructions.md",
    "_reviews_overview": "_reviews_overview.md",
    "_overview_repair": "_overview_repair.md",
    "_overview_audit": "_overview_audit.md",
    "_claim_check": "_claim_check.md",
    "_debate_grounding": "_debate_grounding.md",
    "_citation_support": "_citation_support.md",
    "_handbook": "_handbook.md",
    "_loop_last_call": "_loop_last_call.md",
    "_loop_record": "_loop_record.md",
}
"""Template key (``agent.mode`` or ``_partial``) -> file name under ``prompts/``."""
EVAL_TEMPLATES: dict[str, str] = {
    "eval.hypothesis_match": "eval/hypothesis_match.md",
    "eval.baseline": "eval/baseline.md",
    "eval.match_rubric": "eval/match_rubric.md",
}
"""Prompts of the evaluation harness (``cosci eval``, design.md#eval), not of a session's agents."""
INVESTIGATION_TEMPLATES: dict[str, str] = {
    "investigation.idea": "investigation_idea.md",
    "investigation.attempt": "investigation_attempt.md",
    "investigation.report": "investigation_report.md",
    "evidence.propose": "evidence_propose.md",
    "evidence.screen": "evidence_screen.md",
    "_investigation_role": "_investigation_role.md",
    "draft.design": "draft_design.md",
    "draft.review": "draft_review.md",
    "draft.task": "draft_task.md",
    "draft.judge": "draft_judge.md",
    "_draft_role": "_draft_role.md",
    "_draft_example": "_draft_example.md",
    "paper.plan": "paper_plan.md",
    "paper.write": "paper_write.md",
    "paper.repair": "paper_repair.md",
    "paper.audit": "paper_audit.md",
    "paper.review": "paper_review.md",
    "paper.chair": "paper_chair.md",
    "_paper_role": "_paper_role.md",
}
"""Prompts of ``cosci investigate`` (ideation, execution, the report writer; design.md#investigation) and of its
drafting (design, review, drafting, alignment judge; design.md#draft) and its writing (author, auditor, reviewers,
area chair; design.md#paper)."""
COMMAND_TEMPLATES: dict[str, str] = {"check": "check.md", "check_loop": "check_loop.md",
                                     "check_plain": "check_plain.md"}
"""Prompts of commands outside a session: ``cosci check``'s minimal call (design.md#check)."""

_MISSING = (re.compile(r"'([^']+)' is undefined"), re.compile(r"has no attribute '([^']+)'"))


class PromptError(CosciError):
    """A prompt could not be rendered: unknown key, missing file, bad syntax or a missing variable."""


@cache
def _environment() -> Environment:
    """The one Jinja2 environment (created on first use, so importing never touches the file system)."""
    return Environment(
        loader=FileSystemLoader(prompts_dir()),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        autoescape=False,
        bytecode_cache=jinja_bytecode("prompts"),  # compiled once, not at each session's start (design.md#startup)
    )


def _template(key: str) -> Template:
    name = (TEMPLATES.get(key) or EVAL_TEMPLATES.get(key) or INVESTIGATION_TEMPLATES.get(key)
            or COMMAND_TEMPLATES.get(key))
    if name is None:
        raise PromptError(f"unknown prompt template {key!r} (known: {', '.join(TEMPLATES)})")
    try:
        return _environment().get_template(name)
    except TemplateNotFound as err:
        raise PromptError(f"prompt template {key!r}: file {err.name!r} not found in {prompts_dir()}") from err
    except TemplateSyntaxError as err:
        raise PromptError(f"prompt template {key!r}: syntax error, line {err.lineno}: {err.message}") from err


def render(key: str, **variables: Any) -> str:
    """Render the template ``key`` with ``variables``.

    Args:
        key: a key of :data:`TEMPLATES`, e.g. ``"generation.literature"`` or ``"_session_context"``.
        **variables: the template's variables (see the comment at the top of each ``prompts/*.md``).
            Untrusted strings must already be wrapped by :mod:`cosci.safety.quoting`. Every template also gets
            ``overview_headings``, the overview's headings (:data:`cosci.domain.OVERVIEW`), unless passed.

    Returns:
        The rendered prompt, stripped of leading and trailing whitespace.

    Raises:
        PromptError: the key is unknown, the file is missing or malformed, or a required variable (or a
            required field of a list item, such as a transcript entry's ``speaker``) was not passed.
    """
    template = _template(key)
    try:
        return template.render(**({"overview_headings": domain.OVERVIEW} | variables)).strip()
    except UndefinedError as err:
        message = str(err)
        name = next((m.group(1) for p in _MISSING if (m := p.search(message))), None)
        detail = f"missing variable {name!r}" if name else f"undefined value ({message})"
        raise PromptError(f"prompt template {key!r} ({template.name}): {detail}") from err
