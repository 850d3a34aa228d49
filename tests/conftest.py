"""Shared fixtures: a validated config on the scripted fake, the fake itself, an open session runtime.

Every test runs offline: API keys are removed from the environment, literature tools run in offline mode
(tests of the tools replay recorded responses instead), data goes to a temporary folder, and the fake answers
every model call.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="cosci-xdg-")  # never the developer's ~/.config/cosci

from cosci.config.load import compose, validate
from cosci.config.schema import CosciConfig
from cosci.llm.fake.provider import FAKE, FakeBackend
from cosci.report import figures
from cosci.tournament import fit_cache

API_KEYS = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "OPENROUTER_API_KEY",
    "VOYAGE_API_KEY",
    "TAVILY_API_KEY",
    "BRAVE_API_KEY",
    "NCBI_API_KEY",
    "S2_API_KEY",
    "OPENALEX_API_KEY",
)
FULL_TOOL_LOOPS = [
    f"agents.{agent}.modes.{mode}.max_iterations={n}"
    for agent, mode, n in (
        ("generation", "literature", 8),
        ("reflection", "full", 8),
        ("reflection", "verification", 8),
        ("evolution", "combine", 6),
        ("evolution", "simplify", 6),
        ("evolution", "feasibility", 6),
        ("evolution", "out_of_box", 6),
    )
]
"""The seeds' tool-loop lengths (seed 000); the demo experiment shortens them for the embedded model."""
FULL_TOOL_LOOPS += [f"agents.{agent}.tools=[default,literature_*]" for agent in ("generation", "evolution")]
"""And the tools the demo takes from generation and evolution (design.md#demo): the tests' sessions search."""
SCHEDULE = [
    "run.max_hypotheses=6",
    "run.n_initial=3",
    "generation.debate_share=0.34",
    "ranking.max_matches_per_pair=3",
    "debate.min_turns=2",
    "debate.max_turns=3",
    "evolution.min_mature=4",
    "evolution.mature_matches=2",
    "evolution.top_k=4",
    "evolution.pool_share=0.3",
    "metareview.every_matches=10",
    "termination.min_hypotheses_before_stable=6",
    "termination.min_matches_before_stable=12",
    "termination.snapshot_every_matches=4",
    "vectors.full_recluster_every_matches=6",
    "reflection.observation_top_k=1",
]
"""The session schedule the tests were written against (the demo's until it became the one-of-each tour of
docs/design.md#demo); tests/flows/test_demo_tour.py runs the demo's own schedule."""
FAST = [
    "experiment=demo",
    "models=fake",
    "tools.offline=true",
    "tracking.enabled=false",
    "retry.base_delay_seconds=0",
    "retry.max_delay_seconds=0",
    *SCHEDULE,
    *FULL_TOOL_LOOPS,
    # the fake's templated hypotheses share most of their words: under the hash embedder's calibrated dedup
    # threshold (0.22, issue 16) they would all be duplicates, so tests keep the seed's values for hash
    "vectors.models.hash.dedup_cosine_threshold=0.92",
    "vectors.models.hash.cluster_threshold=0.15",
]
"""The overrides every test config starts from: the demo goal on the fake, offline tools, no tracking."""
CAPABLE = "models.tiers.mini.unable_to_classify=false"
"""The fake's mini tier as a capable safety classifier: its scripted verdicts decide (by default the fake, like the
embedded model, is unable to classify and the offline screen decides). Only the fake may be marked so without a
measurement (docs/design.md#safety-measured): its answers are the test's script."""


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run ``cosci *args`` in this process: ``(exit code, stdout, stderr)``."""
    from cosci.cli import main  # imported here: most tests never run the command line

    capsys.readouterr()  # what the test printed before (a session it ran in-process) is not the command's
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def make_config(data_dir: Path, *overrides: str) -> CosciConfig:
    """A validated config on the fake with data under ``data_dir``; later overrides win."""
    return validate(compose([*FAST, f"paths.data_dir={data_dir}", *overrides]), require_goal=True)


@pytest.fixture(autouse=True)
def _offline_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COSCI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # a user layer file only where a test writes one
    monkeypatch.setattr(fit_cache, "cache_dir", lambda: tmp_path / "fits")  # each test its own: a patched fit stays
    monkeypatch.setattr(figures, "_figure_dir", lambda: tmp_path / "figures")  # in its test, and so does a figure
    if request.node.get_closest_marker("live"):
        return  # opt-in tests against real providers keep their keys
    for key in API_KEYS:
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def fake() -> Iterator[FakeBackend]:
    """The scripted fake, reset before and after the test."""
    FAKE.reset()
    yield FAKE
    FAKE.reset()


@pytest.fixture
def config(tmp_path: Path) -> CosciConfig:
    return make_config(tmp_path / "data")


@pytest.fixture
async def runtime(config: CosciConfig, fake: FakeBackend) -> AsyncIterator[object]:
    """An open session runtime (new session, research plan not yet parsed) on the fake."""
    from cosci.session.runtime import SessionRuntime

    rt = await SessionRuntime.open(config, overrides=list(FAST), models_choice="fake")
    yield rt
    await rt.close()


SLOW_TESTS = Path(__file__).with_name("slow_tests.txt")
"""Test functions measured slow (>= 0.5 s), kept out of ``make test-fast``; see the file's header."""


def slow_test_ids() -> set[str]:
    """The ``path::function`` lines of :data:`SLOW_TESTS` (comments and blank lines skipped)."""
    lines = SLOW_TESTS.read_text(encoding="utf-8").splitlines()
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the measured-slow test functions ``slow`` (every parameter of a listed function)."""
    slow = slow_test_ids()
    for item in items:
        if item.nodeid.split("[", 1)[0] in slow:
            item.add_marker(pytest.mark.slow)


UNKNOWN_HYPOTHESIS_ID = "H-000000000000"
"""A hypothesis id that exists in no session (``fake_cites_an_unknown_id``)."""


@pytest.fixture
def fake_cites_an_unknown_id(monkeypatch: pytest.MonkeyPatch) -> str:
    """The fake's own final overview, plus an executive-summary sentence citing a hypothesis id that exists
    nowhere (the fake otherwise cites only ids in its prompt, so "cites only known ids" would hold by
    construction). Returns the unknown id."""
    from cosci.llm.fake import content as fake_content

    original = fake_content.overview

    def overview(call):  # type: ignore[no-untyped-def]
        text = original(call)
        if (call.action or "").endswith("/repair"):
            return text
        return text.replace("# Executive summary\n",
                            f"# Executive summary\nA rival account [{UNKNOWN_HYPOTHESIS_ID}] was weaker.\n", 1)

    monkeypatch.setattr(fake_content, "overview", overview)
    return UNKNOWN_HYPOTHESIS_ID
