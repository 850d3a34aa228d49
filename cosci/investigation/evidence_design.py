"""Designed baselines and ablations, and the post-hoc diagnostics of the selected program (docs/design.md#evidence).

Retrospective evidence as "The Agentic Scientist" builds it: the proposer reads the code diff between the initial
and the selected program and proposes baselines and ablations (:class:`RecordEvidencePlan`), each one change to the
selected program written as literal edits; the filter, another agent in its own conversation, keeps those that are
relevant, feasible and a single change (:class:`RecordEvidenceScreen`). cosci then checks each kept proposal by
script (:func:`vet`): its files are the selected program's, every ``old`` text occurs exactly once, the program
differs from the selected one, and an ablation edits text the selected program introduced (one of its innovations,
not an arbitrary line). Each passing proposal becomes a program under ``evidence/designed/`` that the evidence seeds
run with the final evaluator, in the sandbox, like every evidence program; its gain is the selected program minus
it, paired over the same seeds. Proposals, verdicts and notes are kept in ``evidence/design.json``: a resumed
investigation reads them back instead of asking again.

The diagnostics (:func:`diagnostics`) read the selected program's own final evaluations (frozen: nothing is
rerun or changed): each other numeric metric its evaluator reports, and its wall-clock seconds, as a mean with its
interval over the evidence seeds, so every number the paper may state has one.
"""

from __future__ import annotations

import difflib
import json
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from cosci.investigation.digest import file_digests
from cosci.investigation.evidence import Interval, summary
from cosci.investigation.evidence_records import Proposal, RecordEvidencePlan, RecordEvidenceScreen
from cosci.investigation.harness import Evaluation
from cosci.llm.errors import LLMError, StructuredOutputError
from cosci.llm.port.structured import call_record
from cosci.llm.port.types import CallSpec, LLMPort, Route, TextBlock
from cosci.prompts import render
from cosci.safety.quoting import quote_untrusted

MAX_DIFF_CHARS = 12_000
"""The diff shown to the proposer and the filter is cut here (about 3k tokens): a long rewrite is shown in part,
and the cut is said."""


@dataclass
class Designed:
    """One proposal after the filter and the checks: ``program`` its folder, or None with ``note`` saying why not."""

    number: int
    kind: str
    title: str
    hypothesis: str
    program: str | None
    note: str = ""

    @property
    def label(self) -> str:
        return f"{self.kind} '{self.title}'"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _texts(root: Path) -> dict[str, str]:
    out = {}
    for rel in sorted(file_digests(root)):
        try:
            out[rel] = (root / rel).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            out[rel] = ""
    return out


def program_diff(initial: Path, selected: Path) -> str:
    """The unified diff, file by file, from ``initial`` to ``selected`` (cut at :data:`MAX_DIFF_CHARS`)."""
    a, b = _texts(initial), _texts(selected)
    parts = ["".join(difflib.unified_diff(a.get(rel, "").splitlines(keepends=True),
                                          b.get(rel, "").splitlines(keepends=True), f"initial/{rel}",
                                          f"selected/{rel}")) for rel in sorted(set(a) | set(b))]
    text = "".join(p if p.endswith("\n") else p + "\n" for p in parts if p)
    return text if len(text) <= MAX_DIFF_CHARS else text[:MAX_DIFF_CHARS] + "\n[... diff cut here]\n"


def introduced(initial: Path, selected: Path) -> dict[str, set[str]]:
    """Per file, the stripped non-empty lines of ``selected`` that ``initial`` does not have at that place (the
    lines the diff adds)."""
    a, b = _texts(initial), _texts(selected)
    out: dict[str, set[str]] = {}
    for rel, text in b.items():
        old, new = a.get(rel, "").splitlines(), text.splitlines()
        ops = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
        out[rel] = {new[j].strip() for tag, _, _, j1, j2 in ops if tag != "equal" for j in range(j1, j2)
                    if new[j].strip()}
    return out


def vet(p: Proposal, selected: Path, added: dict[str, set[str]]) -> str:
    """"" when the proposal can be built as asked, else why not (module docstring)."""
    texts: dict[str, str] = {}
    for e in p.edits:
        if e.file not in added or ".." in Path(e.file).parts:
            return f"{e.file} is not a file of the selected program"
        text = texts.get(e.file) or (selected / e.file).read_text(encoding="utf-8")
        if (n := text.count(e.old)) != 1:
            return f"the old text of an edit to {e.file} occurs {n} times in it (it must occur exactly once)"
        texts[e.file] = text.replace(e.old, e.new)
    if all(texts[f] == (selected / f).read_text(encoding="utf-8") for f in texts):
        return "the edits leave the selected program unchanged"
    if p.kind == "ablation" and not any(ln.strip() in added[e.file] for e in p.edits for ln in e.old.splitlines()):
        return "an ablation must undo text the selected program introduced; these edits touch none of it"
    return ""


