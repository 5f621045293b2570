"""The HTML report in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by selenium, in the ``browser`` tier (``pytest -m browser``; CI installs
what it needs, see ``.ci/run``).

The report of the shipped 7-point sample (analysed at 0-ply, a few seconds) loads without a console
error; stepping through a game with the arrow keys shows, for every decision, the board of the
decision the analysis recorded (the drawn checkers, bar, borne-off checkers and dice are compared
with the position decoded from the decisions table's key and with the IDs shown beside the board);
each player keeps his colour; the filters keep what they say; with JavaScript off the summary and
the error list are there and the viewer is not. Screenshots of the summary and of one decision are
written to ``$BGREVIEW_ARTEFACTS`` (default: the test's temporary folder); the README shows the
ones in docs/img.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from analyzer.analysis.analyze import MatchAnalysis, analyze_match
from analyzer.core.ids import decode_key, parse_position_spec
from analyzer.core.position import Position
from analyzer.formats import read_any
from analyzer.render.html import _trivial_cube, write_html_report

pytestmark = pytest.mark.browser

try:  # the browser extra; without it the tests of this tier skip, saying why (never at collection)
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError:  # pragma: no cover - depends on the environment
    webdriver = By = Keys = None  # type: ignore[assignment,misc]

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "boardlord-llabba-7p.mat"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


def _driver(javascript: bool = True) -> Any:
    if webdriver is None:
        pytest.skip("the browser tier needs selenium: pip install -e .[browser]")
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("the browser tier needs chromium and chromedriver (apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--hide-scrollbars", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    if not javascript:
        opts.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


@pytest.fixture(scope="module")
def analysis() -> MatchAnalysis:
    [record] = list(read_any(str(SAMPLE)))
    return analyze_match(replace(record, source=SAMPLE.name), engine=None, ply=0)


@pytest.fixture(scope="module")
def report(analysis: MatchAnalysis, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_html_report(analysis, tmp_path_factory.mktemp("report"))


def _ready(d: Any) -> None:
    """Wait until the viewer has unpacked its boards and started."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(d, 20).until(lambda drv: drv.find_element(By.TAG_NAME, "body").get_attribute("data-viewer"))
    assert d.find_element(By.TAG_NAME, "body").get_attribute("data-viewer") == "ready"


@pytest.fixture(scope="module")
def browser(report: Path) -> Iterator[Any]:
    d = _driver()
    d.get(report.as_uri())
    _ready(d)
    yield d
    d.quit()


@pytest.fixture(scope="module")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("BGREVIEW_ARTEFACTS")
    out = Path(folder) if folder else tmp_path_factory.mktemp("artefacts")
    out.mkdir(parents=True, exist_ok=True)
    return out


def listed_rows(analysis: MatchAnalysis) -> list[dict[str, Any]]:
    """The decisions the game list shows, in order: all but the trivial cube decisions."""
    return [r for r in analysis.decisions.iter_rows(named=True) if not _trivial_cube(r)]


DRAWN = """
const svg = document.querySelector('#v-board svg.board');
const count = (el, sel) => el.querySelectorAll(sel).length;
const points = {};
for (const g of svg.querySelectorAll('g.point')) {
  let nx = count(g, 'circle.checker.x'), no = count(g, 'circle.checker.o');
  const label = g.querySelector('text.count');  // a stack taller than five shows its count on the fifth checker
  if (label) { if (nx) { nx = Number(label.textContent); } else { no = Number(label.textContent); } }
  points[g.getAttribute('data-point')] = [nx, no];
}
const bar = svg.querySelector('g.bar-checkers'), off = svg.querySelector('g.off-tray');
const dice = svg.querySelector('g.dice');
const tones = new Set([...svg.querySelectorAll('circle.checker.x')].map(c => c.classList[c.classList.length - 1]));
const codes = {};
for (const c of document.querySelectorAll('#v-details code.id')) {
  codes[c.closest('tr').querySelector('th').textContent] = c.textContent;
}
return {points: points, bar: [count(bar, 'circle.checker.x'), count(bar, 'circle.checker.o')],
        off: [count(off, 'rect.off.x'), count(off, 'rect.off.o')], dice: dice ? dice.getAttribute('data-dice') : null,
        tones: [...tones], codes: codes, i: document.getElementById('viewer').getAttribute('data-i'),
        key: document.getElementById('viewer').getAttribute('data-key'),
        selected: [...document.querySelectorAll('tr.dec.sel')].map(r => r.getAttribute('data-i'))};
"""
"""What the viewer shows: checkers per point (from the drawing itself), on the bar and borne off,
the dice, the tone of the side to act, the IDs beside the board and the selected row."""


def expected(pos: Position) -> dict[str, Any]:
    return {"points": {str(p): [pos.mover[p - 1], pos.opponent[p - 1]] for p in range(1, 25)},
            "bar": [pos.mover_bar, pos.opponent_bar], "off": [pos.mover_off, pos.opponent_off]}


