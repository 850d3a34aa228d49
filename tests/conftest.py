"""Shared fixtures: a validated config on the scripted fake, the fake itself, an open session runtime.

Every test runs offline: API keys are removed from the environment, literature tools run in offline mode
(tests of the tools replay recorded responses instead), data goes to a temporary folder, and the fake answers
every model call.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from omegaconf import DictConfig

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="cosci-xdg-")  # never the developer's ~/.config/cosci
# numpy's and scipy's OpenBLAS on one thread in each test worker, as in the session process (`one_blas_thread`) and
# the screen's child: set before anything imports numpy. `make test` runs a worker per core, so a second BLAS thread
# only spins beside the other worker: the screen's products over the intent model's rows cost 3x the CPU on two
# threads (docs/development.md, test time, twelfth pass)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from cosci.config.layers import LayerError, layer_overrides
from cosci.config.load import compose, validate
from cosci.config.schema import CosciConfig
from cosci.report import figures
from cosci.tournament import fit_cache

if TYPE_CHECKING:  # the fake's module imports LiteLLM (about 5 s of CPU on a loaded machine): imported where a
    # fixture first needs it, so pytest-xdist's controller process, which only loads this file, never pays it
    from cosci.llm.fake.provider import FakeBackend

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
    return code, out.out, without_stray_logging_errors(out.err)


def without_stray_logging_errors(err: str) -> str:
    """``err`` without logging's "--- Logging error ---" blocks (from that line to its ``Arguments:`` line): asyncio
    logs "Task was destroyed but it is pending!" when the garbage collector meets a LiteLLM logging task left by an
    earlier test's event loop, at any moment and into whatever stream is captured then; it is not the command's
    output (seen breaking an exact stderr assertion in tests/llm/test_check.py, once in a whole run)."""
    kept, inside = [], False
    for line in err.splitlines(keepends=True):
        if line.startswith("--- Logging error ---"):
            inside = True
        elif inside and line.startswith("Arguments:"):
            inside = False
        elif not inside:
            kept.append(line)
    return "".join(kept)


CliHere = Callable[..., tuple[int, str, str]]


@pytest.fixture
def cli_here(prefect_server: None, fake: FakeBackend, capsys: pytest.CaptureFixture[str],
             monkeypatch: pytest.MonkeyPatch) -> CliHere:
    """``cli_here(*args) -> (exit status, stdout, stderr)``: ``cosci *args`` in this process (:func:`run_cli`), its
    flows on the worker's Prefect server (:func:`prefect_server`), for a command that runs a session (``cosci
    resume``) where a process of its own adds only its start: the imports, about 7 s of CPU here, and at its exit
    the drain of Prefect's event workers into a server it did not start (docs/design.md#tests). The command's own
    process is tested in tests/test_stored_sessions.py. The fake is reset before and after (:func:`fake`)."""
    from prefect.settings import PREFECT_API_URL

    url = str(PREFECT_API_URL.value())

    def here(*args: str) -> tuple[int, str, str]:
        with monkeypatch.context() as env:
            env.setenv("PREFECT_API_URL", url)  # the test server's, so the command boots no server of its own
            return run_cli(capsys, *args)

    return here


DATA_DIR_MARK = "/cosci-tests-data-dir"
"""The data folder :func:`make_config` composes with, replaced by the test's after composing."""
_COMPOSED: dict[tuple[object, ...], DictConfig] = {}


def make_config(data_dir: Path, *overrides: str) -> CosciConfig:
    """A validated config on the fake with data under ``data_dir``; later overrides win.

    Hydra's compose of the same overrides runs once per process (0.17 s of CPU each, 0.018 s for the copy and
    validation that remain; docs/design.md#tests): the composed config is kept by the overrides, the layer files'
    overrides that apply (a test's ``./cosci.yaml`` or user file) and the environment variables the config reads,
    and each call validates a copy with ``paths.data_dir`` set to ``data_dir`` unless an override set it. A compose
    that raises keeps nothing."""
    given = [*FAST, f"paths.data_dir={DATA_DIR_MARK}", *overrides]
    try:
        layers = tuple(o for _, _, o in layer_overrides(given))
    except LayerError:  # compose says it as the command line does
        layers = None
    key = (overrides, layers, *(os.environ.get(v) for v in ("COSCI_DATA_DIR", "COSCI_OPENAI_MODEL",
                                                             "COSCI_OPENAI_BASE_URL")))
    if layers is None or key not in _COMPOSED:
        _COMPOSED[key] = compose(given)
    composed = copy.deepcopy(_COMPOSED[key])
    if composed.paths.data_dir == DATA_DIR_MARK:
        composed.paths.data_dir = str(data_dir)
    return validate(composed, require_goal=True)