def build(p: Proposal, selected: Path, dest: Path) -> None:
    """Write the selected program with ``p``'s edits applied to ``dest`` (``p`` passed :func:`vet`)."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(selected, dest, ignore=shutil.ignore_patterns("__pycache__"))
    for e in p.edits:
        path = dest / e.file
        path.write_text(path.read_text(encoding="utf-8").replace(e.old, e.new, 1), encoding="utf-8")


def _listing(plan: RecordEvidencePlan) -> str:
    return quote_untrusted(json.dumps([p.model_dump() for p in plan.proposals], indent=1), "proposals")


async def _ask(port: LLMPort, route: Route, action: str, agent: str, task_name: str, prompt: str,
               record: Any) -> Any:
    system = [TextBlock(render("_safety_preamble"), cache=True),
              TextBlock(render("_investigation_role", agent=agent, task_name=task_name), cache=True)]
    spec = CallSpec(route=route, action=action, system=system, messages=[{"role": "user", "content": prompt}],
                    task_id="evidence-design")
    rec, _ = await call_record(port, spec, record)
    return rec


async def propose_and_screen(port: LLMPort, routes: dict[str, Route], task_name: str, question: str, metric: str,
                             diff: str, most: int) -> dict[str, Any]:
    """The proposer's plan and the filter's verdicts (module docstring); ``{"note": ...}`` when a call fails (the
    run's other evidence stands)."""
    quoted = quote_untrusted(diff, "diff")
    try:
        plan = await _ask(port, routes["proposer"], "Propose", "proposer", task_name, render(
            "evidence.propose", question=question, metric=metric, diff=quoted, most=most), RecordEvidencePlan)
        screen = await _ask(port, routes["filter"], "Screen", "filter", task_name, render(
            "evidence.screen", question=question, diff=quoted, proposals=_listing(plan)), RecordEvidenceScreen)
    except (LLMError, StructuredOutputError) as exc:
        return {"note": f"no designed evidence: the {type(exc).__name__} of a design call ({exc})"}
    return {"plan": plan.model_dump(), "screen": screen.model_dump()}


def designed(answers: dict[str, Any], selected: Path, initial: Path, folder: Path, most: int) -> list[Designed]:
    """The filter's kept proposals (at most ``most``), checked and built under ``folder`` (module docstring)."""
    if "plan" not in answers:
        return []
    plan = RecordEvidencePlan.model_validate(answers["plan"])
    verdicts = {v.proposal: v for v in RecordEvidenceScreen.model_validate(answers["screen"]).verdicts}
    added = introduced(initial, selected)
    out: list[Designed] = []
    for n, p in enumerate(plan.proposals, 1):
        v = verdicts.get(n)
        note = (f"dropped by the filter: {v.reason}" if v is not None and not v.keep else
                "no verdict from the filter" if v is None else
                f"over evidence.designed ({most})" if sum(1 for d in out if d.program) >= most else
                vet(p, selected, added))
        dest = folder / f"d{n:02d}"
        if not note:
            build(p, selected, dest)
        out.append(Designed(n, p.kind, p.title, p.hypothesis, None if note else str(dest), note))
    return out


def diagnostics(evals: dict[tuple[str, int], Evaluation], program: str, metric: str,
                level: float) -> list[tuple[str, Interval]]:
    """``[(name, interval)]``: each numeric metric other than ``metric`` the final evaluator reports for
    ``program``'s valid runs, and its wall-clock seconds, over the evidence seeds."""
    runs = [e for (p, _), e in sorted(evals.items()) if p == program and e.ok]
    if not runs:
        return []
    names = sorted({k for e in runs for k, v in e.metrics.items()
                    if k != metric and isinstance(v, int | float) and not isinstance(v, bool)})
    out = [(k, summary([float(e.metrics[k]) for e in runs if isinstance(e.metrics.get(k), int | float)], level))
           for k in names]
    return [*out, ("seconds", summary([e.seconds for e in runs], level))]
