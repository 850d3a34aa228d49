"""The web UI in headless Chromium against a live `cosci serve` (issue 48's acceptance): start a session of the
scripted fake from the form, watch its events arrive over Server-Sent Events, pause and resume it, rate a pair side
by side, read the refreshed leaderboard, and see a model output carrying ``<script>`` and ``onerror=`` stay inert.

The server is the real command (`python -m cosci.cli serve`) in its own process group, so the session runs through
the session service and its Prefect flow as a researcher's would; the fake answers each call after 1 s (a project
file, ``cosci.yaml``, in the server's folder) so there is time to pause it. Screenshots are kept in the test's
folder and copied to ``test-artifacts/web/`` at the repository's root (git-ignored).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cosci.store import STORE_FILE, SessionStore
from tests.report.browser import chromium, console_errors
from tests.report.conftest import add_hostile_text

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
LAYER = """\
tools: {offline: true}
tracking: {enabled: false}
models.fake.latency_seconds: 1.0
"""

pytestmark = pytest.mark.slow


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(folder: Path, port: int) -> tuple[subprocess.Popen[bytes], float]:
    """`cosci serve` started in ``folder``; returns the process and the seconds to its first sessions page."""
    import httpx

    env = {**os.environ, "PYTHONPATH": str(ROOT), "COSCI_DATA_DIR": str(folder / "data")}
    log = (folder / "serve.log").open("wb")
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "cosci.cli", "serve", "--port", str(port)], cwd=folder, env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    while time.monotonic() - t0 < 60:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=1).status_code == 200:
                return proc, time.monotonic() - t0
        except httpx.HTTPError:
            time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    raise AssertionError((folder / "serve.log").read_text()[-2000:])


def _wait(driver: Any, check: Any, seconds: float = 60, what: str = "") -> Any:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # htmx replaces the live figures and the leaderboard as events arrive: an element found may go stale
    return WebDriverWait(driver, seconds, poll_frequency=0.2,
                         ignored_exceptions=(StaleElementReferenceException, NoSuchElementException)).until(
        lambda d: check(d), message=what)


def _click(driver: Any, element_id: str) -> None:
    """Click the element of ``element_id``, found again when htmx swapped it between finding and clicking (a click on
    the stale copy raised StaleElementReferenceException once the session ended and the page re-rendered)."""
    from selenium.webdriver.common.by import By

    _wait(driver, lambda d: d.find_element(By.ID, element_id).click() or True, 30, f"a click on #{element_id}")


def _said(driver: Any) -> str:
    from selenium.webdriver.common.by import By

    return str(driver.find_element(By.ID, "said").text)


def test_a_session_from_the_form_watched_steered_and_rated(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    (tmp_path / "cosci.yaml").write_text(LAYER, encoding="utf-8")
    shots = tmp_path / "screenshots"
    shots.mkdir()
    port = _port()
    with chromium(tmp_path) as driver:  # skips first when Chromium is not installed
        proc, started = _serve(tmp_path, port)
        try:
            base = f"http://127.0.0.1:{port}"
            driver.get(f"{base}/new")
            Select(driver.find_element(By.ID, "experiment")).select_by_value("demo")
            Select(driver.find_element(By.ID, "models")).select_by_value("fake")
            _click(driver, "check")
            _wait(driver, lambda d: d.find_elements(By.ID, "start"), 120, "the check's estimate and screen")
            assert "estimated cost ~$" in driver.find_element(By.ID, "estimate").text
            assert "allow" in driver.find_element(By.ID, "screen").text
            driver.save_screenshot(str(shots / "1-checked.png"))
            _click(driver, "start")
            _wait(driver, lambda d: "/sessions/" in d.current_url, 180, "the session's page")
            sid = driver.current_url.rsplit("/", 1)[1]
            first = len(driver.find_elements(By.CSS_SELECTOR, "#events li"))
            # events arrive over SSE without a reload
            _wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#events li")) >= first + 3, 90,
                  "events over SSE")
            driver.save_screenshot(str(shots / "2-live.png"))
            _click(driver, "pause")
            _wait(driver, lambda d: "pause requested" in _said(d) or "nothing to pause" in _said(d), 30, "pause")
            assert "pause requested" in _said(driver), _said(driver)
            _wait(driver, lambda d: "paused" in d.find_element(By.ID, "liveline").text, 30, "the paused status")
            driver.save_screenshot(str(shots / "3-paused.png"))
            _click(driver, "resume")
            _wait(driver, lambda d: "resumed" in _said(d), 30, "resume")
            _wait(driver, lambda d: "done" in d.find_element(By.ID, "liveline").text, 240, "the session's end")
            driver.save_screenshot(str(shots / "4-done.png"))
            # two hypotheses side by side, rated
            _click(driver, "compare")
            _wait(driver, lambda d: d.find_elements(By.ID, "prefer-b"), 30, "the side-by-side page")
            b = driver.find_element(By.CSS_SELECTOR, "#rate input[name=b]").get_attribute("value")
            _click(driver, "prefer-b")
            driver.find_element(By.CSS_SELECTOR, "#rate input[name=why]").send_keys("B names its cell line")
            _click(driver, "rate-submit")
            _wait(driver, lambda d: "RR-" in _said(d), 60, "the rating recorded")
            driver.save_screenshot(str(shots / "5-rated.png"))
            _click(driver, "back")
            _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr[data-id]"), 30)
            shown = [r.get_attribute("data-id")
                     for r in driver.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr[data-id]")]
            from cosci import api

            now = api.open(sid, tmp_path / "data").leaderboard()
            assert shown == [e.id for e in now.ranked] and b in shown  # the standing after the rating's refit
            driver.save_screenshot(str(shots / "6-leaderboard.png"))
            # a model output carrying <script> and onerror= stays inert in the browser
            store = SessionStore.open(tmp_path / "data" / "sessions" / sid / STORE_FILE, sid)
            try:
                hostile, _ = add_hostile_text(store)
            finally:
                store.close()
            driver.get(f"{base}/sessions/{sid}/hypotheses/{hostile}")
            title = driver.find_element(By.CSS_SELECTOR, "section.hypothesis h3").text
            assert "<script>window.__pwned = 1</script>" in title  # shown as text
            assert driver.execute_script("return window.__pwned === undefined")
            driver.save_screenshot(str(shots / "7-hostile-inert.png"))
            assert console_errors(driver) == []
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
            shutil.copytree(shots, ARTIFACTS, dirs_exist_ok=True)
    print(f"cosci serve: first sessions page after {started:.2f} s; screenshots in {ARTIFACTS}")
    assert len(list(shots.glob("*.png"))) == 7