@pytest.fixture(autouse=True)
def _offline_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COSCI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # a user layer file only where a test writes one
    # each test its own fit and figure caches, so a patched fit or drawing stays in its test; a test on a copy of the
    # worker's finished session shares the worker's (:func:`copied_caches`)
    caches = request.getfixturevalue("copied_caches") if "finished_copy" in request.fixturenames else tmp_path
    monkeypatch.setattr(fit_cache, "cache_dir", lambda: caches / "fits")
    monkeypatch.setattr(figures, "_figure_dir", lambda: caches / "figures")
    if request.node.get_closest_marker("live"):
        return  # opt-in tests against real providers keep their keys
    for key in API_KEYS:
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def fake() -> Iterator[FakeBackend]:
    """The scripted fake, reset before and after the test."""
    from cosci.llm.fake.provider import FAKE

    FAKE.reset()
    yield FAKE
    FAKE.reset()


@pytest.fixture
def config(tmp_path: Path) -> CosciConfig:
    return make_config(tmp_path / "data")


async def run_finished(config: CosciConfig) -> str:
    """A whole session in-process on the fake, the runtime as the runner (no Prefect), finalised with its overview
    written; returns its id."""
    from cosci.session.runtime import SessionRuntime  # imported here: most tests never open a session
    from cosci.supervisor.loop import Supervisor

    rt = await SessionRuntime.open(config, models_choice="fake")
    sup = Supervisor(config, rt.store, rt.budget, rt.execute)
    rt.write_overview(await sup.finalize(await sup.run()))
    sid = rt.session_id
    await rt.close()
    return sid


FinishedCopy = Callable[..., str]


@pytest.fixture(scope="session")
def finished_templates() -> dict[tuple[str, ...], tuple[Path, str]]:
    """The sessions :func:`finished_copy` ran in this worker, by overrides: ``(data folder, session id)``."""
    return {}


