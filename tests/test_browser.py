"""The HTML report in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by selenium, in the ``browser`` tier (``pytest -m browser``; CI installs
what it needs, see ``.ci/run``).

The report of the shipped 7-point sample (analysed at 0-ply, a few seconds) loads without a console
error; stepping through a game with the arrow keys shows, for every decision, the board of the
decision the analysis recorded (the drawn checkers, bar, borne-off checkers and dice are compared
with the position decoded from the decisions table's key and with the IDs shown beside the board);
each player keeps his colour; the filters keep what they say; with JavaScript off the summary and
the error list are there and the viewer is not; one board orientation (the first player at the
bottom, the toggle puts the second there); the cube table as gnubg and XG show it; at 500 px nothing
scrolls sideways. Screenshots of the summary, of one decision, of a cube decision and of the 500 px
page are written to ``$BGREVIEW_ARTEFACTS`` (default: the test's temporary folder); the README shows the
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
const acting = svg.querySelector('g.pieces').getAttribute('data-acting');
const caption = (side) => svg.querySelector('text.caption.' + side).textContent;
const tones = new Set([...svg.querySelectorAll('circle.checker.x')].map(c => c.classList[c.classList.length - 1]));
const codes = {};
for (const c of document.querySelectorAll('#v-details code.id')) {
  codes[c.closest('tr').querySelector('th').textContent] = c.textContent;
}
return {points: points, bar: [count(bar, 'circle.checker.x'), count(bar, 'circle.checker.o')],
        off: [count(off, 'rect.off.x'), count(off, 'rect.off.o')], dice: dice ? dice.getAttribute('data-dice') : null,
        tones: [...tones], codes: codes, acting: acting, bottom: caption('x'), top: caption('o'),
        i: document.getElementById('viewer').getAttribute('data-i'),
        key: document.getElementById('viewer').getAttribute('data-key'),
        selected: [...document.querySelectorAll('tr.dec.sel')].map(r => r.getAttribute('data-i'))};
"""
"""What the viewer shows: checkers per point (from the drawing itself), on the bar and borne off,
the dice, the tone of the bottom player's checkers, which side acts (``x`` at the bottom, ``o`` at the top),
the captions, the IDs beside the board and the selected row."""


def drawn_position(pos: Position, side: int, bottom: int) -> Position:
    """The decision's position as the viewer draws it: from the side of the player kept at the bottom."""
    return pos if side == bottom else pos.flip()


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
    names = tuple(next(r["player"] for r in rows if r["side"] == s) for s in (0, 1))
    for n, i in enumerate(walked):
        if n:
            body.send_keys(Keys.ARROW_DOWN if n % 2 else Keys.ARROW_RIGHT)
        got = browser.execute_script(DRAWN)
        row = rows[i]
        assert got["i"] == str(i) and got["selected"] == [str(i)]
        assert got["key"] == row["key"]
        pos = decode_key(row["key"])
        # one orientation: the first player at the bottom (X) whoever acts, the side to act says so
        want = expected(drawn_position(pos, row["side"], 0))
        assert (got["points"], got["bar"], got["off"]) == (want["points"], want["bar"], want["off"]), (i, row["key"])
        assert got["acting"] == ("x" if row["side"] == 0 else "o")
        assert got["bottom"].startswith(f"X: {names[0]} ") and got["top"].startswith(f"O: {names[1]} ")
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
    # one colour per player whoever is to act: the bottom player's (the first's) checkers light
    assert seen_tones == {0: {"light"}, 1: {"light"}}
    body.send_keys(Keys.ARROW_UP)
    assert viewer.get_attribute("data-i") == str(walked[-2])
    # the toggle puts the second player at the bottom, for every ply, until it is pressed again
    flip = browser.find_element(By.ID, "v-flip")
    flip.click()
    try:
        assert viewer.get_attribute("data-bottom") == "1"
        for n, i in enumerate(walked[-2::-1][:12]):
            if n:
                body.send_keys(Keys.ARROW_UP)
            got = browser.execute_script(DRAWN)
            row = rows[i]
            assert got["i"] == str(i)
            want = expected(drawn_position(decode_key(row["key"]), row["side"], 1))
            assert (got["points"], got["bar"], got["off"]) == (want["points"], want["bar"], want["off"]), i
            assert got["acting"] == ("x" if row["side"] == 1 else "o")
            assert got["bottom"].startswith(f"X: {names[1]} ") and got["tones"] == ["dark"]
    finally:
        flip.click()
    assert viewer.get_attribute("data-bottom") == "0"


CUBE_SHOWN = """
const d = document.getElementById('v-details');
const rows = [...d.querySelectorAll('table.cube tbody tr')].map(r => [...r.cells].map(c => c.textContent));
const chances = [...d.querySelectorAll('table.chances tbody tr')].map(r => [...r.cells].map(c => c.textContent));
return {rows: rows, chances: chances, text: d.textContent};
"""
"""The cube table the viewer shows: its three rows, the cubeless chances and the whole text."""


