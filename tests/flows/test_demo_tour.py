"""The demo's own schedule (conf/experiment/demo.yaml, docs/design.md#demo) on the scripted fake: every agent and
mode once, and a stop on a full pool, not a stall. ``python -m bench.demo`` measures the same on the embedded model.
Not marked slow: it is the one whole session through the flow that ``make test-fast`` runs (docs/design.md#tests)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bench.demo import CHECKLIST
from cosci.config.load import compose, validate
from cosci.llm.fake.provider import FakeBackend
from cosci.store import SessionStore
from flows.session import session_flow


def test_the_demo_shows_every_agent_and_mode_and_ends_on_a_full_pool(prefect_server: None, fake: FakeBackend,
                                                                     tmp_path: Path) -> None:
    config = validate(compose(["experiment=demo", "models=fake", "tools.offline=true", "tracking.enabled=false",
                               f"paths.data_dir={tmp_path / 'data'}"]), require_goal=True)
    summary = asyncio.run(session_flow(config.model_dump(mode="json"), ["experiment=demo", "models=fake"], "fake"))
    store = SessionStore.open(Path(summary["store_path"]), summary["session_id"])
    assert summary["stop_reason"] == "max_hypotheses", summary
    called = {(r["agent"], r["mode"]) for r in store.db.query("SELECT agent, mode FROM transcripts WHERE outcome='ok'")}
    done = {r["agent"] for r in store.db.query("SELECT agent FROM tasks WHERE status='done'")}
    missing = [label for label, agent, mode in CHECKLIST
               if not (agent in done if mode == "task" else
                       any(a == agent and mode in ("*", m) for a, m in called))]
    assert not missing, missing
    modes = {r["mode"] for r in store.db.query("SELECT mode FROM tournament_matches")}
    assert modes == {"debate", "pairwise"}
    # one of each, not a long session: the two generated hypotheses, no growth tasks after them
    assert store.tasks.count("generation", "GenerateHypothesis") == 0
    assert store.tasks.count("generation", "CreateInitialHypotheses") == config.run.n_initial
