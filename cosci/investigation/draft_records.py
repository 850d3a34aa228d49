"""The record tools of ``cosci investigate draft`` and the brief's requirements (docs/design.md#draft).

:class:`RecordTaskDesign` is the design agent's experimental design (and, inside :class:`RecordDesignReview`, the
independent reviewer's repaired one); :class:`RecordTaskDraft` holds the drafted files of a task folder;
:class:`RecordAlignment` is the alignment judge's answer, one verdict per brief requirement. The requirements are
cut from the brief deterministically (:func:`requirements`), so the judge cannot choose which ones it answers: a
requirement it leaves out counts as not measured (:func:`unmet`).
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from cosci.records import Record

MAX_REQUIREMENTS = 24
"""At most 24 requirements per brief (docs/design.md#draft): a longer brief is cut there, and says so."""
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.+)$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")


class Requirement(BaseModel):
    id: str
    text: str


def items(brief: str) -> list[str]:
    """Every requirement text of the brief: its list items when it has any, else its sentences (Markdown headings
    and blank lines aside)."""
    lines = [ln for ln in brief.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    found = [m.group(1).strip() for ln in lines if (m := _BULLET.match(ln))]
    return found or [s.strip() for s in _SENTENCE.split(" ".join(ln.strip() for ln in lines)) if s.strip()]


def requirements(brief: str) -> list[Requirement]:
    """The brief's requirements ``R1..Rn`` (:func:`items`), at most :data:`MAX_REQUIREMENTS`."""
    return [Requirement(id=f"R{i}", text=t) for i, t in enumerate(items(brief)[:MAX_REQUIREMENTS], 1)]


class TaskDesign(BaseModel):
    title: str = Field(min_length=1, max_length=80, description="A short name of the task.")
    question: str = Field(min_length=1, description="The research question the task asks, in one or two sentences.")
    method: str = Field(min_length=1, description="What the initial program does and what a better program may "
                        "change (the candidate interface: what it reads under /data and prints).")
    score_metric: str = Field(min_length=1, max_length=64, description="The metric gate B compares (a name of the "
                              "evaluators' metrics).")
    direction: Literal["maximize", "minimize"] = Field(description="Whether a higher or a lower score is better.")
    search_protocol: str = Field(min_length=1, description="The search evaluation: its data and what it measures.")
    final_protocol: str = Field(min_length=1, description="The final evaluation: data disjoint from the search "
                                "data, drawn independently, and an evaluator that is a separate program.")
    compute: str = Field(min_length=1, description="Time and memory of one run, and the evaluations per cycle.")
    rubrics: list[str] = Field(min_length=1, max_length=32, description="Criteria a faithful change must meet, each "
                               "a metric-comparator-threshold sentence (e.g. 'mse is below 0.5').")


class RecordTaskDesign(TaskDesign, Record):
    tool_name: ClassVar[str] = "record_task_design"
    tool_description: ClassVar[str] = "Record the experimental design of the task. Calling this tool ends your turn."


class RecordDesignReview(Record):
    tool_name: ClassVar[str] = "record_design_review"
    tool_description: ClassVar[str] = ("Record your review of the design and the repaired design. Calling this tool "
                                       "ends your turn.")

    issues: list[str] = Field(default_factory=list, description="Each problem found in the design (empty: none).")
    design: TaskDesign = Field(description="The design with every issue repaired (unchanged when there is none).")


class RecordTaskDraft(Record):
    tool_name: ClassVar[str] = "record_task_draft"
    tool_description: ClassVar[str] = ("Record every file of the task folder. Calling this tool ends your turn.")

    task_md: str = Field(min_length=1, description="task.md: the question, what the program prints, the score.")
    task_yaml: str = Field(min_length=1, description="task.yaml: score, entry, evaluation_budget, timeouts, limits, "
                           "data (search and final inputs and answers under data/).")
    rubrics_yaml: str = Field(min_length=1, description="rubrics.yaml: a list of {id, text}.")
    program: str = Field(min_length=1, description="The initial program (initial/<entry>).")
    evaluate_search: str = Field(min_length=1, description="evaluate_search.py.")
    evaluate_final: str = Field(min_length=1, description="evaluate_final.py: a separate program from the search "
                                "evaluator.")
    make_data: str = Field(default="", description="make_data.py: writes every data file under the folder given as "
                           "--out (the task's data/); empty when the task has no data.")

    FILES: ClassVar[dict[str, str]] = {"task_md": "task.md", "task_yaml": "task.yaml",
                                       "rubrics_yaml": "rubrics.yaml", "evaluate_search": "evaluate_search.py",
                                       "evaluate_final": "evaluate_final.py", "make_data": "make_data.py"}
    """Field -> file name in the task folder (the program goes to ``initial/<entry>``)."""


class Verdict(BaseModel):
    requirement: str = Field(description="The requirement's id (R1, R2...).")
    measured: bool = Field(description="Whether the task, as drafted, measures this requirement.")
    where: str = Field(default="", description="Which file, metric or rubric measures it.")
    reason: str = Field(default="", description="Why (required when not measured: what is missing).")


class RecordAlignment(Record):
    tool_name: ClassVar[str] = "record_alignment"
    tool_description: ClassVar[str] = ("Record, for every requirement of the brief, whether the task measures it. "
                                       "Calling this tool ends your turn.")

    verdicts: list[Verdict] = Field(description="One verdict per requirement id.")
    fidelity_issues: list[str] = Field(default_factory=list, description="Ways the task would not answer the "
                                       "brief's question even where each requirement is measured (empty: none).")


def unmet(record: RecordAlignment, reqs: list[Requirement]) -> list[str]:
    """The judge's failing items, one line each ([] when the task is aligned): a requirement judged not measured,
    a requirement it gave no verdict on (unassessed never becomes measured), and each fidelity issue."""
    given = {v.requirement.strip(): v for v in record.verdicts}
    out = []
    for r in reqs:
        v = given.get(r.id)
        if v is None:
            out.append(f"{r.id} ({r.text[:80]}): not assessed by the alignment judge")
        elif not v.measured:
            out.append(f"{r.id} ({r.text[:80]}): not measured: {v.reason.strip() or 'no reason given'}")
    out += [f"fidelity: {i.strip()}" for i in record.fidelity_issues if i.strip()]
    return out
