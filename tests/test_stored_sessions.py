"""Sessions stored by an earlier release (tests/data/sessions/README.md) open, report, export and resume.

The archives were made before a release changed names of agents, actions, payload fields, config keys and
files; these tests pin that such a session still works with the code of today: nothing finished is paid for
again, nothing is skipped, and the report and MLflow run are the session's own.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from cosci.session.folder import SessionFolder
from cosci.store import LEGACY_STORE_FILE, STORE_FILE
from tests.conftest import run_cli
from tests.flows.test_session_flow import check_invariants

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "tests" / "data" / "sessions"
FINISHED = "s-20261201-201053-3b6db7"
KILLED = "s-20261201-201128-4ad455"


def extract(name: str, into: Path) -> Path:
    """Extract ``<name>.tar.xz`` under ``into``; returns its data folder."""
    with tarfile.open(STORED / f"{name}.tar.xz") as tar:
        tar.extractall(into, filter="data")
    return into / "data"


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code, out, err = run_cli(capsys, *args)
    return code, out + err


def _mlflow_run(data: Path, run_id: str) -> str:
    conn = sqlite3.connect(data / "mlflow.db")
    try:
        return str(conn.execute("SELECT status FROM runs WHERE run_uuid=?", (run_id,)).fetchone()[0])
    finally:
        conn.close()


def test_a_finished_session_opens_reports_and_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = extract("finished", tmp_path)
    folder = SessionFolder.existing(data, FINISHED)
    with folder.store() as store:
        row = store.sessions.get()
        assert (row.status, row.stop_reason) == ("done", "max_hypotheses")
        assert store.hypotheses.count() == 6 and store.matches.count() == 9
        ids = {h.id for h in store.hypotheses.all()}
        check_invariants(store)
    config = folder.frozen_config()  # the frozen config validates with today's schema
    assert config.run.n_initial == 3
    code, out = _cli(capsys, "--data-dir", str(data), "list")
    assert code == 0 and FINISHED in out and "done" in out
    code, out = _cli(capsys, "--data-dir", str(data), "status", FINISHED)
    assert code == 0 and "hypotheses   6" in out and "spent" in out
    code, out = _cli(capsys, "--data-dir", str(data), "report", FINISHED)
    assert code == 0 and "[H-" in out
    page = tmp_path / "report.html"
    code, out = _cli(capsys, "--data-dir", str(data), "report", FINISHED, "--html", "--out", str(page))
    html = page.read_text(encoding="utf-8")
    assert code == 0 and all(hid in html for hid in ids)
    for fmt in ("md", "jsonl"):
        target = tmp_path / f"export.{fmt}"
        code, out = _cli(capsys, "--data-dir", str(data), "export", FINISHED, "--format", fmt, "--out", str(target))
        assert code == 0 and target.stat().st_size > 0, out
    lines = [json.loads(x) for x in (tmp_path / "export.jsonl").read_text().splitlines()]
    assert {x["id"] for x in lines if x.get("type") == "hypothesis"} == ids


def test_a_killed_session_shows_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = extract("killed", tmp_path)
    code, out = _cli(capsys, "--data-dir", str(data), "list")
    assert code == 0 and KILLED in out and "stopped" in out
    code, out = _cli(capsys, "--data-dir", str(data), "report", KILLED)
    assert code == 0 and "no overview yet" in out and "[H-" in out


@pytest.mark.slow
def test_a_killed_session_resumes_without_paying_twice(tmp_path: Path, prefect_api_url: str) -> None:
    data = extract("killed", tmp_path)
    folder = SessionFolder.existing(data, KILLED)
    with folder.store() as store:
        done = {r[0] for r in store.db.query("SELECT id FROM tasks WHERE status='done'")}
        in_window = {r[0] for r in store.db.query("SELECT id FROM tasks WHERE lease_owner='killed'")}
        hypotheses, run_id = store.hypotheses.count(), store.sessions.get().mlflow_run_id
    assert len(done) == 41 and len(in_window) == 4 and run_id
    log = tmp_path / "calls.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFECT_API_URL": prefect_api_url}  # the worker's server: no
    env.pop("COSCI_DATA_DIR", None)  # boot of its own (docs/design.md#tests)
    resumed = subprocess.run(
        [sys.executable, "-m", "cosci.cli", "--data-dir", str(data), "resume", KILLED,
         f"models.fake.call_log={log}", "models.fake.latency_seconds=0"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600, start_new_session=True)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert calls, "the resumed session made no model call"
    paid_again = [c["task_id"] for c in calls if c["task_id"] in done | in_window]
    assert not paid_again, f"finished actions called the model again: {paid_again[:5]}"
    with folder.store() as store:
        row = store.sessions.get()
        assert row.status == "done" and row.final_overview
        assert store.hypotheses.count() > hypotheses  # work left at the kill was done, not skipped
        assert not store.db.query("SELECT 1 FROM tasks WHERE status IN ('pending', 'in_progress', 'leased')")
        check_invariants(store)
    assert (folder.final_dir / "report.html").is_file()
    assert _mlflow_run(data, run_id) == "FINISHED"  # the session's own MLflow run, completed


def _raw(db: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_a_store_from_before_the_renames_is_migrated_in_place_keeping_its_ids(tmp_path: Path) -> None:
    """Migration 0015: the older store keeps its file name and every id, speaks today's words, and each older
    task keeps the identity its Prefect cache key was built from (design.md#vocabulary, design.md#caching)."""
    data = extract("killed", tmp_path)
    db = data / "sessions" / KILLED / LEGACY_STORE_FILE
    old_tasks = {r[0]: r[1:] for r in _raw(db, "SELECT id, agent, action, idempotency_key, payload FROM tasks")}
    folder = SessionFolder.existing(data, KILLED)
    assert folder.store_path == db and not (folder.path / STORE_FILE).exists()
    with folder.store() as store:
        tasks = {t.id: t for t in (store.tasks.get(tid) for tid in old_tasks) if t is not None}
        assert set(tasks) == set(old_tasks)  # no task lost, every id kept
        for tid, (agent, action, _key, payload) in old_tasks.items():
            t = tasks[tid]
            assert t.cache_spec == {"agent": agent, "action": action, "target_id": t.target_id,
                                    "payload": json.loads(payload)}
            assert store.tasks.by_key(t.idempotency_key.split("::", 1)[1]) == t  # found by today's key
        agents = {t.agent for t in tasks.values()}
        actions = {t.action for t in tasks.values()}
        assert "goal_parsing" in agents and "supervisor" not in agents  # codemod: keep
        assert "RunTournamentRound" in actions and "RunTournamentBatch" not in actions  # codemod: keep
        rounds = [t for t in tasks.values() if t.action == "RunTournamentRound"]
        assert all("::ranking::round::" in t.idempotency_key or "::ranking::focus::" in t.idempotency_key
                   for t in rounds)
        for t in tasks.values():
            assert not {"kind", "strategy"} & set(t.payload)
            if t.agent in ("generation", "evolution", "reflection"):
                assert t.payload["mode"] in store_modes(t.agent)
        assert {h.mode for h in store.hypotheses.all()} >= {"literature"}
        assert {r.mode for r in store.hypotheses.reviews()} == {"full", "verification"}
        assert "goal_parsing" in store.logs.spend() and "supervisor" not in store.logs.spend()  # codemod: keep
        assert store.sessions.get().config_snapshot["run"]["max_hypotheses"] == 10  # read in today's key names


def store_modes(agent: str) -> set[str]:
    return {"generation": {"literature", "debate"}, "reflection": {"full", "verification", "observation"},
            "evolution": {"combine", "simplify", "feasibility", "out_of_box"}}[agent]


def test_a_new_session_writes_store_sqlite(tmp_path: Path) -> None:
    folder = SessionFolder(tmp_path, "s-new")
    folder.open_store().close()
    assert folder.store_path.name == STORE_FILE and (folder.path / STORE_FILE).is_file()
    assert [f.session_id for f in SessionFolder.all(tmp_path)] == ["s-new"]


@pytest.mark.parametrize("name,session_id", [("finished", FINISHED), ("killed", KILLED)])
def test_every_migration_is_applied_to_a_store_from_before_the_renames(tmp_path: Path, name: str,
                                                                     session_id: str) -> None:
    """A store made by the earlier release (migrations up to 0013) ends with every shipped migration applied:
    the call-speed columns (0014) and the vocabulary (0015), whichever order they were added to the code in."""
    from cosci.store.db import migrations

    data = extract(name, tmp_path)
    db = data / "sessions" / session_id / LEGACY_STORE_FILE
    before = {r[0] for r in _raw(db, "SELECT version FROM schema_migrations")}
    assert 14 not in before and 15 not in before
    with SessionFolder.existing(data, session_id).store():
        pass
    assert {r[0] for r in _raw(db, "SELECT version FROM schema_migrations")} == {v for v, _ in migrations()}
    columns = {r[1] for r in _raw(db, "PRAGMA table_info(transcripts)")}
    assert {"first_token_seconds", "output_tokens_per_second", "mode"} <= columns


def test_a_new_store_and_one_missing_a_lower_migration_end_with_every_migration(tmp_path: Path) -> None:
    """A new store gets every migration; a store that has 0015 but not 0014 (made by a build that shipped the
    vocabulary before the call speeds) gets 0014 on its next open: versions are applied by set, not by maximum."""
    from cosci.store.db import migrations

    shipped = {v for v, _ in migrations()}
    assert {14, 15} <= shipped
    folder = SessionFolder(tmp_path, "s-new")
    folder.open_store().close()
    db = folder.store_path
    assert {r[0] for r in _raw(db, "SELECT version FROM schema_migrations")} == shipped
    conn = sqlite3.connect(db)
    try:  # undo 0014 as if the store had been made without it
        conn.execute("ALTER TABLE transcripts DROP COLUMN first_token_seconds")
        conn.execute("ALTER TABLE transcripts DROP COLUMN output_tokens_per_second")
        conn.execute("DELETE FROM schema_migrations WHERE version = 14")
        conn.commit()
    finally:
        conn.close()
    folder.open_store().close()
    assert {r[0] for r in _raw(db, "SELECT version FROM schema_migrations")} == shipped
    columns = {r[1] for r in _raw(db, "PRAGMA table_info(transcripts)")}
    assert {"first_token_seconds", "output_tokens_per_second"} <= columns


def test_an_mlflow_run_logged_before_the_renames_compares_under_todays_names(tmp_path: Path) -> None:
    from mlflow.tracking import MlflowClient

    from cosci.tracking.compare import sessions_frame

    data = extract("finished", tmp_path)
    client = MlflowClient(tracking_uri=f"sqlite:///{data / 'mlflow.db'}")
    run = client.get_run("3f2f7db073b54d6d83cf353c9c0f7371")
    assert "run.max_ideas" in run.data.params  # codemod: keep (as logged then)
    frame = sessions_frame([run])
    assert frame["param.run.max_hypotheses"].to_list() == [run.data.params["run.max_ideas"]]  # codemod: keep
    assert "param.run.max_ideas" not in frame.columns  # codemod: keep


def test_a_stored_goal_holding_a_bidi_control_is_shown_escaped_and_resumes_with_a_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A goal stored before bidirectional controls were refused (design.md#cli) is read by every command: `cosci
    list`, `status` and the report page show each control escaped (never the text reversed), feedback is recorded,
    and a resume runs after one warning naming the character (it said "retype it without" and refused both)."""
    import flows.launch

    data = extract("killed", tmp_path)
    goal = "Suggest approved drugs \u202efor AML\u202c repurposing with a first cell-line experiment"
    db = data / "sessions" / KILLED / LEGACY_STORE_FILE
    conn = sqlite3.connect(db)  # as the earlier release wrote it: the goal in its row and in the frozen config
    try:
        snapshot = json.loads(conn.execute("SELECT config_snapshot FROM sessions").fetchone()[0])
        snapshot["session"]["goal"] = goal
        conn.execute("UPDATE sessions SET research_goal=?, config_snapshot=?", (goal, json.dumps(snapshot)))
        conn.commit()
    finally:
        conn.close()
    for args in (["list"], ["status", KILLED]):
        code, out = _cli(capsys, "--data-dir", str(data), *args)
        assert code == 0 and "drugs \\u202efor AML\\u202c" in out and "\u202e" not in out, out
    page = tmp_path / "page.html"
    code, out = _cli(capsys, "--data-dir", str(data), "report", KILLED, "--html", "--out", str(page))
    html = page.read_text(encoding="utf-8")
    assert code == 0 and "drugs \\u202efor AML" in html and "\u202e" not in html, out
    code, out = _cli(capsys, "--data-dir", str(data), "feedback", KILLED, "--kind", "directive", "--text", "oral")
    assert code == 0 and "recorded" in out, out
    ran: list[str] = []
    monkeypatch.setattr(flows.launch, "run_session", lambda config, **_: ran.append(config.session.goal))
    code, out = _cli(capsys, "--data-dir", str(data), "resume", KILLED)
    assert code == 0 and ran == [goal], out  # it runs on the goal as stored
    warning = [line for line in out.splitlines() if line.startswith("cosci: warning:")]
    assert warning == [f"cosci: warning: the goal of {KILLED} holds a bidirectional control character (U+202E "
                       "RIGHT-TO-LEFT OVERRIDE) at character 24, and 1 more, stored before such goals were refused; "
                       "the session reads it as stored, and `cosci list`, `status` and the report show each one "
                       "escaped, as \\u202e"], out
