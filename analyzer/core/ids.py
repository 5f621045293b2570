"""Text identifiers of positions and match states: gnubg IDs, XGIDs, JSON and our own key.

gnubg Position ID (``docs/formats.md`` §3.1)
    14 base64 characters for 80 bits. The player *not* on roll comes first, then the player on
    roll; each walks his points 1..24 (own numbering) then his bar, writing one ``1`` bit per
    checker and a ``0`` after each point. Bit k lives in byte k // 8 at bit k % 8. Standard
    positions only.

gnubg Match ID (§3.2)
    12 base64 characters for 72 bits: cube, owner, dice, score... (:class:`MatchID`).

XGID (§3.3)
    ``XGID=`` and 10 (or 9) colon-separated fields (:class:`XGID`).

JSON form
    ``{"variant": "standard", "mover": [24 counts], "opponent": [24 counts], "mover_bar": 0,
    "opponent_bar": 0, "mover_off": 0, "opponent_off": 0}``; points are numbered 1..24 from the
    mover's side for both lists. Dutch adds ``mover_reserve``, ``opponent_reserve``,
    ``mover_can_hit`` and ``opponent_can_hit``; Mahbusa adds ``pinned_mover`` and
    ``pinned_opponent`` (points, mover's numbering; the counts include pinned checkers; the bars
    are always 0) and ``"game_end": true`` when the game ended by a special rule.

Position key (ours; every variant)
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

>>> from analyzer.core.position import Position
>>> encode_position_id(Position.start())
'4HPwATDgc/ABMA'
>>> encode_key(Position.start("dutch"))
'D.AAAA_v8AAAD8_wE'
>>> decode_key(encode_key(Position.start("mahbusa"))) == Position.start("mahbusa")
True
>>> decode_match_id("cAkAAAAAAAAA").on_roll
1
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from analyzer.core import layout as L
from analyzer.core.errors import InputError, ParseError, PositionError, RulesError
from analyzer.core.match import MatchState, is_match_over
from analyzer.core.position import VARIANTS, Position, canonical_variant

__all__ = [
    "MAX_JSON_DEPTH", "XGID", "GameState", "MatchID", "PositionSpec", "decode_key", "decode_match_id",
    "decode_position_id", "decode_xgid", "encode_key", "encode_match_id", "encode_position_id",
    "encode_xgid", "load_json", "parse_position_spec", "position_from_json", "position_to_json",
    "xgid_position",
]

_STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


# ---------------------------------------------------------------------- JSON text
MAX_JSON_DEPTH = 32
"""The deepest nesting of arrays and objects :func:`load_json` reads (positions need 3)."""

# a string (closed or running to the end of the text) or one bracket
_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


def _excerpt(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def load_json(text: str, what: str) -> Any:
    """Read JSON text; every way it can fail is a :class:`ParseError` that starts with ``what``.

    Besides malformed text this refuses ``NaN`` and ``Infinity`` (not JSON), numbers too long for
    Python to convert, and nesting deeper than :data:`MAX_JSON_DEPTH` (checked before parsing,
    so that no input reaches the interpreter's recursion limit).

    >>> load_json('{"dice": [3, 1]}', "batch line")
    {'dice': [3, 1]}
    >>> load_json("[" * 40 + "]" * 40, "batch line")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: batch line: nested deeper than 32 levels: '[[[[[[[[[[[[[[[[[[[[...'
    """
    depth = deepest = 0
    for m in _JSON_NESTING.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_JSON_DEPTH:
                    raise ParseError(f"{what}: nested deeper than {MAX_JSON_DEPTH} levels",
                                     token=_excerpt(text, 20))
        elif ch in "]}":
            depth -= 1
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise ParseError(f"{what}: not valid JSON ({e.msg} at column {e.colno})", token=_excerpt(text)) from None
    except (ValueError, RecursionError) as e:  # huge numbers, NaN; recursion cannot happen below the cap
        raise ParseError(f"{what}: not valid JSON ({str(e).split(';')[0]})", token=_excerpt(text)) from None


# ---------------------------------------------------------------------- base64 and bits
def _b64(data: bytes, url: bool = False) -> str:
    enc = base64.urlsafe_b64encode(data) if url else base64.b64encode(data)
    return enc.decode("ascii").rstrip("=")


def _unb64(text: str, what: str, url: bool = False) -> bytes:
    alphabet = _URL if url else _STD
    for ch in text:
        if ch not in alphabet:
            raise ParseError(f"{what}: character {ch!r} is not base64", token=text)
    if len(text) % 4 == 1:
        raise ParseError(f"{what}: impossible base64 length {len(text)}", token=text)
    padded = text + "=" * (-len(text) % 4)
    data = base64.urlsafe_b64decode(padded) if url else base64.b64decode(padded, validate=True)
    if _b64(data, url) != text:
        raise ParseError(f"{what}: stray bits after the data", token=text)
    return data


class _BitReader:
    def __init__(self, data: bytes, what: str, token: str) -> None:
        self.value = int.from_bytes(data, "little")
        self.nbits = 8 * len(data)
        self.pos = 0
        self.what = what
        self.token = token

    def bit(self) -> int:
        if self.pos >= self.nbits:
            raise ParseError(f"{self.what}: the data ends too early", token=self.token)
        b = (self.value >> self.pos) & 1
        self.pos += 1
        return b

    def unary(self, limit: int) -> int:
        n = 0
        while self.bit():
            n += 1
            if n > limit:
                raise PositionError(f"{self.what}: more than {L.CHECKERS} checkers for one side",
                                    token=self.token)
        return n

    def rest_is_zero(self) -> bool:
        return self.value >> self.pos == 0


class _BitWriter:
    def __init__(self) -> None:
        self.value = 0
        self.nbits = 0

    def bit(self, b: int | bool) -> None:
        if b:
            self.value |= 1 << self.nbits
        self.nbits += 1

    def unary(self, n: int) -> None:
        for _ in range(n):
            self.bit(1)
        self.bit(0)

    def to_bytes(self, nbytes: int | None = None) -> bytes:
        size = (self.nbits + 7) // 8 if nbytes is None else nbytes
        return self.value.to_bytes(size, "little")


def _relocate(err: InputError, token: str) -> InputError:
    """The same kind of error, quoting the whole identifier."""
    return type(err)(err.message, token=token)


# ---------------------------------------------------------------------- gnubg Position ID
def _require_variant(pos: Position, variant: str, what: str) -> None:
    if pos.variant != variant:
        raise PositionError(f"{what} holds {variant} positions only", token=pos.variant)


def encode_position_id(pos: Position) -> str:
    """The gnubg Position ID of a standard position (its mover is the player on roll).

    >>> p = Position.from_points({24: 1, 23: 1, 13: 4, 8: 4, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5})
    >>> encode_position_id(p.flip())
    '4PPgASjgc/ABMA'
    """
    _require_variant(pos, "standard", "a gnubg Position ID")
    w = _BitWriter()
    opp = pos.opponent
    for q in range(1, 25):  # the opponent's own point q is the mover's point 25 - q
        w.unary(opp[24 - q])
    w.unary(pos.opponent_bar)
    for n in pos.mover:
        w.unary(n)
    w.unary(pos.mover_bar)
    return _b64(w.to_bytes(10))


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
    data = _unb64(tok, "Position ID")
    r = _BitReader(data, "Position ID", tok)
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
        raise _relocate(e, tok) from None


# ---------------------------------------------------------------------- gnubg Match ID
class GameState(IntEnum):
    """Game state of a gnubg Match ID (bits 9-11)."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


# (field, first bit (0-based), width)
_MATCH_FIELDS = (("cube_log2", 0, 4), ("owner", 4, 2), ("on_roll", 6, 1), ("crawford", 7, 1),
                 ("state", 8, 3), ("turn", 11, 1), ("double", 12, 1), ("resign", 13, 2),
                 ("die1", 15, 3), ("die2", 18, 3), ("length", 21, 15), ("score0", 36, 15),
                 ("score1", 51, 15), ("jacoby_off", 66, 1))


@dataclass(frozen=True, slots=True)
class MatchID:
    """Every field of a gnubg Match ID (``docs/formats.md`` §3.2).

    ``on_roll`` is the player holding the dice (the Position ID is from his side), ``turn`` the
    player who must act now. ``cube_owner`` is ``None`` when centred. ``dice`` is ``None`` before
    the roll and is kept in the stored order. ``jacoby_off`` is bit 67 of extended IDs.

    >>> m = decode_match_id("QYkqASAAIAAA")
    >>> m.cube, m.cube_owner, m.on_roll, m.dice, m.length, m.score
    (2, 0, 1, (5, 2), 9, (2, 4))
    >>> m.encode()
    'QYkqASAAIAAA'
    """

    cube: int = 1
    cube_owner: int | None = None
    on_roll: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    double_offered: bool = False
    resignation: int = 0
    dice: tuple[int, int] | None = None
    length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby_off: bool = False

    def __post_init__(self) -> None:
        c = self.cube
        if c < 1 or c & (c - 1) or c > 1 << 15:
            raise ParseError("Match ID: the cube must be a power of two up to 2^15", token=str(c))
        if self.cube_owner not in (None, 0, 1):
            raise ParseError("Match ID: the cube owner is 0, 1 or None", token=str(self.cube_owner))
        for name, v in (("player on roll", self.on_roll), ("player to act", self.turn)):
            if v not in (0, 1):
                raise ParseError(f"Match ID: the {name} is 0 or 1", token=str(v))
        if self.resignation not in (0, 1, 2, 3):
            raise ParseError("Match ID: resignation is 0 to 3", token=str(self.resignation))
        if self.dice is not None and (len(self.dice) != 2 or any(not 1 <= d <= 6 for d in self.dice)):
            raise ParseError("Match ID: dice must be 1 to 6", token=str(self.dice))
        if not 0 <= self.length < 1 << 15:
            raise ParseError("Match ID: match length out of range", token=str(self.length))
        if len(self.score) != 2 or any(not 0 <= s < 1 << 15 for s in self.score):
            raise ParseError("Match ID: score out of range", token=str(self.score))
        if self.game_state not in tuple(GameState):
            raise ParseError("Match ID: game state is 0 to 4", token=str(self.game_state))
        object.__setattr__(self, "game_state", GameState(self.game_state))

    def encode(self) -> str:
        """The 12-character Match ID."""
        return encode_match_id(self)

    def match_state(self) -> MatchState:
        """The :class:`~analyzer.core.match.MatchState` this ID describes."""
        return MatchState.from_match_id(self)


def encode_match_id(mid: MatchID) -> str:
    """The 12-character gnubg Match ID of ``mid``.

    >>> encode_match_id(MatchID(on_roll=1, turn=1))
    'cAkAAAAAAAAA'
    """
    d1, d2 = mid.dice if mid.dice is not None else (0, 0)
    values = {"cube_log2": mid.cube.bit_length() - 1,
              "owner": 3 if mid.cube_owner is None else mid.cube_owner,
              "on_roll": mid.on_roll, "crawford": int(mid.crawford), "state": int(mid.game_state),
              "turn": mid.turn, "double": int(mid.double_offered), "resign": mid.resignation,
              "die1": d1, "die2": d2, "length": mid.length, "score0": mid.score[0],
              "score1": mid.score[1], "jacoby_off": int(mid.jacoby_off)}
    key = 0
    for name, start, _width in _MATCH_FIELDS:
        key |= values[name] << start
    return _b64(key.to_bytes(9, "little"))


def decode_match_id(text: str) -> MatchID:
    """Read a 12-character gnubg Match ID.

    >>> decode_match_id("MIDmAAAAAAAE").jacoby_off
    True
    >>> decode_match_id("cAk@AAAAAAAA")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: Match ID: character '@' is not base64: 'cAk@AAAAAAAA'
    """
    tok = text.strip()
    if len(tok) != 12:
        raise ParseError(f"a gnubg Match ID has 12 characters, not {len(tok)}", token=tok)
    key = int.from_bytes(_unb64(tok, "Match ID"), "little")
    f: dict[str, int] = {}
    for name, start, width in _MATCH_FIELDS:
        f[name] = (key >> start) & ((1 << width) - 1)
    if key >> 67:
        raise ParseError("Match ID: unused bits are set", token=tok)
    if f["owner"] == 2:
        raise ParseError("Match ID: cube owner 2 does not exist", token=tok)
    if f["state"] > 4:
        raise ParseError(f"Match ID: unknown game state {f['state']}", token=tok)
    d1, d2 = f["die1"], f["die2"]
    if (d1 == 0) != (d2 == 0) or d1 > 6 or d2 > 6:
        raise ParseError(f"Match ID: impossible dice {d1}-{d2}", token=tok)
    try:
        return MatchID(cube=1 << f["cube_log2"], cube_owner=None if f["owner"] == 3 else f["owner"],
                       on_roll=f["on_roll"], crawford=bool(f["crawford"]),
                       game_state=GameState(f["state"]), turn=f["turn"], double_offered=bool(f["double"]),
                       resignation=f["resign"], dice=(d1, d2) if d1 else None, length=f["length"],
                       score=(f["score0"], f["score1"]), jacoby_off=bool(f["jacoby_off"]))
    except InputError as e:
        raise _relocate(e, tok) from None


# ---------------------------------------------------------------------- XGID
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
        """The match state (see :meth:`MatchState.from_xgid`)."""
        return MatchState.from_xgid(self, bottom_player=bottom_player)


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
            raise ParseError(f"XGID: field {i + 1} is out of range: {_excerpt(fields[i], 12)!r}", token=tok)
        nums.append(int(fields[i]))
    try:
        return XGID(tuple(checkers), cube_log2=nums[0], cube_position=nums[1], turn=nums[2],
                    dice=fields[4], score_bottom=nums[3], score_top=nums[4], flags=nums[5],
                    length=nums[6], max_cube_log2=nums[7] if len(nums) > 7 else None)
    except InputError as e:
        raise _relocate(e, tok) from None


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
        raise _relocate(e, encode_xgid(x)) from None
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
    >>> p = decode_position_id("4PPgASjgc/ABMA")
    >>> str(xgid_from_position(p, s, mover=1, dice=(4, 2)))
    'XGID=-aa---E-C---dE---d-e----B-:0:0:1:42:0:0:0:7:10'
    """
    _require_variant(pos, "standard", "an XGID")
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
    fields = (match or MatchState()).xgid_fields(bottom_player=bottom)
    return XGID(tuple(checkers), turn=1 if bottom == mover else -1, dice=dtext, **fields)


# ---------------------------------------------------------------------- JSON form
_JSON_COMMON = ("variant", "mover", "opponent", "mover_off", "opponent_off")
_JSON_KEYS = {
    "standard": _JSON_COMMON + ("mover_bar", "opponent_bar"),
    "dutch": _JSON_COMMON + ("mover_bar", "opponent_bar", "mover_reserve", "opponent_reserve",
                             "mover_can_hit", "opponent_can_hit"),
    "mahbusa": _JSON_COMMON + ("mover_bar", "opponent_bar", "pinned_mover", "pinned_opponent", "game_end"),
}


def position_to_json(pos: Position) -> dict[str, Any]:
    """The JSON form of a position (a dict ready for :func:`json.dumps`).

    >>> d = position_to_json(Position.start())
    >>> d["mover"][23], d["opponent"][0], d["mover_bar"], sorted(d)[:3]
    (2, 2, 0, ['mover', 'mover_bar', 'mover_off'])
    """
    out: dict[str, Any] = {"variant": pos.variant, "mover": list(pos.mover),
                           "opponent": list(pos.opponent)}
    out["mover_bar"] = pos.mover_bar  # always 0 in Mahbusa
    out["opponent_bar"] = pos.opponent_bar
    out["mover_off"] = pos.mover_off
    out["opponent_off"] = pos.opponent_off
    if pos.variant == "dutch":
        out["mover_reserve"] = pos.mover_reserve
        out["opponent_reserve"] = pos.opponent_reserve
        out["mover_can_hit"] = pos.mover_can_hit
        out["opponent_can_hit"] = pos.opponent_can_hit
    if pos.variant == "mahbusa":
        out["pinned_mover"] = list(pos.pinned_mover)
        out["pinned_opponent"] = list(pos.pinned_opponent)
        if pos.game_end_flag:
            out["game_end"] = True
    return out


def _json_int(obj: Mapping[str, Any], key: str, default: int | None) -> int | None:
    if key not in obj:
        return default
    v = obj[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise ParseError(f"JSON position: {key} must be an integer", token=json.dumps(v))
    return int(v)


def _json_bool(obj: Mapping[str, Any], key: str) -> bool | None:
    if key not in obj:
        return None
    v = obj[key]
    if not isinstance(v, bool):
        raise ParseError(f"JSON position: {key} must be true or false", token=json.dumps(v))
    return v


def _json_points(obj: Mapping[str, Any], key: str) -> list[int]:
    v = obj.get(key, [])
    if not isinstance(v, list) or any(isinstance(p, bool) or not isinstance(p, int) for p in v):
        raise ParseError(f"JSON position: {key} must be a list of points", token=json.dumps(v))
    for p in v:
        if not 1 <= p <= 24:
            raise PositionError(f"JSON position: {key} holds a point out of range", token=str(p))
    return list(v)


def position_from_json(obj: Mapping[str, Any] | str, variant: str | None = None) -> Position:
    """Read the JSON form (a dict or its text). Borne-off counts default to what makes 15.

    >>> position_from_json('{"variant": "standard", "mover": [0,0,0,0,0,15] + [0]*18}')
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: JSON position: not valid JSON (Expecting ',' delimiter at column 49): \
'{"variant": "standard", "mover": [0,0,0,0,0,15] + [0]*18}'
    >>> position_from_json({"mover": [0] * 5 + [15] + [0] * 18, "opponent": [0] * 18 + [15] + [0] * 5}).pips()
    (90, 90)
    """
    if isinstance(obj, str):
        loaded = load_json(obj, "JSON position")
        if not isinstance(loaded, dict):
            raise ParseError("JSON position: expected an object", token=obj)
        obj = loaded
    raw_variant = obj.get("variant", variant or "standard")
    if not isinstance(raw_variant, str):
        raise ParseError("JSON position: variant must be a string", token=json.dumps(raw_variant))
    var = canonical_variant(raw_variant)
    if variant is not None and canonical_variant(variant) != var:
        raise ParseError(f"JSON position: a {var} position where {variant} was asked", token=raw_variant)
    unknown = sorted(set(obj) - set(_JSON_KEYS[var]))
    if unknown:
        raise ParseError(f"JSON position: unknown key for a {var} position", token=unknown[0])
    counts: dict[str, list[int]] = {}
    for side in ("mover", "opponent"):
        v = obj.get(side)
        if (not isinstance(v, list) or len(v) != 24
                or any(isinstance(n, bool) or not isinstance(n, int) for n in v)):
            raise ParseError(f"JSON position: {side} must be a list of 24 integers", token=json.dumps(v))
        counts[side] = v
    try:
        return Position.from_points(
            counts["mover"], counts["opponent"],
            mover_bar=_json_int(obj, "mover_bar", 0) or 0,
            opponent_bar=_json_int(obj, "opponent_bar", 0) or 0,
            mover_off=_json_int(obj, "mover_off", None), opponent_off=_json_int(obj, "opponent_off", None),
            mover_reserve=_json_int(obj, "mover_reserve", 0) or 0,
            opponent_reserve=_json_int(obj, "opponent_reserve", 0) or 0,
            mover_can_hit=_json_bool(obj, "mover_can_hit"),
            opponent_can_hit=_json_bool(obj, "opponent_can_hit"),
            pinned_mover=_json_points(obj, "pinned_mover"),
            pinned_opponent=_json_points(obj, "pinned_opponent"),
            game_end=bool(_json_bool(obj, "game_end")), variant=var)
    except OverflowError:
        raise PositionError("JSON position: count out of range") from None


# ---------------------------------------------------------------------- our position key
_VARIANT_LETTER = {"standard": "S", "dutch": "D", "mahbusa": "M"}
_LETTER_VARIANT = {v: k for k, v in _VARIANT_LETTER.items()}
# 2 x (slots + 15 checkers) + flag bits; Mahbusa: 2 x 24 + 30 + at most 15 shared points + 1
_KEY_BYTES = {"standard": 10, "dutch": 11, "mahbusa": 12}
_KEY_RE = re.compile(r"([SDM])\.([A-Za-z0-9_-]+)")


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
    w = _BitWriter()
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
    return f"{_VARIANT_LETTER[var]}.{_b64(w.to_bytes(_KEY_BYTES[var]), url=True)}"


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
    mt = _KEY_RE.fullmatch(tok)
    if not mt:
        raise ParseError("not a position key (S., D. or M. and base64url)", token=tok)
    var = _LETTER_VARIANT[mt.group(1)]
    try:
        data = _unb64(mt.group(2), "position key", url=True)
    except ParseError as e:
        raise _relocate(e, tok) from None
    r = _BitReader(data, "position key", tok)
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
        raise _relocate(e, tok) from None
    if encode_key(pos) != tok:
        raise ParseError("position key: not in canonical form", token=tok)
    return pos


# ---------------------------------------------------------------------- any of the above
@dataclass(frozen=True, slots=True)
class PositionSpec:
    """A position read from text, with whatever match information the text held.

    ``match`` is the score and cube (``None`` when the text held a position only), ``on_roll``
    the player (0/1) whose side ``position`` is seen from, ``dice`` the rolled dice, and
    ``double_offered`` whether a double awaits an answer. For an XGID the player on turn is
    numbered 1 (gnubg's reading), so its gnubg IDs are those gnubg's ``set xgid`` makes.
    An XGID's ``D`` is read as "the player on turn has doubled". ``match_id`` / ``xgid`` keep the raw
    identifier; ``source`` names the form that was read: ``gnubg``, ``gnubg+match``, ``xgid``,
    ``json`` or ``key``.
    """

    position: Position
    source: str
    match: MatchState | None = None
    on_roll: int | None = None
    dice: tuple[int, int] | None = None
    double_offered: bool = False
    match_id: MatchID | None = None
    xgid: XGID | None = None

    def game_over(self) -> str | None:
        """Why the game is over (:meth:`Position.game_over`, or a Match ID whose game state is
        over, resigned or dropped), or ``None`` while it goes on."""
        if self.match_id is not None and self.match_id.game_state > GameState.PLAYING:
            return f"the Match ID says the game is {self.match_id.game_state.name.lower()}"
        return self.position.game_over()


_POS_ID_RE = re.compile(r"[A-Za-z0-9+/]{14}")


def _as_variant(pos: Position, variant: str | None, token: str) -> Position:
    """Re-read a standard position as ``variant`` (for IDs that do not name a variant)."""
    if variant is None or canonical_variant(variant) == pos.variant:
        return pos
    var = canonical_variant(variant)
    try:
        return Position.from_points(pos.mover, pos.opponent, mover_bar=pos.mover_bar,
                                    opponent_bar=pos.opponent_bar, variant=var)
    except PositionError as e:
        raise PositionError(f"not a valid {var} position: {e.message}", token=token) from None


def parse_position_spec(text: str, variant: str | None = None, *, allow_finished: bool = False) -> PositionSpec:
    """Read a position in any form we know: a gnubg Position ID, ``PositionID:MatchID``, an XGID
    (with or without ``XGID=``), the JSON form (text starting with ``{``) or a position key.

    ``variant`` names the variant for forms that do not carry one (gnubg IDs, XGIDs); forms that
    do must agree with it.

    What is read is a position to play: a game that is over (a side has borne off all 15, a
    Mahbusa game ended by the mother rule, a Match ID whose game state is over, resigned or
    dropped) is refused unless ``allow_finished`` (to draw it or key it). A match whose score has
    reached its length is refused always, as is a cube above its limit.

    >>> spec = parse_position_spec("4PPgASjgc/ABMA:cAnqAAAAAAAE")
    >>> spec.source, spec.on_roll, spec.dice, spec.match.length
    ('gnubg+match', 1, (4, 2), 7)
    >>> parse_position_spec("XGID=-aa---E-C---dE---d-e----B-:0:0:1:42:0:0:0:7:10").position == spec.position
    True
    >>> parse_position_spec("hello")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.ParseError: not a position: expected a gnubg Position ID, PositionID:MatchID, \
an XGID, a position key or JSON: 'hello'
    >>> parse_position_spec("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:2:0:7:10")
    Traceback (most recent call last):
    ...
    analyzer.core.errors.RulesError: the match is over: score 7-2 in a 7-point match: \
'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:2:0:7:10'
    """
    spec = _read_position_spec(text, variant)
    tok = text.strip()
    state = spec.match
    if state is not None and is_match_over(state):
        hi, lo = sorted(state.score, reverse=True)
        raise RulesError(f"the match is over: score {hi}-{lo} in a {state.length}-point match", token=tok)
    why = None if allow_finished else spec.game_over()
    if why is not None:
        raise PositionError(f"not a position to play: {why}", token=tok)
    return spec


def _read_position_spec(text: str, variant: str | None) -> PositionSpec:
    tok = text.strip()
    if variant is not None and canonical_variant(variant) not in VARIANTS:
        raise ParseError("unknown variant", token=variant)
    if tok.startswith("{"):
        return PositionSpec(position_from_json(tok, variant), "json")
    if _KEY_RE.fullmatch(tok):
        pos = decode_key(tok)
        if variant is not None and canonical_variant(variant) != pos.variant:
            raise ParseError(f"a {pos.variant} key where {variant} was asked", token=tok)
        return PositionSpec(pos, "key")
    if tok[:5].upper() == "XGID=" or tok.count(":") in (8, 9):
        x = decode_xgid(tok)
        state = MatchState.from_xgid(x)  # the player on turn is player 1, as gnubg reads XGIDs
        on_roll = 1
        return PositionSpec(_as_variant(xgid_position(x), variant, tok), "xgid", match=state,
                            on_roll=on_roll, dice=x.rolled, double_offered=x.dice == "D", xgid=x)
    if tok.count(":") == 1:
        pid, mid_text = (t.strip() for t in tok.split(":"))
        pos = decode_position_id(pid)
        mid = decode_match_id(mid_text)
        return PositionSpec(_as_variant(pos, variant, tok), "gnubg+match", match=mid.match_state(),
                            on_roll=mid.on_roll, dice=mid.dice, double_offered=mid.double_offered,
                            match_id=mid)
    if _POS_ID_RE.fullmatch(tok):
        return PositionSpec(_as_variant(decode_position_id(tok), variant, tok), "gnubg")
    raise ParseError("not a position: expected a gnubg Position ID, PositionID:MatchID, an XGID, "
                     "a position key or JSON", token=_excerpt(tok, 80))
