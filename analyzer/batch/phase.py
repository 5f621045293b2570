"""Game phase of a decision: ``contact``, ``race`` or ``bear-off``.

Contact: some checker still has to pass an opposing one (a checker on the bar, in the Dutch
reserve or pinned counts as behind everything). Race: no contact. Bear-off: a race in which the
decider (the side on roll of the position) has every checker in his home board or off.

>>> from analyzer.core.position import Position
>>> position_phase(Position.start())
'contact'
>>> position_phase(Position.from_notation("P 10:5 | O 20:5 | off P10 O10"))
'race'
>>> from analyzer.core.ids import encode_key
>>> key_phase(encode_key(Position.from_notation("P 6:3 5:2 | O 24:4 19:1 | off P10 O10")))
'bear-off'
>>> key_phase("not a key")
'unknown'
"""

from __future__ import annotations

import numpy as np

from analyzer.core.ids.key import key_slots
from analyzer.core.layout import MOVER_BAR, MOVER_RES, OPP_BAR, OPP_RES, PIN0
from analyzer.core.position import Position

__all__ = ["PHASES", "key_phase", "position_phase"]

PHASES = ("contact", "race", "bear-off")


def _phase(back: int, opp_back: int) -> str:
    """The phase from the mover's rearmost checker and the opponent's (both in the mover's
    numbering, 25 for a checker on the bar or in the reserve, 0 for the opponent's)."""
    if back > opp_back:
        return "contact"
    return "bear-off" if back <= 6 else "race"


def position_phase(pos: Position) -> str:
    """The phase of ``pos`` (see the module docstring)."""
    a = pos.array()
    if a[PIN0 + 1:PIN0 + 25].any():
        return "contact"
    top = a[1:25]
    mine, theirs = np.flatnonzero(top > 0), np.flatnonzero(top < 0)
    back = 25 if a[MOVER_BAR] or a[MOVER_RES] else (int(mine[-1]) + 1 if mine.size else 0)
    opp_back = 0 if a[OPP_BAR] or a[OPP_RES] else (int(theirs[0]) + 1 if theirs.size else 25)
    return _phase(back, opp_back)


def key_phase(key: str) -> str:
    """The phase of the position of a text key (:func:`analyzer.core.ids.encode_key`), read from
    the key's checker counts alone (the position is not built: a dataset holds many keys);
    ``"unknown"`` when the key cannot be read.

    >>> from analyzer.core.ids import encode_key
    >>> from analyzer.rules import find_variant
    >>> starts = [find_variant(v).start() for v in ("standard", "dutch", "mahbusa")]
    >>> [key_phase(encode_key(p)) == position_phase(p) for p in starts]
    [True, True, True]
    """
    try:
        _, mine, theirs = key_slots(key)
    except ValueError:
        return "unknown"
    points, opp_points = mine[:24], theirs[:24]  # each side's own numbering, 1 to 24
    if any(m and opp_points[24 - p] for p, m in enumerate(points, 1)):  # a shared point: a pin (Mahbusa)
        return "contact"
    back = 25 if any(mine[24:]) else max((p for p, n in enumerate(points, 1) if n), default=0)
    opp_back = 0 if any(theirs[24:]) else 25 - max((q for q, n in enumerate(opp_points, 1) if n), default=0)
    return _phase(back, opp_back)
