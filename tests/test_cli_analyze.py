"""``bgreview analyze`` and ``bgreview position`` through the Typer runner (0-ply, short inputs)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from analyzer.cli import app

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "boardlord-llabba-7p.mat"
EVIL = "<script>alert(\"x\")</script>"
SHORT = f""" 5 point match

 Game 1
 {EVIL} : 0                 O'Neil"s : 0
  1) 31: 8/5 6/5                    42: 8/4 6/4
  2) 65: 24/13                      66: 24/18(2) 13/7(2)
  3)  Doubles => 2                  Takes
  4) 54: 13/8 13/9                  21: 13/11 6/5
"""

runner = CliRunner()


@pytest.fixture
def short_match(tmp_path: Path) -> Path:
    f = tmp_path / "short.mat"
    f.write_text(SHORT, encoding="utf-8")
    return f


def test_analyze_sample_writes_files(tmp_path: Path) -> None:
    out = tmp_path / "rep"
    res = runner.invoke(app, ["analyze", str(SAMPLE), "--ply", "0", "--out", str(out), "--no-html", "--no-confirm"])
    assert res.exit_code == 0, res.output
    for name in ("decisions.parquet", "decisions.csv", "summary.json"):
        assert (out / name).is_file()
    assert "BoardLord" in res.output and "Llabba" in res.output and "5 worst decisions" in res.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["match"]["players"] == ["BoardLord", "Llabba"] and summary["match"]["length"] == 7
    assert summary["match"]["score_final"] == [8, 2]
    df = pl.read_parquet(out / "decisions.parquet")
    assert set(df["kind"]) == {"checker", "cube", "take"}
    assert df.filter(pl.col("kind") == "checker").height == 141
    assert df.filter(pl.col("kind") == "take").height == 5


def test_json_format_and_names_as_data(short_match: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    res = runner.invoke(app, ["analyze", str(short_match), "--ply", "0", "-o", str(out), "-f", "json",
                              "--thresholds", "gnubg", "--no-html", "--no-confirm"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert [p["name"] for p in doc["players"]] == [EVIL, "O'Neil\"s"]
    assert doc["metadata"]["thresholds"]["name"] == "gnubg"
    assert set(doc["players"][0]["checker"]) == {"doubtful", "bad", "very bad"}
    assert doc["files"][-1].endswith("summary.json")
    table = runner.invoke(app, ["analyze", str(short_match), "--ply", "0", "-o", str(out), "--no-html", "--no-confirm"],
                          env={"COLUMNS": "200"})
    assert table.exit_code == 0 and EVIL in table.stdout


def test_default_out_dir(short_match: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["analyze", str(short_match), "--ply", "0", "--no-html", "--no-confirm"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "reports" / "short" / "summary.json").is_file()


def test_usage_errors(short_match: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["analyze", str(short_match), "--rollout", "--trials", "0"])
    assert res.exit_code == 2 and "at least 1" in res.output
    res = runner.invoke(app, ["analyze", str(short_match), "--thresholds", "nope"])
    assert res.exit_code == 2 and "unknown thresholds" in res.output
    res = runner.invoke(app, ["analyze", str(short_match), "--ply", "7"])
    assert res.exit_code == 2 and "--ply" in res.output
    res = runner.invoke(app, ["analyze", str(tmp_path / "missing.mat")])
    assert res.exit_code == 2 and "error:" in res.output
    assert "Traceback" not in res.output


def test_broken_game_exits_1(tmp_path: Path) -> None:
    f = tmp_path / "broken.mat"
    f.write_text(" 3 point match\n\n Game 1\n a : 0      b : 0\n  1) 31: 8/5 6/5      42: 8/4 6/4\n"
                 "\n Game 2\n a : 0      b : 0\n  1) 31: 24/1\n")
    res = runner.invoke(app, ["analyze", str(f), "--ply", "0", "-o", str(tmp_path / "b"), "--no-html", "--no-confirm"])
    assert res.exit_code == 1
    assert "broken.mat" in res.output
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["match"]["games_analysed"] == 1


def test_position_hint_and_cube() -> None:
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    res = runner.invoke(app, ["position", xgid, "--dice", "31", "--ply", "0"], env={"COLUMNS": "160"})
    assert res.exit_code == 0, res.output
    assert "Position ID: 4HPwATDgc/ABMA" in res.stdout and "plays for the roll 31" in res.stdout
    assert "8/5 6/5" in res.stdout
    res = runner.invoke(app, ["position", xgid, "--ply", "0"], env={"COLUMNS": "160"})
    assert res.exit_code == 0, res.output
    assert "No double" in res.stdout and "Proper cube action: no double" in res.stdout
    res = runner.invoke(app, ["position", "nonsense"])
    assert res.exit_code == 2 and "not a position" in res.output


def test_rollout_analysis(short_match: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    res = runner.invoke(app, ["analyze", str(short_match), "--rollout", "--trials", "36", "--truncate", "2",
                              "-o", str(out), "-f", "json", "--no-html"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["metadata"]["rollout"]["trials"] == 36 and doc["metadata"]["ply"] is None
    df = pl.read_parquet(out / "decisions.parquet")
    checker = df.filter((pl.col("kind") == "checker") & ~pl.col("forced"))
    assert checker.height > 0 and (checker["equity_loss"] >= 0).all()
    for r in checker.iter_rows(named=True):
        assert r["played"] in [c["play"] for c in r["candidates"]]
    assert df.filter(pl.col("kind") == "take").height == 1


def test_failing_charts_keep_the_report_and_tables(short_match: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import analyzer.render.charts as charts

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("no fonts")

    monkeypatch.setattr(charts, "render_charts", broken)
    out = tmp_path / "o"
    res = runner.invoke(app, ["analyze", str(short_match), "--ply", "0", "-o", str(out), "--no-confirm"])
    assert res.exit_code == 0, res.output
    assert "the charts failed: RuntimeError: no fonts" in res.output
    assert (out / "report.html").exists() and (out / "summary.json").exists()
    assert not (out / "luck.svg").exists()
