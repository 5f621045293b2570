"""Tests of analyzer.core.ids: gnubg Position/Match IDs, XGIDs, the JSON form and our position key."""

from __future__ import annotations

import base64
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analyzer.core.errors import InputError, ParseError, PositionError
from analyzer.core.ids import (
    XGID,
    GameState,
    MatchID,
    decode_key,
    decode_match_id,
    decode_position_id,
    decode_xgid,
    encode_key,
    encode_match_id,
    encode_position_id,
    encode_xgid,
    match_id_from_state,
    parse_position_spec,
    position_from_json,
    position_to_json,
    xgid_from_position,
    xgid_position,
)
from analyzer.core.match import MatchState
from analyzer.core.position import Position

DATA = Path(__file__).parent / "data"
START_BLOCK = {24: 2, 13: 5, 8: 3, 6: 5}
START_OPP = {1: 2, 12: 5, 17: 3, 19: 5}


def id_bytes(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def pack_unary(blocks: list[list[int]], nbytes: int = 10) -> str:
    """A Position ID written by hand: unary counts, bit k in byte k//8 at bit k%8."""
    bits: list[int] = []
    for block in blocks:
        for n in block:
            bits += [1] * n + [0]
    value = sum(1 << k for k, b in enumerate(bits) if b)
    return base64.b64encode(value.to_bytes(nbytes, "little")).decode().rstrip("=")


# ---------------------------------------------------------------------- worked examples, §3.1
def test_opening_position_id() -> None:
    assert encode_position_id(Position.start()) == "4HPwATDgc/ABMA"
    assert decode_position_id("4HPwATDgc/ABMA") == Position.start()
    assert id_bytes("4HPwATDgc/ABMA") == bytes.fromhex("E0 73 F0 01 30 E0 73 F0 01 30")


def test_second_worked_example_opponent_block_first() -> None:
    # BoardLord opened 51: 24/23 13/8; Llabba (on roll) still has the opening set-up.
    boardlord = {24: 1, 23: 1, 13: 4, 8: 4, 6: 5}
    llabba_view = Position.from_points(START_BLOCK, {25 - p: n for p, n in boardlord.items()})
    assert encode_position_id(llabba_view) == "4PPgASjgc/ABMA"
    assert decode_position_id("4PPgASjgc/ABMA") == llabba_view
    raw = id_bytes("4PPgASjgc/ABMA")
    assert raw[:5] == bytes.fromhex("E0 F3 E0 01 28")  # not-on-roll block first
    assert raw[5:] == bytes.fromhex("E0 73 F0 01 30")
    assert decode_position_id("4PPgASjgc/ABMA").pips() == (167, 167 - 6)


def test_position_id_bar_and_off() -> None:
    pos = Position.from_points({6: 10}, {19: 3, 1: 1}, mover_bar=2, opponent_bar=1)
    text = encode_position_id(pos)
    opp_own = [0] * 25
    opp_own[5], opp_own[23], opp_own[24] = 3, 1, 1  # his 6 = our 19, his 24 = our 1, bar
    mov = [0] * 25
    mov[5], mov[24] = 10, 2
    assert text == pack_unary([opp_own, mov])
    back = decode_position_id(text)
    assert back == pos
    assert (back.mover_off, back.opponent_off) == (3, 10)


@pytest.mark.parametrize(
    ("text", "exc", "msg"),
    [
        ("4HPwATDgc/AB", ParseError, "14 characters"),
        ("4HPwATDgc/ABMAx", ParseError, "14 characters"),
        ("4HPwATDgc*ABMA", ParseError, "not base64"),
        ("4HPwATDgc/ABMB", ParseError, "stray bits"),
        ("/////////////w", PositionError, "more than 15"),
    ],
)
def test_bad_position_ids(text: str, exc: type[InputError], msg: str) -> None:
    with pytest.raises(exc, match=msg) as info:
        decode_position_id(text)
    assert info.value.token == text


def test_position_id_both_sides_on_one_point() -> None:
    opp_own = [0] * 25
    opp_own[18] = 2  # his 19 = our 6
    mov = [0] * 25
    mov[5] = 3
    text = pack_unary([opp_own, mov])
    with pytest.raises(PositionError, match="both sides") as info:
        decode_position_id(text)
    assert info.value.token == text


def test_position_id_sixteen_checkers() -> None:
    mov = [0] * 25
    mov[0] = 16
    text = pack_unary([[0] * 25, mov], nbytes=10)
    with pytest.raises(PositionError, match="more than 15"):
        decode_position_id(text)


def test_position_id_needs_standard() -> None:
    with pytest.raises(PositionError, match="standard"):
        encode_position_id(Position.start("dutch"))


# ---------------------------------------------------------------------- worked examples, §3.2
def test_match_id_money_start() -> None:
    m = decode_match_id("cAkAAAAAAAAA")
    assert id_bytes("cAkAAAAAAAAA") == bytes.fromhex("70 09 00 00 00 00 00 00 00")
    assert m == MatchID(cube=1, cube_owner=None, on_roll=1, turn=1, game_state=GameState.PLAYING,
                        dice=None, length=0, score=(0, 0))
    assert m.encode() == "cAkAAAAAAAAA"


def test_match_id_manual_example() -> None:
    m = decode_match_id("QYkqASAAIAAA")
    assert id_bytes("QYkqASAAIAAA") == bytes.fromhex("41 89 2A 01 20 00 20 00 00")
    assert (m.cube, m.cube_owner, m.on_roll, m.dice, m.length, m.score) == (2, 0, 1, (5, 2), 9, (2, 4))
    assert not m.double_offered and m.resignation == 0 and not m.crawford
    assert encode_match_id(m) == "QYkqASAAIAAA"


def test_match_id_corpus_examples() -> None:
    m = decode_match_id("MIDmAAAAAAAE")
    assert (m.on_roll, m.dice, m.game_state, m.length, m.score) == (0, (5, 1), GameState.NONE, 7, (0, 0))
    assert m.cube == 1 and m.cube_owner is None and m.jacoby_off
    n = decode_match_id("cAnqAAAAAAAE")
    assert (n.on_roll, n.turn, n.dice, n.game_state, n.length) == (1, 1, (4, 2), GameState.PLAYING, 7)
    for text in ("MIDmAAAAAAAE", "cAnqAAAAAAAE"):
        assert encode_match_id(decode_match_id(text)) == text
    # bit 67 (1-based) is the trailing 'E'
    assert encode_match_id(MatchID(length=7)).endswith("A")
    assert encode_match_id(MatchID(length=7, jacoby_off=True)).endswith("E")


@pytest.mark.parametrize(
    ("fields", "msg"),
    [
        ({"owner": 2}, "owner 2"),
        ({"state": 5}, "game state"),
        ({"die1": 7, "die2": 1}, "impossible dice"),
        ({"die1": 3, "die2": 0}, "impossible dice"),
        ({"unused": 1}, "unused bits"),
    ],
)
def test_bad_match_ids(fields: dict[str, int], msg: str) -> None:
    starts = {"owner": 4, "state": 8, "die1": 15, "die2": 18, "unused": 68}
    key = 3 << 4 | 1 << 8
    for name, v in fields.items():
        key &= ~(7 << starts[name]) if name != "unused" else key
        key |= v << starts[name]
    text = base64.b64encode(key.to_bytes(9, "little")).decode()
    with pytest.raises(ParseError, match=msg) as info:
        decode_match_id(text)
    assert info.value.token == text


def test_match_id_value_checks() -> None:
    cases: list[dict[str, Any]] = [
        {"cube": 3}, {"cube_owner": 2}, {"on_roll": 2}, {"turn": -1}, {"resignation": 4},
        {"dice": (0, 3)}, {"length": 1 << 15}, {"score": (0, -1)}, {"game_state": 7}]
    for kwargs in cases:
        with pytest.raises(ParseError):
            MatchID(**kwargs)


def test_bad_match_id_text() -> None:
    for text in ("cAkAAAAAAAA", "cAkAAAAAAAAAA", "cAk?AAAAAAAA"):
        with pytest.raises(ParseError):
            decode_match_id(text)


match_ids = st.builds(
    MatchID,
    cube=st.integers(0, 15).map(lambda k: 1 << k),
    cube_owner=st.sampled_from([None, 0, 1]),
    on_roll=st.integers(0, 1),
    crawford=st.booleans(),
    game_state=st.sampled_from(list(GameState)),
    turn=st.integers(0, 1),
    double_offered=st.booleans(),
    resignation=st.integers(0, 3),
    dice=st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)),
    length=st.integers(0, 32767),
    score=st.tuples(st.integers(0, 32767), st.integers(0, 32767)),
    jacoby_off=st.booleans(),
)


