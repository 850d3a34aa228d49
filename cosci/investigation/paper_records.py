"""The record tools of ``cosci investigate write`` (docs/design.md#paper).

:class:`RecordPaperPlan` is the author's plan, made before the draft: the thesis, the rows the results lead with,
the figures and the references it will cite (reference planning). :class:`RecordPaper` is the author's paper (and
each repair's): a title, the abstract and the sections as lists of sentences, so every sentence is one claim the
checks read. A sentence cites evidence rows as ``[E3]`` (or run facts
``[F1]``), references as ``[@key]`` and figures as ``[fig:ID]``; cosci renders it to LaTeX (``\\cite``, ``\\ref``),
so the model never writes markup the compiler could choke on. :class:`RecordAudit` is the auditor's list of
problems (it never sees the checks). :class:`RecordPaperReview` and :class:`RecordChairReview` are the reviews,
scored on the rubric of :data:`RUBRIC`.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from cosci.records import Record

RUBRIC = {
    "soundness": (1, 4, "Are the claims supported by the evidence shown? 1 poor, 2 fair, 3 good, 4 excellent."),
    "presentation": (1, 4, "Is the paper clear and well organised? 1 poor, 2 fair, 3 good, 4 excellent."),
    "contribution": (1, 4, "Does it matter to the field? 1 poor, 2 fair, 3 good, 4 excellent."),
    "overall": (1, 10, "1 strong reject, 3 reject, 5 borderline reject, 6 borderline accept, 8 accept, "
                       "10 strong accept."),
    "confidence": (1, 5, "How sure are you of your assessment? 1 guess, 3 fairly, 5 certain."),
}
"""The published review rubric (a NeurIPS-style form): score name -> (lowest, highest, meaning)."""


class Section(BaseModel):
    heading: str = Field(min_length=1, max_length=120, description="The section heading (Introduction, Method, "
                         "Results, Discussion, ...).")
    sentences: list[str] = Field(min_length=1, max_length=40, description="The section's sentences, in order. "
                                 "Cite evidence rows as [E1], run facts as [F1], references as [@key], figures as "
                                 "[fig:ID].")


class RecordPaper(Record):
    tool_name: ClassVar[str] = "record_paper"
    tool_description: ClassVar[str] = "Record the whole paper. Calling this tool ends your turn."

    title: str = Field(min_length=1, max_length=200, description="The paper's title.")
    abstract: list[str] = Field(min_length=1, max_length=10, description="The abstract's sentences.")
    sections: list[Section] = Field(min_length=1, max_length=12, description="The sections, in order.")


class PlannedReference(BaseModel):
    key: str = Field(min_length=1, max_length=80, description="A key of the reference list.")
    use: str = Field(min_length=1, description="What the paper will cite it for.")


class RecordPaperPlan(Record):
    tool_name: ClassVar[str] = "record_paper_plan"
    tool_description: ClassVar[str] = "Record the paper's plan before it is written. Calling this tool ends your turn."

    thesis: str = Field(min_length=1, description="The central claim, in one sentence, as the evidence rows carry "
                        "it.")
    emphasis: list[str] = Field(max_length=8, description="Labels of the evidence rows the results lead with "
                                "(E1, E3...), most important first.")
    figures: list[str] = Field(max_length=8, description="Ids of the manifest's figures the paper shows, in order.")
    references: list[PlannedReference] = Field(max_length=12, description="The references the paper will cite "
                                               "(keys of the list only), each with its use.")


class RecordAudit(Record):
    tool_name: ClassVar[str] = "record_audit"
    tool_description: ClassVar[str] = "Record the audit of this paper. Calling this tool ends your turn."

    problems: list[str] = Field(max_length=20, description="Each problem in one line: a sentence the evidence does "
                                "not carry, a number that disagrees with a row, a missing limitation, an unclear "
                                "passage. Empty when you find none.")


def _score(name: str) -> object:
    low, high, meaning = RUBRIC[name]
    return Field(ge=low, le=high, description=f"{name} ({low}-{high}): {meaning}")


class RecordPaperReview(Record):
    tool_name: ClassVar[str] = "record_paper_review"
    tool_description: ClassVar[str] = "Record your review of the paper. Calling this tool ends your turn."

    summary: str = Field(min_length=1, description="What the paper claims, in your words.")
    strengths: list[str] = Field(max_length=8, description="Its strengths.")
    weaknesses: list[str] = Field(max_length=8, description="Its weaknesses.")
    soundness: int = _score("soundness")  # type: ignore[assignment]
    presentation: int = _score("presentation")  # type: ignore[assignment]
    contribution: int = _score("contribution")  # type: ignore[assignment]
    overall: int = _score("overall")  # type: ignore[assignment]
    confidence: int = _score("confidence")  # type: ignore[assignment]


class RecordChairReview(Record):
    tool_name: ClassVar[str] = "record_chair_review"
    tool_description: ClassVar[str] = "Record the area chair's meta-review. Calling this tool ends your turn."

    summary: str = Field(min_length=1, description="The meta-review: what the reviews agree and disagree on.")
    decision: Literal["accept", "reject"] = Field(description="The recommendation.")
    overall: int = _score("overall")  # type: ignore[assignment]
