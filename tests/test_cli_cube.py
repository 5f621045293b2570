"""``bgreview cube`` (single position, --batch) and ``bgreview rollout`` through Typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.cli.cube import ACTIONS, simple_action
from analyzer.core.ids import encode_position_id, match_id_from_state
from analyzer.core.match import MatchState
from analyzer.core.position import Position

runner = CliRunner()
OPENING = "4HPwATDgc/ABMA"
RACE_8PCT = Position.from_points({6: 3, 5: 3, 4: 3, 8: 2, 9: 2, 11: 2},
                                 {19: 3, 20: 3, 21: 2, 17: 2, 16: 2, 14: 2, 13: 1})
CLOSED_OUT = Position.from_points({6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 8: 3}, {13: 3, 17: 3, 19: 4, 20: 4},
                                  opponent_bar=1)


def _with_match(pos: Position, state: MatchState, on_roll: int = 0) -> str:
    """PositionID:MatchID of ``pos`` with the side on roll = ``on_roll``."""
    mid = match_id_from_state(state, on_roll=on_roll, turn=on_roll)
    return f"{encode_position_id(pos)}:{mid.encode()}"


def test_simple_action_covers_every_wording() -> None:
    words = ["no double, take", "no redouble, pass", "double, take", "redouble, pass", "double, beaver",
             "too good to double, pass", "too good to redouble, take", "never double, take (dead cube)",
             "no double possible"]
    assert {simple_action(w) for w in words} == set(ACTIONS)
    with pytest.raises(ValueError):
        simple_action("resign")


def test_cube_json_has_the_four_keys() -> None:
    res = runner.invoke(app, ["cube", encode_position_id(RACE_8PCT), "--ply", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert {"nd", "dt", "dp", "action"} <= set(d)
    assert d["action"] == "double, take" and d["dp"] == 1.0 and d["dt"] > d["nd"]
    assert d["proper_action"] == "Double, take" and d["money"] is True


def test_cube_ply_is_the_cubeful_search_unless_root_conversion() -> None:
    from analyzer.eval.cube_search import cube_decision_nply
    from analyzer.eval.engine import Engine

    search = json.loads(runner.invoke(app, ["cube", encode_position_id(RACE_8PCT), "--ply", "1", "-f", "json"]).stdout)
    root = json.loads(runner.invoke(app, ["cube", encode_position_id(RACE_8PCT), "--ply", "1", "--root-conversion",
                                          "-f", "json"]).stdout)
    assert search["method"] == "1-ply cubeful" and "root" in root["method"]
    engine = Engine()
    for d, flag in ((search, False), (root, True)):
        want = cube_decision_nply(engine, RACE_8PCT, MatchState(), 0, 1, root_conversion=flag)
        assert (d["nd"], d["dt"]) == (want.nd, want.dt)
    assert search["nd"] != root["nd"]
    line = json.dumps({"position": _with_match(RACE_8PCT, MatchState()), "ply": 1, "root_conversion": True})
    res = runner.invoke(app, ["cube", "--batch", "-"], input=line + "\n")
    assert json.loads(res.stdout)["nd"] == root["nd"]


def test_cube_table_money_and_match() -> None:
    res = runner.invoke(app, ["cube", encode_position_id(CLOSED_OUT), "--ply", "0"])
    assert res.exit_code == 0, res.output
    assert "Proper cube action: Too good to double, pass" in res.stdout
    assert "1. No double" in res.stdout and "Take point:" in res.stdout
    spec = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:2:0:7:10"  # 7-point match, cube 2 owned by the roller
    res = runner.invoke(app, ["cube", spec, "--ply", "0"])
    assert res.exit_code == 0, res.output
    assert "EMG" in res.stdout and "MWC" in res.stdout and "No redouble" in res.stdout


def test_cube_batch_keeps_order_and_reports_bad_lines(tmp_path: Path) -> None:
    lines = [json.dumps({"position": _with_match(RACE_8PCT, MatchState()), "ply": 0}), "not json",
             "", json.dumps({"position": "nonsense"}),
             json.dumps({"position": encode_position_id(CLOSED_OUT), "ply": 1})]
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(lines) + "\n")
    res = runner.invoke(app, ["cube", "--batch", str(f)])
    assert res.exit_code == 0, res.output
    out = [json.loads(x) for x in res.stdout.splitlines()]
    assert len(out) == 5  # one line out per line in, the blank line included
    assert out[0]["action"] == "double, take"
    for n in (2, 3, 4):
        assert set(out[n - 1]) == {"error", "line"} and out[n - 1]["line"] == n
        assert out[n - 1]["error"].startswith(f"line {n}: ")
    assert out[4]["action"] == "too good, pass"
    res = runner.invoke(app, ["cube", "--batch", "-"], input=lines[4] + "\n")
    assert res.exit_code == 0 and json.loads(res.stdout)["action"] == "too good, pass"


def test_cube_batch_rollout_line() -> None:
    line = json.dumps({"position": encode_position_id(RACE_8PCT), "rollout": True, "trials": 36})
    res = runner.invoke(app, ["cube", "--batch", "-", "--truncate", "2", "--workers", "1"], input=line)
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["action"] == "double, take" and d["method"].startswith("rollout (36 trials")


def test_cube_usage_errors() -> None:
    assert runner.invoke(app, ["cube"]).exit_code == 2
    assert runner.invoke(app, ["cube", "garbage!"]).exit_code == 2
    assert runner.invoke(app, ["cube", OPENING, "--ply", "9"]).exit_code == 2
    assert runner.invoke(app, ["cube", "--batch", "/nonexistent/file"]).exit_code == 2


def test_cube_rollout_option() -> None:
    res = runner.invoke(app, ["cube", OPENING, "--rollout", "--trials", "36", "--truncate", "1",
                              "--workers", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["action"] == "no double"
    res = runner.invoke(app, ["cube", encode_position_id(RACE_8PCT), "--rollout", "--cube-play", "--trials", "72",
                              "--truncate", "6", "--workers", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["action"] in ACTIONS and "cube played" in d["method"] and d["dt"] is not None


def test_rollout_command_json_and_table() -> None:
    res = runner.invoke(app, ["rollout", OPENING, "--dice", "31", "--trials", "36", "--truncate", "2",
                              "--plays", "2", "--within", "1", "--workers", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["trials"] == 36 and d["dice"] == [3, 1] and len(d["candidates"]) == 2
    assert d["candidates"][0]["play"] == "8/5 6/5" and d["candidates"][0]["equity_se"] >= 0
    res = runner.invoke(app, ["rollout", OPENING, "--trials", "36", "--truncate", "1", "--cubeless",
                              "--workers", "1", "--seed", "3"])
    assert res.exit_code == 0, res.output
    assert "before the roll" in res.stdout and "95% CI" in res.stdout and "Proper cube action" not in res.stdout
    res2 = runner.invoke(app, ["rollout", OPENING, "--trials", "36", "--truncate", "1", "--cubeless",
                               "--workers", "1", "--seed", "3"])
    assert res2.stdout == res.stdout
    assert runner.invoke(app, ["rollout", OPENING, "--trials", "0"]).exit_code == 2
    assert runner.invoke(app, ["rollout", OPENING, "--dice", "77"]).exit_code == 2


def test_rollout_command_with_cube_play() -> None:
    res = runner.invoke(app, ["rollout", encode_position_id(CLOSED_OUT), "--trials", "36", "--truncate", "4",
                              "--cube-play", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "cube played" in res.stdout and "Proper cube action: Too good" in res.stdout
    spec = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10"  # a match: cube games in MWC, shown in EMG
    res = runner.invoke(app, ["rollout", spec, "--trials", "36", "--truncate", "4", "--cube-play", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert "cube played" in res.stdout and "Proper cube action: No double" in res.stdout