def _click_row(browser: Any, i: int) -> None:
    """Click row ``i`` of the game list as a reader does, after scrolling it into the middle of its box."""
    row = browser.find_element(By.CSS_SELECTOR, f'tr.dec[data-i="{i}"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
    browser.execute_script("arguments[0].click()", row)


def _show_take(browser: Any, analysis: MatchAnalysis) -> dict[str, Any]:
    """Show the match's first take (or cube decision) in the viewer; its row of the decisions table."""
    rows = listed_rows(analysis)
    i = next((i for i, r in enumerate(rows) if r["kind"] == "take"), None)
    if i is None:
        i = next(i for i, r in enumerate(rows) if r["kind"] == "cube")
    _click_row(browser, i)
    assert browser.find_element(By.ID, "viewer").get_attribute("data-i") == str(i)
    return rows[i]


def test_a_cube_decision_as_gnubg_and_xg_show_it(browser: Any, analysis: MatchAnalysis, artefacts: Path) -> None:
    """The viewer's cube decision: the doubler's cubeless chances for both sides, No double /
    Double, take / Double, pass with their equities and differences, the proper action, the take
    point, the gammon values, how it was valued and, for a take, the cube as offered."""
    row = _show_take(browser, analysis)
    got = browser.execute_script(CUBE_SHOWN)
    assert [r[0] for r in got["rows"]] == ["No double", "Double, take", "Double, pass"]
    values = {"No double": row["cube_nd"], "Double, take": row["cube_dt"], "Double, pass": row["cube_dp"]}
    best = max(row["cube_nd"], min(row["cube_dt"], row["cube_dp"]))
    for label, equity, diff in got["rows"]:
        assert equity == f"{values[label]:+.3f}"
        assert diff == ("" if values[label] == best else f"{values[label] - best:+.3f}")
    assert len(got["chances"]) == 2 and got["chances"][0][1] == f"{100 * row['cube_win']:.1f}%"
    assert got["chances"][1][1] == f"{100 * (1 - row['cube_win']):.1f}%"
    assert f"Proper cube action: {row['cube_action']}" in got["text"]
    assert "Take point" in got["text"] and "Gammon values" in got["text"] and "Valued by" in got["text"]
    if row["kind"] == "take":
        assert f"the cube offered at {2 * row['cube']}" in got["text"]
    viewer = browser.find_element(By.ID, "viewer")
    size = browser.get_window_size()
    browser.set_window_size(1400, 1800)  # the whole viewer in the picture
    try:
        browser.execute_script("arguments[0].scrollIntoView()", viewer)
        viewer.screenshot(str(artefacts / "report-cube.png"))  # the viewer alone, in a 1400 px window
    finally:
        browser.set_window_size(size["width"], size["height"])


def test_500_px_wide_without_horizontal_scroll(browser: Any, analysis: MatchAnalysis, artefacts: Path) -> None:
    """At 500 px the page never scrolls sideways: the games and candidates tables reflow, IDs wrap
    inside their cell (each with a copy button) and the board shrinks to the width."""
    size = browser.get_window_size()
    browser.set_window_size(500, 1000)
    try:
        assert browser.execute_script("return window.innerWidth") <= 500
        wide = ("return [document.documentElement.scrollWidth, document.documentElement.clientWidth,"
                " [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right >"
                " document.documentElement.clientWidth + 1 && e.getClientRects().length).map(e => e.tagName + '.'"
                " + e.className).slice(0, 5)]")
        rows = listed_rows(analysis)
        checker = next(i for i, r in enumerate(rows) if r["kind"] == "checker" and len(r["candidates"] or []) > 3)
        _click_row(browser, checker)
        scroll, client, out = browser.execute_script(wide)
        assert scroll <= client and out == [], (scroll, client, out)
        # the candidates reflow: a candidate's play and chances stay inside the viewer
        cells = browser.execute_script("return [...document.querySelectorAll('#v-details table.candidates td')]"
                                       ".map(c => c.getBoundingClientRect().right)")
        assert cells and max(cells) <= client
        _show_take(browser, analysis)
        scroll, client, out = browser.execute_script(wide)
        assert scroll <= client and out == [], (scroll, client, out)
        ids = browser.execute_script("return [...document.querySelectorAll('#v-details code.id')].map(c =>"
                                     " [c.getBoundingClientRect().right, c.parentNode.querySelector('button.copy')"
                                     " !== null])")
        assert ids and all(right <= client and button for right, button in ids)
        browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "viewer"))
        browser.save_screenshot(str(artefacts / "report-500px.png"))
        browser.execute_script("arguments[0].scrollIntoView()", browser.find_element(By.ID, "games"))
        scroll, client, out = browser.execute_script(wide)
        assert scroll <= client and out == [], (scroll, client, out)
        browser.save_screenshot(str(artefacts / "report-500px-games.png"))
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
