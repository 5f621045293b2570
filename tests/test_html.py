"""The HTML report: one self-contained file with the summary, charts, errors (largest first, one
board each, candidates or cube table, IDs) and settings; hostile names and plays render inert."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from render_sample import SampleAnalysis, make_analysis, make_summary

from analyzer.core.ids import decode_key
from analyzer.render.html import render_html_report, unpack, write_html_report

SVG_NS = "{http://www.w3.org/2000/svg}"


class Collect(HTMLParser):
    """Every start tag with its attributes and the path of enclosing elements with ids/classes."""

    VOID = {"meta", "br", "img", "link", "input", "hr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str], tuple[str, ...]]] = []
        self.stack: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.append((tag, a, tuple(self.stack)))
        if tag not in self.VOID and not tag.endswith("/"):
            label = a.get("id") or tag
            self.stack.append(label)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}, tuple(self.stack)))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        if self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def inside(self, tag: str, anchor: str) -> list[dict[str, str]]:
        return [a for t, a, path in self.tags if t == tag and anchor in path]


def parse(html: str) -> Collect:
    c = Collect()
    c.feed(html)
    c.close()
    return c


def articles(html: str) -> list[str]:
    return re.findall(r'<article class="error" id="error-\d+">.*?</article>', html, re.S)


@pytest.fixture(scope="module")
def sample() -> SampleAnalysis:
    return make_analysis()


@pytest.fixture(scope="module")
def report(sample: SampleAnalysis) -> str:
    return render_html_report(sample)


def test_sections_and_self_contained(report: str) -> None:
    doc = parse(report)
    ids = {a.get("id") for _t, a, _p in doc.tags}
    assert {"summary", "charts", "errors", "settings"} <= ids
    assert report.startswith("<!DOCTYPE html>")
    assert len(doc.inside("style", "head")) == 1  # one inline style sheet in the head
    for tag in ("link", "img", "iframe", "object"):
        assert not [t for t, _a, _p in doc.tags if t == tag], tag
    # two inline scripts of our own: the viewer's JSON data and its code; nothing loaded from elsewhere
    scripts = [a for t, a, _p in doc.tags if t == "script"]
    assert scripts == [{"type": "application/json", "id": "bgr-data"}, {}]
    assert {"game-list", "games", "luck", "viewer", "filters"} <= ids
    # no network: the only absolute URLs are XML namespaces
    urls = set(re.findall(r"https?://[^\s\"'<>)\\]+", report))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls
    assert "@import" not in report and "url(http" not in report and "@font-face" not in report
    # three inline charts whose ids do not collide
    assert len(doc.inside("figure", "charts")) == 3
    all_ids = [a["id"] for _t, a, _p in doc.tags if "id" in a]
    assert len(all_ids) == len(set(all_ids))


def test_summary_table(report: str, sample: SampleAnalysis) -> None:
    players = sample.summary.players
    for p in players:
        assert p.pr_raw is not None and p.luck_adjusted_result is not None and p.actual_result is not None
        assert p.luck_mwc is not None
        assert f'<span class="pr">{500 * p.pr_raw:.1f}</span>' in report
        assert f"XG: {p.rating_xg}" in report and f"gnubg: {p.rating_gnubg}" in report
        assert f"{p.luck:+.3f}" in report and f"{100 * p.luck_adjusted_result:+.1f}% MWC" in report
        assert f"{100 * p.actual_result:+.1f}% MWC" in report and f"{100 * p.luck_mwc:+.1f}%" in report
        assert f"{p.total_error:.3f}" in report
    summary = report[report.index('id="summary"'):report.index('id="charts"')]
    rows = re.findall(r'<tr class="count"><td class="sub">([^<]+)</td>(.*?)</tr>', summary)
    checker_rows = {name: re.findall(r">(\d+)<", cells) for name, cells in rows[:3]}
    assert checker_rows == {"error": ["0", "1"], "blunder": ["0", "1"], "very bad": ["0", "1"]}
    cube_rows = {name: re.findall(r">(\d+)<", cells) for name, cells in rows[3:]}
    assert cube_rows == {"error": ["1", "0"], "blunder": ["1", "0"]}
    assert "500 \u00d7 mean equity loss" in summary
    types = dict(re.findall(r'<tr class="cube-type"><td class="sub">([^<]+)</td>(.*?)</tr>', summary))
    assert {k: re.findall(r">(\d+)<", v) for k, v in types.items()} == {
        "missed doubles": ["1", "0"], "wrong doubles": ["0", "0"], "wrong takes": ["0", "0"],
        "wrong passes": ["1", "0"]}
    assert "XG: Intermediate (approximate band)" in summary and "XG: Advanced<" in summary
    info = unescape(summary)
    for text in ("Final", "2 of 3 analysed", "Alice 5, Bob 3", "Games left out of the analysis",
                 "illegal play '<b>13/2</b>'"):
        assert text in info, text
    assert "<b>13/2" not in summary
    settings = report[report.index('id="settings"'):]
    settings = settings.replace("&lt;", "<").replace("&gt;", ">")
    for text in ("<th>Engine version</th><td>0.1.0", "contact-34k, race-34k", "Kazaross XG2",
                 "<th>Bear-off databases</th><td>yes", "count: 8, threshold: 0.16",
                 "xg: error \u2265 0.020, blunder \u2265 0.080, very bad \u2265 0.200, close cube < 0.160, "
                 "lucky > 0.300, very lucky > 0.600"):
        assert text in settings, text
    assert re.search(r"<th>Seed</th><td>7</td>", settings) and re.search(r"<th>Ply</th><td>2</td>", settings)


def test_errors_largest_first_each_with_one_board(report: str, sample: SampleAnalysis) -> None:
    df = sample.decisions
    errs = df.filter(df["error_class"] != "none").sort("equity_loss", descending=True)
    arts = articles(report)
    assert len(arts) == errs.height == 5
    for art, row in zip(arts, errs.iter_rows(named=True), strict=True):
        boards = re.findall(r'<svg xmlns="http://www.w3.org/2000/svg"[^>]*class="board [a-z]+".*?</svg>', art,
                            re.S)
        assert len(boards) == 1
        root = ET.fromstring(boards[0])
        assert root.tag == SVG_NS + "svg"
        assert f"{row['equity_loss']:.3f} EMG ({1000 * row['equity_loss']:.0f} millipoints)" in art
        assert f"Game {row['game']}, move {row['move_no']}: {row['player']}" in art
        assert f"<dt>Played</dt><dd>{row['played']}</dd>" in art and f"<dt>Best</dt><dd>{row['best']}</dd>" in art
        assert f'<code class="id">{row["position_id"]}:{row["match_id"]}</code>' in art
        assert f'<code class="id">{row["xgid"]}</code>' in art and f'<code class="id">{row["key"]}</code>' in art
        if row["kind"] == "checker":
            assert f"<dt>Dice</dt><dd>{row['dice']} (luck {row['luck']:+.3f} EMG)" in art
            dice = next(g for g in root.iter(SVG_NS + "g") if g.get("class") == "dice")
            assert dice.get("data-dice") == row["dice"]
    assert "very bad" in arts[0] and "blunder" in arts[1]


def test_candidates_table(report: str, sample: SampleAnalysis) -> None:
    art = articles(report)[0]  # the 0.250 checker error
    row = sample.decisions.filter(sample.decisions["equity_loss"] == 0.25).row(0, named=True)
    table = re.search(r'<table class="candidates">.*?</table>', art, re.S)
    assert table is not None
    body = re.findall(r"<tr class=\"([^\"]*)\">(.*?)</tr>", table.group(0), re.S)
    assert len(body) == len(row["candidates"]) == 3
    best = max(c["equity"] for c in row["candidates"])
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", b) for _cls, b in body]
    assert [c[1].replace(" (played)", "") for c in cells] == ["13/10 6/5", "24/21 13/12", "24/20"]
    assert cells[0][2] == f"{best:+.3f}" and cells[0][3] == ""
    assert cells[2][3] == f"{row['candidates'][2]['equity'] - best:+.3f}"
    assert cells[0][4:] == ["52.0%", "12.0%", "1.0%", "48.0%", "10.0%", "0.5%"]
    assert body[0][0] == "best" and body[2][0] == " played"
    assert "Lose" in table.group(0) and "EMG" in table.group(0)  # match play: EMG column


def test_cube_table(report: str) -> None:
    cube_arts = [a for a in articles(report) if "(cube decision" in a or "(take decision" in a]
    assert len(cube_arts) == 2
    for art in cube_arts:
        assert '<table class="candidates">' not in art
        table = re.search(r'<table class="cube">.*?</table>', art, re.S)
        assert table is not None
        rows = re.findall(r"<tr><td>([^<]+)</td><td class=\"num\">([^<]*)</td><td class=\"num\">([^<]*)</td></tr>",
                          table.group(0))
        # ND 0.61, D/T 0.74, D/P 1.0: best is double/take
        assert rows == [("No double", "+0.610", "-0.130"), ("Double, take", "+0.740", ""),
                        ("Double, pass", "+1.000", "+0.260")]
        assert "Proper cube action: <strong>Double, take</strong>" in art
        # as gnubg and XG show a cube decision: the doubler's cubeless chances, both sides', the take
        # point and the gammon values
        chances = re.search(r'<table class="chances">.*?</table>', art, re.S)
        assert chances is not None
        cells = re.findall(r'<td class="num">([^<]*)</td>', chances.group(0))
        assert cells == ["70.5%", "18.1%", "1.2%", "29.5%", "6.2%", "0.4%"]
        assert "takes with at least 26.2% cubeless winning chances (has 29.5%)" in art
        assert re.search(r"<dt>Gammon values</dt><dd>\w+ 0.48, \w+ 0.65</dd>", art)
    take = next(a for a in cube_arts if "(take decision" in a)
    assert "for Bob, who doubled" in take and ": Alice" in take  # Alice takes: the doubler is Bob
    assert "Bob doubles: the cube offered at 4; Alice takes or passes." in take  # the cube was 2
    assert "Cubeless chances of Bob before the roll" in take and "<td>Alice wins</td>" in take
    assert "(take decision: wrong pass)" in take
    assert any("(cube decision: missed double)" in a for a in cube_arts)


def test_hostile_text_renders_inert(tmp_path: Path) -> None:
    evil = "<script>alert(1)</script>"
    names = (evil, 'O"Neil\' & <b onmouseover="x">co</b>')
    a = make_analysis(names=names, event='"><img src=x onerror=alert(1)>', file="<svg onload=alert(1)>.mat")
    rows = a.decisions.with_columns(
        a.decisions["played"].str.replace("24/20", "<i>24/20</i>"))
    a = SampleAnalysis(rows, a.summary)
    path = write_html_report(a, tmp_path)
    html = path.read_text(encoding="utf-8")
    low = html.lower()
    # the report's own two scripts are the only ones: the hostile texts are escaped everywhere,
    # in the JSON data inside <script> too (no "</script>" of theirs can close it)
    assert low.count("<script") == 2 and low.count("</script") == 2
    assert "<img" not in low
    assert "<b onmouseover" not in low and "<i>24/20" not in low and "<svg onload" not in low
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "O&#34;Neil&#39; &amp; &lt;b onmouseover=&#34;x&#34;&gt;co&lt;/b&gt;" in html
    data = re.search(r'<script type="application/json" id="bgr-data">(.*?)</script>', html, re.S)
    assert data is not None and "<" not in data.group(1) and "&" not in data.group(1)
    assert json.loads(data.group(1))["names"] == list(names)
    doc = parse(html)
    assert not [t for t, _a, _p in doc.tags if t in ("img", "b", "i")]
    assert len([t for t, _a, _p in doc.tags if t == "script"]) == 2
    assert not [a for _t, a, _p in doc.tags if any(k.startswith("on") for k in a)]
    # the hostile names also reach the board captions: escaped there too, and still valid XML
    for art in articles(html):
        for board in re.findall(r"<svg xmlns=\"http://www.w3.org/2000/svg\".*?</svg>", art, re.S):
            ET.fromstring(board)


@pytest.mark.parametrize("variant", ["dutch", "mahbusa"])
def test_other_variants(variant: str) -> None:
    a = make_analysis(variant, length=0)
    html = render_html_report(a, charts=False)
    arts = articles(html)
    assert len(arts) == 5
    for art in arts:
        assert f'class="board {variant}"' in art
        assert "Position ID" not in art and "XGID" not in art and "<th>Key</th>" in art
    assert "Money session" in html and ">Equity</th>" in html
    # each board draws its own position's reserves (Dutch) or pinned checkers (Mahbusa)
    shown = 0
    for art in arts:
        [key] = re.findall(r'<code class="id">([DM]\.[^<]+)</code>', art)
        pos = decode_key(key)
        assert pos.variant == variant
        if variant == "dutch":
            counts = sorted(int(n) for n in re.findall(r'<text class="reserve-count"[^>]*>(\d+)</text>', art))
            assert counts == sorted(r for r in (pos.mover_reserve, pos.opponent_reserve) if r), key
            shown += len(counts)
        else:
            pins = len(re.findall(r'class="checker [xo] pinned"', art))
            assert pins == pos.to_notation().count("+"), key
            shown += pins
    assert shown > 0


def test_write_report_options(sample: SampleAnalysis, tmp_path: Path) -> None:
    path = write_html_report(sample, tmp_path / "out", max_errors=2)
    assert path == tmp_path / "out" / "report.html"
    html = path.read_text(encoding="utf-8")
    assert len(articles(html)) == 2 and "Showing the 2 largest of 5 errors." in html
    again = render_html_report(sample, max_errors=2)
    assert again == html  # deterministic
    mirrored = render_html_report(sample, charts=False, home_side="left")
    assert 'id="charts"' not in mirrored and len(articles(mirrored)) == 5


def test_no_errors_and_missing_key() -> None:
    a = make_analysis()
    clean = a.decisions.with_columns(a.decisions["error_class"].str.replace(r".*", "none"))
    html = render_html_report(SampleAnalysis(clean, a.summary), charts=False)
    assert not articles(html) and "No errors" in html and "Errors (0)" in html
    broken = a.decisions.with_columns(a.decisions["key"].str.replace(r".*", "S.not-a-key"))
    html2 = render_html_report(SampleAnalysis(broken, a.summary), charts=False)
    arts = articles(html2)
    assert len(arts) == 5 and all("the position key could not be read" in x for x in arts)


BRIEF_PLAYER_KEYS = {"name", "side", "decisions", "unforced", "checker", "cube", "total_error", "mean_error",
                     "pr_raw", "rating_xg", "rating_gnubg", "luck", "luck_adjusted_result"}


def test_summary_with_only_the_agreed_keys() -> None:
    """The agreed summary keys alone (no stats extras, thresholds as a values mapping) render."""
    a = make_analysis(length=0)
    players = [{k: v for k, v in p.as_dict().items() if k in BRIEF_PLAYER_KEYS} for p in a.summary.players]
    metadata = {"engine": "bgreview", "version": "9.9", "nets": "n1", "ply": 1, "seed": 3,
                "thresholds": {"name": "gnubg", "values": {"very bad": 0.12, "doubtful": 0.03, "bad": 0.06}},
                "met": None}
    summary = {"metadata": metadata, "match": {"players": ["Alice", "Bob"], "length": 0}, "players": players}
    html = render_html_report(a.with_summary(summary), charts=False)
    assert "<th>Version</th><td>9.9</td>" in html
    assert unescape("gnubg: doubtful \u2265 0.030, bad \u2265 0.060, very bad \u2265 0.120") in unescape(html)
    assert "Actual result" not in html and "cube-type" not in html and "Luck (MWC)" not in html
    assert "+0.420" in html and "-0.420" in html  # luck-adjusted result without a unit
    assert "Money session" in html


def test_money_results_in_points() -> None:
    html = render_html_report(make_analysis(length=0), charts=False)
    assert "+2.000 points" in html and "-2.000 points" in html
    assert "Luck (MWC)" not in html and "MWC" not in html.split('id="errors"')[1].split('id="settings"')[0]


# ---------------------------------------------------------------------- the game list and its viewer
def game_list_rows(html: str) -> list[tuple[dict[str, str], list[str]]]:
    """Each row of the game list: its attributes and the text of its cells."""
    table = re.search(r'<table class="game-list">.*?</table>', html, re.S)
    assert table is not None
    out = []
    for attrs, body in re.findall(r"<tr (id=\"d-\d+\"[^>]*)>(.*?)</tr>", table.group(0), re.S):
        a = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
        cells = [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", body, re.S)]
        out.append((a, cells))
    return out


def viewer_data(html: str) -> dict[str, object]:
    m = re.search(r'<script type="application/json" id="bgr-data">(.*?)</script>', html, re.S)
    assert m is not None
    data: dict[str, object] = json.loads(m.group(1))
    return data


def test_game_list_holds_every_decision_in_order(report: str, sample: SampleAnalysis) -> None:
    rows = game_list_rows(report)
    df = sample.decisions
    assert len(rows) == df.height  # the sample has no trivial cube decision to fold
    for i, ((a, cells), r) in enumerate(zip(rows, df.iter_rows(named=True), strict=True)):
        assert a["data-i"] == str(i) and a["data-game"] == str(r["game"]) and a["data-side"] == str(r["side"])
        assert a["data-key"] == r["key"] and a["data-err"] == ("0" if r["error_class"] == "none" else "1")
        assert cells[0] == str(r["game"]) and cells[1] == str(r["move_no"]) and cells[2] == r["player"]
        assert cells[3] == (r["dice"] or "")
        played = r["played"] if r["kind"] == "checker" else r["played"].capitalize()
        assert cells[4].startswith(played)
        assert cells[5] == (f"{1000 * r['equity_loss']:.0f}" if r["equity_loss"] else "")
        assert cells[6] == ("" if r["error_class"] == "none" else r["error_class"])
        # gnubg's roll marks at the thresholds' cuts: +0.31 is lucky, -0.12 is nothing
        luck = r["luck"]
        assert cells[7] == ("lucky" if luck is not None and luck > 0.3 else "")
    assert "(forced)" in rows[3][1][4]


def test_viewer_templates_draw_each_decision_s_position(report: str, sample: SampleAnalysis) -> None:
    """Each decision is drawn twice, once with each player at the bottom (the viewer's toggle):
    the bottom player keeps his side and his colour whoever acts, and the side to act says so."""
    data = viewer_data(report)
    decisions = data["decisions"]
    assert isinstance(decisions, list) and len(decisions) == sample.decisions.height
    layouts = data["layouts"]
    assert isinstance(layouts, dict) and len(layouts) == 2  # the point numbers of either side to act
    got = unpack(str(data["packed"]))
    assert len(got["pieces"]) == len(got["details"]) == len(decisions)
    names = ("Alice", "Bob")
    for d, r in zip(decisions, sample.decisions.iter_rows(named=True), strict=True):
        assert d["key"] == r["key"] and d["game"] == r["game"] and d["side"] == r["side"]
        details = got["details"][d["i"]]
        for bottom in (0, 1):
            pieces = got["pieces"][d["i"]][bottom]
            acting = "x" if r["side"] == bottom else "o"
            assert pieces.startswith(f'<g class="pieces" data-acting="{acting}">')
            frame = layouts[d["layout"][bottom]]
            assert d["layout"][bottom].endswith("-0" if acting == "x" else "-1")
            svg = ET.fromstring(frame.replace("</svg>", pieces + "</svg>"))
            pos = decode_key(r["key"])
            drawn = pos if acting == "x" else pos.flip()  # from the bottom player's side
            tone = "dark" if bottom else "light"
            for g in svg.iter(SVG_NS + "g"):
                if g.get("class") == "point":
                    p = int(g.get("data-point") or 0)
                    circles = [c.get("class") for c in g.iter(SVG_NS + "circle")]
                    assert (circles.count(f"checker x {tone}"),
                            len([c for c in circles if c and c.startswith("checker o")])) == \
                        (min(drawn.mover[p - 1], 5), min(drawn.opponent[p - 1], 5))
            # one colour per player and one side of the board, whoever is to act
            tones = {c.get("class") for c in svg.iter(SVG_NS + "circle")
                     if (c.get("class") or "").startswith("checker")}
            assert tones <= ({"checker x dark", "checker o light"} if bottom else {"checker x light", "checker o dark"})
            captions = {t.get("class"): t.text or "" for t in svg.iter(SVG_NS + "text")
                        if (t.get("class") or "").startswith("caption")}
            assert captions["caption x"].startswith(f"X: {names[bottom]} ")
            assert captions["caption o"].startswith(f"O: {names[1 - bottom]} ")
            doing = captions["caption " + acting]
            assert doing.endswith("to take or pass" if r["kind"] == "take" else
                                  "on roll" if r["kind"] == "cube" else f"to play {r['dice'][0]}-{r['dice'][1]}")
        assert f"Game {r['game']}, move {r['move_no']}: {r['player']}" in details
        assert f'<code class="id">{r["key"]}</code>' in details
        if r["luck"] is not None:
            assert f"(luck {r['luck']:+.3f} EMG" in details
            assert ("mark-lucky" in details) == (r["luck"] > 0.3)


def test_a_cube_decision_that_was_not_close_is_folded_into_the_play_after_it() -> None:
    a = make_analysis()
    df = a.decisions
    trivial = df.slice(2, 1).with_columns(
        pl.lit("cube").alias("kind"), pl.lit("no double").alias("played"), pl.lit("no double").alias("best"),
        pl.lit("none").alias("error_class"), pl.lit(True).alias("forced"), pl.lit(0.0).alias("equity_loss"),
        pl.lit("No double, take").alias("cube_action"), pl.lit(None, pl.Float64).alias("luck"),
        pl.lit([], df.schema["candidates"]).alias("candidates"), pl.lit(None, pl.String).alias("dice"))
    folded = pl.concat([df.slice(0, 2), trivial, df.slice(2)])
    html = render_html_report(SampleAnalysis(folded, a.summary), charts=False)
    rows = game_list_rows(html)
    assert len(rows) == df.height  # the no-double is not a row of its own
    details = unpack(str(viewer_data(html)["packed"]))["details"]
    assert "<dt>Cube</dt><dd>no double (proper action: No double, take; not close)</dd>" in details[2]
    assert sum("<dt>Cube</dt>" in d for d in details) == 1


def test_per_game_statistics(report: str, sample: SampleAnalysis) -> None:
    table = re.search(r'<table class="games">.*?</table>', report, re.S)
    assert table is not None
    body = re.findall(r"<tr><td class=\"num\" data-label=\"Game\">(\d+)</td>(.*?)</tr>", table.group(0), re.S)
    assert [g for g, _ in body] == ["1", "2"]
    for game, cells_html in body:
        cells = [unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", cells_html, re.S)]
        for side in (0, 1):
            mine = [r for r in sample.decisions.iter_rows(named=True) if r["game"] == int(game) and r["side"] == side]
            counted = sum(1 for r in mine if not r["forced"])
            errors = sum(1 for r in mine if r["error_class"] != "none")
            total = sum(r["equity_loss"] for r in mine)
            luck = sum(r["luck"] for r in mine if r["luck"] is not None)
            got = cells[1 + 5 * side: 1 + 5 * (side + 1)]
            assert got == [str(counted), str(errors), f"{total:.3f}", f"{500 * total / counted:.1f}", f"{luck:+.3f}"]


def test_luckiest_and_unluckiest_rolls(report: str, sample: SampleAnalysis) -> None:
    section = report[report.index('<section id="luck">'):report.index('<section id="charts">')]
    lucky_t, unlucky_t = re.findall(r'<table class="rolls">.*?</table>', section, re.S)
    rolls = [(i, r) for i, r in enumerate(sample.decisions.iter_rows(named=True))
             if r["kind"] == "checker" and r["luck"] is not None]
    for table, sign in ((lucky_t, 1), (unlucky_t, -1)):
        want = sorted([(i, r) for i, r in rolls if sign * r["luck"] > 0],
                      key=lambda x: (-sign * x[1]["luck"], x[0]))[:5]
        got = re.findall(r'<a href="#d-(\d+)">game (\d+), move (\d+)</a></td><td>(\d\d)</td><td class="num">([^<]+)<',
                         table)
        assert got == [(str(i), str(r["game"]), str(r["move_no"]), r["dice"], f"{r['luck']:+.3f}") for i, r in want]
        assert len(want) == (3 if sign == 1 else 5)
    assert lucky_t.count("mark-lucky") == 3 and "mark-" not in unlucky_t  # lucky: above +0.3


def test_gnubg_thresholds_show_the_doubtful_class() -> None:
    from analyzer.analysis.thresholds import GNUBG

    a = make_analysis()
    df = a.decisions.with_columns(pl.col("equity_loss").map_elements(GNUBG.classify, return_dtype=pl.String)
                                  .alias("error_class"))
    players = []
    for p in a.summary.players:
        mine = df.filter(pl.col("side") == p.side)
        checker = {c: mine.filter((pl.col("kind") == "checker") & (pl.col("error_class") == c)).height
                   for c in GNUBG.classes}
        cube = {c: mine.filter((pl.col("kind") != "checker") & (pl.col("error_class") == c)).height
                for c in GNUBG.classes}
        players.append({**p.as_dict(), "checker": checker, "cube": cube})
    doc = a.summary.as_dict()
    summary = {**doc, "players": players, "metadata": {**doc["metadata"], "thresholds": GNUBG.as_dict()}}
    html = render_html_report(SampleAnalysis(df, a.summary).with_summary(summary), charts=False)
    assert set(df["error_class"]) == {"none", "doubtful", "bad", "very bad"}
    classes = [cells[6] for _a, cells in game_list_rows(html)]
    assert classes == [c if c != "none" else "" for c in df["error_class"]]
    assert '<span class="cls cls-doubtful">doubtful</span>' in html
    summary_html = html[html.index('id="summary"'):html.index('id="games"')]
    assert re.findall(r'<tr class="count"><td class="sub">([^<]+)</td>', summary_html)[:3] == \
        ["doubtful", "bad", "very bad"]


def test_ratings_apart_and_none_for_the_variants(report: str) -> None:
    summary = report[report.index('id="summary"'):report.index('id="games"')]
    assert "Checker play rated apart" in summary and "Cube decisions rated apart" in summary
    assert "Error rate (mEMG per decision)" in summary
    dutch = render_html_report(make_analysis("dutch", length=0), charts=False)
    dutch_summary = dutch[dutch.index('id="summary"'):dutch.index('id="games"')]
    assert "no XG or gnubg rating scale exists for Dutch backgammon" in dutch_summary
    assert "XG:" not in dutch_summary and "gnubg:" not in dutch_summary
    assert "Cube decisions rated apart" not in dutch_summary
    assert "Error rate (millipoints per decision)" in dutch_summary


def test_the_taker_is_captioned_as_such_and_each_player_keeps_his_colour(report: str,
                                                                        sample: SampleAnalysis) -> None:
    """The error list draws the first player at the bottom (light) whoever acts, as the viewer
    does by default; the caption of the side to act says what he is to do."""
    df = sample.decisions
    errs = df.filter(pl.col("error_class") != "none").sort("equity_loss", descending=True)
    for art, row in zip(articles(report), errs.iter_rows(named=True), strict=True):
        [board] = re.findall(r'<svg xmlns="http://www.w3.org/2000/svg"[^>]*class="board [a-z]+".*?</svg>', art, re.S)
        root = ET.fromstring(board)
        acting = "x" if row["side"] == 0 else "o"
        assert root.get("data-acting") == acting
        caption = next(t for t in root.iter(SVG_NS + "text") if t.get("class") == f"caption {acting}").text or ""
        other = next(t for t in root.iter(SVG_NS + "text")
                     if (t.get("class") or "").startswith("caption") and t.get("class") != f"caption {acting}")
        assert (other.text or "").endswith("off 0") or "to play" not in (other.text or "")
        if row["kind"] == "take":
            assert caption.endswith("to take or pass") and "on roll" not in caption
        else:
            dice = row["dice"] or "  "
            assert caption.endswith("on roll" if row["kind"] == "cube" else f"to play {dice[0]}-{dice[1]}")
        fills = {c.get("fill") for c in root.iter(SVG_NS + "circle") if c.get("class") == "checker x"}
        assert fills == {"#faf7ef"}, row


def test_settings_have_human_labels() -> None:
    a = make_analysis()
    doc = a.summary.as_dict()
    meta = {**doc["metadata"], "deep_filter": {"count": 4, "threshold": 0.08}, "luck_prune": True,
            "variant_engines": {"dutch": {"evaluator": "VariantEngine", "nets": "0.5"}}}
    html = render_html_report(a.with_summary({**doc, "metadata": meta}), charts=False)
    settings = html[html.index('id="settings"'):]
    assert "<th>Deep move filter (2-ply and deeper)</th><td>count: 4, threshold: 0.08</td>" in settings
    assert "<th>Luck prune</th><td>yes</td>" in settings
    assert "<th>Dutch and Mahbusa engines</th><td>dutch: (evaluator: VariantEngine, nets: 0.5)</td>" in settings
    assert "deep_filter" not in settings and "luck_prune" not in settings


def test_charts_drawn_once_give_the_same_report(sample: SampleAnalysis, report: str) -> None:
    from analyzer.render.charts import render_charts

    svgs = {name: files["svg"].decode("utf-8") for name, files in render_charts(sample, ("svg",)).items()}
    assert render_html_report(sample, chart_svgs=svgs) == report
    # the texts given are the ones the report shows
    assert "id=\"chart1-" in render_html_report(sample, chart_svgs=svgs)
    without = render_html_report(sample, charts=False)
    assert without.count("<svg") < report.count("<svg")


@pytest.mark.integration
def test_compiled_templates_are_kept_and_give_the_same_report(sample: SampleAnalysis, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from analyzer.render import html

    monkeypatch.setenv("BGREVIEW_CACHE", str(tmp_path / "cache"))
    html._env.cache_clear()
    try:
        fresh = render_html_report(sample)  # compiles the templates and keeps their code
        kept = sorted((tmp_path / "cache").glob("templates-jinja2-*/*.cache"))
        assert len(kept) >= 2
        html._env.cache_clear()
        assert render_html_report(sample) == fresh  # from the kept code
        (tmp_path / "blocked").write_text("a file where the cache folder would go")
        monkeypatch.setenv("BGREVIEW_CACHE", str(tmp_path / "blocked"))
        html._env.cache_clear()
        assert render_html_report(sample) == fresh  # nowhere to keep it: the same report all the same
    finally:
        html._env.cache_clear()


def test_the_header_says_how_deep_the_analysis_looked_and_how_it_confirmed(sample: SampleAnalysis) -> None:
    """A quick 0-ply review (a batch's) must not read like a 2-ply one with its confirmation pass."""
    summary = make_summary()
    deep = sample.with_summary({**summary, "metadata": {**summary["metadata"], "ply": 2, "confirm": {
        "method": "rollout", "max_trials": 576, "limit": 10, "cube_doubt": 0.1, "blunders": True}},
        "match": {**summary["match"], "confirmed": {"decisions": 7, "downgraded": 1, "upgraded": 0, "wanted": 9}}})
    quick = sample.with_summary({**summary, "metadata": {**summary["metadata"], "ply": 0}})
    head = re.search(r'<p class="depth">([^<]*)</p>', render_html_report(deep))
    assert head is not None
    assert head.group(1) == ("Analysed at 2-ply; confirmation pass: 7 decisions valued again by rollouts of up "
                             "to 576 games, at most 10 a match.")
    head = re.search(r'<p class="depth">([^<]*)</p>', render_html_report(quick))
    assert head is not None
    assert head.group(1) == "Analysed at 0-ply (a quick review: no lookahead); no confirmation pass."
