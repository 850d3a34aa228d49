"""bench.demo's checklist reads the audit step from the record: on a one-model config (the embedded model) the
step is the decision "not audited" (no call, so no transcript row), which counts; a config whose audit neither
called a model nor decided so misses it (docs/design.md#demo)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.demo import DemoRun, read_record
from cosci.session.folder import SessionFolder
from tests.investigation.session_fixture import make_session


@pytest.mark.parametrize(("status", "counted"), [("not audited", True), ("unchecked", False)])
def test_the_audit_step_is_the_not_audited_decision_on_one_model(tmp_path: Path, status: str,
                                                                  counted: bool) -> None:
    data = tmp_path / "data"
    session_id, _ = make_session(data, 1)
    folder = SessionFolder(data, session_id)
    with folder.store() as store:
        store.logs.event("overview_checked", {"claims_total": 2, "audit": {
            "status": status, "model": "m", "writer_model": "m" if status == "not audited" else "n"}},
            agent="meta_review")
    run = DemoRun(1.0, 1.0, 1.0, 1.0, 0)
    read_record(run, folder.store_path, None)
    assert run.checklist["audit"] is counted and run.notes["audit"] == status
