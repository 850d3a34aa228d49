"""The documentation needs nothing outside the repository (design.md#vocabulary, docs/design.md's preamble).

Code, config and prompts cite the reasons for their behaviour as sections of ``docs/design.md``
(``design.md#tournament``), never a document a reader of the repository does not have (the specification the
project started from, an issue number, a notes file of the workspace), and every cited section exists.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("cosci", "flows", "conf", "prompts")
DOCS = (*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "bench" / "README.md")
SUFFIXES = {".py", ".yaml", ".md", ".j2", ".sql", ".css", ".js", ".toml", ".txt"}
OUTSIDE = re.compile(r"seeds? 00[0-9]|issues? #?[0-9]+|the seeds\b|the seeds?'s?\b|stack[ -]notes|shared/seeds",
                     re.IGNORECASE)
"""References to documents outside the repository: the specification ("seed 003", "the seeds'"), issue numbers,
the workspace's notes files."""
ANCHOR = re.compile(r"design\.md#([A-Za-z0-9_-]+)")


def scanned_files() -> list[Path]:
    return sorted(p for top in SCANNED for p in (ROOT / top).rglob("*")
                  if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts)


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower()).replace(" ", "-")


def design_anchors() -> set[str]:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    return {slug(m[1]) for m in re.finditer(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def test_no_reference_points_outside_the_repository() -> None:
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()[:120]}"
             for p in scanned_files()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if OUTSIDE.search(line)]
    assert not found, "\n".join(found[:40])


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_the_top_level_docs_point_nowhere_outside_either(doc: Path) -> None:
    found = [f"{n}: {line.strip()[:120]}" for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"seeds? 00[0-9]|shared/seeds|stack[ -]notes", line, re.IGNORECASE)]
    assert not found, "\n".join(found[:40])


def test_every_cited_design_section_exists() -> None:
    anchors = design_anchors()
    cited: dict[str, list[str]] = {}
    for p in [*scanned_files(), *DOCS]:
        for m in ANCHOR.finditer(p.read_text(encoding="utf-8")):
            cited.setdefault(m[1], []).append(str(p.relative_to(ROOT)))
    assert len(cited) >= 20, "design.md sections are cited from code and config"
    missing = {a: sorted(set(where))[:3] for a, where in cited.items() if a not in anchors}
    assert not missing, f"cited but not a section of docs/design.md: {missing}"


def test_the_check_sees_what_it_forbids(tmp_path: Path) -> None:
    """The patterns catch the forms that used to be everywhere, and an anchor that does not exist is caught."""
    for line in ("# seed 001: run.concurrency", "(Issue 15: refused)", "the seeds' classifier", "stack notes",
                 "seed 004's retry table"):
        assert OUTSIDE.search(line), line
    for line in ("run.seed=3", "seeded per task", "the random seed", "design.md#tournament"):
        assert not OUTSIDE.search(line), line
    assert "tournament" in design_anchors() and "no-such-section" not in design_anchors()
    assert slug("Tournament") == "tournament" and slug("Cost estimate") == "cost-estimate"


def caps() -> dict[str, int]:
    """Each cap on a text's length a user meets, by its name in the code, read from the code."""
    from cosci.config.goal import GOAL_MAX_CHARS
    from cosci.investigation.draft_command import BRIEF_MAX_CHARS
    from cosci.session.inputs import TEXT_MAX_CHARS

    return {"GOAL_MAX_CHARS": GOAL_MAX_CHARS, "BRIEF_MAX_CHARS": BRIEF_MAX_CHARS, "TEXT_MAX_CHARS": TEXT_MAX_CHARS}


def test_every_text_cap_the_docs_state_is_the_code_s() -> None:
    """Fresh-user trial: docs/commands.md read as capping `cosci screen`'s text at 4,000 characters, where the code caps
    it at a goal's 8,000. commands.md's table "How long a text may be" names each cap's constant beside its figure,
    and every doc that names a constant with a figure beside it (``GOAL_MAX_CHARS`` (8,000)) states the code's."""
    commands = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert "## How long a text may be" in commands
    table = commands.split("## How long a text may be", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in table.splitlines() if r.startswith("| ") and "---" not in r][1:]
    named = {}
    for row in rows:
        figure = re.search(r"\| ([0-9,]+) characters", row)
        constant = re.search(r"`(?:[a-z_.]+\.)?([A-Z_]+_MAX_CHARS)`", row)
        assert figure and constant, row
        named[constant[1]] = int(figure[1].replace(",", ""))
    assert named == caps()
    for topic in ("goal", "cosci screen", "--brief", "--why", "--notes", "--text", "--measure"):
        assert any(topic in row for row in rows), topic
    stated = [(doc.name, m) for doc in DOCS for m in STATED_CAP.finditer(doc.read_text(encoding="utf-8"))]
    assert len(stated) >= 3  # ARCHITECTURE.md's goal and researcher text, design.md's brief
    for name, m in stated:
        if m[1] in caps():
            assert int(m[2].replace(",", "")) == caps()[m[1]], f"{name}: {m[0]}"


STATED_CAP = re.compile(r"`(?:[a-z_.]+\.)?([A-Z_]+_MAX_CHARS)`,? \(?([0-9][0-9,]*)")
"""A cap's constant with a figure beside it in a doc: ```config.goal.GOAL_MAX_CHARS` (8,000)``."""