@given(match_ids)
def test_match_id_round_trip(mid: MatchID) -> None:
    text = encode_match_id(mid)
    assert len(text) == 12
    assert decode_match_id(text) == mid
    assert encode_match_id(decode_match_id(text)) == text


# ---------------------------------------------------------------------- XGID, §3.3
OPENING_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_xgid_opening() -> None:
    x = decode_xgid(OPENING_XGID)
    assert x.checkers[1] == -2 and x.checkers[6] == 5 and x.checkers[8] == 3
    assert x.checkers[12] == -5 and x.checkers[13] == 5 and x.checkers[17] == -3
    assert x.checkers[19] == -5 and x.checkers[24] == 2
    assert (x.cube_log2, x.cube_position, x.turn, x.dice, x.length, x.max_cube_log2) == (0, 0, 1, "00", 0, 10)
    assert xgid_position(x) == Position.start()
    assert encode_xgid(x) == OPENING_XGID
    assert str(xgid_from_position(Position.start())) == OPENING_XGID


def test_xgid_corpus_example_matches_gnubg_ids() -> None:
    text = "XGID=-aa---E-C---dE---d-e----B-:0:0:1:42:0:0:0:7:10"
    spec = parse_position_spec(text)
    assert spec.position == decode_position_id("4PPgASjgc/ABMA")
    assert spec.dice == (4, 2) and spec.match is not None and spec.match.length == 7
    assert spec.on_roll is not None
    mid = match_id_from_state(spec.match, on_roll=spec.on_roll, dice=spec.dice)
    assert mid.encode() == "cAnqAAAAAAAE"
    assert str(xgid_from_position(spec.position, spec.match, mover=1, dice=(4, 2))) == text


