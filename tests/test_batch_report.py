"""``bgreview report``: players merged case-insensitively and by an alias file, the error rate in
``analyze``'s unit (mEMG per decision, beside PR), the match report's style, a progress callback
and bar, and clear errors for a bad alias file."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from analyzer.analysis.summary import AnalysisSummary
from analyzer.batch import BatchOptions, run_batch, write_batch_report
from analyzer.batch.layout import DECISIONS_DIR, read_part_meta
from analyzer.batch.report import load_aliases
from analyzer.cli import app
from analyzer.core.errors import InputError

MATCH = """ 3 point match

 Game 1
 {a} : 0                        {b} : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2) 62: 24/18 13/11             53: 8/3 6/3
  3) 41: 13/9 9/8                21: 13/11 6/5
  4)  Doubles => 2                Drops
      Wins 1 point
"""

PAIRS = [("Lasse", "bob"), ("bob", "lasse"), ("LASSE", "<b>Eve&Co"), ("LB", "Bob")]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("archive")
    inp = folder / "in"
    inp.mkdir()
    for i, (a, b) in enumerate(PAIRS):
        (inp / f"m{i}.mat").write_text(f'; [EventDate "2024.0{i + 1}.02"]\n' + MATCH.format(a=a, b=b))
    res = run_batch([str(inp)], folder / "out", options=BatchOptions(ply=0), jobs=1)
    assert res.errors == 0 and res.matches == len(PAIRS)
    return folder / "out"


def players_csv(folder: Path) -> pl.DataFrame:
    return pl.read_csv(folder / "players.csv")


def test_names_differing_in_case_are_one_player(dataset: Path, tmp_path: Path) -> None:
    rep = write_batch_report(dataset, tmp_path / "rep", match_reports=False)
    players = players_csv(tmp_path / "rep")
    by_name = {r["player"]: r for r in players.iter_rows(named=True)}
    # "Lasse", "lasse" and "LASSE" are one player (shown as the first of the most frequent spellings),
    # "bob" and "Bob" another; "LB" stays apart without an alias
    assert sorted(by_name) == ["<b>Eve&Co", "LB", "Lasse", "bob"]
    assert by_name["Lasse"]["matches"] == 3 and by_name["Lasse"]["names"] == "LASSE; Lasse; lasse"
    assert by_name["bob"]["matches"] == 3 and by_name["bob"]["names"] == "Bob; bob"
    assert players["matches"].sum() == 2 * len(PAIRS)
    html = rep.index.read_text(encoding="utf-8")
    assert "as LASSE; Lasse; lasse" in html
    assert "<b>Eve" not in html and "&lt;b&gt;Eve&amp;Co" in html


@pytest.mark.parametrize("form", ["tsv", "json"])
def test_an_alias_file_joins_other_names(dataset: Path, tmp_path: Path, form: str) -> None:
    path = tmp_path / f"aliases.{form}"
    if form == "tsv":
        path.write_text("# alias\tname\nLB\tLasse\n")
    else:
        path.write_text(json.dumps({"lb": "Lasse"}))
    res = CliRunner().invoke(app, ["report", str(dataset), "--out", str(tmp_path / "rep"), "--aliases", str(path),
                                   "--no-match-reports", "--no-progress"])
    assert res.exit_code == 0, res.output
    players = players_csv(tmp_path / "rep")
    lasse = players.filter(pl.col("player") == "Lasse").row(0, named=True)
    assert lasse["matches"] == 4 and lasse["names"] == "LASSE; LB; Lasse; lasse"
    assert "LB" not in players["player"].to_list()
    assert "1 alias joined other names" in (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")


def test_error_rate_in_the_unit_of_analyze(dataset: Path, tmp_path: Path) -> None:
    """mEMG per counted decision, as `bgreview analyze` prints it (1000 x its mean error), beside
    PR (500 x the same mean): checked against each match's own analysis summary."""
    write_batch_report(dataset, tmp_path / "rep", match_reports=False)
    players = {r["player"]: r for r in players_csv(tmp_path / "rep").iter_rows(named=True)}
    shown = {raw: r["player"] for r in players.values() for raw in r["names"].split("; ")}
    totals: dict[str, list[float]] = {}
    for part in sorted((dataset / DECISIONS_DIR).glob("*.parquet")):
        summary = AnalysisSummary.from_json((read_part_meta(part) or {})["summary"])
        for p in summary.players:
            t = totals.setdefault(shown[p.name], [0.0, 0.0])
            t[0] += p.total_error
            t[1] += p.unforced
    assert set(totals) == set(players)
    for name, (total, unforced) in totals.items():
        assert players[name]["error_rate_memg"] == pytest.approx(1000 * total / unforced)
        assert players[name]["mean_pr"] == pytest.approx(500 * total / unforced)
    [single] = [p for p in players.values() if p["matches"] == 1 and p["player"] == "LB"]
    part_summaries = [AnalysisSummary.from_json((read_part_meta(p) or {})["summary"])
                      for p in sorted((dataset / DECISIONS_DIR).glob("*.parquet"))]
    lb = next(p for s in part_summaries for p in s.players if p.name == "LB")
    assert lb.mean_error is not None and single["error_rate_memg"] == pytest.approx(1000 * lb.mean_error)
    html = (tmp_path / "rep" / "index.html").read_text(encoding="utf-8")
    assert "Error rate (mEMG per decision)" in html
    assert f">{single['error_rate_memg']:.1f}<" in html


