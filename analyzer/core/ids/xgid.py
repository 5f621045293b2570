"""The eXtreme Gammon XGID (``docs/formats.md`` §3.3): ``XGID=`` and 10 (or 9) colon-separated fields.

>>> x = decode_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10")
>>> xgid_position(x) == Position.start(), x.match_state().length
(True, 7)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analyzer.core import layout as L
from analyzer.core.errors import InputError, ParseError, PositionError
from analyzer.core.ids._codec import excerpt, relocate, require_gnubg_board
from analyzer.core.match import MatchState, check_player, inferred_post_crawford
from analyzer.core.position import Position

__all__ = ["XGID", "decode_xgid", "encode_xgid", "xgid_fields", "xgid_from_position", "xgid_position"]

_XG_DICE = re.compile(r"00|[1-6][1-6]|[DBR]")


@dataclass(frozen=True, slots=True)
class XGID:
    """The ten fields of an eXtreme Gammon XGID (``docs/formats.md`` §3.3).

    ``checkers`` has 26 entries: index 0 is the top player's bar, 1..24 the points numbered from
    the bottom player's side, 25 the bottom player's bar; positive counts are the bottom
    player's checkers, negative ones the top player's. ``dice`` is ``"00"``, two digits, ``"D"``,
    ``"B"`` or ``"R"`` (the player on turn has doubled, beavered or raccooned and the other
    must answer; not checked against XG itself). ``max_cube_log2`` is ``None`` for a 9-field
    XGID.

    >>> x = decode_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    >>> x.checkers[6], x.checkers[1], x.turn, x.dice
    (5, -2, 1, '00')
    >>> str(x)
    'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10'
    """

    checkers: tuple[int, ...]
    cube_log2: int = 0
    cube_position: int = 0
    turn: int = 1
    dice: str = "00"
    score_bottom: int = 0
    score_top: int = 0
    flags: int = 0
    length: int = 0
    max_cube_log2: int | None = 10

    def __post_init__(self) -> None:
        ch = self.checkers
        if len(ch) != 26:
            raise ParseError("XGID: the board has 26 slots", token=str(len(ch)))
        if ch[0] > 0 or ch[25] < 0:
            raise PositionError("XGID: a bar holds only its own player's checkers", token=str(ch))
        if sum(n for n in ch if n > 0) > L.CHECKERS or -sum(n for n in ch if n < 0) > L.CHECKERS:
            raise PositionError(f"XGID: more than {L.CHECKERS} checkers for one side")
        if not 0 <= self.cube_log2 <= 15:
            raise ParseError("XGID: cube out of range", token=str(self.cube_log2))
        if self.cube_position not in (-1, 0, 1):
            raise ParseError("XGID: cube position is -1, 0 or 1", token=str(self.cube_position))
        if self.turn not in (-1, 1):
            raise ParseError("XGID: turn is 1 or -1", token=str(self.turn))
        if not _XG_DICE.fullmatch(self.dice):
            raise ParseError("XGID: dice are 00, two digits 1-6, D, B or R", token=self.dice)
        for v in (self.score_bottom, self.score_top, self.length, self.flags):
            if v < 0:
                raise ParseError("XGID: negative score, length or flags", token=str(v))
        if self.max_cube_log2 is not None and not 0 <= self.max_cube_log2 <= 15:
            raise ParseError("XGID: max cube out of range", token=str(self.max_cube_log2))
        if self.max_cube_log2 is not None and self.cube_log2 > self.max_cube_log2:
            raise ParseError(f"XGID: the cube ({1 << self.cube_log2}) is above the max cube "
                             f"({1 << self.max_cube_log2})", token=str(self.cube_log2))

    def __str__(self) -> str:
        return encode_xgid(self)

    @property
    def rolled(self) -> tuple[int, int] | None:
        """The dice when they are rolled, else ``None``."""
        if self.dice.isdigit() and self.dice != "00":
            return (int(self.dice[0]), int(self.dice[1]))
        return None

    def position(self) -> Position:
        """The position from the side named by ``turn`` (see :func:`xgid_position`)."""
        return xgid_position(self)

    def match_state(self, *, bottom_player: int | None = None) -> MatchState:
        """The match state this XGID holds; ``bottom_player`` is the number of XG's bottom player.

        By default the bottom player is player 1 (the player on turn is player 1 when ``turn`` is
        1, player 0 when it is -1; gnubg's ``set xgid`` numbers the player on turn 1 in both
        cases). Field 8 is the Crawford flag
        in a match and the Jacoby (1) / beaver (2) bits in money play; field 10 is the log2 of the
        cube limit.

        >>> s = decode_xgid("XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:3:1:0:7:10").match_state()
        >>> s.score, s.cube, s.cube_owner, s.cube_limit
        ((1, 3), 2, 0, 1024)
        """
        if bottom_player is None:
            bottom_player = 1
        check_player(bottom_player)
        top = 1 - bottom_player
        score = [0, 0]
        score[bottom_player] = self.score_bottom
        score[top] = self.score_top
        owner = None if self.cube_position == 0 else (bottom_player if self.cube_position == 1 else top)
        money = self.length == 0
        crawford = self.length > 1 and bool(self.flags & 1)  # a 1-point match has no Crawford game
        post = inferred_post_crawford(self.length, (score[0], score[1]), crawford)
        limit = None if self.max_cube_log2 is None else 1 << self.max_cube_log2
        return MatchState(length=self.length, score=(score[0], score[1]), cube=1 << self.cube_log2,
                          cube_owner=owner, crawford=crawford, post_crawford=post,
                          jacoby=money and bool(self.flags & 1), beavers=money and bool(self.flags & 2),
                          cube_limit=limit)


def _xg_char(n: int) -> str:
    if n == 0:
        return "-"
    return chr(ord("A") + n - 1) if n > 0 else chr(ord("a") - n - 1)


def encode_xgid(x: XGID) -> str:
    """The text of an XGID, with the ``XGID=`` prefix.

    >>> encode_xgid(XGID(tuple([0] * 26), length=7, max_cube_log2=None))
    'XGID=--------------------------:0:0:1:00:0:0:0:7'
    """
    fields = ["".join(_xg_char(n) for n in x.checkers), str(x.cube_log2), str(x.cube_position),
              str(x.turn), x.dice, str(x.score_bottom), str(x.score_top), str(x.flags), str(x.length)]
    if x.max_cube_log2 is not None:
        fields.append(str(x.max_cube_log2))
    return "XGID=" + ":".join(fields)


def decode_xgid(text: str) -> XGID:
    """Read an XGID with or without ``XGID=``, with 10 fields or the older 9.

    >>> decode_xgid("-aa---E-C---dE---d-e----B-:0:0:1:42:0:0:0:7:10").rolled
    (4, 2)
    >>> decode_xgid("XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:0:10")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: XGID: bad checker letter 'Z' in the position field: \
'XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:0:10'
    """
    tok = text.strip()
    body = tok[5:] if tok[:5].upper() == "XGID=" else tok
    fields = body.split(":")
    if len(fields) not in (9, 10):
        raise ParseError(f"an XGID has 9 or 10 fields separated by ':', not {len(fields)}", token=tok)
    board = fields[0]
    if len(board) != 26:
        raise ParseError(f"XGID: the position field has 26 characters, not {len(board)}", token=tok)
    checkers = []
    for ch in board:
        if ch == "-":
            checkers.append(0)
        elif "A" <= ch <= "O":
            checkers.append(ord(ch) - ord("A") + 1)
        elif "a" <= ch <= "o":
            checkers.append(-(ord(ch) - ord("a") + 1))
        else:
            raise ParseError(f"XGID: bad checker letter {ch!r} in the position field", token=tok)
    nums: list[int] = []
    for i in (1, 2, 3, 5, 6, 7, 8, 9):
        if i >= len(fields):
            continue
        if not re.fullmatch(r"-?[0-9]+", fields[i]):
            raise ParseError(f"XGID: field {i + 1} is not a number: {fields[i]!r}", token=tok)
        if len(fields[i].lstrip("-").lstrip("0")) > 5:  # every field fits 15 bits
            raise ParseError(f"XGID: field {i + 1} is out of range: {excerpt(fields[i], 12)!r}", token=tok)
        nums.append(int(fields[i]))
    try:
        return XGID(tuple(checkers), cube_log2=nums[0], cube_position=nums[1], turn=nums[2],
                    dice=fields[4], score_bottom=nums[3], score_top=nums[4], flags=nums[5],
                    length=nums[6], max_cube_log2=nums[7] if len(nums) > 7 else None)
    except InputError as e:
        raise relocate(e, tok) from None


def xgid_position(x: XGID) -> Position:
    """The standard position of an XGID, seen from the player named by its ``turn`` field.

    >>> xgid_position(decode_xgid("-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:0:0:10")) == Position.start()
    True
    """
    ch = x.checkers
    mover = {p: ch[p] for p in range(1, 25) if ch[p] > 0}
    opponent = {p: -ch[p] for p in range(1, 25) if ch[p] < 0}
    try:
        bottom = Position.from_points(mover, opponent, mover_bar=ch[25], opponent_bar=-ch[0])
    except PositionError as e:
        raise relocate(e, encode_xgid(x)) from None
    return bottom if x.turn == 1 else bottom.flip()


def xgid_from_position(
    pos: Position,
    match: MatchState | None = None,
    *,
    mover: int = 0,
    bottom: int | None = None,
    dice: tuple[int, int] | None = None,
    double_offered: bool = False,
) -> XGID:
    """The XGID of a standard position whose mover is player ``mover`` of ``match``.

    The bottom player is the mover unless ``bottom`` names the other player. ``double_offered``
    writes ``D`` in the dice field (``dice`` must then be ``None``). Money play without a match
    state is written as a centred 1-cube at 0-0.

    >>> str(xgid_from_position(Position.start()))
    'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10'
    >>> s = MatchState(length=7)
    >>> from analyzer.core.ids.position_id import decode_position_id
    >>> p = decode_position_id("4PPgASjgc/ABMA")
    >>> str(xgid_from_position(p, s, mover=1, dice=(4, 2)))
    'XGID=-aa---E-C---dE---d-e----B-:0:0:1:42:0:0:0:7:10'
    """
    require_gnubg_board(pos, "an XGID")
    if mover not in (0, 1):
        raise ParseError("the mover is player 0 or 1", token=str(mover))
    bottom = mover if bottom is None else bottom
    if bottom not in (0, 1):
        raise ParseError("the bottom player is 0 or 1", token=str(bottom))
    if dice is not None and double_offered:
        raise ParseError("a double is offered before the dice are rolled", token=str(dice))
    view = pos if bottom == mover else pos.flip()
    checkers = [0] * 26
    vm, vo = view.mover, view.opponent
    for p in range(1, 25):
        checkers[p] = vm[p - 1] - vo[p - 1]
    checkers[25] = view.mover_bar
    checkers[0] = -view.opponent_bar
    if dice is not None:
        a, b = dice
        if not (1 <= a <= 6 and 1 <= b <= 6):
            raise ParseError("dice must be 1 to 6", token=f"{a}{b}")
        dtext = f"{a}{b}"
    else:
        dtext = "D" if double_offered else "00"
    fields = xgid_fields(match or MatchState(), bottom_player=bottom)
    return XGID(tuple(checkers), turn=1 if bottom == mover else -1, dice=dtext, **fields)


def xgid_fields(state: MatchState, *, bottom_player: int) -> dict[str, int]:
    """The XGID fields of ``state``: cube, cube position, scores, flags, length, max cube.

    >>> xgid_fields(MatchState(length=5, score=(4, 1), crawford=True), bottom_player=1)
    {'cube_log2': 0, 'cube_position': 0, 'score_bottom': 1, 'score_top': 4, 'flags': 1, \
'length': 5, 'max_cube_log2': 10}
    """
    check_player(bottom_player)
    pos = 0 if state.cube_owner is None else (1 if state.cube_owner == bottom_player else -1)
    flags = int(state.crawford) if state.length else int(state.jacoby) | (2 * int(state.beavers))
    # no limit: XG's usual 1024, or the cube itself once it is higher
    limit = max(10, state.cube.bit_length() - 1) if state.cube_limit is None else state.cube_limit.bit_length() - 1
    return {"cube_log2": state.cube.bit_length() - 1, "cube_position": pos,
            "score_bottom": state.score[bottom_player], "score_top": state.score[1 - bottom_player],
            "flags": flags, "length": state.length, "max_cube_log2": limit}
