"""An XGID that begins with "-" (point 1 empty) is a position, not an unknown option (issue 27)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from analyzer.cli import app, main
from analyzer.core.ids import encode_position_id, parse_position_spec

START = "-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
ROLLED = "-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as e:
        main(argv)
    out, err = capsys.readouterr()
    return int(e.value.code or 0), out, err


def test_click_alone_takes_it_for_an_option() -> None:
    result = CliRunner().invoke(app, ["show", START])
    assert result.exit_code == 2  # what the entry point protects against


@pytest.mark.parametrize("argv", [
    ["show", START],
    ["show", START, "--format", "json"],
    ["show", "--format", "json", START],
    ["show", "--", START],
])
def test_show(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(argv, capsys)
    assert code == 0, err
    if "json" in argv:
        assert json.loads(out)["position_id"] == "4HPwATDgc/ABMA"
    else:
        assert "4HPwATDgc/ABMA" in out


def test_moves_and_eval(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["moves", ROLLED, "--dice", "31", "--format", "json"], capsys)
    assert code == 0, err
    assert "8/5 6/5" in out
    code, out, err = run_main(["eval", "--format", "json", START], capsys)
    assert code == 0, err
    assert json.loads(out)["position"] == START


def test_hint_takes_the_xgid(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["hint", ROLLED, "--ply", "0", "--dice", "31", "--format", "json"], capsys)
    assert code == 0, err
    assert json.loads(out)["plays"][0]["play"] == "8/5 6/5"


def test_other_arguments_are_left_alone(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["show", "-q"], capsys)
    assert code == 2 and "-q" in err
    assert encode_position_id(parse_position_spec(START).position) == "4HPwATDgc/ABMA"