def test_loads_without_console_errors(browser: Any, artefacts: Path) -> None:
    errors = [e for e in browser.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")]
    assert errors == []
    assert browser.find_element(By.ID, "viewer").is_displayed()
    assert browser.find_element(By.ID, "filters").is_displayed()
    browser.execute_script("window.scrollTo(0, 0)")
    size = browser.get_window_size()
    browser.set_window_size(1400, 1900)  # the match, the players' table and the ratings in one picture
    try:
        browser.save_screenshot(str(artefacts / "report-summary.png"))
    finally:
        browser.set_window_size(size["width"], size["height"])


def test_arrow_keys_step_through_a_game_and_show_each_decision_s_board(browser: Any, analysis: MatchAnalysis,
                                                                        artefacts: Path) -> None:
    rows = listed_rows(analysis)

    def has_checker_error(game: int) -> bool:
        return any(r["game"] == game and r["kind"] == "checker" and r["error_class"] != "none" for r in rows)

    # game 2 where it shows a checker error (the screenshot's), else the first game that does: which games
    # do depends on the nets
    picked = next(g for g in sorted({r["game"] for r in rows}, key=lambda g: (g != 2, g)) if has_checker_error(g))
    walked = [i for i, r in enumerate(rows) if r["game"] == picked]
    assert len(walked) > 20
    browser.find_element(By.CSS_SELECTOR, f'tr.dec[data-i="{walked[0]}"]').click()
    body = browser.find_element(By.TAG_NAME, "body")
    viewer = browser.find_element(By.ID, "viewer")
    shot = False
    seen_tones: dict[int, set[str]] = {0: set(), 1: set()}
    for n, i in enumerate(walked):
        if n:
            body.send_keys(Keys.ARROW_DOWN if n % 2 else Keys.ARROW_RIGHT)
        got = browser.execute_script(DRAWN)
        row = rows[i]
        assert got["i"] == str(i) and got["selected"] == [str(i)]
        assert got["key"] == row["key"]
        pos = decode_key(row["key"])
        want = expected(pos)
        assert (got["points"], got["bar"], got["off"]) == (want["points"], want["bar"], want["off"]), (i, row["key"])
        assert got["dice"] == row["dice"]
        seen_tones[row["side"]] |= set(got["tones"])
        # the IDs shown beside the board are those of the same position
        assert got["codes"]["Key"] == row["key"]
        if row["kind"] != "take":
            spec = parse_position_spec(got["codes"]["XGID"])
            assert spec.position.mover == pos.mover and spec.position.opponent == pos.opponent
        if row["kind"] == "checker" and row["error_class"] != "none" and not shot:
            browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "game-list"))
            browser.save_screenshot(str(artefacts / "report-decision.png"))
            shot = True
    assert shot
    # one colour per player whoever is to act: the first player's checkers light, the second's dark
    assert seen_tones == {0: {"light"}, 1: {"dark"}}
    body.send_keys(Keys.ARROW_UP)
    assert viewer.get_attribute("data-i") == str(walked[-2])


def test_ids_wrap_only_as_a_whole(browser: Any) -> None:
    """In a narrow window the XGID beside the board stays on one line (it scrolls, with a copy
    button), and so do the IDs of the error list."""
    size = browser.get_window_size()
    browser.set_window_size(500, 1000)
    try:
        lines = browser.execute_script(
            "return [...document.querySelectorAll('code.id')].map(c => c.getClientRects().length);")
        assert lines and set(lines) == {1}
        assert browser.find_elements(By.CSS_SELECTOR, "#v-details button.copy")
    finally:
        browser.set_window_size(size["width"], size["height"])


def test_filters(browser: Any, analysis: MatchAnalysis) -> None:
    rows = listed_rows(analysis)

    def visible() -> list[int]:
        return [int(r.get_attribute("data-i")) for r in browser.find_elements(By.CSS_SELECTOR, "tr.dec")
                if r.is_displayed()]

    browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "filters"))
    errors = browser.find_element(By.ID, "f-errors")
    errors.click()
    want = [i for i, r in enumerate(rows) if r["error_class"] != "none"]
    assert visible() == want and want
    assert browser.find_element(By.ID, "f-count").text == f"{len(want)} of {len(rows)} decisions"
    # the arrow keys step through what is shown
    browser.find_element(By.CSS_SELECTOR, f'tr.dec[data-i="{want[0]}"]').click()
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_DOWN)
    assert browser.find_element(By.ID, "viewer").get_attribute("data-i") == str(want[1])
    errors.click()
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element(By.ID, "f-player")).select_by_value("1")
    assert visible() == [i for i, r in enumerate(rows) if r["side"] == 1]
    Select(browser.find_element(By.ID, "f-game")).select_by_value("3")
    assert visible() == [i for i, r in enumerate(rows) if r["side"] == 1 and r["game"] == 3]
    Select(browser.find_element(By.ID, "f-player")).select_by_value("")
    Select(browser.find_element(By.ID, "f-game")).select_by_value("")
    assert len(visible()) == len(rows)


def test_without_javascript_the_summary_and_errors_are_there(report: Path, analysis: MatchAnalysis) -> None:
    d = _driver(javascript=False)
    try:
        d.get(report.as_uri())
        assert d.find_element(By.TAG_NAME, "body").get_attribute("data-viewer") is None
        assert d.find_element(By.ID, "summary").is_displayed()
        assert not d.find_element(By.ID, "viewer").is_displayed()
        assert not d.find_element(By.ID, "filters").is_displayed()
        errors = analysis.decisions.filter(pl.col("error_class") != "none").height
        arts = d.find_elements(By.CSS_SELECTOR, "article.error")
        assert len(arts) == errors and all(a.find_element(By.CSS_SELECTOR, "svg.board").is_displayed() for a in arts)
        assert len(d.find_elements(By.CSS_SELECTOR, "tr.dec")) == len(listed_rows(analysis))
    finally:
        d.quit()
