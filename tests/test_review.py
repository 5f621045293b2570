"""``analyzer.review.review_records``: the library call behind ``bgreview analyze`` returns what it wrote and
prints nothing (0-ply, short inputs)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from analyzer.analysis.settings import ReviewSettings
from analyzer.core.files import OutputError
from analyzer.eval.engine import Engine
from analyzer.formats.mat import read_match_text
from analyzer.review import Review, review_records

TWO = """ 3 point match

 Game 1
 ann : 0                        bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point

 Game 2
 ann : 0                        bob : 1
  1) 31: 24/1
"""
"""A match whose second game does not replay (24/1 with a 31)."""


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def test_review_returns_what_it_wrote_and_prints_nothing(tmp_path: Path, engine: Engine,
                                                         capfd: pytest.CaptureFixture[str]) -> None:
    records = read_match_text(TWO, name="two.mat")
    notices: list[tuple[str, str]] = []
    ticks: list[tuple[int, int, int]] = []
    review = review_records(records, ReviewSettings(ply=0), out=tmp_path / "o", html=False,
                            sgf=tmp_path / "two.sgf", engine=engine,
                            progress=lambda *a: ticks.append(a), notice=lambda *a: notices.append(a))
    assert capfd.readouterr() == ("", "")
    assert isinstance(review, Review) and review.sgf == tmp_path / "two.sgf"
    [m] = review.matches
    assert m.folder == tmp_path / "o" and m.record is records[0]
    assert [p.name for p in m.files] == ["decisions.parquet", "decisions.csv", "summary.json", "two.sgf"]
    assert all(p.is_file() for p in m.files)
    # the game that does not replay: one problem, told as it was met, the other game reviewed
    assert review.problems == 1 and len(m.problems) == 1 and notices == [("error", m.problems[0])]
    summary = json.loads((tmp_path / "o" / "summary.json").read_text(encoding="utf-8"))
    assert summary == {k: v for k, v in m.summary().items() if k != "files"}
    assert m.summary()["files"] == [str(p) for p in m.files]
    assert summary["match"]["games_analysed"] == 1
    written = pl.read_parquet(tmp_path / "o" / "decisions.parquet")
    assert written.equals(m.analysis.decisions)
    assert (tmp_path / "two.sgf").read_text(encoding="utf-8").startswith("(;")
    assert ticks and {t[0] for t in ticks} == {0} and ticks[-1][1] == ticks[-1][2] > 0


def test_each_record_has_its_folder(tmp_path: Path, engine: Engine) -> None:
    records = read_match_text(TWO.split("\n Game 2")[0] * 2, name="m.mat")
    assert len(records) == 2
    review = review_records(records, ReviewSettings(ply=0), out=tmp_path, html=False, engine=engine)
    assert [m.folder for m in review.matches] == [tmp_path / "m", tmp_path / "m-2"]
    assert review.problems == 0 and review.sgf is None
    assert all((m.folder / "summary.json").is_file() for m in review.matches)


def test_a_folder_that_cannot_be_written_is_an_output_error(tmp_path: Path, engine: Engine) -> None:
    there = tmp_path / "a-file"
    there.write_text("mine")
    records = read_match_text(TWO, name="two.mat")
    with pytest.raises(OutputError) as info:
        review_records(records, ReviewSettings(ply=0), out=there, html=False, engine=engine)
    assert info.value.filename is not None and info.value.filename.startswith(str(there))
    assert there.read_text() == "mine"
