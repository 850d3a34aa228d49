"""The report of a fake-model session in headless Chromium (issue 17 acceptance): no console errors, every
in-page link resolves, the leaderboard sorts on a click, script tags in model text stay text, a screenshot."""

from __future__ import annotations

from pathlib import Path

from tests.report.browser import chromium, console_errors
from tests.report.conftest import HOSTILE_TITLE, HOSTILE_TURN, Session

LINKS = """return Array.from(document.querySelectorAll('a')).map(a =>
    a.getAttribute('href') || a.getAttributeNS('http://www.w3.org/1999/xlink', 'href') || '')"""


def _column(driver, index: int) -> list[str]:
    from selenium.webdriver.common.by import By

    rows = driver.find_elements(By.CSS_SELECTOR, "#leaderboard-table tbody tr")
    return [r.find_elements(By.TAG_NAME, "td")[index].get_attribute("data-sort") for r in rows]


def test_the_report_in_headless_chromium(session: Session, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    with chromium(tmp_path) as driver:
        driver.get(session.report.as_uri())
        assert driver.title == f"cosci session {session.sid}"
        assert console_errors(driver) == []
        # every in-page link (overview [H-…] ids, leaderboard, lineage nodes, matches) names an element
        hrefs = driver.execute_script(LINKS)
        local = [h for h in hrefs if h.startswith("#")]
        missing = [h for h in local if not driver.execute_script("return !!document.getElementById(arguments[0])",
                                                                  h[1:])]
        assert local and missing == []
        cited = driver.find_elements(By.CSS_SELECTOR, "#overview a.hid")
        assert {a.get_attribute("hash")[1:] for a in cited} >= {session.hostile}
        svg_links = driver.find_elements(By.CSS_SELECTOR, "#lineage svg a")
        assert svg_links, "the lineage graph has no linked nodes"
        # untrusted text stays text: the title shows its tag, and no injected script or handler ran
        heading = driver.find_element(By.CSS_SELECTOR, f"section[id='{session.hostile}'] h3").text
        assert HOSTILE_TITLE in heading
        assert driver.execute_script("return window.__pwned === undefined")
        driver.find_element(By.CSS_SELECTOR, f"section[id='{session.hostile}'] details summary").click()
        assert HOSTILE_TURN in driver.find_element(By.CSS_SELECTOR, f"section[id='{session.hostile}'] details").text
        # the leaderboard opens in the current standing's order (design.md#report), then sorts on a click: Elo
        # ascending, then descending, then by id
        elo_th = driver.find_element(By.XPATH, "//table[@id='leaderboard-table']//th[text()='Elo']")
        before = [float(v) for v in _column(driver, 3)]
        assert [int(r) for r in _column(driver, 0)] == list(range(1, len(before) + 1))
        elo_th.click()
        assert [float(v) for v in _column(driver, 3)] == sorted(before)
        elo_th.click()
        assert [float(v) for v in _column(driver, 3)] == sorted(before, reverse=True)
        driver.find_element(By.XPATH, "//table[@id='leaderboard-table']//th[text()='id']").click()
        ids = _column(driver, 1)
        assert ids == sorted(ids)
        # clicking an [H-…] link in the overview moves to that hypothesis's section
        cited[0].click()
        assert driver.execute_script("return location.hash") == cited[0].get_attribute("hash")
        shot = tmp_path / "report.png"
        assert driver.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
        assert console_errors(driver) == []


def test_an_injected_script_would_be_blocked_and_reported(session: Session, tmp_path: Path) -> None:
    """The checker can fail: a page with a raw script tag (what missing escaping would produce) is caught."""
    page = session.report.read_text(encoding="utf-8")
    broken = tmp_path / "broken.html"
    broken.write_text(page.replace("</main>", "<script>window.__pwned = 9</script></main>"), encoding="utf-8")
    with chromium(tmp_path) as driver:
        driver.get(broken.as_uri())
        errors = console_errors(driver)
        assert driver.execute_script("return window.__pwned === undefined"), "the page's CSP let a script run"
        assert any("Content Security Policy" in e for e in errors), errors


TITLE_COLUMN = """const t = document.getElementById('leaderboard-table');
const th = t.querySelector('th.title');
const main = getComputedStyle(document.querySelector('main'));
const content = document.querySelector('main').clientWidth - parseFloat(main.paddingLeft)
                - parseFloat(main.paddingRight);
return {title: th ? th.getBoundingClientRect().width : 0, table: t.getBoundingClientRect().width, content: content,
        page: document.documentElement.scrollWidth, view: document.documentElement.clientWidth};"""


def test_the_leaderboard_title_column_is_readable_at_1400_px(session: Session, tmp_path: Path) -> None:
    """At 1,400 px the title column is at least 18 em (250 px at the page's 14 px font) wide, wrapping long titles,
    and the table fits the page without a horizontal scroll (the screenshot is kept as the test's artifact)."""
    from selenium.webdriver.common.by import By

    with chromium(tmp_path) as driver:
        driver.set_window_size(1400, 1000)
        driver.get(session.report.as_uri())
        sizes = driver.execute_script(TITLE_COLUMN)
        assert sizes["title"] >= 250, sizes
        assert sizes["table"] <= sizes["content"] + 1 and sizes["page"] <= sizes["view"], sizes
        driver.execute_script("arguments[0].scrollIntoView()", driver.find_element(By.ID, "leaderboard"))
        assert driver.save_screenshot(str(tmp_path / "leaderboard-1400px.png"))
