"""The system message of every call is auditable from ``record.sqlite``, stored once per distinct text (issue 12).

It carries the safety preamble, the research goal and the researcher's directives that reached the prompt;
transcripts point at it by sha256 (``transcripts.system_sha256`` → ``system_prompts``).
"""

from __future__ import annotations

import hashlib
import json

from cosci.llm.fake.provider import FakeBackend
from cosci.session.runtime import SessionRuntime
from tests.agents.conftest import RunTask

DIRECTIVE = "Focus on drugs that cross the blood-brain barrier."


async def test_system_messages_are_stored_once_and_hold_preamble_goal_and_directives(
        runtime: SessionRuntime, fake: FakeBackend, run_task: RunTask) -> None:
    runtime.store.logs.add_feedback("human", "directive", DIRECTIVE, key="d1")
    for i in range(3):
        await run_task("generation", "GenerateHypothesis", f"g{i}")
    db = runtime.store.db
    rows = db.query("SELECT system_sha256 FROM transcripts WHERE outcome='ok' AND agent='generation'")
    assert len(rows) >= 3 and all(r["system_sha256"] for r in rows)
    stored = db.query("SELECT sha256, content FROM system_prompts")
    assert len(stored) < len(rows)  # deduplicated: the same system message is stored once
    for row in stored:
        assert hashlib.sha256(row["content"].encode()).hexdigest() == row["sha256"]
    content = runtime.store.logs.system_prompt(rows[0]["system_sha256"])
    text = "\n".join(block["text"] for block in content)
    sent = fake.calls_for("generation")[0].messages[0]["content"]
    assert json.dumps(content, sort_keys=True) == json.dumps(sent, sort_keys=True)  # exactly what was sent
    assert "untrusted_source" in text  # the safety preamble declares quoted text to be data
    assert runtime.config.session.goal.split()[0] in text
    assert DIRECTIVE in text
