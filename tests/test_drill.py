"""`bgreview drill`: answers judged through the rules engine, the schedule across restarts, the Anki deck."""

from __future__ import annotations

import os
import sqlite3
import sys
import zipfile
from pathlib import Path

import pytest
from profile_data import make_row, write_dataset
from typer.testing import CliRunner

from analyzer.batch.drill import DAY, Schedule, check_answer, load_cards
from analyzer.cli import app
from analyzer.core.ids import encode_key
from analyzer.core.position import Position

# X on roll with 6-5: running a back checker 24/13 is best; the candidates' equities are made up for the test
CANDIDATES = [{"play": "24/13", "equity": 0.05}, {"play": "13/7 13/8", "equity": -0.01},
              {"play": "24/18 13/8", "equity": 0.049}]


def _cands(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    full = []
    for c in rows:
        full.append({"win": 0.5, "win_gammon": 0.1, "win_backgammon": 0.0, "lose_gammon": 0.1,
                     "lose_backgammon": 0.0, "draw": 0.0, **c})
    return full


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    start = encode_key(Position.start())
    rows = [
        make_row("ann", 0.06, match=0, move=1, dice="65", played="13/7 13/8", best="24/13",
                 candidates=_cands(CANDIDATES), error_class="error"),
        make_row("ann", 0.09, match=0, move=2, kind="take", played="take", best="pass", dice=None,
                 cube_error="wrong take", cube_nd=0.9, cube_dt=1.09, cube_dp=1.0, cube_action="double, pass",
                 error_class="blunder", key=start),
        make_row("ann", 0.005, match=0, move=3, dice="31", error_class="none"),  # not an error: no card
        make_row("bob", 0.2, match=0, move=4, dice="65", played="13/7 13/8", best="24/13",
                 candidates=_cands(CANDIDATES), error_class="blunder"),
    ]
    return write_dataset(tmp_path / "ds", rows, {0: "2024-01-05"})


def test_cards_and_filters(dataset: Path) -> None:
    cards = load_cards(dataset, "ANN")
    assert [(c.kind, round(c.equity_loss, 3)) for c in cards] == [("take", 0.09), ("checker", 0.06)]
    assert [c.kind for c in load_cards(dataset, "ann", kinds=["checker"])] == ["checker"]
    assert load_cards(dataset, "ann", min_loss=0.07)[0].kind == "take"
    assert load_cards(dataset, "ann", themes=["race"]) == []
    assert len(load_cards(dataset, "ann", themes=["middle game"])) == 2


def test_answers_are_judged_by_the_resulting_position(dataset: Path) -> None:
    card = load_cards(dataset, "ann", kinds=["checker"])[0]
    assert check_answer(card, "24/13").status == "right"
    assert check_answer(card, "24/18/13").status == "right"  # the same checker, the same result
    assert check_answer(card, "24/18 18/13").status == "right"
    wrong = check_answer(card, "13/8 13/7")
    assert (wrong.status, wrong.answer) == ("wrong", "13/8 13/7") and wrong.loss == pytest.approx(0.06)
    near = check_answer(card, "24/18 13/8")  # 1 m from the best: a different position, judged wrong
    assert near.status == "wrong" and near.loss == pytest.approx(0.001)
    assert check_answer(card, "24/17").status == "illegal"  # no 7 on the dice
    assert check_answer(card, "24/18").status == "partial"
    take = load_cards(dataset, "ann", kinds=["take"])[0]
    assert check_answer(take, "p").status == "right" and check_answer(take, "take").status == "wrong"
    assert check_answer(take, "double").status == "unknown"


def test_the_schedule_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    s = Schedule(path)
    s.record("a", True, now=0.0)
    s.record("b", False, now=0.0)
    s.close()
    s = Schedule(path)  # a new process would open the file the same way
    assert s.state("a") is not None and s.state("a")["reps"] == 1  # type: ignore[index]
    assert not s.is_due("a", 0.9 * DAY) and s.is_due("a", 1.0 * DAY) and s.is_due("b", 601.0)
    s.record("a", True, now=1.0 * DAY)
    assert s.state("a")["interval"] == 3.0  # type: ignore[index]
    s.record("a", True, now=4.0 * DAY)
    assert s.state("a")["interval"] == pytest.approx(3.0 * 2.7)  # type: ignore[index]
    s.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM cards").fetchone() == (2,)


def test_a_session_through_the_command(dataset: Path, tmp_path: Path) -> None:
    sched = tmp_path / "drill.sqlite"
    res = CliRunner().invoke(app, ["drill", str(dataset), "--player", "ann", "--kind", "checker",
                                   "--schedule", str(sched)], input="24/17\n24/13\n")
    assert res.exit_code == 0, res.output
    assert "illegal" in res.output and "right: 24/13" in res.output and "1 of 1 right" in res.output
    assert "13/7 13/8" in res.output and "valued by" in res.output
    res = CliRunner().invoke(app, ["drill", str(dataset), "--player", "ann", "--kind", "checker",
                                   "--schedule", str(sched)])
    assert res.exit_code == 0 and "nothing due" in res.output  # answered right: not before tomorrow


def test_no_card_and_bad_kind(dataset: Path) -> None:
    res = CliRunner().invoke(app, ["drill", str(dataset), "--player", "dora"])
    assert res.exit_code == 2 and "no error of player 'dora'" in res.output
    res = CliRunner().invoke(app, ["drill", str(dataset), "--player", "ann", "--kind", "chequer"])
    assert res.exit_code == 2


def test_the_anki_export_is_a_valid_package(dataset: Path, tmp_path: Path) -> None:
    pytest.importorskip("genanki")
    out = tmp_path / "ann.apkg"
    res = CliRunner().invoke(app, ["drill", str(dataset), "--player", "ann", "--anki", str(out)])
    assert res.exit_code == 0, res.output
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        assert "collection.anki2" in names and "media" in names
        z.extract("collection.anki2", tmp_path)
        media = z.read("media").decode()
        svgs = [z.read(n) for n in names if n.isdigit()]
    assert media.count(".svg") == 2 and all(s.lstrip().startswith(b"<svg") for s in svgs)
    with sqlite3.connect(tmp_path / "collection.anki2") as db:
        notes = db.execute("SELECT flds FROM notes").fetchall()
        assert db.execute("SELECT COUNT(*) FROM cards").fetchone() == (2,)
    fields = [n[0].split("\x1f") for n in notes]
    assert all(f[1].startswith('<img src="bgreview-') for f in fields)
    assert any("take or pass" in f[2] for f in fields) and any("65 to play" in f[2] for f in fields)


@pytest.mark.integration
def test_drill_in_a_pseudo_terminal(dataset: Path, tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    env = {**os.environ, "COLUMNS": "100", "PYTHONFAULTHANDLER": "1"}
    args = ["-m", "analyzer", "drill", str(dataset), "--player", "ann", "--schedule", str(tmp_path / "s.sqlite")]
    child = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", timeout=60)
    try:
        child.expect("take or pass")
        child.expect("your answer")
        child.sendline("take")
        child.expect("wrong: take")
        child.expect("your answer")
        child.sendline("24/17")
        child.expect("illegal")
        child.expect("your answer")
        child.sendline("13/8 13/7")
        child.expect("wrong: 13/8 13/7, losing 60 mEMG")
        child.expect("0 of 2 right")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    child = pexpect.spawn(sys.executable, args, env=env, encoding="utf-8", timeout=60)
    try:  # both were wrong: due again in ten minutes, not now
        child.expect("nothing due")
        child.expect(pexpect.EOF)
    finally:
        child.close()


@pytest.mark.integration
def test_dutch_and_mahbusa_profiles_and_drills(tmp_path: Path) -> None:
    from analyzer.analysis.themes import DUTCH_THEMES, MAHBUSA_THEMES
    from analyzer.batch import BatchOptions, run_batch
    from analyzer.batch.profile import player_profile

    samples = Path(__file__).resolve().parents[1] / "data" / "samples"
    files = [str(samples / "dutch-selfplay-3p.mat"), str(samples / "mahbusa-selfplay-3p.mat")]
    run_batch(files, tmp_path / "ds", options=BatchOptions(ply=0), jobs=1)
    for variant, themes in (("dutch", DUTCH_THEMES), ("mahbusa", MAHBUSA_THEMES)):
        p = player_profile(tmp_path / "ds", "net A", variant=variant)
        assert p.unit == "points" and p.decisions > 50
        got = {c.label for c in p.dimension("theme")}
        assert got <= set(themes) and len(got) >= 3
        assert {c.label for c in p.dimension("kind")} == {"checker play"}
        cards = [c for c in load_cards(tmp_path / "ds", "net A", kinds=["checker"]) if c.variant == variant]
        assert cards
        card = cards[0]
        assert check_answer(card, card.best).status == "right"
        assert check_answer(card, card.played).status == "wrong"


def test_a_single_review_is_a_source_too(dataset: Path, tmp_path: Path) -> None:
    """The folder `bgreview analyze` writes holds decisions.parquet (no theme column: computed)."""
    import polars as pl

    review = tmp_path / "review"
    review.mkdir()
    frame = pl.concat([pl.read_parquet(p) for p in sorted((dataset / "decisions").glob("*.parquet"))])
    frame.drop("match_index", "phase", "theme", "crawford", "post_crawford").write_parquet(review / "decisions.parquet")
    cards = load_cards(review, "ann")
    assert [c.kind for c in cards] == ["take", "checker"] and cards[1].theme == "middle game"
    assert check_answer(cards[1], "24/13").status == "right"
    res = CliRunner().invoke(app, ["drill", str(review / "decisions.parquet"), "--player", "ann", "--kind", "take"],
                             input="p\n")
    assert res.exit_code == 0 and "right: pass" in res.output
    assert (review / "drill.sqlite").is_file()
