"""The gnubg Position ID (``docs/formats.md`` §3.1) of standard positions.

14 base64 characters for 80 bits. The player *not* on roll comes first, then the player on roll;
each walks his points 1..24 (own numbering) then his bar, writing one ``1`` bit per checker and a
``0`` after each point. Bit k lives in byte k // 8 at bit k % 8.

>>> encode_position_id(Position.start())
'4HPwATDgc/ABMA'
"""

from __future__ import annotations

from analyzer.core import layout as L
from analyzer.core.errors import ParseError, PositionError
from analyzer.core.ids._codec import BitReader, BitWriter, b64, relocate, require_gnubg_board, unb64
from analyzer.core.position import Position

__all__ = ["decode_position_id", "encode_position_id"]


def encode_position_id(pos: Position) -> str:
    """The gnubg Position ID of a standard position (its mover is the player on roll).

    >>> p = Position.from_points({24: 1, 23: 1, 13: 4, 8: 4, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5})
    >>> encode_position_id(p.flip())
    '4PPgASjgc/ABMA'
    """
    require_gnubg_board(pos, "a gnubg Position ID")
    w = BitWriter()
    opp = pos.opponent
    for q in range(1, 25):  # the opponent's own point q is the mover's point 25 - q
        w.unary(opp[24 - q])
    w.unary(pos.opponent_bar)
    for n in pos.mover:
        w.unary(n)
    w.unary(pos.mover_bar)
    return b64(w.to_bytes(10))


def decode_position_id(text: str) -> Position:
    """Read a gnubg Position ID (14 characters) as a standard position from the side on roll.

    >>> decode_position_id("4HPwATDgc/ABMA") == Position.start()
    True
    >>> decode_position_id("4HPwATDgc/AB")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: a gnubg Position ID has 14 characters, not 12: '4HPwATDgc/AB'
    """
    tok = text.strip()
    if len(tok) != 14:
        raise ParseError(f"a gnubg Position ID has 14 characters, not {len(tok)}", token=tok)
    data = unb64(tok, "Position ID")
    r = BitReader(data, "Position ID", tok)
    blocks: list[list[int]] = []
    for _side in range(2):
        counts = []
        total = 0
        for _slot in range(25):
            n = r.unary(L.CHECKERS - total)
            total += n
            counts.append(n)
        blocks.append(counts)
    if not r.rest_is_zero():
        raise ParseError("Position ID: stray bits after both sides", token=tok)
    opp_own, mov = blocks
    opponent = {25 - q: opp_own[q - 1] for q in range(1, 25) if opp_own[q - 1]}
    mover = {p: mov[p - 1] for p in range(1, 25) if mov[p - 1]}
    try:
        return Position.from_points(mover, opponent, mover_bar=mov[24], opponent_bar=opp_own[24])
    except PositionError as e:
        raise relocate(e, tok) from None
