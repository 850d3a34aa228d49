"""Science skills: ``SKILL.md`` documents found under ``tools.skills_path``, each a ``literature_<name>`` tool that
returns its document (design.md#skills).

A skill is a folder (or any place under the path) holding a ``SKILL.md`` whose YAML front matter names it::

    ---
    name: dose-response-design
    description: How to plan a dose-response experiment in cell lines.
    ---
    (the document)

The folder is scanned once, when the session's registry is built. A skill's tool is ``literature_`` + its name in
lower case with every run of other characters made ``_`` (``dose-response-design`` -> ``literature_dose_response_
design``); the model sees the description (one line, at most :data:`DESCRIPTION_CHARS`) and calls the tool without
arguments to read the document, cut at ``tools.skill_max_chars``. The document is the researcher's (or a pack's)
text, not cosci's: like every tool result it reaches the model quoted as untrusted data, and it is no citation
source (a skill is guidance; its URLs are not records). Agents reach skills through the allowlist entry
:data:`SKILL_PATTERN` (``conf/agents/default.yaml``). A ``SKILL.md`` without a front-matter name or description is
skipped and named in one warning; so is a second skill of the same tool name.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from cosci.errors import CosciError
from cosci.literature import SKILL_PATTERN
from cosci.llm.port.types import ToolSpec
from cosci.tools.base import ToolResult
from cosci.tools.common import ToolBase

log = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
PREFIX = SKILL_PATTERN.rstrip("*")
DESCRIPTION_CHARS = 300
"""The longest description the model is shown (a tool description is read on every call of the agent)."""
_FRONT = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_NOT_NAME = re.compile(r"[^a-z0-9]+")
_WARNED: set[tuple[str, ...]] = set()


class SkillsError(CosciError):
    """``tools.skills_path`` cannot be used; ``str(err)`` is one line naming the key."""


@dataclass(frozen=True)
class Skill:
    """One skill document: ``name`` (as its front matter gives it), ``description`` (one line), ``body`` (the
    document after its front matter) and ``path`` (its ``SKILL.md``)."""

    name: str
    description: str
    body: str
    path: Path

    @property
    def tool_name(self) -> str:
        """``literature_<name>`` (see module docstring)."""
        return PREFIX + _NOT_NAME.sub("_", self.name.lower()).strip("_")


def parse(path: Path) -> Skill:
    """The skill in ``path``.

    Raises:
        ValueError: no front matter, or no ``name`` / ``description`` in it (the message says which).
    """
    text = path.read_text(encoding="utf-8", errors="replace")
    m = _FRONT.match(text)
    if not m:
        raise ValueError("no YAML front matter (--- name/description --- at the top)")
    try:
        meta: Any = yaml.safe_load(m.group(1))
    except yaml.YAMLError as exc:
        raise ValueError(f"front matter is not YAML ({str(exc).splitlines()[0]})") from None
    meta = meta if isinstance(meta, dict) else {}
    name, description = str(meta.get("name") or "").strip(), " ".join(str(meta.get("description") or "").split())
    if not _NOT_NAME.sub("", name.lower()):
        raise ValueError("front matter has no name")
    if not description:
        raise ValueError("front matter has no description")
    return Skill(name, description, text[m.end():].strip(), path)


def discover(root: Path) -> list[Skill]:
    """The skills under ``root`` (every ``SKILL.md``, recursively, in path order; see module docstring). Skipped
    files, or a folder holding none, are said in one warning (once per process).

    Raises:
        SkillsError: ``root`` does not exist or is not a folder.
    """
    if not root.is_dir():
        raise SkillsError(f"tools.skills_path: {root} is not a folder (give a folder holding SKILL.md files)")
    skills: dict[str, Skill] = {}
    skipped: list[str] = []
    for path in sorted(root.rglob(SKILL_FILE)):
        rel = path.relative_to(root).as_posix()
        try:
            skill = parse(path)
        except (OSError, ValueError) as exc:
            skipped.append(f"{rel} ({exc})")
            continue
        if skill.tool_name in skills:
            skipped.append(f"{rel} (a second skill named {skill.tool_name})")
            continue
        skills[skill.tool_name] = skill
    none = "" if skills else ": no skill tools this session"
    if (said := (str(root.resolve()), *skipped)) not in _WARNED:  # once per process (run.py checks too)
        if skipped:
            _WARNED.add(said)
            log.warning("tools.skills_path: %d SKILL.md skipped%s: %s", len(skipped), none, "; ".join(skipped))
        elif not skills:  # a folder set on purpose that holds none is most likely the wrong folder
            _WARNED.add(said)
            log.warning("tools.skills_path: %s holds no %s (its subfolders neither)%s", root, SKILL_FILE, none)
    return list(skills.values())


class SkillTool(ToolBase):
    """``literature_<name>``: returns the skill's document, cut at ``max_chars`` (see module docstring)."""

    network = False

    def __init__(self, skill: Skill, max_chars: int) -> None:
        super().__init__()
        description = skill.description
        if len(description) > DESCRIPTION_CHARS:
            description = description[:DESCRIPTION_CHARS].rsplit(" ", 1)[0] + " …"
        self.spec = ToolSpec(name=skill.tool_name, description=(
            f"Skill document '{skill.name}': {description} Call it (no arguments) to read the document."),
            parameters={"type": "object", "properties": {}, "additionalProperties": False})
        self.skill = skill
        self.max_chars = max_chars

    async def __call__(self, arguments: dict[str, Any]) -> ToolResult:
        body = self.skill.body
        note = ""
        if len(body) > self.max_chars:
            body = body[:self.max_chars].rsplit(" ", 1)[0]
            note = f"\n[… cut at {self.max_chars} characters of {len(self.skill.body)}]"
        text = f"Skill '{self.skill.name}': {self.skill.description}\n\n{body}{note}"
        return ToolResult(text=text, urls=(), source=self.name)  # guidance, no citation source


def skill_tools(skills_path: str | None, max_chars: int, taken: set[str]) -> list[SkillTool]:
    """The tools of the skills under ``skills_path`` (none when it is None); a skill whose tool name is a
    declared tool's (``taken``) is skipped with a warning.

    Raises:
        SkillsError: the path is not a folder.
    """
    if not skills_path:
        return []
    tools = []
    for skill in discover(Path(skills_path).expanduser()):
        if skill.tool_name in taken:
            log.warning("tools.skills_path: %s skipped: %s is already a tool", skill.path, skill.tool_name)
            continue
        tools.append(SkillTool(skill, max_chars))
    return tools
