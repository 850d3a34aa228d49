"""The scripted fake itself: answers are a function of the request in every process, so a resumed session
replays identically (fake_content's contract)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cosci.llm.responses import make_response

CALL = ("pubmed_search", '{"query": "metformin"}')


def tool_call_id() -> str:
    resp = make_response("cosci-fake/strong", tool_calls=[CALL], prompt_tokens=1, completion_tokens=1)
    return resp.choices[0].message.tool_calls[0].id


def test_tool_call_ids_are_the_same_in_every_process() -> None:
    """Ids end up in the next turn's messages, which the fake hashes to pick its answer: they must not depend
    on Python's per-process string hashing (``PYTHONHASHSEED``)."""
    other_seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    env = {**os.environ, "PYTHONHASHSEED": other_seed, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    code = "from tests.llm.test_fake import tool_call_id\nprint(tool_call_id())\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip().splitlines()[-1] == tool_call_id()
    assert tool_call_id().startswith("call_0_")
