"""CLI tests of ``bgreview show``."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.core.ids import decode_position_id, encode_key, parse_position_spec
from analyzer.core.position import Position

runner = CliRunner()


def test_show_standard_prints_board_and_every_id() -> None:
    res = runner.invoke(app, ["show", "4PPgASjgc/ABMA:cAnqAAAAAAAE"])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "Position ID: 4PPgASjgc/ABMA" in out and "Match ID: cAnqAAAAAAAE" in out
    assert "XGID=-aa---E-C---dE---d-e----B-:0:0:1:42:0:0:0:7:10" in out  # formats.md §3.3
    assert "+13-14-15-16-17-18------19-20-21-22-23-24-+" in out
    assert "7-point match" in out and "pips 161" in out and "pips 167" in out


def test_show_accepts_every_position_form_and_agrees() -> None:
    start = Position.start()
    forms = ["4HPwATDgc/ABMA", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
             "-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", encode_key(start)]
    for f in forms:
        # an XGID may start with "-": "--" ends the options, as with any command-line tool
        res = runner.invoke(app, ["show", "--format", "json", "--", f])
        assert res.exit_code == 0, (f, res.output)
        data = json.loads(res.stdout)
        assert decode_position_id(data["position_id"]) == start
        assert parse_position_spec(json.dumps(data["position"])).position == start


def test_show_variants_and_mirror() -> None:
    pos = Position.from_notation("P 14:1 10:1+o 1:13 | O 21:14", "mahbusa")
    right = runner.invoke(app, ["show", encode_key(pos)]).stdout
    left = runner.invoke(app, ["show", encode_key(pos), "--home-side", "left"]).stdout
    assert "pinned" in right and right != left
    assert "+-1--2--3--4--5--6-------7--8--9-10-11-12-+" in left
    dutch = runner.invoke(app, ["show", encode_key(Position.start("dutch"))])
    assert dutch.exit_code == 0 and "Dutch" in dutch.stdout


def test_show_bad_input() -> None:
    res = runner.invoke(app, ["show", "XGID=nonsense"])
    assert res.exit_code == 2
    assert "Traceback" not in res.output and res.stderr.startswith("error:")
