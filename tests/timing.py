"""Rewrite ``tests/file_seconds.txt`` from a junit report: ``python -m tests.timing J.xml``.

Each file's seconds are the summed ``time`` of its testcases (pytest's junit ``time`` is setup, call and teardown,
so a module fixture's start is in its file's first test). Made by a whole run, e.g.
``pytest -q -n auto --dist loadfile --junitxml=J.xml``; ``tests/conftest.py`` orders the files by them.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).with_name("file_seconds.txt")
HEADER = """\
# Seconds per test file (setup, call and teardown of its tests summed), longest first: tests/conftest.py runs the
# files in this order, so under `--dist loadfile --no-loadscope-reorder` (Makefile) the long files start first and
# the short ones fill in at the end; a file not listed runs before them (docs/design.md#tests). Written by
#   pytest -q -n auto --dist loadfile --junitxml=J.xml && python -m tests.timing J.xml
# from a whole run; tests/test_fast_lane.py checks that every line names an existing file. The order matters, not
# the exact values.
"""


def file_of(classname: str, root: Path = ROOT) -> str:
    """The path of the file a junit ``classname`` (``tests.flows.test_x`` or ``tests.flows.test_x.TestY``) names."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        path = "/".join(parts[:end]) + ".py"
        if (root / path).is_file():
            return path
    raise ValueError(f"no test file for junit classname {classname!r}")


def seconds_per_file(junit: Path, root: Path = ROOT) -> dict[str, float]:
    """``{path: summed testcase seconds}``, longest first."""
    total: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit).iter("testcase"):
        total[file_of(case.get("classname", ""), root)] += float(case.get("time") or 0.0)
    return dict(sorted(total.items(), key=lambda kv: (-kv[1], kv[0])))


def render(seconds: dict[str, float]) -> str:
    return HEADER + "".join(f"{value:.1f} {path}\n" for path, value in seconds.items())


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_file():
        print("usage: python -m tests.timing JUNIT.xml", file=sys.stderr)
        return 2
    OUT.write_text(render(seconds_per_file(Path(argv[0]))), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
