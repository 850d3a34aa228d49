"""A provider that refuses every strong-tier request: the real entry point ends the session ``failed`` at once.

``python -m cosci.run experiment=demo models=opus`` runs with a test key against a local HTTP server standing in for
api.anthropic.com (``ANTHROPIC_API_BASE``, which LiteLLM reads). The server answers every Opus 4.7 request with HTTP
400 "invalid thinking configuration" and the other tiers' calls (the goal's safety screen on Haiku, goal parsing on
Sonnet) with a valid record. Such a 400 would meet every later call of the mode, so the session must end ``failed``
within the first generation task, exit non-zero, and say the provider's message in one line.

Bodies: the 400 is Anthropic's error envelope as recorded (``tests/fixtures/errors/anthropic_400_invalid_request.json``)
with the message Anthropic gives for the legacy thinking form on Opus 4.7, as quoted in NousResearch/hermes-agent#11137
(no recording of that exact 400 exists). The records are derived in memory from recorded bodies: the whole tool-use
answer (``anthropic/messages_thinking_text_tool_use.json``) and, for a streamed call, the recorded event stream with
two tool calls (``anthropic/messages_stream_tool_use.sse``), their tool name and input replaced by the record asked
for.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from cosci.store import STORE_FILE, SessionStore

pytestmark = pytest.mark.slow  # the entry point in a subprocess (on the worker's Prefect server)
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
INVALID_THINKING = ('"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
                    '"output_config.effort" to control thinking behavior.')
RECORDS: dict[str, dict[str, Any]] = {
    "record_safety_verdict": {"decision": "allow", "categories": [], "rationale": "Ordinary drug repurposing."},
    "record_research_plan": {"objective": "Repurpose approved drugs for acute myeloid leukemia.",
                             "preferences": ["Known safety profile."], "constraints": [],
                             "idea_attributes": ["novel", "testable", "specific"]},
}


def refusal() -> bytes:
    body = json.loads((FIXTURES / "errors" / "anthropic_400_invalid_request.json").read_text())
    body["error"]["message"] = INVALID_THINKING
    return json.dumps(body).encode()


def whole(record: str) -> bytes:
    body = copy.deepcopy(json.loads((FIXTURES / "anthropic" / "messages_thinking_text_tool_use.json").read_text()))
    body["content"] = [b for b in body["content"] if b["type"] == "tool_use"]
    body["content"][0].update(name=record, input=RECORDS[record])
    return json.dumps(body).encode()


def streamed(record: str) -> bytes:
    text = (FIXTURES / "anthropic" / "messages_stream_tool_use.sse").read_text()
    arguments = json.dumps(json.dumps(RECORDS[record]))[1:-1]  # as a JSON string's content
    return text.replace('"name":"pelican_name_generator"', f'"name":"{record}"').replace(
        '"partial_json":""', f'"partial_json":"{arguments}"').encode()


class Anthropic(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:  # the http.server interface names it
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        Anthropic.seen.append(body)
        if body["model"] == "claude-opus-5":
            self._answer(400, "application/json", refusal())
            return
        record = (body.get("tool_choice") or {}).get("name") or next(iter(RECORDS))
        if body.get("stream"):
            self._answer(200, "text/event-stream; charset=utf-8", streamed(record))
        else:
            self._answer(200, "application/json", whole(record))

    def _answer(self, status: int, kind: str, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def provider() -> Iterator[str]:
    Anthropic.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Anthropic)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def test_a_400_on_every_strong_tier_call_fails_the_session_in_the_first_generation_task(
        provider: str, tmp_path: Path, prefect_api_url: str) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_API_BASE": provider,
           "COSCI_DATA_DIR": str(data), "PYTHONPATH": str(ROOT),
           "PREFECT_API_URL": prefect_api_url}  # the worker's server: no boot of its own (docs/design.md#tests)
    for key in ("OPENAI_API_KEY", "VOYAGE_API_KEY", "ANTHROPIC_BASE_URL"):
        env.pop(key, None)
    done = subprocess.run([sys.executable, "-m", "cosci.run", "experiment=demo", "models=opus"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)

    assert done.returncode != 0, done.stdout[-2000:]
    errors = [line for line in done.stderr.splitlines() if line.startswith("cosci: ")]
    assert len(errors) == 1, done.stderr[-3000:]
    assert errors[0].startswith("cosci: generation/CreateInitialHypotheses failed: PermanentLLMError: "
                                "anthropic/claude-opus-5: invalid_request_error: ")
    assert INVALID_THINKING in errors[0]
    strong = [b for b in Anthropic.seen if b["model"] == "claude-opus-5"]
    assert strong and all(b["thinking"] == {"type": "adaptive", "display": "summarized"} for b in strong)
    assert len(strong) <= 2  # the first generation tasks (concurrency 2), each refused once: never retried
    (db,) = (data / "sessions").glob(f"*/{STORE_FILE}")
    store = SessionStore.open(db, db.parent.name)
    try:
        row = store.sessions.get()
        assert (row.status, row.stop_reason) == ("failed", "error")
        ran = {(r["agent"], r["action"]) for r in store.db.query("SELECT agent, action FROM tasks"
                                                                  " WHERE attempts > 0")}
        assert ran <= {("safety", "ScreenGoal"), ("goal_parsing", "ParseGoal"),
                       ("generation", "CreateInitialHypotheses")}
        assert store.hypotheses.count() == 0
        assert INVALID_THINKING in store.logs.events("session_failed")[0]["payload"]["error"]
    finally:
        store.close()
