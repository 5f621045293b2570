"""CLI tests of ``bgreview moves``."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.core.ids import decode_position_id, encode_key, position_from_json
from analyzer.core.position import Position

runner = CliRunner()


def test_moves_json_lists_every_play_with_result_and_id() -> None:
    res = runner.invoke(app, ["moves", "4HPwATDgc/ABMA", "--dice", "31", "--format", "json"])
    assert res.exit_code == 0, res.output
    plays = json.loads(res.stdout)["plays"]
    assert len(plays) == 16  # rules.md S03
    texts = {p["play"] for p in plays}
    assert {"8/5 6/5", "24/20", "13/9"} <= texts
    for p in plays:
        result = position_from_json(p["result"])
        # position_id is the result with the opponent on roll
        assert decode_position_id(p["position_id"]) == result.flip()


def test_moves_table_and_csv() -> None:
    res = runner.invoke(app, ["moves", "4HPwATDgc/ABMA", "--dice", "6-5"])
    assert res.exit_code == 0
    assert "24/13" in res.stdout
    res = runner.invoke(app, ["moves", "4HPwATDgc/ABMA", "--dice", "65", "--format", "csv"])
    assert res.exit_code == 0
    lines = res.stdout.strip().splitlines()
    assert lines[0] == "n,play,position_id"
    assert len(lines) == 8  # header + the 7 plays of S02


def test_moves_bad_input_is_one_line_and_exit_2() -> None:
    for args in (["moves", "garbage!", "--dice", "31"], ["moves", "4HPwATDgc/ABMA", "--dice", "71"],
                 ["moves", "4HPwATDgc/ABMA"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2, args
        assert "Traceback" not in res.output
        assert res.stderr.strip().count("\n") == 0


def test_moves_batch_keeps_order_and_reports_errors() -> None:
    dutch = Position.start("dutch")
    from analyzer.core.ids import position_to_json

    lines = [
        json.dumps({"position": "4HPwATDgc/ABMA", "dice": [6, 5]}),
        "not json",
        json.dumps({"position": position_to_json(dutch), "dice": [4, 2]}),
        json.dumps({"position": "4HPwATDgc/ABMA", "dice": [0, 1]}),
        # closed board, one on the bar: cannot move (rules.md S12)
        json.dumps({"position": encode_key(Position.from_notation(
            "P 6:14 | O 24:2 23:2 22:2 21:2 20:2 19:2 12:3 | bar P1")), "dice": [6, 1]}),
    ]
    res = runner.invoke(app, ["moves", "--batch", "-"], input="\n".join(lines) + "\n")
    assert res.exit_code == 0, res.output
    out = [json.loads(x) for x in res.stdout.strip().splitlines()]
    assert len(out) == 5
    assert len(out[0]["plays"]) == 7
    assert "error" in out[1]
    assert {p["play"] for p in out[2]["plays"]} == {"bar/23 bar/21", "bar/19"}  # rules.md D02
    assert "error" in out[3]
    assert out[4] == {"plays": []}
