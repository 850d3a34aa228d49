"""Compiled Jinja2 templates are kept in the user cache (cosci.paths.jinja_bytecode, design.md#startup): a second
process loads the report page's and the prompts' templates without compiling them, an edited template is compiled
anew, and a cache that cannot be made or written changes nothing but speed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jinja2 import Environment, FileSystemLoader

from cosci import prompts
from cosci.paths import jinja_bytecode
from cosci.report import render


@pytest.fixture
def user_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "cosci" / "jinja"


def _no_compile(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("compiled although a cached compilation exists")


@pytest.mark.parametrize(("make", "kind"), [(render._environment.__wrapped__, "report"),
                                             (prompts._environment.__wrapped__, "prompts")])
def test_a_second_environment_loads_the_compiled_templates(user_cache: Path, make: Any, kind: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    names = make().list_templates()
    assert names
    first = [make().get_template(n) for n in names]
    assert len(list((user_cache / kind).iterdir())) == len(names)  # one compiled file a template
    second_env = make()
    monkeypatch.setattr(second_env, "compile", _no_compile)  # a template compiled again fails the test
    second = [second_env.get_template(n) for n in names]
    assert [t.filename for t in second] == [t.filename for t in first]


def test_an_edited_template_is_compiled_anew(user_cache: Path, tmp_path: Path) -> None:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "t.j2").write_text("first {{ x }}")

    def env() -> Environment:
        return Environment(loader=FileSystemLoader(folder), bytecode_cache=jinja_bytecode("test"))

    assert env().get_template("t.j2").render(x=1) == "first 1"
    (folder / "t.j2").write_text("second {{ x }}")
    assert env().get_template("t.j2").render(x=2) == "second 2"


def test_a_cache_folder_that_cannot_be_made_compiles_as_before(user_cache: Path, tmp_path: Path) -> None:
    user_cache.parent.mkdir(parents=True)
    user_cache.write_text("a file where the folder would be")
    assert jinja_bytecode("report") is None
    env = render._environment.__wrapped__()
    assert env.bytecode_cache is None
    assert env.get_template("report.html.j2") is not None


def test_a_cache_file_that_cannot_be_written_is_skipped(user_cache: Path, tmp_path: Path) -> None:
    cache = jinja_bytecode("gone")
    assert cache is not None
    (user_cache / "gone").rmdir()  # removed after the cache was made (another process cleaned the user cache)
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "t.j2").write_text("x={{ x }}")
    env = Environment(loader=FileSystemLoader(folder), bytecode_cache=cache)
    assert env.get_template("t.j2").render(x=3) == "x=3"
