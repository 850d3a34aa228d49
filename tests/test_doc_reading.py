"""The documentation reads in a newcomer's minutes (design.md#docs).

README is the newcomer's page and stays short; reference pages live in ``docs/`` and open with an overview; a table
fits a screen (a longer row is a list); a count the documents state about the repository is the repository's
count; every page README points to exists.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
README_MAX_WORDS = 2500
"""README's budget: what cosci is, the two commands, the main job, one example per command group, where to read
more (design.md#docs)."""
TABLE_MAX_CHARS = 160
"""The widest table line that still reads on a screen without scrolling (design.md#docs)."""

NUMBER = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
          "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30}
NOUNS = ("templates", "rooms", "floors", "contracts", "prompts", "commands", "subcommands", "modules", "packages",
         "agents", "layers", "experiments", "presets", "tools", "groups", "kinds", "examples", "tasks", "items",
         "languages", "migrations", "tiers", "launchers", "questions", "experiment goals", "shipped ones")
COUNT = re.compile(r"(?<![\w.,])(" + "|".join(NUMBER) + r"|\d[\d,]*)\s+(?:shipped |vendored |bundled |MOOSE-Chem "
                   r"chemistry )?(" + "|".join(NOUNS) + r")\b", re.IGNORECASE)
"""A count of things in the repository, as prose states it ("fourteen templates", "the 34 items", "23 kinds")."""


def _malformed_kinds() -> int:
    from tests.reliability.test_malformed import RECORD_KINDS, VERDICT_KINDS

    return len(RECORD_KINDS) + len(VERDICT_KINDS)


def _lines(path: str) -> int:
    return sum(1 for line in (ROOT / path).read_text(encoding="utf-8").splitlines() if line.strip())


def _languages(path: str) -> int:
    rows = [json.loads(line) for line in (ROOT / path).read_text(encoding="utf-8").splitlines() if line.strip()]
    return len({r["lang"] for r in rows})


def _heldout_languages() -> int:
    from bench.safety_measure import split_of

    path = ROOT / "tests" / "data" / "safety" / "goals_intent.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return len({r["lang"] for r in rows if split_of(r["id"]) == "heldout"})


def _readme_make_commands() -> int:
    block = README.read_text(encoding="utf-8").split("## The two commands", 1)[1].split("```")[1]
    return sum(1 for line in block.splitlines() if line.startswith("make "))


CHECKED: dict[tuple[str, ...], Callable[[], int]] = {
    # (document, the counted noun as written[, a file named just before it]) -> the repository's count
    ("README.md", "commands"): _readme_make_commands,
    ("docs/development.md", "commands"): _readme_make_commands,
    ("docs/design.md", "commands"): _readme_make_commands,
    ("docs/ARCHITECTURE.md", "commands"): _readme_make_commands,
    ("docs/design.md", "languages"): lambda: _languages("tests/data/safety/goals_kinds_author.jsonl"),
    ("docs/ARCHITECTURE.md", "kinds"): _malformed_kinds,
    ("docs/evaluation.md", "kinds"): _malformed_kinds,
    ("docs/evaluation.md", "items"): lambda: _lines("bench/data/moose_chem/items.jsonl"),
    ("docs/safety.md", "questions"): lambda: _lines("bench/data/moose_chem/items.jsonl"),
    ("docs/safety.md", "experiment goals"): lambda: len(list((ROOT / "conf" / "experiment").glob("*.yaml"))),
    ("docs/safety.md", "languages"): lambda: _languages("tests/data/safety/goals_blind2.jsonl"),
    ("docs/safety.md", "languages", "goals_intent.jsonl"): _heldout_languages,
    ("docs/configuration.md", "examples"): lambda: len(list((ROOT / "skills").glob("*/SKILL.md"))),
    ("docs/investigation.md", "shipped ones"): lambda: len([p for p in (ROOT / "tasks").iterdir() if p.is_dir()]),
}
"""Every count the documents state about the repository, with the count it must equal."""
NOT_COUNTS = {("docs/ARCHITECTURE.md", "100", "tasks"), ("docs/design.md", "29", "tasks"),
              ("docs/design.md", "64", "tasks"), ("docs/design.md", "100", "languages")}
"""Matches of :data:`COUNT` that count no part of the repository: a full reload every 100 tasks (an interval), a
cited paper's 29 tasks, a sandbox's limit of 64 tasks (processes), the embedding model's 100 languages."""


def stated_counts(path: Path) -> list[tuple[str, int, str]]:
    """``(noun, number, context)`` for every count :data:`COUNT` finds in ``path`` outside code blocks (a count
    broken over two lines included)."""
    prose, code = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        code ^= line.startswith("```")
        if not code and not line.startswith("```"):
            prose.append(line.strip())
    text = " ".join(prose)
    found = []
    for m in COUNT.finditer(text):
        word = m[1].lower()
        number = NUMBER[word] if word in NUMBER else int(word.replace(",", ""))
        found.append((m[2].lower(), number, text[max(m.start() - 60, 0):m.end() + 40]))
    return found


def test_readme_is_the_newcomers_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.split()) <= README_MAX_WORDS, f"README has {len(text.split())} words"
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings[:2] == ["The two commands", "The main job"] and headings[-1] == "Where to read more"


