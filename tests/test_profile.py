"""`bgreview profile`: the figures against a small dataset computed by hand, the links of the worst
decisions, and the command's outputs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from profile_data import RACE, make_row, reviewed_dataset, write_dataset
from typer.testing import CliRunner

from analyzer.batch.profile import MIN_PEER_DECISIONS, ci95, player_profile, profile_table
from analyzer.cli import app


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """ann: 4 decisions (3 checker, 1 take) in two matches; bob and cy: 10 checker decisions each."""
    rows = [
        make_row("ann", 0.0, match=0, move=1),
        make_row("ann", 0.01, match=0, move=2, key=RACE, phase="race"),
        make_row("ann", 0.03, match=1, move=1),
        make_row("Ann", 0.06, match=1, move=2, kind="take", played="take", best="pass", cube_error="wrong take",
             me=5, opp=3, cube=1),
        *[make_row("bob", 0.002 * i, match=0, move=10 + i) for i in range(10)],
        *[make_row("cy", 0.1, match=1, move=10 + i) for i in range(10)],
    ]
    return write_dataset(tmp_path / "ds", rows, {0: "2024-01-05", 1: "2024-02-07"})


def test_the_figures_computed_by_hand(small: Path) -> None:
    p = player_profile(small, "ANN")
    assert p.player in ("ann", "Ann") and p.names == ("Ann", "ann")
    assert (p.decisions, p.matches) == (4, 2)
    assert p.total_loss == pytest.approx(0.10)
    assert p.memg == pytest.approx(25.0)  # 1000 x 0.10 / 4
    sd = math.sqrt(sum((x - 0.025) ** 2 for x in (0.0, 0.01, 0.03, 0.06)) / 3)
    assert (p.ci_low, p.ci_high) == pytest.approx((25.0 - 1960 * sd / 2, 25.0 + 1960 * sd / 2))
    # the others: bob 9 mEMG per decision, cy 100: median 54.5, one of the two loses more
    assert (p.peers, p.peer_median, p.better_than) == (2, pytest.approx(54.5), pytest.approx(0.5))
    kinds = {c.label: c for c in p.dimension("kind")}
    assert kinds["checker play"].memg == pytest.approx(1000 * 0.04 / 3)
    assert kinds["checker play"].share == pytest.approx(0.4) and kinds["take/pass"].share == pytest.approx(0.6)
    assert kinds["take/pass"].peers == 0 and kinds["take/pass"].peer_median is None
    assert kinds["checker play"].early == pytest.approx(5.0) and kinds["checker play"].late == pytest.approx(30.0)
    wrong_take = {c.label: c for c in p.dimension("cube error")}["wrong take"]
    assert (wrong_take.decisions, wrong_take.errors, wrong_take.memg) == (1, 1, pytest.approx(60.0))
    themes = {c.label: c for c in p.dimension("theme")}
    assert themes["race"].decisions == 1 and themes["race"].memg == pytest.approx(10.0)
    assert themes["middle game"].decisions == 3
    assert {c.label: c.decisions for c in p.dimension("phase")} == {"contact": 3, "race": 1}
    score = {c.label: c.decisions for c in p.dimension("score")}
    assert score == {"match": 3, "gammon-save": 1}  # at 2-away/4-away the doubled cube of 2: a gammon wins 4
    assert {c.label: c.decisions for c in p.dimension("away")} == {"7-away/7-away": 3, "2-away/4-away": 1}
    assert [(t.period, t.decisions) for t in p.trend] == [("2024-01", 2), ("2024-02", 2)]
    assert [t.memg for t in p.trend] == [pytest.approx(5.0), pytest.approx(45.0)]
    assert "25.0 mEMG per decision" in p.summary and "50% of them lose more" in p.summary
    assert "take/pass (60% of it" in p.summary and "wrong take" in p.summary
    assert sum(c.share for c in p.dimension("kind")) == pytest.approx(1.0)
    assert sum(c.share for c in p.dimension("theme")) == pytest.approx(1.0)
    table = profile_table(p)
    assert table.height == len(p.classes) and table["dimension"].unique().len() == 6


def test_peers_need_enough_decisions(small: Path) -> None:
    p = player_profile(small, "bob")
    assert p.peers == 1  # cy; ann has 4 decisions, under the minimum
    assert MIN_PEER_DECISIONS > 4 and p.better_than == pytest.approx(1.0)


def test_unknown_player_and_not_a_dataset(small: Path, tmp_path: Path) -> None:
    with pytest.raises(LookupError, match="dora"):
        player_profile(small, "dora")
    res = CliRunner().invoke(app, ["profile", str(small), "--player", "dora"])
    assert res.exit_code == 2 and "dora" in res.output
    res = CliRunner().invoke(app, ["profile", str(tmp_path), "--player", "ann"])
    assert res.exit_code == 2 and "not an analysed batch dataset" in res.output


def test_ci95_of_one_and_none() -> None:
    assert ci95([0.5]) == (0.5, 0.5, 0.5)
    assert all(math.isnan(x) for x in ci95([]))


def test_the_command_formats(small: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["profile", str(small), "--player", "ann", "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["decisions"] == 4 and data["memg"] == pytest.approx(25.0)
    assert {c["dimension"] for c in data["classes"]} == {"kind", "cube error", "theme", "score", "away", "phase"}
    res = runner.invoke(app, ["profile", str(small), "--player", "ann", "--format", "csv"])
    assert res.exit_code == 0
    assert res.output.splitlines()[0].startswith("dimension,class,decisions")
    res = runner.invoke(app, ["profile", str(small), "--player", "ann"])
    assert res.exit_code == 0
    assert "take/pass" in res.output and "wrong take" in res.output and "m1.mat" in res.output


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return reviewed_dataset(tmp_path_factory.mktemp("reviewed"))


@pytest.mark.integration
def test_every_worst_decision_links_to_its_match_report(reviewed: Path) -> None:
    for name in ("<b>Ann&Co", "bob"):
        p = player_profile(reviewed, name, top=5)
        worst = [w for c in p.classes for w in c.worst]
        assert worst, name
        for w in worst:
            assert w.link is not None
            page, anchor = w.link.split("#")
            html = (reviewed / "report" / page).read_text()
            assert f'id="{anchor}"' in html
            # the anchored row is this decision: its game and move
            row = html[html.index(f'id="{anchor}"'):].split("</tr>")[0]
            assert f'data-game="{w.game}"' in row
            assert f'<td class="num">{w.move_no}</td>' in row


@pytest.mark.integration
def test_the_report_has_a_profile_page_per_player(reviewed: Path) -> None:
    index = (reviewed / "report" / "index.html").read_text()
    pages = sorted((reviewed / "report" / "profiles").glob("*.html"))
    assert len(pages) == 2 and index.count('href="profiles/') == 2
    text = "".join(p.read_text() for p in pages)
    assert "<b>Ann" not in text and "&lt;b&gt;Ann&amp;Co" in text
    assert text.count("<svg") >= 2  # boards of the worst decisions
    assert 'href="../matches/' in text
    for page in pages:
        for src in ("themes", "kinds", "trend"):
            assert (page.parent / f"{page.stem}-{src}.svg").read_text().lstrip().startswith("<?xml")


def test_a_dataset_written_before_the_new_columns(tmp_path: Path) -> None:
    """No theme, crawford or post_crawford columns: themes from the keys, the Crawford game inferred."""
    import polars as pl

    rows = [make_row("ann", 0.01, match=0, move=1, game=1, me=0, opp=0),  # 5-away/5-away: no gammon-go
            make_row("ann", 0.02, match=0, move=1, game=2, me=4, opp=0, key=RACE, phase="race"),  # 1-away: Crawford
            make_row("ann", 0.03, match=0, move=1, game=3, me=4, opp=2),  # after it
            make_row("ann", 0.04, match=0, move=1, game=4, me=4, opp=4)]  # DMP
    ds = write_dataset(tmp_path / "old", rows, {0: None})
    for part in (ds / "decisions").glob("*.parquet"):
        pl.read_parquet(part).drop("theme", "crawford", "post_crawford").with_columns(
            pl.lit(5, pl.Int32).alias("match_length")).write_parquet(part)
    p = player_profile(ds, "ann")
    score = {c.label: c.decisions for c in p.dimension("score")}
    assert score == {"match": 1, "Crawford": 1, "post-Crawford": 1, "DMP": 1}
    assert {c.label for c in p.dimension("theme")} == {"middle game", "race"}