def test_xgid_prefix_and_nine_fields() -> None:
    body = OPENING_XGID[5:]
    assert decode_xgid(body) == decode_xgid(OPENING_XGID)
    assert decode_xgid("xgid=" + body) == decode_xgid(OPENING_XGID)
    nine = body.rsplit(":", 1)[0]
    x = decode_xgid(nine)
    assert x.max_cube_log2 is None
    assert encode_xgid(x) == "XGID=" + nine
    assert parse_position_spec(nine).position == Position.start()


def test_xgid_top_player_on_turn() -> None:
    # the top player's view: his checkers are lower case; turn -1 flips to his side
    pos = Position.from_points({6: 14}, {19: 2, 24: 1}, mover_bar=1)
    x = xgid_from_position(pos, bottom=1, mover=0)
    assert x.turn == -1
    assert x.checkers[0] == -1  # the top player's bar is index 0
    assert xgid_position(x) == pos
    assert decode_xgid(str(x)) == x


@pytest.mark.parametrize(
    ("text", "msg"),
    [
        ("XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:0:10", "bad checker letter"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "26 characters"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0", "9 or 10 fields"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:07:0:0:0:0:10", "dice"),
        ("XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10", "not a number"),
        ("XGID=-b----E-C---eE---c-e----B-:0:5:1:00:0:0:0:0:10", "cube position"),
        ("XGID=Bb----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "bar"),
        ("XGID=-b----E-C---eE---c-e---OB-:0:0:1:00:0:0:0:0:10", "more than 15"),
    ],
)
def test_bad_xgids(text: str, msg: str) -> None:
    with pytest.raises(InputError, match=msg) as info:
        decode_xgid(text)
    assert info.value.token == text


def test_xgid_double_pending() -> None:
    x = decode_xgid("XGID=-b----E-C---eE---c-e----B-:1:1:1:D:2:3:0:7:10")
    spec = parse_position_spec(str(x))
    assert spec.double_offered and spec.dice is None
    assert x.rolled is None
    assert spec.match is not None and spec.match.cube == 2
    with pytest.raises(ParseError):
        xgid_from_position(Position.start(), dice=(3, 1), double_offered=True)


# ---------------------------------------------------------------------- random positions
@st.composite
def positions(draw: st.DrawFn, variant: str | None = None) -> Position:
    """A random valid position of a random (or given) variant."""
    var = variant or draw(st.sampled_from(["standard", "dutch", "mahbusa"]))
    slots = ["off", *range(1, 25)]
    if var != "mahbusa":
        slots.append("bar")
    if var == "dutch":
        slots.append("res")
    sides: list[dict[Any, int]] = []
    for _ in range(2):
        counts: dict[Any, int] = {}
        for s in draw(st.lists(st.sampled_from(slots), min_size=15, max_size=15)):
            counts[s] = counts.get(s, 0) + 1
        sides.append(counts)
    m, o_own = sides
    o = {(25 - k if isinstance(k, int) else k): n for k, n in o_own.items()}
    pin_m: list[int] = []
    pin_o: list[int] = []
    for p in range(1, 25):
        a, b = m.get(p, 0), o.get(p, 0)
        if a and b:
            if var == "mahbusa" and (a == 1 or b == 1):
                if a == 1 and (b != 1 or draw(st.booleans())):
                    pin_m.append(p)
                else:
                    pin_o.append(p)
            else:  # cannot share the point: send the opponent's checkers off
                o["off"] = o.get("off", 0) + b
                del o[p]
    if m.get("off", 0) == 15 and o.get("off", 0) == 15:
        m["off"] = 14
        m[1] = m.get(1, 0) + 1 if 1 not in o else 0
        if m[1] == 0:
            m["off"] = 15
            o["off"] = 14
            o[24] = 1
    kw: dict[str, Any] = {}
    if var != "mahbusa":
        kw.update(mover_bar=m.get("bar", 0), opponent_bar=o.get("bar", 0))
    if var == "dutch":
        kw.update(mover_reserve=m.get("res", 0), opponent_reserve=o.get("res", 0),
                  mover_can_hit=draw(st.booleans()), opponent_can_hit=draw(st.booleans()))
    if var == "mahbusa":  # the flag goes with a mother win or draw (rules.md §3.2 rule 9)
        mother_rule = (1 in pin_o and (24 in pin_m or not m.get(24))) or (24 in pin_m and not o.get(1))
        kw["game_end"] = mother_rule and draw(st.booleans())
    return Position.from_points({p: n for p, n in m.items() if isinstance(p, int)},
                                {p: n for p, n in o.items() if isinstance(p, int)},
                                pinned_mover=pin_m, pinned_opponent=pin_o, variant=var, **kw)


@settings(max_examples=300)
@given(positions())
def test_key_round_trip(pos: Position) -> None:
    key = encode_key(pos)
    assert re.fullmatch(r"[SDM]\.[A-Za-z0-9_-]+", key)
    back = decode_key(key)
    assert back == pos
    assert back.board == pos.board
    assert parse_position_spec(key, allow_finished=True).position == pos
    assert encode_key(pos) == key


@given(positions())
def test_key_is_one_to_one_with_flip(pos: Position) -> None:
    flipped = pos.flip()
    assert (encode_key(flipped) == encode_key(pos)) == (flipped == pos)


@given(positions())
def test_json_round_trip(pos: Position) -> None:
    obj = position_to_json(pos)
    assert position_from_json(obj) == pos
    text = json.dumps(obj)
    assert position_from_json(text) == pos
    assert parse_position_spec(text, allow_finished=True).position == pos
    assert sum(obj["mover"]) + obj["mover_off"] + obj.get("mover_bar", 0) + obj.get("mover_reserve", 0) == 15


@given(positions("standard"))
def test_position_id_round_trip(pos: Position) -> None:
    pid = encode_position_id(pos)
    assert len(pid) == 14
    assert decode_position_id(pid) == pos
    assert parse_position_spec(pid, allow_finished=True).position == pos
    assert encode_position_id(pos) == pid
    # the standard key is the Position ID in the URL-safe alphabet
    assert encode_key(pos) == "S." + pid.replace("+", "-").replace("/", "_")


match_states = st.builds(
    MatchState,
    length=st.sampled_from([0, 1, 3, 5, 7, 11, 25]),
    score=st.tuples(st.integers(0, 6), st.integers(0, 6)),
    cube=st.integers(0, 6).map(lambda k: 1 << k),
    cube_owner=st.sampled_from([None, 0, 1]),
).filter(lambda s: s.length == 0 or max(s.score) < s.length)


@given(positions("standard"), match_states, st.integers(0, 1), st.integers(0, 1),
       st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)))
