"""``bgreview eval``, ``hint`` and ``position`` on standard, Dutch and Mahbusa positions through the
Typer runner. The variant outputs are compared with the variant engine's own API
(:func:`analyzer.eval.variants.engine.engine_for`), the standard ones with :class:`Engine`."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.analysis.replay import replay_games
from analyzer.cli import app
from analyzer.core.ids import encode_key, position_to_json
from analyzer.core.position import Position
from analyzer.formats.mat import read_matches

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("dutch", "mahbusa")
runner = CliRunner()


def _midgame(variant: str, move: int = 14) -> Position:
    """A position from the middle of the first game of the variant's sample match."""
    [record] = list(read_matches(ROOT / "data" / "samples" / f"{variant}-selfplay-3p.mat"))
    game = next(iter(replay_games(record)))
    moves = [d for d in game.decisions if d.kind == "move"]
    return moves[move].position


def _engine(variant: str):  # noqa: ANN202 - the variant engine (imported lazily as the CLI does)
    from analyzer.eval.variants.engine import engine_for

    return engine_for(variant)


def _invoke(*args: str) -> tuple[int, str]:
    res = runner.invoke(app, list(args), env={"COLUMNS": "160"})
    return res.exit_code, res.output


@pytest.mark.parametrize("variant", VARIANTS)
def test_eval_json_is_the_engines_evaluation(variant: str) -> None:
    pos = _midgame(variant)
    code, out = _invoke("eval", encode_key(pos), "--ply", "1", "-f", "json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["variant"] == variant and doc["cube"] is None and "no doubling cube" in doc["note"]
    eng = _engine(variant)
    assert [r["ply"] for r in doc["evaluations"]] == [0, 1]
    for row in doc["evaluations"]:
        p = eng.evaluate(pos, row["ply"])
        for name in ("win", "win_gammon", "lose", "lose_gammon", "equity"):
            assert math.isclose(row[name], getattr(p, name), abs_tol=1e-12), name
        assert row["win_backgammon"] == row["lose_backgammon"] == 0.0
        assert ("draw" in row) == (variant == "mahbusa")
        if variant == "mahbusa":
            assert math.isclose(row["draw"], p.draw, abs_tol=1e-12)


@pytest.mark.parametrize("variant", VARIANTS)
def test_eval_accepts_the_json_form_and_says_there_is_no_cube(variant: str) -> None:
    pos = _midgame(variant, 9)
    code, out = _invoke("eval", json.dumps(position_to_json(pos)))
    assert code == 0, out
    p = _engine(variant).evaluate(pos, 0)
    assert f"{p.equity:+.3f}" in out and "no doubling cube" in out and "Points" in out
    assert ("Draw" in out) == (variant == "mahbusa") and "W bg" not in out
    code, out = _invoke("eval", encode_key(pos), "-f", "csv")
    assert code == 0, out
    [row] = list(csv.DictReader(io.StringIO(out)))
    assert float(row["equity"]) == pytest.approx(p.equity, abs=5e-5)
    assert float(row["win"]) == pytest.approx(p.win, abs=5e-5) and ("draw" in row) == (variant == "mahbusa")


@pytest.mark.parametrize("variant", VARIANTS)
def test_hint_ranks_like_the_engine(variant: str) -> None:
    pos = _midgame(variant)
    ranked = _engine(variant).rank_plays(pos, (5, 2), 1)
    code, out = _invoke("hint", encode_key(pos), "-d", "52", "-p", "1", "-n", "50", "-f", "json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["variant"] == variant and doc["cube"] is None and doc["dice"] == [5, 2]
    assert [r["play"] for r in doc["plays"]] == [r.play for r in ranked][:50]
    for row, r in zip(doc["plays"], ranked, strict=False):
        assert row["ply"] == r.ply and math.isclose(row["equity"], r.equity, abs_tol=1e-12)
        assert math.isclose(row["diff"], r.equity - ranked[0].equity, abs_tol=1e-12)
        assert math.isclose(row["win"], r.probabilities.win, abs_tol=1e-12)
    code, out = _invoke("hint", encode_key(pos), "-d", "5-2", "-p", "0", "-n", "3")
    assert code == 0, out
    best0 = _engine(variant).rank_plays(pos, (5, 2), 0)[0]
    assert best0.play in out and f"{best0.equity:+.3f}" in out and "no doubling cube" in out


@pytest.mark.parametrize("variant", VARIANTS)
def test_position_draws_and_ranks_or_evaluates(variant: str) -> None:
    pos = _midgame(variant)
    key = encode_key(pos)
    code, out = _invoke("position", key, "-d", "64", "-p", "1", "-n", "5")
    assert code == 0, out
    best = _engine(variant).rank_plays(pos, (6, 4), 1)[0]
    assert key in out and best.play in out and f"{best.equity:+.3f}" in out and "no doubling cube" in out
    assert "Proper cube action" not in out
    code, out = _invoke("position", key, "-p", "1")
    assert code == 0, out
    p = _engine(variant).evaluate(pos, 1)
    assert key in out and f"{p.equity:+.3f}" in out and "1-ply" in out and "no doubling cube" in out


def test_variant_ply_limit_and_errors() -> None:
    key = encode_key(Position.start("dutch"))
    for cmd in (["eval", key, "-p", "3"], ["hint", key, "-d", "31", "-p", "3"], ["position", key, "-p", "3"]):
        code, out = _invoke(*cmd)
        assert code == 2 and "--ply must be 0..2 for dutch" in out, cmd
    code, out = _invoke("eval", key, "--variant", "mahbusa")
    assert code == 2 and "dutch key where mahbusa was asked" in out
    code, out = _invoke("hint", key, "-d", "77")
    assert code == 2 and "Traceback" not in out


def test_standard_eval_and_hint_match_the_engine() -> None:
    from analyzer.eval.engine import Engine

    xgid = "XGID=-aa---E-C---dE---d-e----B-:0:0:1:42:0:0:0:7:10"
    code, out = _invoke("eval", xgid, "-f", "json")
    assert code == 0, out
    doc = json.loads(out)
    assert set(doc) == {"position", "evaluations"}  # the standard output is unchanged
    from analyzer.core.ids import parse_position_spec

    pos = parse_position_spec(xgid).position
    eng = Engine()
    assert doc["evaluations"][0] == {**eng.evaluate(pos, 0).as_dict(), "ply": 0}
    # a money XGID with --cubeless: cubeless ranking, as the engine ranks
    money = xgid.replace(":0:0:0:7:10", ":0:0:0:0:10")
    code, out = _invoke("hint", money, "-d", "42", "-p", "0", "-f", "json", "--cubeless")
    assert code == 0, out
    assert json.loads(out)["equity"] == "cubeless"
    assert [r["play"] for r in json.loads(out)["plays"]] == [r.play for r in eng.rank_plays(pos, (4, 2), 0)][:10]
    # a match XGID (the roll taken from it): cubeful EMG at its score, as position --dice ranks
    from analyzer.analysis.decisions import hint
    from analyzer.eval.met import met_by_name

    code, out = _invoke("hint", xgid, "-p", "0", "-f", "json")
    assert code == 0, out
    doc = json.loads(out)
    spec = parse_position_spec(xgid)
    assert spec.match is not None
    cands = hint(eng, pos, (4, 2), spec.match, spec.on_roll or 0, ply=0, met=met_by_name())
    assert doc["equity"] == "cubeful EMG" and doc["dice"] == [4, 2]
    assert [r["play"] for r in doc["plays"]] == [c.play for c in cands][:10]


@pytest.mark.parametrize("xgid", [
    "XGID=-a---BDBB-A-bB---c-d--daB-:1:-1:1:32:0:0:0:0:10",  # money, the opponent owns a 2-cube
    "XGID=-a---BDBB-A-bB---c-d--daB-:0:0:1:32:0:0:3:0:10",  # money, centred, Jacoby and beavers
    "4HPwATDgc/ABMA",  # a bare Position ID: money, centred
])
def test_hint_ranks_money_plays_cubefully(xgid: str) -> None:
    """``hint`` of a money position ranks by cubeful money equity (cube position, Jacoby and beavers
    as the ID sets), as gnubg and XG do; ``--cubeless`` by cubeless equity (issue 52). In the first
    two positions the two rankings put different plays first."""
    from analyzer.analysis.decisions import hint
    from analyzer.core.ids import parse_position_spec
    from analyzer.core.match import MatchState
    from analyzer.eval.engine import Engine

    spec = parse_position_spec(xgid)
    dice = spec.dice or (3, 2)
    state = spec.match or MatchState()
    eng = Engine()
    want = [c.play for c in hint(eng, spec.position, dice, state, spec.on_roll or 0, ply=0)][:10]
    code, out = _invoke("hint", xgid, "-d", f"{dice[0]}{dice[1]}", "-p", "0", "-f", "json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["equity"] == "cubeful money" and [r["play"] for r in doc["plays"]] == want
    code, out = _invoke("hint", xgid, "-d", f"{dice[0]}{dice[1]}", "-p", "0", "-f", "json", "--cubeless")
    cubeless = [r["play"] for r in json.loads(out)["plays"]]
    assert cubeless == [r.play for r in eng.rank_plays(spec.position, dice, 0)][:10]
    if xgid.startswith("XGID"):
        assert cubeless[0] != want[0]
