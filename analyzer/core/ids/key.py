"""Our position key, for every variant.

``<V>.<data>`` where ``V`` is ``S`` (standard), ``D`` (Dutch) or ``M`` (Mahbusa) and ``data``
is the URL-safe base64 (``A-Z a-z 0-9 - _``, no padding) of a bit string packed like the
gnubg Position ID (bit k in byte k // 8 at bit k % 8), zero-padded to a fixed size per
variant, the most it can need: 10 bytes standard, 11 Dutch, 12 Mahbusa (keys of 16, 17 and
18 characters):

1. two blocks, the opponent's first, then the mover's; each walks the side's own slots and
   writes, per slot, one ``1`` per checker then a ``0``. The slots are points 1..24 of the
   side's own numbering, then the bar (standard, Dutch), then the reserve (Dutch);
2. Mahbusa: one bit per point (mover's numbering, 1 to 24) that holds checkers of both
   sides: ``1`` when the opponent's checker is the pinned one, ``0`` when the mover's is;
3. Dutch: two bits, mover may hit, opponent may hit;
4. Mahbusa: one bit, the game ended by a special rule (layout slot ``GAME_END``).

Borne-off checkers are what is left of 15. A standard key is therefore the gnubg Position ID
with ``-_`` for ``+/`` and an ``S.`` in front. Decoding re-encodes and insists on the same
text, so every position has exactly one key.

>>> encode_key(Position.start("dutch"))
'D.AAAA_v8AAAD8_wE'
>>> decode_key(encode_key(Position.start("mahbusa"))) == Position.start("mahbusa")
True
"""

from __future__ import annotations

import re
from typing import Any

from analyzer.core import layout as L
from analyzer.core.errors import ParseError, PositionError
from analyzer.core.ids._codec import BitReader, BitWriter, b64, relocate, unb64
from analyzer.core.position import Position

__all__ = ["KEY_RE", "decode_key", "encode_key"]

_VARIANT_LETTER = {"standard": "S", "dutch": "D", "mahbusa": "M"}
_LETTER_VARIANT = {v: k for k, v in _VARIANT_LETTER.items()}
# 2 x (slots + 15 checkers) + flag bits; Mahbusa: 2 x 24 + 30 + at most 15 shared points + 1
_KEY_BYTES = {"standard": 10, "dutch": 11, "mahbusa": 12}
KEY_RE = re.compile(r"([SDM])\.([A-Za-z0-9_-]+)")
"""The shape of a key: a variant letter, a dot and base64url (whether it decodes is another matter)."""


def _own_slots(pos: Position, side: str) -> list[int]:
    """A side's slots in its own order: points 1..24 of its numbering, bar, reserve."""
    if side == "mover":
        pts = list(pos.mover)
        bar, res = pos.mover_bar, pos.mover_reserve
    else:
        pts = list(reversed(pos.opponent))
        bar, res = pos.opponent_bar, pos.opponent_reserve
    if pos.variant == "mahbusa":
        return pts
    if pos.variant == "dutch":
        return pts + [bar, res]
    return pts + [bar]


def encode_key(pos: Position) -> str:
    """Our compact key of a position of any variant (format in the module docstring).

    >>> encode_key(Position.start())
    'S.4HPwATDgc_ABMA'
    >>> encode_key(Position.from_notation("P 14:1 10:1+o 1:13 | O 21:14", "mahbusa"))
    'M.-P8BEID_DyAEQAAA'
    """
    pos.validate()
    var = pos.variant
    a = pos.array()
    for p in pos.pinned_mover:
        if a[p] >= 0:
            raise PositionError(f"pinned mover checker on {p} has no opponent stack above it")
    for p in pos.pinned_opponent:
        if a[p] <= 0:
            raise PositionError(f"pinned opponent checker on {p} has no mover stack above it")
    w = BitWriter()
    for side in ("opponent", "mover"):
        for n in _own_slots(pos, side):
            w.unary(n)
    if var == "mahbusa":
        m, o = pos.mover, pos.opponent
        pinned_opp = set(pos.pinned_opponent)
        for p in range(1, 25):
            if m[p - 1] and o[p - 1]:
                w.bit(p in pinned_opp)
    if var == "dutch":
        w.bit(pos.mover_can_hit)
        w.bit(pos.opponent_can_hit)
    if var == "mahbusa":
        w.bit(pos.game_end_flag)
    return f"{_VARIANT_LETTER[var]}.{b64(w.to_bytes(_KEY_BYTES[var]), url=True)}"


def decode_key(text: str) -> Position:
    """Read a key written by :func:`encode_key`.

    >>> decode_key("S.4HPwATDgc_ABMA") == Position.start()
    True
    >>> decode_key("X.4HPw")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: not a position key (S., D. or M. and base64url): 'X.4HPw'
    """
    tok = text.strip()
    mt = KEY_RE.fullmatch(tok)
    if not mt:
        raise ParseError("not a position key (S., D. or M. and base64url)", token=tok)
    var = _LETTER_VARIANT[mt.group(1)]
    try:
        data = unb64(mt.group(2), "position key", url=True)
    except ParseError as e:
        raise relocate(e, tok) from None
    r = BitReader(data, "position key", tok)
    nslots = {"standard": 25, "dutch": 26, "mahbusa": 24}[var]
    blocks: list[list[int]] = []
    for _side in range(2):
        counts: list[int] = []
        for _slot in range(nslots):
            counts.append(r.unary(L.CHECKERS - sum(counts)))
        blocks.append(counts)
    opp_own, mov = blocks
    opp = list(reversed(opp_own[:24]))
    kw: dict[str, Any] = {}
    if var != "mahbusa":
        kw["mover_bar"], kw["opponent_bar"] = mov[24], opp_own[24]
    if var == "dutch":
        kw["mover_reserve"], kw["opponent_reserve"] = mov[25], opp_own[25]
    pin_m: list[int] = []
    pin_o: list[int] = []
    if var == "mahbusa":
        for p in range(1, 25):
            if mov[p - 1] and opp[p - 1]:
                (pin_o if r.bit() else pin_m).append(p)
    if var == "dutch":
        kw["mover_can_hit"] = bool(r.bit())
        kw["opponent_can_hit"] = bool(r.bit())
    if var == "mahbusa":
        kw["game_end"] = bool(r.bit())
    if not r.rest_is_zero():
        raise ParseError("position key: stray bits after the data", token=tok)
    try:
        pos = Position.from_points(mov[:24], opp, pinned_mover=pin_m, pinned_opponent=pin_o,
                                   variant=var, **kw)
    except PositionError as e:
        raise relocate(e, tok) from None
    if encode_key(pos) != tok:
        raise ParseError("position key: not in canonical form", token=tok)
    return pos