@pytest.fixture(scope="session")
def copied_caches(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Bradley–Terry fit and figure caches (``fits/``, ``figures/``) of the tests on a copy of a finished session
    (:func:`finished_copy`) and of the runs that made the copied sessions, one per worker. Each test on a copy fits
    and draws the same session's records again (``cosci status``, ``report``, ``rate`` and the report page: 0.5-2 s
    of CPU a fit, about 1 s a plot), which a researcher's later command reads from the user cache; here the next
    test reads them. Safe because both caches are keyed by everything a fit or plot is computed from (inputs, the
    computing modules' source, the library versions), and no test on a copy patches a fit or a drawing: a test that
    does keeps its own caches (:func:`_offline_env`; docs/design.md#tests)."""
    return tmp_path_factory.mktemp("copied-caches")


@pytest.fixture(scope="session")
def finished_copy(finished_templates: dict[tuple[str, ...], tuple[Path, str]], copied_caches: Path,
                  tmp_path_factory: pytest.TempPathFactory) -> FinishedCopy:
    """``finished_copy(data, *overrides) -> session id``: a finished session on the fake (:func:`run_finished` of
    ``make_config(data, *overrides)``) in ``data``. It runs once per worker and overrides, then each test gets a copy
    of its data folder: a session is found by its folder, so the copy is the same session, read and changed by the
    test alone, for a copy's milliseconds instead of a run's ~7 s (docs/design.md#tests). Not for a test that
    scripts the fake before the session or reads the session's calls from it. Session-scoped, so a module's fixture
    (the report and web tests' finished session) takes its copy too."""

    def copy(data: Path, *overrides: str) -> str:
        from cosci.llm.fake.provider import FAKE

        if overrides not in finished_templates:
            template = tmp_path_factory.mktemp("finished") / "data"
            FAKE.reset()
            try:  # the fits and plots of its finalisation kept for the copies' tests, whoever asks first (a module
                with pytest.MonkeyPatch.context() as caches:  # fixture's set-up runs outside any test's caches)
                    caches.setattr(fit_cache, "cache_dir", lambda: copied_caches / "fits")
                    caches.setattr(figures, "_figure_dir", lambda: copied_caches / "figures")
                    finished_templates[overrides] = template, asyncio.run(
                        run_finished(make_config(template, *overrides)))
            finally:
                FAKE.reset()
        template, sid = finished_templates[overrides]
        shutil.copytree(template, data, dirs_exist_ok=True)
        return sid

    return copy


@pytest.fixture(scope="session")
def prefect_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The flows run in the test process report to the worker's one Prefect server (:func:`prefect_api_url`), as
    ``prefect_test_harness`` points them at its own: the API URL set in Prefect's settings context, process-wide,
    and Prefect's log and event workers drained before the server stops. Once per worker.

    Not Prefect's test harness any more: it booted a second server per worker on a database it migrated from
    nothing, with Prefect's event services on (the triggers, the event persister), for no test that reads them; the
    subprocesses' server skips both and starts from the migrated template (docs/design.md#tests). Defined here, in
    the root conftest, and nowhere else: a fixture imported into another folder's conftest is a fixture of its own
    there, with its own session-wide instance (docs/design.md#tests)."""
    from flows.env import prepare  # imported here: most tests never start a flow

    prepare(tmp_path_factory.mktemp("prefect-home"))  # before Prefect is imported: it reads its settings then
    url = request.getfixturevalue("prefect_api_url")
    import prefect.context
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.settings import PREFECT_API_URL, temporary_settings
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def drain() -> None:  # as the harness does: what the test process still holds reaches the server
        with contextlib.suppress(RuntimeError):  # never started
            if inspect.isawaitable(done := APILogWorker.instance().drain()):
                await done
        if inspect.isawaitable(done := EventsWorker.drain_all()):
            await done

    with temporary_settings(updates={PREFECT_API_URL: url}), \
            prefect.context._temporary_global_settings_context(prefect.context.get_settings_context()):
        yield
        run_coro_as_sync(drain())


@pytest.fixture(scope="session")
def prefect_api_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of one Prefect server per worker, cosci's own (:class:`flows.server.TemporaryServer`, with the
    settings a run gives its server), for the environment of a ``python -m cosci.run`` subprocess: given
    ``PREFECT_API_URL`` it starts no server of its own, as in a sweep. Measured (docs/design.md#tests): a fake
    session's process took 15.5-18.2 s of CPU with its own server, 12.6-14.7 s with a running one (its own CPU and the
    server's); the server's boot alone is about 5 s of CPU. The flows run in the test process report to it too
    (:func:`prefect_server`). Not for a test of the run's own server (its start, its stop with the process)."""
    from flows.server import TemporaryServer

    server = TemporaryServer(tmp_path_factory.mktemp("prefect-shared"))
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="session")
def mlflow_uri(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One SQLite MLflow store per worker (a new store's migration takes about 2 s)."""
    return f"sqlite:///{Path(tmp_path_factory.mktemp('mlflow')) / 'mlflow.db'}"


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


FILE_SECONDS = Path(__file__).with_name("file_seconds.txt")
"""Measured seconds per test file, longest first: the order the files are run in; see the file's header."""


def file_seconds() -> dict[str, float]:
    """The ``seconds path`` lines of :data:`FILE_SECONDS` (comments and blank lines skipped)."""
    lines = FILE_SECONDS.read_text(encoding="utf-8").splitlines()
    pairs = (ln.split(maxsplit=1) for ln in lines if ln.strip() and not ln.startswith("#"))
    return {path.strip(): float(seconds) for seconds, path in pairs}


def longest_files_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """``items`` with whole files ordered by their measured seconds, longest first, after the files not yet measured
    (in collection order: one of them may be long, and what runs last must be short). Files stay contiguous and keep
    their own order of tests.

    ``--dist loadfile`` sends one file at a time to the next free worker in this order (with
    ``--no-loadscope-reorder``; otherwise xdist puts the files with most tests first), so a long file never starts
    last while the other worker idles (docs/design.md#tests)."""
    seconds = file_seconds()
    rank = {path: index for index, path in enumerate(dict.fromkeys(i.nodeid.split("::", 1)[0] for i in items))}
    return sorted(items, key=lambda i: (-seconds.get(path := i.nodeid.split("::", 1)[0], float("inf")), rank[path]))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the measured-slow test functions ``slow`` (every parameter of a listed function), then order the
    files longest first (:func:`longest_files_first`)."""
    slow = slow_test_ids()
    for item in items:
        if item.nodeid.split("[", 1)[0] in slow:
            item.add_marker(pytest.mark.slow)
    items[:] = longest_files_first(items)


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
