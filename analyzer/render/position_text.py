"""One position as text: the board, the identifiers and the match state (``bgreview show``)."""

from __future__ import annotations

from typing import Any

from analyzer.core.ids import (
    PositionSpec,
    encode_key,
    encode_position_id,
    match_id_from_state,
    position_to_json,
    xgid_from_position,
)
from analyzer.core.match import MatchState
from analyzer.render.board_ascii import HomeSide, draw_board


def position_identifiers(spec: PositionSpec) -> dict[str, str]:
    """The identifiers of a position read from text.

    Standard positions get the gnubg Position ID, the Match ID (money play with a centred cube
    when the text carried no match information) and the XGID; every variant gets our key.

    >>> from analyzer.core.ids import parse_position_spec
    >>> ids = position_identifiers(parse_position_spec("4HPwATDgc/ABMA"))
    >>> ids["position_id"], ids["xgid"]
    ('4HPwATDgc/ABMA', 'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10')
    """
    pos = spec.position
    out: dict[str, str] = {}
    if pos.spec.gnubg_ids:
        state = spec.match or MatchState()
        on_roll = spec.on_roll if spec.on_roll is not None else 0
        out["position_id"] = encode_position_id(pos)
        if spec.match_id is not None:
            out["match_id"] = spec.match_id.encode()
        else:
            out["match_id"] = match_id_from_state(state, on_roll=on_roll, dice=spec.dice,
                                                  double_offered=spec.double_offered).encode()
        # player 1 at the bottom, as gnubg reads an XGID, when the text said who is who
        bottom = 1 if spec.on_roll is not None else on_roll
        out["xgid"] = str(xgid_from_position(pos, state, mover=on_roll, bottom=bottom, dice=spec.dice,
                                             double_offered=spec.double_offered))
    out["key"] = encode_key(pos)
    return out


def _match_lines(spec: PositionSpec) -> list[str]:
    m = spec.match
    if m is None:
        return []
    if m.is_money:
        kind = "Money session"
        flags = [f for f, on in (("Jacoby", m.jacoby), ("beavers", m.beavers)) if on]
        if flags:
            kind += " (" + ", ".join(flags) + ")"
    else:
        kind = f"{m.length}-point match"
        if m.crawford:
            kind += ", Crawford game"
        elif m.post_crawford:
            kind += ", post-Crawford"
    me = spec.on_roll if spec.on_roll is not None else 0
    score = f"score X {m.score[me]} - O {m.score[1 - me]}" if not m.is_money else ""
    if m.cube_owner is None:
        cube = f"cube {m.cube} centred"
    else:
        cube = f"cube {m.cube} owned by " + ("X" if m.cube_owner == me else "O")
    return [", ".join(t for t in (kind, score, cube) if t)]


def show_position(spec: PositionSpec, *, home_side: HomeSide = "right") -> str:
    """The ASCII board of ``spec`` with its identifiers, match state, pips and turn."""
    ids = position_identifiers(spec)
    header: list[str] = []
    if "position_id" in ids:
        header.append(f"Position ID: {ids['position_id']}   Match ID: {ids['match_id']}")
        header.append(ids["xgid"])
    header.append(f"Key: {ids['key']}")
    header += _match_lines(spec)
    return draw_board(spec.position, header, home_side=home_side, dice=spec.dice)


def show_position_data(spec: PositionSpec) -> dict[str, Any]:
    """The JSON-ready description of ``spec``: the position, identifiers, pips, match state."""
    pos = spec.position
    mp, op = pos.pips()
    data: dict[str, Any] = {"position": position_to_json(pos), **position_identifiers(spec),
                            "pips": {"mover": mp, "opponent": op}}
    if spec.dice is not None:
        data["dice"] = list(spec.dice)
    if spec.match is not None:
        m = spec.match
        data["match"] = {"length": m.length, "score": list(m.score), "cube": m.cube,
                         "cube_owner": m.cube_owner, "crawford": m.crawford,
                         "post_crawford": m.post_crawford, "on_roll": spec.on_roll}
    return data