def test_xgid_round_trip(pos: Position, state: MatchState, mover: int, bottom: int,
                         dice: tuple[int, int] | None) -> None:
    if state.length == 0:
        state = MatchState(score=(0, 0), cube=state.cube, cube_owner=state.cube_owner)
    x = xgid_from_position(pos, state, mover=mover, bottom=bottom, dice=dice)
    text = encode_xgid(x)
    assert decode_xgid(text) == x
    assert encode_xgid(decode_xgid(text)) == text
    assert xgid_position(x) == pos
    back = x.match_state(bottom_player=bottom)
    assert (back.length, back.score, back.cube, back.cube_owner) == (
        state.length, state.score, state.cube, state.cube_owner)
    assert x.rolled == dice


def test_json_examples_and_errors() -> None:
    pos = Position.from_notation("P 14:1 10:1+o 1:13 | O 21:14", "mahbusa")
    obj = position_to_json(pos)
    assert obj["pinned_opponent"] == [10] and obj["pinned_mover"] == []
    assert obj["opponent"][9] == 1 and obj["mover"][9] == 1
    assert obj["mover_bar"] == 0 and "game_end" not in obj
    dutch = position_to_json(Position.start("dutch"))
    assert dutch["mover_reserve"] == 15 and dutch["mover_can_hit"] is False
    bad = dict(position_to_json(Position.start()))
    bad["pinned_mover"] = []
    with pytest.raises(ParseError, match="unknown key") as info:
        position_from_json(bad)
    assert info.value.token == "pinned_mover"
    with pytest.raises(ParseError, match="24 integers"):
        position_from_json({"variant": "standard", "mover": [1] * 23, "opponent": [0] * 24})
    with pytest.raises(PositionError):
        position_from_json({"variant": "standard", "mover": [16] + [0] * 23, "opponent": [0] * 24})
    with pytest.raises(ParseError, match="not valid JSON"):
        parse_position_spec("{mover: 1}")
    with pytest.raises(ParseError, match="was asked"):
        position_from_json(position_to_json(Position.start()), variant="dutch")


