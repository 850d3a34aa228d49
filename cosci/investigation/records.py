"""The record tools of an investigation's agents (docs/design.md#investigation).

:class:`RecordIdea` is the idea bundle the ideation agent emits (title, falsifiable hypothesis, ordered plan,
target rubric ids, and the seeded session hypothesis it tests, if any); :func:`normalise_idea` rejects a bundle
whose rubric ids are not in the task's catalogue or whose hypothesis id was not seeded. :class:`RecordAttempt`
ends the execution agent's loop. :class:`RecordFindings` is the report writer's answer.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any, ClassVar, Literal

from pydantic import Field, create_model

from cosci.records import Record


class RecordIdea(Record):
    tool_name: ClassVar[str] = "record_idea"
    tool_description: ClassVar[str] = ("Record ONE idea bundle for this research cycle. Calling this tool ends "
                                       "your turn.")

    title: str = Field(min_length=1, max_length=200, description="A short title of the idea.")
    hypothesis: str = Field(min_length=1, description="A falsifiable hypothesis: what change should move the score, "
                            "and why.")
    plan: list[str] = Field(min_length=1, max_length=12, description="The ordered implementation steps.")
    rubric_ids: list[str] = Field(min_length=1, max_length=32, description="Ids of the task's rubrics this idea "
                                  "targets (from the catalogue shown).")
    hypothesis_id: str | None = Field(default=None, description="The seeded hypothesis id (H-...) this idea tests, "
                                      "if it tests one; null otherwise.")


def idea_record(rubric_ids: Sequence[str], seeded: Sequence[str]) -> type[RecordIdea]:
    """:class:`RecordIdea` with this task's rubric ids (and the seeded hypothesis ids) as enums in its schema, so a
    schema-constrained model (the embedded one) can only name ids that exist; validation still rejects others."""
    fields: dict[str, Any] = {"rubric_ids": (list[Literal[tuple(rubric_ids)]],  # type: ignore[valid-type,misc]
                                             Field(min_length=1, max_length=32, description="Ids of the task's "
                                                   "rubrics this idea targets."))}
    if seeded:
        fields["hypothesis_id"] = (Literal[tuple(seeded)] | None,  # type: ignore[valid-type,misc]
                                   Field(default=None, description="The seeded hypothesis id this idea tests, or "
                                         "null."))
    return create_model("RecordIdea", __base__=RecordIdea, **fields)


class RecordAttempt(Record):
    tool_name: ClassVar[str] = "record_attempt"
    tool_description: ClassVar[str] = ("Submit one candidate as this cycle's attempt. Calling this tool ends "
                                       "the cycle.")

    candidate: str = Field(min_length=1, description="The candidate id to submit (c1, c2, ...).")
    summary: str = Field(min_length=1, description="What the candidate changes, in one or two sentences.")
    conclusion: str = Field(min_length=1, description="The distilled lesson for the other workers: what was "
                            "learned, whatever the outcome.")
    memory: str = Field(default="", description="A note for your own next cycles (optional).")


class RecordFindings(Record):
    tool_name: ClassVar[str] = "record_findings"
    tool_description: ClassVar[str] = "Record the findings of the investigation. Calling this tool ends your turn."

    findings: list[str] = Field(min_length=1, max_length=12, description="Sentences stating the findings; every "
                                "number must come from the evidence rows, cited as [E1], [E2]...")


class IdeaRejected(ValueError):
    """An idea bundle that breaks the contract (unknown rubric id, hypothesis id not seeded, empty field)."""


def normalise_idea(idea: RecordIdea, rubric_ids: Collection[str], seeded: Collection[str]) -> RecordIdea:
    """The bundle with its fields stripped and its rubric ids deduplicated (order kept).

    Raises:
        IdeaRejected: an empty field after stripping, a rubric id not in ``rubric_ids``, or a hypothesis id not in
            ``seeded``.
    """
    title, hypothesis = " ".join(idea.title.split()), idea.hypothesis.strip()
    plan = [s.strip() for s in idea.plan if s.strip()]
    ids = list(dict.fromkeys(r.strip() for r in idea.rubric_ids if r.strip()))
    for name, value in (("title", title), ("hypothesis", hypothesis), ("plan", plan), ("rubric_ids", ids)):
        if not value:
            raise IdeaRejected(f"idea bundle: {name} is empty")
    unknown = [r for r in ids if r not in rubric_ids]
    if unknown:
        raise IdeaRejected(f"idea bundle: unknown rubric id(s) {', '.join(unknown)} (known: {', '.join(rubric_ids)})")
    hid = (idea.hypothesis_id or "").strip() or None
    if hid is not None and hid not in seeded:
        raise IdeaRejected(f"idea bundle: hypothesis id {hid} was not seeded"
                           + (f" (seeded: {', '.join(seeded)})" if seeded else " (none was)"))
    return RecordIdea(title=title, hypothesis=hypothesis, plan=plan, rubric_ids=ids, hypothesis_id=hid)
