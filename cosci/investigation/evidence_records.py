"""The record tools of the designed evidence (docs/design.md#evidence): the proposer's baselines and ablations
(:class:`RecordEvidencePlan`) and the filter's verdict on each (:class:`RecordEvidenceScreen`).

A proposal is a set of literal edits to the *selected* program (each ``old`` text must occur exactly once in its
file and is replaced by ``new``), so cosci builds the program itself, deterministically, and the evidence seeds run
it with the final evaluator beside the unchanged selected and initial programs.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from cosci.records import Record


class Edit(BaseModel):
    file: str = Field(min_length=1, max_length=200, description="The file of the selected program, relative to "
                      "its folder (as the diff names it).")
    old: str = Field(min_length=1, description="Text of the selected program's file, copied exactly; it must occur "
                     "exactly once in the file.")
    new: str = Field(description="What replaces it (may be empty to delete it).")


class Proposal(BaseModel):
    kind: Literal["ablation", "baseline"] = Field(description="ablation: the selected program with ONE of its "
                                                  "innovations undone; baseline: the selected program with the "
                                                  "innovation replaced by a standard alternative.")
    title: str = Field(min_length=1, max_length=120, description="A short name (e.g. 'without the margin "
                       "shrink').")
    hypothesis: str = Field(min_length=1, description="What the comparison with the selected program should show.")
    edits: list[Edit] = Field(min_length=1, max_length=6, description="The literal edits that make the program.")


class RecordEvidencePlan(Record):
    tool_name: ClassVar[str] = "record_evidence_plan"
    tool_description: ClassVar[str] = ("Record the proposed baselines and ablations. Calling this tool ends your "
                                       "turn.")

    proposals: list[Proposal] = Field(min_length=1, max_length=8, description="Each baseline or ablation, one "
                                      "change each.")


class Verdict(BaseModel):
    proposal: int = Field(ge=1, description="The proposal's number as listed (1 for the first).")
    keep: bool = Field(description="true: relevant, feasible and a single change; false otherwise.")
    reason: str = Field(min_length=1, description="Why, in one line.")


class RecordEvidenceScreen(Record):
    tool_name: ClassVar[str] = "record_evidence_screen"
    tool_description: ClassVar[str] = "Record your verdict on each proposal. Calling this tool ends your turn."

    verdicts: list[Verdict] = Field(max_length=8, description="One verdict per proposal; a proposal without a "
                                    "verdict is dropped.")
