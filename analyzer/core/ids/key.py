"""Our position key, for every variant.

``<V>.<data>`` where ``V`` is the variant's key letter (:mod:`analyzer.core.variants`: ``S``
standard, ``D`` Dutch, ``M`` Mahbusa) and ``data``
is the URL-safe base64 (``A-Z a-z 0-9 - _``, no padding) of a bit string packed like the
gnubg Position ID (bit k in byte k // 8 at bit k % 8), zero-padded to a fixed size per
variant, the most it can need: 10 bytes standard, 11 Dutch, 12 Mahbusa (keys of 16, 17 and
18 characters):

1. two blocks, the opponent's first, then the mover's; each walks the side's own slots and
   writes, per slot, one ``1`` per checker then a ``0``. The slots are points 1..24 of the
   side's own numbering, then the bar (standard, Dutch), then the reserve (Dutch);
2. pins (Mahbusa): one bit per point (mover's numbering, 1 to 24) that holds checkers of both
   sides: ``1`` when the opponent's checker is the pinned one, ``0`` when the mover's is;
3. the hitting lock (Dutch): two bits, mover may hit, opponent may hit;
4. the mother rule (Mahbusa): one bit, the game ended by a special rule (layout slot ``GAME_END``).

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
from analyzer.core.variants import VariantSpec, all_specs

__all__ = ["decode_key", "encode_key", "key_match", "key_slots"]


def key_match(text: str) -> re.Match[str] | None:
    """The shape of a key: a registered variant letter, a dot and base64url (whether it decodes
    is another matter).

    >>> key_match("M.-P8BEID_DyAEQAAA").group(1), key_match("X.4HPw")
    ('M', None)
    """
    letters = "".join(s.letter for s in all_specs())
    return re.fullmatch(rf"([{letters}])\.([A-Za-z0-9_-]+)", text)


def _slot_count(spec: VariantSpec) -> int:
    """A side's slots: points 1..24, the bar, the reserve."""
    return 24 + spec.bar + spec.reserve


def _key_bytes(spec: VariantSpec) -> int:
    """The fixed size of a variant's keys: 2 x (slots + 15 checkers) + the flag bits (at most 15
    shared points, 2 lock bits, 1 game-end bit), in whole bytes: 10 standard, 11 Dutch, 12 Mahbusa.

    >>> [_key_bytes(s) for s in all_specs()]
    [10, 11, 12]
    """
    bits = 2 * (_slot_count(spec) + L.CHECKERS) + 15 * spec.pins + 2 * spec.hit_lock + spec.mother_rule
    return -(-bits // 8)


def _own_slots(pos: Position, side: str) -> list[int]:
    """A side's slots in its own order: points 1..24 of its numbering, bar, reserve."""
    if side == "mover":
        pts = list(pos.mover)
        bar, res = pos.mover_bar, pos.mover_reserve
    else:
        pts = list(reversed(pos.opponent))
        bar, res = pos.opponent_bar, pos.opponent_reserve
    spec = pos.spec
    return pts + ([bar] if spec.bar else []) + ([res] if spec.reserve else [])


def encode_key(pos: Position) -> str:
    """Our compact key of a position of any variant (format in the module docstring).

    >>> encode_key(Position.start())
    'S.4HPwATDgc_ABMA'
    >>> encode_key(Position.from_notation("P 14:1 10:1+o 1:13 | O 21:14", "mahbusa"))
    'M.-P8BEID_DyAEQAAA'
    """
    pos.validate()
    spec = pos.spec
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
    if spec.pins:
        m, o = pos.mover, pos.opponent
        pinned_opp = set(pos.pinned_opponent)
        for p in range(1, 25):
            if m[p - 1] and o[p - 1]:
                w.bit(p in pinned_opp)
    if spec.hit_lock:
        w.bit(pos.mover_can_hit)
        w.bit(pos.opponent_can_hit)
    if spec.mother_rule:
        w.bit(pos.game_end_flag)
    return f"{spec.letter}.{b64(w.to_bytes(_key_bytes(spec)), url=True)}"


def _read_slots(text: str) -> tuple[str, VariantSpec, BitReader, list[int], list[int]]:
    """The key's text stripped, its variant, the reader after both sides' blocks, and the mover's
    and the opponent's checker counts, each side's slots in its own order."""
    tok = text.strip()
    mt = key_match(tok)
    if not mt:
        letters = [f"{s.letter}." for s in all_specs()]
        raise ParseError(f"not a position key ({', '.join(letters[:-1])} or {letters[-1]} and base64url)",
                         token=tok)
    spec = next(s for s in all_specs() if s.letter == mt.group(1))
    try:
        data = unb64(mt.group(2), "position key", url=True)
    except ParseError as e:
        raise relocate(e, tok) from None
    r = BitReader(data, "position key", tok)
    nslots = _slot_count(spec)
    blocks: list[list[int]] = []
    for _side in range(2):
        counts: list[int] = []
        for _slot in range(nslots):
            counts.append(r.unary(L.CHECKERS - sum(counts)))
        blocks.append(counts)
    opp_own, mov = blocks
    return tok, spec, r, mov, opp_own


def key_slots(text: str) -> tuple[VariantSpec, list[int], list[int]]:
    """The variant and the checker counts of a key: the mover's and the opponent's, each side's
    slots in its own order (points 1..24 of its numbering, then the bar and the reserve where the
    variant has them). Read without building or checking the position (:func:`decode_key` does):
    for bulk reads of keys this program wrote. Raises :class:`ParseError` for text that is no key.

    >>> spec, mover, opponent = key_slots(encode_key(Position.start()))
    >>> spec.name, mover[5], mover[12], opponent[23], len(mover)
    ('standard', 5, 5, 2, 25)
    """
    _, spec, _, mov, opp_own = _read_slots(text)
    return spec, mov, opp_own


def decode_key(text: str) -> Position:
    """Read a key written by :func:`encode_key`.

    >>> decode_key("S.4HPwATDgc_ABMA") == Position.start()
    True
    >>> decode_key("X.4HPw")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: not a position key (S., D. or M. and base64url): 'X.4HPw'
    """
    tok, spec, r, mov, opp_own = _read_slots(text)
    opp = list(reversed(opp_own[:24]))
    kw: dict[str, Any] = {}
    extra = 24
    if spec.bar:
        kw["mover_bar"], kw["opponent_bar"] = mov[extra], opp_own[extra]
        extra += 1
    if spec.reserve:
        kw["mover_reserve"], kw["opponent_reserve"] = mov[extra], opp_own[extra]
    pin_m: list[int] = []
    pin_o: list[int] = []
    if spec.pins:
        for p in range(1, 25):
            if mov[p - 1] and opp[p - 1]:
                (pin_o if r.bit() else pin_m).append(p)
    if spec.hit_lock:
        kw["mover_can_hit"] = bool(r.bit())
        kw["opponent_can_hit"] = bool(r.bit())
    if spec.mother_rule:
        kw["game_end"] = bool(r.bit())
    if not r.rest_is_zero():
        raise ParseError("position key: stray bits after the data", token=tok)
    try:
        pos = Position.from_points(mov[:24], opp, pinned_mover=pin_m, pinned_opponent=pin_o,
                                   variant=spec.name, **kw)
    except PositionError as e:
        raise relocate(e, tok) from None
    if encode_key(pos) != tok:
        raise ParseError("position key: not in canonical form", token=tok)
    return pos
