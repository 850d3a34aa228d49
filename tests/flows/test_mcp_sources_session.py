"""End to end on the fake: an MCP tool server written with the SDK (``tests/tools/mcp_test_server.py``, stdio,
30 tools) and a server that exits at once as ``tools.mcp_servers`` (design.md#mcp-servers).

The test scripts the model's choices in the generation loop: it searches with ``mcp_tool_search``, then calls the
tools it found (one answering records, one answering 5 MB, one answering plain text). What is checked is cosci's:
the first call of the loop carries one search tool and none of the 30 tools; the tools found are offered from the
next call on; the record cited carries its identifiers and its excerpt is verified; the dead server, the 5 MB
answer and the non-JSON answer are one warning line each and the session ends normally."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

from cosci.config.schema import McpServerCfg
from cosci.llm.fake.provider import FakeBackend
from cosci.llm.fake.types import FakeReply
from cosci.store import SessionStore
from tests.conftest import make_config
from tests.flows.test_session_flow import SMALL, _run
from tests.tools.mcp_test_server import TOPICS

pytestmark = pytest.mark.slow

SERVER = Path(__file__).resolve().parents[1] / "tools" / "mcp_test_server.py"
NAMES = [t.lower().replace(" ", "_") for t in TOPICS] + ["paper_search_by_gene", "expression_atlas_dump",
                                                        "lab_notes_text"]
FOUND = ("mcp_bio_paper_search_by_gene", "mcp_bio_expression_atlas_dump", "mcp_bio_lab_notes_text")


def test_a_session_finds_an_mcp_tool_through_the_search_calls_it_and_cites_its_record(
        prefect_server: None, fake: FakeBackend, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    config = make_config(tmp_path / "data", "run.concurrency=1", *SMALL)
    servers = [McpServerCfg(name="bio", command=[sys.executable, str(SERVER)], allow=["*"]),
               McpServerCfg(name="dead", command=[sys.executable, "-c", "raise SystemExit(3)"], allow=["*"])]
    config = config.model_copy(update={"tools": config.tools.model_copy(update={"mcp_servers": servers})})
    fake.script(FakeReply(tool_calls=[("mcp_tool_search", {"query": "published papers naming a gene"}),
                                      ("mcp_tool_search", {"query": "expression atlas dump", "max_results": 1}),
                                      ("mcp_tool_search", {"query": "lab notes plain text", "max_results": 1})]),
                agent="generation", mode="literature")
    fake.script(FakeReply(tool_calls=[(FOUND[0], {"query": "metformin"}), (FOUND[1], {"query": "marrow"}),
                                      (FOUND[2], {"query": "metformin"})]), agent="generation", mode="literature")
    with caplog.at_level(logging.WARNING, logger="cosci.tools.mcp_servers"):
        summary = _run(config)
    assert summary["stop_reason"] not in ("error", "failed"), summary

    first, second = fake.calls_for("generation", "literature")[:2]
    assert "mcp_tool_search" in first.tools
    sent = json.dumps(first.messages) + " ".join(first.tools)
    assert not [n for n in NAMES if n in sent]  # none of the 30 tools, by name or schema, in the first prompt
    assert set(FOUND) <= set(second.tools) and len([t for t in second.tools if t.startswith("mcp_bio_")]) <= 7
    found = next(str(m["content"]) for m in second.messages if m.get("role") == "tool")
    assert "<untrusted_source" in found and "paper_search_by_gene" in found  # the server's words, quoted

    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    cites = [c for h in store.hypotheses.all() for c in h.citations
             if c["url"] == "https://doi.org/10.5555/mcp.test.1"]
    assert cites and cites[0]["status"] == "verified", cites
    assert cites[0]["source_id"] == "PMID:39990001" and cites[0]["doi"] == "10.5555/mcp.test.1"

    said = [r.getMessage() for r in caplog.records if r.name == "cosci.tools.mcp_servers"]
    assert len(said) == 3, said
    assert all("\n" not in line for line in said)
    assert any(line.startswith("tools.mcp_servers: server 'dead' skipped:") for line in said)
    assert any("bio/expression_atlas_dump: answered 5,0" in line and "tools.mcp_max_chars" in line for line in said)
    assert any("bio/lab_notes_text: answered text that is not JSON" in line for line in said)
