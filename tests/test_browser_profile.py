"""A player's profile page of ``bgreview report`` in headless Chromium (the ``browser`` tier): it loads
without a console error, its charts and boards are drawn, the name with markup in it is shown as text,
and the link of a worst decision opens that decision in its match report. A screenshot goes to
``$BGREVIEW_ARTEFACTS`` (default: the test's temporary folder)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from profile_data import reviewed_dataset
from test_browser import _driver

pytestmark = pytest.mark.browser

@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = reviewed_dataset(tmp_path_factory.mktemp("profile-page"))
    [ann] = [p for p in (out / "report" / "profiles").glob("*.html") if "Ann" in p.name]
    return ann


@pytest.fixture(scope="module")
def browser(page: Path) -> Iterator[Any]:
    d = _driver()
    d.get(page.as_uri())
    yield d
    d.quit()


def test_the_profile_page_loads_without_console_errors(browser: Any, page: Path) -> None:
    from selenium.webdriver.common.by import By

    errors = [e for e in browser.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")]
    assert errors == []
    assert browser.find_element(By.TAG_NAME, "h1").text == "Profile: <b>Ann&Co"
    images = browser.find_elements(By.CSS_SELECTOR, "figure.chart img")
    assert len(images) == 3
    assert all(browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", i)
               for i in images)
    folder = os.environ.get("BGREVIEW_ARTEFACTS")
    out = Path(folder) if folder else page.parent
    out.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(out / "profile.png"))


def test_a_worst_decision_opens_in_its_match_report(browser: Any, page: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(page.as_uri())
    details = browser.find_elements(By.CSS_SELECTOR, "details.worst")
    assert details
    browser.execute_script("arguments[0].open = true", details[0])
    assert details[0].find_elements(By.CSS_SELECTOR, ".worst-board svg")
    link = details[0].find_element(By.LINK_TEXT, "in its match report")
    href = link.get_attribute("href")
    anchor = href.split("#")[1]
    browser.get(href)
    WebDriverWait(browser, 20).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-viewer") == "ready")
    assert browser.find_element(By.ID, anchor).is_displayed()
    errors = [e for e in browser.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")]
    assert errors == []
