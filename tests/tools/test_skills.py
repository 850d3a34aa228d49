"""Skills: ``SKILL.md`` documents under ``tools.skills_path`` become ``literature_<name>`` tools for the agents whose
allowlist has ``literature_*``, returning their document (cut at ``tools.skill_max_chars``, no citation source)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from cosci.agents.tool_loop import result_sources
from cosci.tools.skills import SkillsError, discover

SHIPPED = Path(__file__).resolve().parents[2] / "skills"


def test_the_shipped_skills_are_tools_of_the_searching_agents(make_registry, configure) -> None:
    registry = make_registry(configure(skills_path=str(SHIPPED)))
    names = {"literature_dose_response_in_cell_lines", "literature_repurposing_evidence_checklist"}
    for agent in ("generation", "reflection", "evolution"):
        assert names <= set(registry.for_agent(agent)), agent
    assert not names & set(registry.for_agent("ranking")) and not names & set(registry.for_agent("metareview"))
    tool = registry.get("literature_dose_response_in_cell_lines")
    assert tool.spec.description.startswith("Skill document 'dose-response-in-cell-lines': How to plan")
    assert tool.spec.parameters["properties"] == {}


async def test_a_skill_returns_its_document_capped_and_is_no_citation_source(make_registry, configure,
                                                                              tmp_path: Path) -> None:
    body = "Check the Cmax first. See https://example.org/guide for more. " + "word " * 200
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "SKILL.md").write_text(f"---\nname: Cmax Check\ndescription: Compare doses.\n---\n{body}",
                                              encoding="utf-8")
    registry = make_registry(configure(skills_path=str(tmp_path), skill_max_chars=100))
    result = await registry.get("literature_cmax_check")({})
    assert not result.is_error and result.text.startswith("Skill 'Cmax Check': Compare doses.\n\nCheck the Cmax")
    assert "[… cut at 100 characters of" in result.text and len(result.text) < 220
    assert result_sources(result, "literature_cmax_check") == ()  # the URL inside is guidance, not a record


def test_skills_without_front_matter_or_twice_are_named_in_one_warning(tmp_path: Path,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    for folder, text in {"a": "---\nname: alpha\ndescription: First.\n---\nA.",
                         "b": "no front matter here",
                         "c": "---\nname: alpha\ndescription: Same name.\n---\nC.",
                         "d": "---\nname: delta\n---\nno description"}.items():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "SKILL.md").write_text(text, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="cosci.tools.skills"):
        skills = discover(tmp_path)
    assert [s.tool_name for s in skills] == ["literature_alpha"] and skills[0].body == "A."
    (warning,) = [r.getMessage() for r in caplog.records]
    assert "3 SKILL.md skipped" in warning and "b/SKILL.md (no YAML front matter" in warning
    assert "c/SKILL.md (a second skill named literature_alpha)" in warning
    assert "d/SKILL.md (front matter has no description)" in warning


def test_a_skills_path_that_is_no_folder_is_one_line(make_registry, configure, tmp_path: Path) -> None:
    with pytest.raises(SkillsError) as err:
        make_registry(configure(skills_path=str(tmp_path / "absent")))
    assert str(err.value).startswith("tools.skills_path: ") and "\n" not in str(err.value)


def test_an_empty_skills_folder_is_one_warning_naming_it(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "skills" / "notes").mkdir(parents=True)
    (tmp_path / "skills" / "notes" / "README.md").write_text("not a skill", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="cosci.tools.skills"):
        assert discover(tmp_path / "skills") == []
        assert discover(tmp_path / "skills") == []  # the session's own scan after run.py's: said once
    (warning,) = [r.getMessage() for r in caplog.records]
    assert warning == (f"tools.skills_path: {tmp_path / 'skills'} holds no SKILL.md (its subfolders neither): "
                       "no skill tools this session")