def test_key_errors() -> None:
    std = encode_key(Position.start())
    for text, msg in [("S.4HPw*", "not a position key"), ("Q.4HPwATDgc_ABMA", "not a position key"),
                      ("S.4HPwATDgc_ABMB", "stray bits"), ("S.4HPwATDgc_AB", "ends too early"),
                      (std + "AA", "canonical"), ("D." + std[2:], "ends too early")]:
        with pytest.raises(ParseError, match=msg) as info:
            decode_key(text)
        assert info.value.token == text
    # a standard key is not a Mahbusa key: the bar slot is read as a point and the data runs short
    with pytest.raises(InputError):
        decode_key("M." + std[2:])


def test_key_keeps_every_layout_slot() -> None:
    a = Position.from_points({6: 5}, {19: 5}, mover_can_hit=True, opponent_can_hit=False, variant="dutch",
                             mover_reserve=3)
    b = Position.from_points({6: 5}, {19: 5}, mover_can_hit=False, opponent_can_hit=False, variant="dutch",
                             mover_reserve=3)
    assert encode_key(a) != encode_key(b)
    c = Position.from_notation("P 1:1 | O 24:1+p", "mahbusa")  # O on our 24 sits on a pinned P checker
    d = Position.from_notation("P 24:1+o | O 1:1", "mahbusa")
    e = Position.from_points({1: 1, 24: 1}, {24: 1, 1: 1}, pinned_mover=[24], pinned_opponent=[1],
                             variant="mahbusa", game_end=True)
    keys = {encode_key(p) for p in (c, d, e)}
    assert len(keys) == 3
    for p in (c, d, e):
        assert decode_key(encode_key(p)).board == p.board
    assert decode_key(encode_key(e)).game_end_flag


