"""Any position text we read: the dispatcher over the gnubg IDs, XGIDs, the JSON form and our key.

>>> spec = parse_position_spec("4HPwATDgc/ABMA")
>>> spec.source, spec.position == Position.start(), spec.match
('gnubg', True, None)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analyzer.core.errors import ParseError, PositionError, RulesError
from analyzer.core.ids._codec import excerpt
from analyzer.core.ids.json_form import position_from_json
from analyzer.core.ids.key import decode_key, key_match
from analyzer.core.ids.match_id import GameState, MatchID, decode_match_id
from analyzer.core.ids.position_id import decode_position_id
from analyzer.core.ids.xgid import XGID, decode_xgid, xgid_position
from analyzer.core.match import MatchState, is_match_over
from analyzer.core.position import VARIANTS, Position, canonical_variant

__all__ = ["PositionSpec", "parse_position_spec"]


@dataclass(frozen=True, slots=True)
class PositionSpec:
    """A position read from text, with whatever match information the text held.

    ``match`` is the score and cube (``None`` when the text held a position only), ``on_roll``
    the player (0/1) whose side ``position`` is seen from, ``dice`` the rolled dice, and
    ``double_offered`` whether a double awaits an answer. For an XGID the bottom player is
    player 1, so the XGID of a decision that the review prints gives back that decision's Match
    ID (gnubg's ``set xgid`` numbers the player on turn 1 instead: where the top player is on
    turn its IDs are ours with the players swapped).
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
    if key_match(tok):
        pos = decode_key(tok)
        if variant is not None and canonical_variant(variant) != pos.variant:
            raise ParseError(f"a {pos.variant} key where {variant} was asked", token=tok)
        return PositionSpec(pos, "key")
    if tok[:5].upper() == "XGID=" or tok.count(":") in (8, 9):
        x = decode_xgid(tok)
        state = x.match_state()  # the bottom player is player 1
        on_roll = 1 if x.turn == 1 else 0
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
                     "a position key or JSON", token=excerpt(tok, 80))