def test_the_two_commands_are_the_ones_ci_runs() -> None:
    block = README.read_text(encoding="utf-8").split("## The two commands", 1)[1].split("```")[1]
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.startswith("make ")]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line.startswith("make ")]
    assert commands == ci == ["make setup", "make test"]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_reference_page_opens_with_an_overview(page: Path) -> None:
    lines = page.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# "), "a page opens with its title"
    first = next(line for line in lines[1:] if line.strip())
    assert not first.startswith(("#", "|", "-", "```", "*")), f"{page.name} opens with {first!r}, not a paragraph"


@pytest.mark.parametrize("doc", [README, *PAGES], ids=["README.md", *[p.name for p in PAGES]])
def test_tables_fit_a_screen(doc: Path) -> None:
    wide = [f"{n}: {len(line)} characters" for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
            if line.lstrip().startswith("|") and len(line) > TABLE_MAX_CHARS]
    assert not wide, "a table row over the limit becomes a list item:\n" + "\n".join(wide)


def test_every_stated_count_is_the_repositorys() -> None:
    wrong, unchecked = [], []
    for doc in [README, *PAGES]:
        name = str(doc.relative_to(ROOT))
        for noun, number, line in stated_counts(doc):
            if (name, str(number), noun) in NOT_COUNTS:
                continue
            named = [key for key in CHECKED if key[:2] == (name, noun) and len(key) > 2 and key[2] in line]
            check = CHECKED[named[0]] if named else CHECKED.get((name, noun))
            if check is None:
                unchecked.append(f"{name}: {number} {noun}: {line[:100]}")
            elif check() != number:
                wrong.append(f"{name}: says {number} {noun}, the repository has {check()}: {line[:100]}")
    assert not wrong, "\n".join(wrong)
    assert not unchecked, "a count is checked here (CHECKED) or not stated:\n" + "\n".join(unchecked)


def test_the_count_check_sees_what_it_forbids(tmp_path: Path) -> None:
    doc = tmp_path / "page.md"
    doc.write_text("# T\n\nFourteen templates render. The 34 items and 23 kinds.\n\n```\n3 tools\n```\n"
                   "Opus 4.5 tiers, 1,200\ntasks.\n", encoding="utf-8")
    assert [(noun, n) for noun, n, _ in stated_counts(doc)] == [("templates", 14), ("items", 34), ("kinds", 23),
                                                                 ("tasks", 1200)]


def test_every_listed_option_is_a_config_file() -> None:
    """configuration.md names every experiment and models preset, and none that is gone."""
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    experiments = re.search(r"^\| `experiment=` \| (.+) \|$", text, re.MULTILINE)
    assert experiments is not None
    assert set(re.findall(r"`([a-z_0-9]+)`", experiments[1])) == {
        p.stem for p in (ROOT / "conf" / "experiment").glob("*.yaml")}
    presets = text.split("The `models=` presets:", 1)[1].split("\n\n")[1]
    listed = {name for line in presets.splitlines() for name in re.findall(r"`([a-z_0-9]+)`", line.split(":")[0])}
    assert listed == {p.stem for p in (ROOT / "conf" / "models").glob("*.yaml")}


def test_every_language_the_safety_page_names_is_read() -> None:
    from cosci.safety.language import READ

    text = (ROOT / "docs" / "safety.md").read_text(encoding="utf-8")
    named = text.split("**Languages.** The screen reads ", 1)[1].split("(`cosci.safety.language.READ`)")[0]
    assert sorted(set(re.findall(r"[A-Z][a-z]+", named))) == sorted(set(READ.values()))  # Norwegian: nb and nn


def test_every_linked_page_exists() -> None:
    missing = []
    for doc in [README, *PAGES]:
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8")):
            path = (doc.parent / target).resolve()
            if not path.exists():
                missing.append(f"{doc.relative_to(ROOT)} -> {target}")
    assert not missing, "\n".join(missing)


def readme_commands() -> list[list[str]]:
    """The argument lists of every ``cosci …`` line in README's bash blocks, placeholders (``<id>``) filled in."""
    found = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL):
        for line in block.splitlines():
            command = re.sub(r"<[^>]+>", "s-20261205-000000-abcdef", line.split("  #")[0]).strip()
            words = shlex.split(command)
            while words and "=" in words[0] and not words[0].startswith("-"):  # KEY=... before the command
                words = words[1:]
            if words[:1] == ["cosci"]:
                found.append(words[1:])
    return found


def test_every_cosci_command_readme_shows_parses() -> None:
    """Each example is a real command with real options (that each works on a finished session of the fake, or says
    when it applies, was run by hand: docs/commands.md lists the states each command applies to)."""
    from cosci.cli import parser

    commands = readme_commands()
    assert {c[0] for c in commands} >= {"status", "rate", "result", "feedback", "report", "export", "project",
                                        "estimate", "screen", "compare", "schedule", "investigate", "eval"}
    for argv in commands:
        args, extra = parser().parse_known_args(argv)
        overrides_after_options = args.command in ("eval", "investigate") and all("=" in e for e in extra)
        assert not extra or overrides_after_options, (argv, extra)