# ---------------------------------------------------------------------- parse_position_spec
def test_parse_position_spec_forms() -> None:
    start = Position.start()
    spec = parse_position_spec("  4HPwATDgc/ABMA ")
    assert spec.position == start and spec.match is None and spec.source == "gnubg"
    spec = parse_position_spec("4HPwATDgc/ABMA:MIDmAAAAAAAE")
    assert spec.source == "gnubg+match" and spec.on_roll == 0 and spec.dice == (5, 1)
    assert spec.match == MatchState(length=7)
    assert spec.match_id == decode_match_id("MIDmAAAAAAAE")
    assert parse_position_spec(OPENING_XGID).source == "xgid"
    assert parse_position_spec(json.dumps(position_to_json(start))).source == "json"
    assert parse_position_spec(encode_key(start)).source == "key"
    # a gnubg ID read as Mahbusa: no bar, so the start position is fine
    m = parse_position_spec("4HPwATDgc/ABMA", variant="plakoto").position
    assert m.variant == "mahbusa" and m.mover == start.mover
    with pytest.raises(PositionError, match="mahbusa"):
        parse_position_spec(encode_position_id(Position.from_points({6: 14}, {19: 15}, mover_bar=1)),
                            variant="mahbusa")
    with pytest.raises(ParseError, match="asked"):
        parse_position_spec(encode_key(start), variant="dutch")
    for junk in ("", "hello world", "4HPwATDgc/ABMA:xyz", "1:2:3"):
        with pytest.raises(ParseError):
            parse_position_spec(junk)


