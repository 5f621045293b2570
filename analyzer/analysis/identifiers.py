"""The identifiers of a replayed decision's position: gnubg Position ID, Match ID, XGID and our key."""

from __future__ import annotations

from dataclasses import dataclass

from analyzer.analysis.replay import Decision
from analyzer.core.ids import encode_key, encode_position_id, match_id_from_state, xgid_from_position

__all__ = ["DecisionIds", "decision_ids"]


@dataclass(frozen=True, slots=True)
class DecisionIds:
    """Identifiers of a decision's position: gnubg Position ID, Match ID and XGID for standard
    games (empty for the variants, which they cannot express) and our text key for every game."""

    position_id: str
    match_id: str
    xgid: str
    key: str


_RESIGN_LEVEL = {"single": 1, "gammon": 2, "backgammon": 3}


def decision_ids(d: Decision) -> DecisionIds:
    """The identifiers of ``d`` as gnubg shows them before the decision: the position from the
    player holding the turn, the dice rolled (for a play), a pending double (take / drop), an
    offered resignation (resign). The game state is "playing" at every decision, the opening
    roll included: the ID gnubg holds there (its text export alone writes 0, "no game", for the
    opening roll, and gnubg reads such an ID back as a position with no game to play). The XGID
    has player 1 at the bottom, so that ``bgreview show`` gives this Match ID for it, whoever is
    on roll.

    >>> from analyzer.formats.mat import read_match_text
    >>> text = " 7 point match\\n Game 1\\n a : 0             b : 0\\n  1) 51: 24/23 13/8\\n"
    >>> from analyzer.analysis.replay import decisions
    >>> [d] = decisions(read_match_text(text)[0])
    >>> ids = decision_ids(d)
    >>> ids.position_id, ids.match_id
    ('4HPwATDgc/ABMA', 'MIHmAAAAAAAE')
    """
    key = encode_key(d.position)
    if not d.position.spec.gnubg_ids:
        return DecisionIds("", "", "", key)
    dice = d.dice if d.kind in ("move", "resign") else None
    offered = d.kind in ("take", "drop")
    resign = _RESIGN_LEVEL.get(d.normalised, 1) if d.kind == "resign" else 0
    mid = match_id_from_state(d.state, on_roll=d.on_roll, dice=d.dice if d.kind in ("move", "resign") else None,
                              game_state=1, double_offered=offered, resignation=resign).encode()
    xgid = str(xgid_from_position(d.position, d.state, mover=d.on_roll, bottom=1, dice=dice,
                                  double_offered=offered))
    return DecisionIds(encode_position_id(d.position), mid, xgid, key)
