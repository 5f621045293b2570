"""Hostile position and JSON-lines inputs (issue 31, defects 3 and 7).

Every command that reads a POSITION or a JSON-lines batch answers bad input with one clear error
(exit 2, or one error object per batch line naming its line), never a traceback; a batch writes
exactly one output line per input line, in order. A position is one to play only while its game
and match go on: ``show`` draws a finished game, the commands that play, evaluate or double refuse it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from analyzer.cli import app
from analyzer.core.dice import Roll
from analyzer.core.errors import InputError, ParseError, PositionError, RulesError
from analyzer.core.ids import (
    XGID,
    GameState,
    decode_xgid,
    encode_key,
    encode_position_id,
    encode_xgid,
    match_id_from_state,
    parse_position_spec,
    position_from_json,
    position_to_json,
    xgid_from_position,
)
from analyzer.core.match import MatchState, next_game
from analyzer.core.position import Position
from analyzer.rules.listing import moves_batch_line

runner = CliRunner()
OPENING = "4HPwATDgc/ABMA"
GOOD = json.dumps({"position": OPENING, "dice": [3, 1]})
DEEP = "[" * 1000 + "]" * 1000
DEEP_OBJECT = '{"variant": ' + DEEP + "}"
HUGE = "9" * 5000  # more digits than Python converts to an int by default


def _lines(stdout: str) -> list[dict[str, Any]]:
    out = stdout.split("\n")
    assert out[-1] == "", "the output ends with a newline"
    return [json.loads(x) for x in out[:-1]]


def _one_line_error(res: Any) -> str:
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output
    err: str = res.stderr
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def _assert_error_line(obj: dict[str, Any], line: int, *words: str) -> None:
    assert set(obj) == {"error", "line"} and obj["line"] == line, obj
    assert obj["error"].startswith(f"line {line}: "), obj
    for w in words:
        assert w in obj["error"], (w, obj)


# ---------------------------------------------------------------------- defect 3: JSON-lines batches
def test_moves_batch_file_with_a_byte_that_is_not_utf8_answers_every_line(tmp_path: Path) -> None:
    f = tmp_path / "in.jsonl"
    f.write_bytes(GOOD.encode() + b"\n" + b'{"position": "\xff", "dice": [3, 1]}\n' + GOOD.encode() + b"\n")
    res = runner.invoke(app, ["moves", "--batch", str(f)])
    assert res.exit_code == 0, res.output
    out = _lines(res.stdout)
    assert len(out) == 3
    assert len(out[0]["plays"]) == 16 and out[2] == out[0]
    _assert_error_line(out[1], 2, "UTF-8", "0xff", "column 15")


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_moves_batch_one_line_out_per_line_in(tmp_path: Path, how: str) -> None:
    """A blank line gets an error object; a CR inside a line does not split it; CRLF endings are
    line endings; the rest of the run goes on."""
    split_by_cr = '{"position": "4HPwATDgc/ABMA",\r "dice": [6, 5]}'
    data = "\r\n".join([GOOD, "", "   ", split_by_cr, "\r", GOOD]) + "\r\n"
    args = ["moves", "--batch", "-"]
    if how == "file":
        f = tmp_path / "in.jsonl"
        f.write_bytes(data.encode())
        args[-1] = str(f)
    res = runner.invoke(app, args, input=data if how == "stdin" else None)
    assert res.exit_code == 0, res.output
    out = _lines(res.stdout)
    assert len(out) == 6
    assert len(out[0]["plays"]) == 16 and out[5] == out[0]
    for n in (2, 3, 5):
        _assert_error_line(out[n - 1], n, "blank line")
    assert len(out[3]["plays"]) == 7  # the 7 plays of 6-5 (rules.md S02)


def test_moves_batch_file_may_start_with_a_utf8_byte_order_mark(tmp_path: Path) -> None:
    f = tmp_path / "in.jsonl"
    f.write_bytes(b"\xef\xbb\xbf" + GOOD.encode() + b"\n\xef\xbb\xbf" + GOOD.encode() + b"\n")
    res = runner.invoke(app, ["moves", "--batch", str(f)])
    assert res.exit_code == 0, res.output
    first, second = _lines(res.stdout)
    assert len(first["plays"]) == 16
    _assert_error_line(second, 2, "not valid JSON")  # a mark starts the file, not a line


@pytest.mark.parametrize("dice", [
    [True, 1], [1, True], [False, 3], [1.0, 1], [3, 2.5], ["3", 1], [[3], 1], [3], [3, 1, 2], [], [0, 1],
    [7, 1], [3, -1], {"a": 1}, None, 31, "³1", "٣1", "71", "3", int(HUGE[:30]),
])
def test_moves_batch_dice_must_be_two_whole_numbers_1_to_6(dice: Any) -> None:
    out = moves_batch_line(json.dumps({"position": OPENING, "dice": dice}), number=4)
    _assert_error_line(out, 4)


def test_dice_from_data_and_roll_are_strict() -> None:
    from analyzer.core.dice import dice_from_data

    assert dice_from_data([6, 5]) == (6, 5) and dice_from_data((1, 1)) == (1, 1)
    for bad in ([True, 1], [1, 1.0], ["1", 1], (2,), [1, 2, 3]):
        with pytest.raises(ParseError):
            dice_from_data(bad)
    for a, b in ((True, 1), (1, 1.0), (2.0, 3)):
        with pytest.raises(ParseError):
            Roll(a, b)  # type: ignore[arg-type]


def test_moves_single_roll_text_with_unicode_digits_is_an_error() -> None:
    for text in ("³1", "٣١"):
        _one_line_error(runner.invoke(app, ["moves", OPENING, "--dice", text]))


@pytest.mark.parametrize("line", [
    DEEP,
    "{" * 600 + "}" * 600,
    '{"position": ' + DEEP_OBJECT + ', "dice": [3, 1]}',
    '{"position": "' + OPENING + '", "dice": ' + DEEP + "}",
    '{"position": "' + OPENING + '", "dice": [' + HUGE + ", 1]}",
    '{"position": "' + OPENING + '", "dice": [NaN, 1]}',
    '{"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:' + HUGE + ':0:0:7:10", "dice": [3, 1]}',
])
def test_moves_batch_hostile_json_is_one_error_line_and_the_run_goes_on(line: str) -> None:
    res = runner.invoke(app, ["moves", "--batch", "-"], input=line + "\n" + GOOD + "\n")
    assert res.exit_code == 0, res.output
    out = _lines(res.stdout)
    assert len(out) == 2
    _assert_error_line(out[0], 1)
    assert len(out[1]["plays"]) == 16


@pytest.mark.parametrize("key", [
    "mover", "opponent", "mover_bar", "opponent_bar", "mover_off", "opponent_off",
])
@pytest.mark.parametrize("value", [True, 1.0, "1", [1], None])
def test_json_position_numbers_refuse_other_types(key: str, value: Any) -> None:
    obj = position_to_json(Position.from_notation("P 6:14 | O 19:15 | bar P1"))
    if key in ("mover", "opponent"):
        obj[key] = list(obj[key])
        obj[key][5 if key == "mover" else 18] = value
    else:
        obj[key] = value
    with pytest.raises(ParseError):
        position_from_json(obj)
    out = moves_batch_line(json.dumps({"position": obj, "dice": [3, 1]}), number=2)
    _assert_error_line(out, 2, key)


@pytest.mark.parametrize(("variant", "key", "value"), [
    ("dutch", "mover_reserve", True), ("dutch", "mover_can_hit", 1), ("dutch", "opponent_can_hit", "yes"),
    ("mahbusa", "pinned_mover", [True]), ("mahbusa", "pinned_opponent", [1.0]), ("mahbusa", "game_end", 1),
])
def test_json_position_variant_fields_refuse_other_types(variant: str, key: str, value: Any) -> None:
    obj = position_to_json(Position.start(variant))
    obj[key] = value
    with pytest.raises(ParseError, match=key):
        position_from_json(obj)


def test_load_json_caps_nesting_before_parsing() -> None:
    from analyzer.core.ids import MAX_JSON_DEPTH, load_json

    assert load_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, "x") is not None
    # brackets inside strings are text, not nesting
    assert load_json(json.dumps({"a": "[" * 5000}), "x") == {"a": "[" * 5000}
    for text in ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), "[" * 100000, DEEP_OBJECT):
        with pytest.raises(ParseError, match="nested deeper"):
            load_json(text, "x")
    for text in ("[" + HUGE + "]", "NaN", "[Infinity]", '{"a": -Infinity}', "{'a': 1}"):
        with pytest.raises(ParseError, match="not valid JSON"):
            load_json(text, "x")


@pytest.mark.parametrize("command", [
    ["show"], ["eval"], ["hint", "--dice", "31"], ["moves", "--dice", "31"], ["cube"], ["rollout"], ["position"],
])
@pytest.mark.parametrize("text", [DEEP_OBJECT, '{"mover": [' + HUGE + "]}",
                                  "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:" + HUGE + ":10",
                                  "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:٣:10"])
def test_every_position_command_answers_hostile_text_with_one_line(command: list[str], text: str) -> None:
    _one_line_error(runner.invoke(app, [*command, "--", text]))


def test_an_error_quotes_a_short_excerpt_of_a_long_input() -> None:
    err = _one_line_error(runner.invoke(app, ["show", "[" * 100000]))
    assert "not a position" in err and len(err) < 300


def test_cube_batch_one_line_out_per_line_in(tmp_path: Path) -> None:
    race = encode_position_id(Position.from_points({6: 3, 5: 3, 4: 3, 8: 2, 9: 2, 11: 2},
                                {19: 3, 20: 3, 21: 2, 17: 2, 16: 2, 14: 2, 13: 1}))
    good = json.dumps({"position": race, "ply": 0})
    bad = [b"", b'{"position": "\xfe"}', DEEP.encode(), json.dumps({"position": race, "ply": True}).encode(),
           json.dumps({"position": race, "ply": 1.0}).encode(),
           json.dumps({"position": race, "rollout": "no"}).encode(),
           json.dumps({"position": race, "root_conversion": 1}).encode(),
           json.dumps({"position": race, "trials": False, "rollout": True}).encode(),
           b'{"position": "4HPwATDgc/ABMA",\r "ply": ' + HUGE.encode() + b"}"]
    f = tmp_path / "in.jsonl"
    f.write_bytes(b"\n".join([good.encode(), *bad, good.encode()]) + b"\n")
    res = runner.invoke(app, ["cube", "--batch", str(f)])
    assert res.exit_code == 0, res.output
    out = _lines(res.stdout)
    assert len(out) == len(bad) + 2
    assert out[0]["action"] == "double, take" and out[-1] == out[0]
    for n, obj in enumerate(out[1:-1], 2):
        _assert_error_line(obj, n)
    assert "UTF-8" in out[2]["error"] and "nested" in out[3]["error"] and "ply" in out[4]["error"]


def _single_line_outputs(raw: bytes) -> None:
    res = runner.invoke(app, ["moves", "--batch", "-"], input=raw + b"\n")
    assert res.exit_code == 0, res.output
    [obj] = _lines(res.stdout)
    assert set(obj) in ({"plays"}, {"error", "line"})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=80).filter(lambda b: b"\n" not in b))
def test_any_single_line_of_bytes_gives_one_json_line(raw: bytes) -> None:
    _single_line_outputs(raw)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 30) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=st.sampled_from([OPENING, "S.4HPwATDgc_ABMA", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10"])
       | _json_values, dice=_json_values | st.lists(st.integers(0, 7), min_size=0, max_size=3))
def test_any_batch_object_gives_plays_or_an_error(position: Any, dice: Any) -> None:
    out = moves_batch_line(json.dumps({"position": position, "dice": dice}), number=9)
    json.dumps(out)
    if "plays" not in out:
        _assert_error_line(out, 9)
    elif not isinstance(dice, str):  # a roll's text ("31") is a roll too
        assert isinstance(dice, list) and len(dice) == 2 and all(type(d) is int and 1 <= d <= 6 for d in dice)


_BATCH_LINES = [  # (line, whether it is a good request)
    (GOOD.encode(), True), (b"", False), (b"\r", False), (b"\xff\xfe", False), (b"{", False),
    (b'{"a":\r1}', False), (b"[1]", False),
    (b'{"position": "4HPwATDgc/ABMA",\r "dice": "6-5"}', True),
    # separators that str.splitlines() would split at: inside one line they are that line's business
    (b'{"position": "4HPwATDgc/ABMA",\x0b\x0c\x1c\x1d\x1e "dice": "6-5"}', False),
    ('{"position": "4HPwATDgc/ABMA", "dice": [6, 6], "note": "\u2028\u2029\x85"}'.encode(), True),
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_BATCH_LINES), max_size=8), st.booleans())
@pytest.mark.integration
def test_batch_output_pairs_with_input_lines(lines: list[tuple[bytes, bool]], final_newline: bool) -> None:
    data = b"\n".join(raw for raw, _ in lines) + (b"\n" if final_newline else b"")
    res = runner.invoke(app, ["moves", "--batch", "-"], input=data)
    assert res.exit_code == 0, res.output
    out = _lines(res.stdout)
    expect = [good for _, good in lines]
    if not final_newline and lines and not lines[-1][0]:
        expect.pop()  # nothing after the last newline: no line
    if final_newline and not lines:
        expect = [False]  # a lone newline is one blank line
    assert len(out) == len(expect)
    for n, (good, obj) in enumerate(zip(expect, out, strict=True), 1):
        if good:
            assert "plays" in obj and obj["plays"], obj
        else:
            _assert_error_line(obj, n)


# ---------------------------------------------------------------------- defect 7: invalid positions
ISSUE_XGID = "XGID=-aAbB-DBBBA------accbc---A:1:-1:1:51:50:2:0:13:10"


@pytest.mark.parametrize("text", [
    ISSUE_XGID,
    "XGID=-aAbB-DBBBA------accbc---A:1:-1:1:51:13:2:0:13:10",  # exactly the match length
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:1:0:1:10",  # 1-point match, 0-1
])
def test_show_refuses_an_xgid_whose_match_is_over(text: str) -> None:
    assert "match is over" in _one_line_error(runner.invoke(app, ["show", text]))
    with pytest.raises(RulesError, match="match is over"):
        parse_position_spec(text, allow_finished=True)


def test_a_match_id_whose_score_reached_the_length_is_refused() -> None:
    over = next_game(MatchState(length=7, score=(5, 2)), winner=0, points=2)
    assert over.score == (7, 2)
    text = f"{OPENING}:{match_id_from_state(over, on_roll=0).encode()}"
    for cmd in (["show", text], ["moves", text, "--dice", "31"], ["cube", text]):
        assert "match is over" in _one_line_error(runner.invoke(app, cmd))
    post = MatchState(length=7, score=(6, 2), post_crawford=True)
    below = f"{OPENING}:{match_id_from_state(post, on_roll=0).encode()}"
    assert runner.invoke(app, ["show", below]).exit_code == 0


def test_an_xgid_cube_above_its_max_cube_is_refused() -> None:
    text = "XGID=-b----E-C---eE---c-e----B-:4:1:1:00:0:0:0:7:2"  # cube 16, max cube 4
    assert "max cube" in _one_line_error(runner.invoke(app, ["show", text]))
    with pytest.raises(ParseError, match="max cube"):
        decode_xgid(text)
    assert decode_xgid(text.replace(":4:1:1:", ":2:1:1:")).cube_log2 == 2  # at the limit: fine
    with pytest.raises(RulesError, match="limit"):
        MatchState(cube=8, cube_owner=0, cube_limit=4)


def test_a_cube_over_1024_without_limit_still_writes_an_xgid_that_reads_back() -> None:
    state = MatchState(cube=4096, cube_owner=1)
    x = xgid_from_position(Position.start(), state)
    assert x.max_cube_log2 is not None and x.max_cube_log2 >= x.cube_log2
    assert decode_xgid(encode_xgid(x)) == x
    with pytest.raises(ParseError):
        XGID(x.checkers, cube_log2=12, max_cube_log2=10)


FINISHED = {
    "standard, side on roll off": Position.from_notation("P | O 19:5 6:1 | off P15 O9"),
    "standard, opponent off": Position.from_notation("P 24:1 6:4 | O | off P10 O15"),
    "dutch": Position.from_points({}, {20: 3}, mover_off=15, opponent_off=12, variant="dutch"),
    "mahbusa mother win": Position.from_notation("P 8:14 1:1+o | O 20:14 | over", "mahbusa"),
    "mahbusa draw": Position.from_notation("P 8:13 1:1+o | O 24:1+p 20:13 | over", "mahbusa"),
}
PLAY_COMMANDS = [["moves", "--dice", "31"], ["hint", "--dice", "31"], ["eval"], ["cube"], ["rollout"],
                 ["position"], ["position", "--dice", "31"]]


@pytest.mark.parametrize("name", sorted(FINISHED))
@pytest.mark.parametrize("command", PLAY_COMMANDS)
def test_a_finished_game_is_no_position_to_play(name: str, command: list[str]) -> None:
    key = encode_key(FINISHED[name])
    err = _one_line_error(runner.invoke(app, [*command, key]))
    assert "not a position to play" in err, err


@pytest.mark.parametrize("name", sorted(FINISHED))
def test_a_finished_game_can_be_shown_but_not_listed_in_a_batch(name: str) -> None:
    pos = FINISHED[name]
    why = pos.game_over()
    assert why is not None
    res = runner.invoke(app, ["show", "--format", "json", encode_key(pos)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["game_over"] == why
    res = runner.invoke(app, ["show", encode_key(pos)])
    assert res.exit_code == 0 and f"Game over: {why}." in res.stdout
    assert parse_position_spec(encode_key(pos), allow_finished=True).position == pos
    with pytest.raises(PositionError, match="not a position to play"):
        parse_position_spec(encode_key(pos))
    with pytest.raises(PositionError, match="not a position to play"):
        parse_position_spec(json.dumps(position_to_json(pos)))
    out = moves_batch_line(json.dumps({"position": position_to_json(pos), "dice": [3, 1]}), number=3)
    _assert_error_line(out, 3, "not a position to play")


def test_a_match_id_that_says_the_game_is_over_is_no_position_to_play() -> None:
    state = MatchState(length=7, score=(3, 2))
    for gs in (GameState.OVER, GameState.RESIGNED, GameState.DROPPED):
        text = f"{OPENING}:{match_id_from_state(state, on_roll=0, game_state=gs).encode()}"
        res = runner.invoke(app, ["show", "-f", "json", text])
        assert res.exit_code == 0 and json.loads(res.stdout)["game_over"].endswith(gs.name.lower())
        err = _one_line_error(runner.invoke(app, ["moves", text, "--dice", "31"]))
        assert f"game is {gs.name.lower()}" in err
    for gs in (GameState.NONE, GameState.PLAYING):
        text = f"{OPENING}:{match_id_from_state(state, on_roll=0, game_state=gs).encode()}"
        assert runner.invoke(app, ["moves", text, "--dice", "31"]).exit_code == 0
        res = runner.invoke(app, ["show", "-f", "json", text])
        assert res.exit_code == 0 and "game_over" not in json.loads(res.stdout)
        assert "Game over" not in runner.invoke(app, ["show", text]).stdout


def test_mahbusa_game_end_needs_a_pinned_mother() -> None:
    """rules.md §3.2 rule 9: only a pinned mother ends a game before the bear-off."""
    for notation in ("P 8:14 1:1 | O 20:14 | over",  # O's checker on P's 1 is not pinned
                     "P 24:1 8:13 1:1+o | O 20:14 | over",  # P's start is not empty: play goes on
                     "P 8:14 2:1+o | O 20:14 | over"):  # pinned, but not O's mother
        with pytest.raises(InputError):
            Position.from_notation(notation, "mahbusa")
    won = FINISHED["mahbusa mother win"]
    assert won.flip().game_over() == won.game_over() == "the game ended by the mother rule"
    obj = position_to_json(Position.start("mahbusa"))
    obj["game_end"] = True
    with pytest.raises(PositionError, match="mother"):
        position_from_json(obj)