# ---------------------------------------------------------------------- the gnubg corpus
def corpus_records() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted((DATA / "gnubg-analysis-export").glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        head = re.search(r"is: (\S+) (\d+), (\S+) (\d+) \(match to (\d+) points\)", text)
        assert head
        names = (head.group(1), head.group(3))
        score = (int(head.group(2)), int(head.group(4)))
        length = int(head.group(5))
        for block in re.split(r"\nMove number \d+:", text)[1:]:
            mv = re.match(r"\s+(\S+) (to play (\d)(\d)|on roll, cube decision\?|doubles to (\d+))", block)
            pid = re.search(r"Position ID: (\S+)", block)
            mid = re.search(r"Match ID\s+: (\S+)", block)
            pips = re.search(r"Pip counts: O (\d+), X (\d+)", block)
            assert mv and pid and mid and pips, block[:200]
            kind = "play" if mv.group(3) else ("double" if mv.group(5) else "cube")
            out.append({"player": names.index(mv.group(1)), "kind": kind,
                        "dice": (int(mv.group(3)), int(mv.group(4))) if mv.group(3) else None,
                        "new_cube": int(mv.group(5)) if mv.group(5) else None,
                        "position_id": pid.group(1), "match_id": mid.group(1), "score": score,
                        "length": length, "pips": (int(pips.group(1)), int(pips.group(2))),
                        "file": path.name})
    return out


CORPUS = corpus_records()


def test_corpus_has_141_checker_plays() -> None:
    assert sum(r["kind"] == "play" for r in CORPUS) == 141
    assert len(CORPUS) == 151  # and 5 cube decisions, 5 doubles


@pytest.mark.parametrize("rec", CORPUS, ids=lambda r: f"{r['file'][-8:-4]}:{r['position_id']}")
def test_corpus_ids(rec: dict[str, Any]) -> None:
    pos = decode_position_id(rec["position_id"])
    assert encode_position_id(pos) == rec["position_id"]
    mid = decode_match_id(rec["match_id"])
    assert encode_match_id(mid) == rec["match_id"]
    # the IDs agree with the text around them
    assert mid.on_roll == rec["player"]
    if rec["kind"] == "play":
        assert mid.dice == tuple(sorted(rec["dice"], reverse=True))
        assert mid.turn == rec["player"] and not mid.double_offered
    elif rec["kind"] == "double":
        assert mid.double_offered and mid.turn == 1 - rec["player"] and mid.dice is None
        assert mid.cube * 2 == rec["new_cube"]
    else:
        assert mid.dice is None and not mid.double_offered and mid.turn == rec["player"]
    assert (mid.length, mid.score) == (rec["length"], rec["score"])
    assert mid.jacoby_off
    o_pips, x_pips = rec["pips"]  # O is player 0
    assert pos.pips() == ((o_pips, x_pips) if mid.on_roll == 0 else (x_pips, o_pips))
    spec = parse_position_spec(f"{rec['position_id']}:{rec['match_id']}")
    assert spec.position == pos and spec.match_id == mid
    assert spec.match is not None
    rebuilt = match_id_from_state(spec.match, on_roll=mid.on_roll, dice=mid.dice, game_state=int(mid.game_state),
                                  double_offered=mid.double_offered)
    assert rebuilt == mid
    # through XGID and back to the same gnubg IDs
    x = xgid_from_position(pos, spec.match, mover=mid.on_roll, dice=mid.dice,
                           double_offered=mid.double_offered)
    back = parse_position_spec(str(x))
    assert back.position == pos and back.double_offered == mid.double_offered
    assert back.match is not None and back.on_roll is not None
    again = match_id_from_state(back.match, on_roll=back.on_roll, dice=back.dice, game_state=int(mid.game_state),
                                double_offered=back.double_offered)
    if mid.on_roll == 1:  # the XGID reading numbers the player on turn 1
        assert again.encode() == rec["match_id"]


# ---------------------------------------------------------------------- GNU Backgammon as referee
REFEREE = json.loads((DATA / "ids_referee.json").read_text())


def test_referee_file_is_large_enough() -> None:
    assert len(REFEREE["position_ids"]) >= 200 and len(REFEREE["xgids"]) >= 200


def test_referee_position_ids() -> None:
    for rec in REFEREE["position_ids"]:
        not_on_roll, on_roll = rec["board"]
        pos = Position.from_points(on_roll[:24], list(reversed(not_on_roll[:24])),
                                   mover_bar=on_roll[24], opponent_bar=not_on_roll[24])
        assert encode_position_id(pos) == rec["position_id"], rec
        assert decode_position_id(rec["position_id"]) == pos


def test_referee_xgids() -> None:
    """gnubg's ``set xgid`` numbers the player on turn 1; we read XG's bottom player as player 1
    (issue 52: so that a decision's XGID gives back its own Match ID). Where the top player is on
    turn the two numberings differ by swapping the players: the same position, score and cube."""
    swapped = 0
    for rec in REFEREE["xgids"]:
        spec = parse_position_spec(rec["xgid"], allow_finished=True)
        pid, mid = rec["gnubg_id"].split(":")
        assert encode_position_id(spec.position) == pid, rec
        assert spec.match is not None and spec.on_roll is not None
        state, on_roll = spec.match, spec.on_roll
        if decode_xgid(rec["xgid"]).turn == -1:
            assert on_roll == 0
            owner = None if state.cube_owner is None else 1 - state.cube_owner
            state, on_roll = replace(state, score=state.score[::-1], cube_owner=owner), 1
            swapped += 1
        else:
            assert on_roll == 1
        ours = match_id_from_state(state, on_roll=on_roll, dice=spec.dice)
        assert ours.encode() == mid, (rec, ours, decode_match_id(mid))
        assert encode_xgid(decode_xgid(rec["xgid"])) == rec["xgid"]
    assert 50 < swapped < len(REFEREE["xgids"]) - 50


def test_xgid_dataclass_checks() -> None:
    with pytest.raises(ParseError):
        XGID(tuple([0] * 25))
    with pytest.raises(PositionError):
        XGID(tuple([0] * 25 + [-1]))
