"""The writing workspace of an investigation, ``<run>/paper/`` (docs/design.md#paper): the one place that spells
out its layout.

``stages.jsonl`` (append-only: each stage and round as it ends), ``calls/<key>.json`` (each finished model call's
validated record, keyed by what was asked: a killed write resumed replays them instead of paying again),
``calls.jsonl`` (every call the gateway made, with its cost), ``figures/`` (the plots) and ``figures.json`` (their
manifest), ``references.bib``, ``plan.json`` (the author's checked plan), ``paper.tex`` (and ``paper.pdf`` when a
TeX engine compiled it), ``claims_grounding.json``, ``checks.json`` (each round's check results), ``audits.jsonl``,
``reviews/`` (one JSON per reviewer, ``chair.json``, ``reviews.md``), ``status.json``.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any


def call_key(*parts: Any) -> str:
    """sha256 (24 hex digits) of the JSON of ``parts``: what a call asked (agent, action, system, messages, record,
    model). The same question gets the same key in every process."""
    body = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()[:24]


class PaperFolder:
    def __init__(self, run_root: Path) -> None:
        self.root = run_root / "paper"

    def ensure(self) -> PaperFolder:
        for sub in ("calls", "figures", "reviews"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        return self

    @property
    def figures_dir(self) -> Path:
        return self.root / "figures"

    # --- the call cache -----------------------------------------------------------------------------------
    def cached(self, key: str) -> dict[str, Any] | None:
        """The record a finished call with ``key`` returned, or None."""
        path = self.root / "calls" / f"{key}.json"
        if not path.is_file():
            return None
        return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]

    def keep(self, key: str, record: dict[str, Any]) -> None:
        """Store a finished call's record (written to a temporary name, then renamed: a kill leaves no half file)."""
        self.write_json(f"calls/{key}.json", record)

    def reviewer_files(self) -> dict[int, Path]:
        """``{i: reviews/reviewer<i>.json}`` of the reviews present."""
        return {int(p.stem[8:]): p for p in (self.root / "reviews").glob("reviewer*.json") if p.stem[8:].isdigit()}

    # --- files --------------------------------------------------------------------------------------------
    def write_text(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        return path

    def write_json(self, rel: str, data: Any) -> Path:
        return self.write_text(rel, json.dumps(data, indent=1, default=str))

    def append(self, rel: str, row: dict[str, Any]) -> None:
        """Add one JSON line to the append-only log ``rel``; after a torn last line (a kill mid-append) the row
        starts a line of its own, so the torn one stays the only unreadable line (:meth:`read_log` skips it)."""
        path = self.root / rel
        line = json.dumps({"t": time.time(), **row}, default=str) + "\n"
        with path.open("a+b") as fh:  # appends go to the end whatever the read position
            end = fh.seek(0, 2)
            if end and fh.seek(end - 1) >= 0 and fh.read(1) != b"\n":
                line = "\n" + line
            fh.write(line.encode())

    def read_log(self, rel: str) -> tuple[list[dict[str, Any]], int]:
        """``(rows, torn)`` of the append-only log ``rel`` (``[], 0`` when absent): ``torn`` counts the lines that
        are not a JSON object -- what a kill during an append leaves -- which are skipped, not fatal."""
        path = self.root / rel
        rows, torn = [], 0
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else []:
            try:
                row = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:
                row = "torn"
            if isinstance(row, dict):
                rows.append(row)
            elif row is not None:
                torn += 1
        return rows, torn

    def stage(self, name: str, **detail: Any) -> None:
        """Record that stage ``name`` ended (``stages.jsonl``)."""
        self.append("stages.jsonl", {"stage": name, **detail})

    def stages(self) -> list[dict[str, Any]]:
        return self.read_log("stages.jsonl")[0]
