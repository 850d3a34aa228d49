"""Headless Chromium for the report tests, driven through WebDriver (selenium + Debian's chromedriver).

Debian's ``chromium`` and ``chromium-driver`` packages are installed by ``make setup`` when it runs as root
(CI); where neither can be installed the browser tests skip with the command that installs them. Chromium
starts with the flags this machine kind needs (no sandbox as root, no background networking: the network is
closed) and a fresh profile under the test's temporary folder.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1280,1800")
INSTALL = "apt-get install -y chromium chromium-driver (make setup does this when run as root)"


@contextmanager
def chromium(tmp_path: Path) -> Iterator[Any]:
    """A WebDriver session on headless Chromium that keeps the page's console log; skips if none exists."""
    binary, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not binary or not driver_path:
        pytest.skip(f"headless Chromium is not installed here: {INSTALL}")
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (*FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=driver_path, log_output=str(tmp_path / "chromedriver.log"))
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


def console_errors(driver: Any) -> list[str]:
    """Console messages of level SEVERE (errors, uncaught exceptions, CSP violations) since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
