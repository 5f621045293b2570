"""The gnubg Match ID (``docs/formats.md`` §3.2): 12 base64 characters for 72 bits of cube, owner, dice, score...

>>> decode_match_id("cAkAAAAAAAAA").on_roll
1
>>> match_id_from_state(MatchState(length=7), on_roll=1, dice=(2, 4)).encode()
'cAnqAAAAAAAE'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from analyzer.core.errors import InputError, ParseError
from analyzer.core.ids._codec import b64, relocate, unb64
from analyzer.core.match import MatchState, check_player, inferred_post_crawford

__all__ = ["GameState", "MatchID", "decode_match_id", "encode_match_id", "match_id_from_state"]


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
        """The :class:`~analyzer.core.match.MatchState` this ID describes.

        gnubg's IDs do not say whether the Crawford game is over; a game that is not the Crawford
        game while a player stands at N-1 is taken as post-Crawford. In money play the Jacoby
        rule is on unless the extended ID says it is off.

        >>> decode_match_id("QYkqASAAIAAA").match_state()
        MatchState(length=9, score=(2, 4), cube=2, cube_owner=0, crawford=False, post_crawford=False, \
jacoby=False, beavers=False, raccoons=False, cube_limit=None, automatic_doubles=0, crawford_rule=True)
        """
        post = inferred_post_crawford(self.length, self.score, self.crawford)
        return MatchState(length=self.length, score=self.score, cube=self.cube, cube_owner=self.cube_owner,
                          crawford=self.crawford, post_crawford=post,
                          jacoby=self.length == 0 and not self.jacoby_off)


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
    return b64(key.to_bytes(9, "little"))


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
    key = int.from_bytes(unb64(tok, "Match ID"), "little")
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
        raise relocate(e, tok) from None


def match_id_from_state(
    state: MatchState,
    *,
    on_roll: int,
    turn: int | None = None,
    dice: tuple[int, int] | None = None,
    game_state: int = 1,
    double_offered: bool = False,
    resignation: int = 0,
    extended: bool = True,
) -> MatchID:
    """A gnubg Match ID for ``state`` with ``on_roll`` holding the dice (stored larger first).

    ``turn`` (the player who must act) defaults to ``on_roll``, or to his opponent when a
    double or resignation is offered. With ``extended`` the Jacoby-off bit is written as
    gnubg 1.07 does (set unless this is money play with the Jacoby rule).

    >>> match_id_from_state(MatchState(length=7), on_roll=0, dice=(5, 1), game_state=0).encode()
    'MIDmAAAAAAAE'
    """
    check_player(on_roll)
    if dice is not None:
        dice = (max(dice), min(dice))
    if turn is None:
        turn = 1 - on_roll if (double_offered or resignation) else on_roll
    return MatchID(cube=state.cube, cube_owner=state.cube_owner, on_roll=on_roll,
                   crawford=state.crawford, game_state=GameState(game_state), turn=turn,
                   double_offered=double_offered, resignation=resignation, dice=dice,
                   length=state.length, score=state.score,
                   jacoby_off=extended and not (state.length == 0 and state.jacoby))