@pytest.mark.integration
def test_index_has_the_match_report_style_and_progress_is_reported(dataset: Path, tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    rep = write_batch_report(dataset, tmp_path / "rep", progress=lambda done, total: calls.append((done, total)))
    # one step for the players, the charts and the phases, one per match report, one per profile page;
    # the total is known at the first call and never moves
    pages = len(list((tmp_path / "rep" / "profiles").glob("*.html")))
    steps = 3 + len(PAIRS) + pages
    assert pages > 0 and calls[0] == (0, steps) and calls[-1] == (steps, steps)
    assert {t for _d, t in calls} == {steps}
    assert [d for d, _t in calls] == list(range(len(calls)))
    html = rep.index.read_text(encoding="utf-8")
    css = (Path(__file__).resolve().parents[1] / "analyzer" / "render" / "templates" / "report.css").read_text()
    assert css.splitlines()[0] in html and "<nav>" in html
    assert rep.match_reports == len(PAIRS) and html.count('href="matches/') == len(PAIRS)
    for section in ("players", "phases", "matches", "input-errors"):
        assert f'<section id="{section}">' in html


def test_the_cli_shows_a_progress_bar_on_stderr(dataset: Path, tmp_path: Path) -> None:
    res = CliRunner(env={"FORCE_COLOR": "1"}).invoke(
        app, ["report", str(dataset), "--out", str(tmp_path / "rep"), "--progress", "--no-match-reports"])
    assert res.exit_code == 0, res.output
    steps = 3 + len(list((tmp_path / "rep" / "profiles").glob("*.html")))  # no match reports: 3 + the profiles
    assert "report" in res.stderr and f"{steps}/{steps}" in res.stderr
    assert res.stdout.strip().endswith("0 match reports)")


@pytest.mark.parametrize(("text", "where", "token"), [
    ("LB\tLasse\nonly-one-field\n", ":2: expected 'alias<TAB>name'", "only-one-field"),
    ('{"lb": 3}', "an alias must map to a name", "lb"),
    ('{"lb": "x",\n "c": }', ":2:", None),
    ("LB\t \n", ":1: an empty alias or name", None),
])
def test_a_bad_alias_file_is_a_clear_error(tmp_path: Path, dataset: Path, text: str, where: str,
                                           token: str | None) -> None:
    path = tmp_path / "aliases.txt"
    path.write_text(text)
    with pytest.raises(InputError) as got:
        load_aliases(path)
    assert str(path) in str(got.value) and where in str(got.value)
    if token is not None:
        assert got.value.token == token
    res = CliRunner().invoke(app, ["report", str(dataset), "--out", str(tmp_path / "rep"), "--aliases", str(path)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert str(path) in res.output
    assert not (tmp_path / "rep").exists()


def test_a_missing_alias_file(tmp_path: Path, dataset: Path) -> None:
    res = CliRunner().invoke(app, ["report", str(dataset), "--aliases", str(tmp_path / "nope.tsv")])
    assert res.exit_code == 2 and "nope.tsv" in res.output and "Traceback" not in res.output
